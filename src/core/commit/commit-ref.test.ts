import { beforeAll, describe, expect, test } from 'vitest';
import { commitMessage, envelopeIri, summarize } from './commit-ref.js';
import { decodeEnvelope, encodeCommit, type CommitData } from './commit-codec.js';
import { Codec, cidOf, type CID } from './cid.js';
import { NamespaceTable } from './namespaces.js';
import { LedgraphError } from '../errors.js';
import { literal, namedNode } from '../rdf/terms.js';
import { xsd } from '../rdf/vocab.js';

const ex = (l: string) => namedNode('http://example.org/' + l);
const MESSAGE = namedNode('https://ns.ledgraph.dev/message');
let parent: CID;
beforeAll(async () => { parent = await cidOf(Codec.commit, new Uint8Array([1])); });

function data(extra: Partial<CommitData> = {}): CommitData {
  return {
    t: 4, parents: [parent], time: '2024-03-04T05:06:07.089Z', txn: null, author: '', nsDelta: [], graphDelta: [], meta: [],
    flakes: [
      { g: 0, s: ex('a'), p: ex('name'), o: literal('A'), op: true },
      { g: 0, s: ex('a'), p: ex('name'), o: literal('B'), op: false },
      { g: 0, s: ex('b'), p: ex('name'), o: literal('C'), op: true },
    ],
    ...extra,
  };
}

describe('summarize', () => {
  test('counts, message, size, parents', async () => {
    const { bytes } = encodeCommit(data({ meta: [{ p: MESSAGE, o: literal('nightly import') }, { p: ex('batch'), o: literal('7', namedNode(xsd.integer)) }] }), new NamespaceTable());
    const cid = await cidOf(Codec.commit, bytes);
    const s = summarize(cid, bytes);
    expect({ ...s, cid: s.cid.toString(), parents: s.parents.map(String) }).toEqual({
      cid: cid.toString(), t: 4, time: '2024-03-04T05:06:07.089Z', parents: [parent.toString()],
      asserts: 2, retracts: 1, message: 'nightly import', size: bytes.length,
    });
  });

  test('no message, or a message that is not a string, is null', async () => {
    const plain = encodeCommit(data(), new NamespaceTable()).bytes;
    expect(summarize(await cidOf(Codec.commit, plain), plain).message).toBe(null);
    const numeric = encodeCommit(data({ meta: [{ p: MESSAGE, o: literal('5', namedNode(xsd.integer)) }] }), new NamespaceTable()).bytes;
    expect(summarize(await cidOf(Codec.commit, numeric), numeric).message).toBe(null);
  });

  test('a non-commit CID is refused', async () => {
    const bytes = encodeCommit(data(), new NamespaceTable()).bytes;
    const wrong = await cidOf(Codec.txn, bytes);
    expect(() => summarize(wrong, bytes)).toThrow(LedgraphError);
    expect(() => summarize(wrong, bytes)).toThrow(`${wrong.toString()} is not a commit CID (codec 0x300002)`);
  });

  test('a malformed blob is a 422', async () => {
    const bytes = encodeCommit(data(), new NamespaceTable()).bytes;
    const cid = await cidOf(Codec.commit, bytes);
    expect(() => summarize(cid, bytes.subarray(0, bytes.length - 1))).toThrow('malformed commit blob: declared lengths');
  });
});

describe('envelope helpers', () => {
  test('envelopeIri resolves code 0, reserved and self-announced codes only', () => {
    const table = new NamespaceTable();
    table.applyDelta([[100, 'http://example.org/']]);
    const { bytes } = encodeCommit(data({ t: 5, meta: [{ p: ex('note'), o: literal('x') }, { p: namedNode('http://new.org/p'), o: literal('y') }] }), table);
    const env = decodeEnvelope(bytes);
    expect(env.nsDelta).toEqual([[101, 'http://new.org/']]);
    expect(envelopeIri(env, { ns: 101, local: 'p' })).toBe('http://new.org/p');
    expect(envelopeIri(env, { ns: 100, local: 'note' })).toBe(null);
    expect(envelopeIri(env, { ns: 6, local: 'message' })).toBe('https://ns.ledgraph.dev/message');
    expect(envelopeIri(env, { ns: 0, local: 'urn:x' })).toBe('urn:x');
    expect(commitMessage(env)).toBe(null);
  });
});
