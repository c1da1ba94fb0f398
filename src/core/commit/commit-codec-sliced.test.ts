/**
 * encodeCommitSliced (a big commit's encoding in steps that pause) writes exactly encodeCommit's
 * bytes, on a commit large enough that its flake sort runs in chunks and merges.
 */
import { describe, expect, test } from 'vitest';
import { decodeCommit, encodeCommit, encodeCommitSliced, type CommitData, type CommitFlake } from './commit-codec.js';
import { Codec, cidOf } from './cid.js';
import { NamespaceTable } from './namespaces.js';
import { blankNode, literal, namedNode, type Term } from '../rdf/terms.js';
import { xsd } from '../rdf/vocab.js';
import { TimeSlice } from '../util/next-turn.js';

const hexOf = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** 9,000 flakes of every kind: IRIs (some past U+FFFF), blank nodes, typed and language literals, list items, retractions, graphs. */
function bigFlakes(): CommitFlake[] {
  const out: CommitFlake[] = [];
  for (let i = 0; i < 9000; i++) {
    const s = i % 13 === 0 ? blankNode(`b${i % 50}`) : namedNode(`http://example.org/${i % 7 === 0 ? '\u{1F600}' : ''}s${i % 1500}`);
    const p = namedNode(`http://example.org/vocab#p${i % 11}`);
    const kinds: Term[] = [
      literal(`value ${i}`), literal(String(i - 4000), namedNode(xsd.integer)), literal(`${i / 7}`, namedNode(xsd.double)),
      literal(`mot ${i % 300}`, 'fr'), namedNode(`http://other.org/${i % 900}/`), literal(i % 2 ? 'true' : 'false', namedNode(xsd.boolean)),
      literal(`\u{1F601}${i}`),
    ];
    const f: CommitFlake = { g: i % 17 === 0 ? 3 : 0, s, p, o: kinds[i % kinds.length]!, op: i % 5 !== 0 };
    if (i % 19 === 0) f.i = i % 4;
    out.push(f);
  }
  return out;
}

describe('encodeCommitSliced', () => {
  test('the same bytes as encodeCommit, whatever the input order, and they decode to the input', async () => {
    const parent = await cidOf(Codec.commit, new Uint8Array([1]));
    const flakes = bigFlakes();
    const data: CommitData = {
      t: 1, parents: [parent], time: '2024-01-02T03:04:05.678Z', txn: null, author: '', nsDelta: [], graphDelta: [[3, 'http://example.org/g']],
      meta: [{ p: namedNode('http://example.org/batch'), o: literal('7', namedNode(xsd.integer)) }], flakes,
    };
    const table = new NamespaceTable();
    const sync = encodeCommit(data, table);
    let fired = false;
    setTimeout(() => { fired = true; }, 0);
    const sliced = await encodeCommitSliced(data, table, new TimeSlice(0));
    expect(fired).toBe(true); // a timer ran while it encoded
    expect(hexOf(sliced.bytes)).toBe(hexOf(sync.bytes));
    expect(sliced.nsDelta).toEqual(sync.nsDelta);
    const reversed = await encodeCommitSliced({ ...data, flakes: [...flakes].reverse() }, table, new TimeSlice(1));
    expect(hexOf(reversed.bytes)).toBe(hexOf(sync.bytes));
    const back = decodeCommit(sync.bytes, table);
    expect(back.flakes.length).toBe(flakes.length);
    expect(new Set(back.flakes.map((f) => JSON.stringify(f)))).toEqual(new Set(flakes.map((f) => JSON.stringify(f))));
  });

  test('duplicates are refused as before', async () => {
    const parent = await cidOf(Codec.commit, new Uint8Array([1]));
    const flakes = bigFlakes();
    flakes.push({ ...flakes[4321]! });
    const data: CommitData = { t: 1, parents: [parent], time: '2024-01-02T03:04:05.678Z', txn: null, author: '', nsDelta: [], graphDelta: [[3, 'http://example.org/g']], meta: [], flakes };
    await expect(encodeCommitSliced(data, new NamespaceTable(), new TimeSlice(0))).rejects.toThrow(/duplicate flake/);
  });

  test('cidOfLarge gives cidOf\'s CID, hashed off the event loop for large bytes', async () => {
    const { cidOfLarge, sha256Bytes } = await import('./digest-async.js');
    for (const n of [0, 5, 256 * 1024 - 1, 256 * 1024, 3_000_001]) {
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) bytes[i] = (i * 31 + 7) & 255;
      expect((await cidOfLarge(Codec.txn, bytes)).toString()).toBe((await cidOf(Codec.txn, bytes)).toString());
      expect(hexOf(await sha256Bytes(bytes))).toBe(hexOf((await cidOf(Codec.txn, bytes)).multihash.digest));
    }
  });
});
