/**
 * encodeCommitRows (a bulk chunk encoded from id columns) writes exactly encodeCommit's bytes for
 * the same assertions, whatever the row order, and refuses what encodeCommit refuses.
 */
import { describe, expect, test } from 'vitest';
import { decodeCommit, encodeCommit, type CommitData, type CommitFlake } from './commit-codec.js';
import { encodeCommitRows, type CommitRows } from './commit-rows.js';
import { Codec, cidOf } from './cid.js';
import { NamespaceTable } from './namespaces.js';
import { blankNode, keyToTerm, literal, namedNode, termKey, type Term } from '../rdf/terms.js';
import { rdf, xsd } from '../rdf/vocab.js';

const hexOf = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const TIME = '2024-01-02T03:04:05.678Z';

/** Assertions of every kind: IRIs (some past U+FFFF or with units >= U+D800), blank nodes, numbers, doubles, booleans, JSON, language strings, graphs. */
function facts(count: number): { g: number; s: Term; p: Term; o: Term }[] {
  const out: { g: number; s: Term; p: Term; o: Term }[] = [];
  for (let i = 0; i < count; i++) {
    const s = i % 13 === 0 ? blankNode(`lg1-b${i % 50}`) : namedNode(`http://example.org/${i % 7 === 0 ? '\u{1F600}' : i % 11 === 0 ? '\uE000' : ''}s${i % 1500}`);
    const p = namedNode(i % 23 === 0 ? `urn:x:p${i % 3}` : `http://example.org/vocab#p${i % 11}`);
    const kinds: Term[] = [
      literal(`value ${i % 700}`), literal(String(i - 4000), namedNode(xsd.integer)), literal(String(i % 97), namedNode(xsd.int)),
      literal(`${i / 7}`, namedNode(xsd.double)), literal(`${i}.50`, namedNode(xsd.decimal)),
      literal(`mot ${i % 300}`, 'fr'), literal(`word ${i % 300}`, i % 2 ? 'en' : 'en-GB'), namedNode(`http://other.org/${i % 900}/`),
      literal(i % 2 ? 'true' : 'false', namedNode(xsd.boolean)), literal(`\u{1F601}${i % 40}`), literal(`\uFB01${i % 40}`),
      literal(`{"a":${i % 5}}`, namedNode(rdf.JSON)), blankNode(`lg1-o${i % 60}`), literal('12345678901234567', namedNode(xsd.long)),
    ];
    out.push({ g: i % 17 === 0 ? 3 + (i % 2) : 0, s, p, o: kinds[i % kinds.length]! });
    // One subject with many values per predicate (runs longer than the insertion-sorted ones).
    if (i % 100 === 0) out.push({ g: 0, s: namedNode('http://example.org/big'), p: namedNode(`http://example.org/vocab#m${i % 3}`), o: kinds[(i / 100) % kinds.length]! });
  }
  const seen = new Set<string>();
  return out.filter((f) => {
    const k = `${f.g} ${termKey(f.s)} ${termKey(f.p)} ${termKey(f.o)}`;
    return !seen.has(k) && seen.add(k) !== undefined;
  });
}

/** The facts as id columns over a small dictionary (ids in first-seen order, rows in `order`). */
function columns(fs: { g: number; s: Term; p: Term; o: Term }[]): { rows: CommitRows; keyOf: (id: number) => string } {
  const ids = new Map<string, number>(), keys: string[] = [];
  const id = (t: Term) => {
    const k = termKey(t);
    let x = ids.get(k);
    if (x === undefined) { x = keys.length; ids.set(k, x); keys.push(k); }
    return x;
  };
  const n = fs.length;
  const rows: CommitRows = { n, g: new Int32Array(n), s: new Int32Array(n), p: new Int32Array(n), o: new Int32Array(n) };
  fs.forEach((f, i) => { rows.g[i] = f.g; rows.s[i] = id(f.s); rows.p[i] = id(f.p); rows.o[i] = id(f.o); });
  return { rows, keyOf: (x) => keys[x]! };
}

describe('encodeCommitRows', () => {
  test('the same bytes and namespace delta as encodeCommit, in any row order', async () => {
    const parent = await cidOf(Codec.commit, new Uint8Array([1]));
    const fs = facts(9000);
    const env = { t: 1, parents: [parent], time: TIME, txn: null, author: '', nsDelta: [] as [number, string][], graphDelta: [[3, 'http://example.org/g3'], [4, 'http://example.org/g4']] as [number, string][] };
    const table = new NamespaceTable();
    table.split('http://other.org/1/'); // a table that already knows some prefixes
    const flakes: CommitFlake[] = fs.map((f) => ({ g: f.g, s: f.s as CommitFlake['s'], p: f.p as CommitFlake['p'], o: f.o, op: true }));
    const data: CommitData = { ...env, meta: [], flakes };
    const expected = encodeCommit(data, table);
    for (const order of [fs, [...fs].reverse(), [...fs].sort((a, b) => termKey(a.o) < termKey(b.o) ? -1 : 1)]) {
      const { rows, keyOf } = columns(order);
      const got = encodeCommitRows(env, table, rows, keyOf);
      expect(hexOf(got.bytes)).toBe(hexOf(expected.bytes));
      expect(got.nsDelta).toEqual(expected.nsDelta);
      expect(got.nsTable.allocated()).toEqual(expected.nsTable.allocated());
    }
    const back = decodeCommit(expected.bytes, table);
    expect(back.flakes.length).toBe(fs.length);
  });

  test('a lone flake in a fresh table, and keys round-trip through the dictionary grammar', async () => {
    const parent = await cidOf(Codec.commit, new Uint8Array([1]));
    const f = { g: 0, s: namedNode('http://a.example/x'), p: namedNode('http://a.example/p'), o: literal('hé', 'de-CH') };
    const env = { t: 5, parents: [parent], time: TIME, txn: null, author: 'me', nsDelta: [] as [number, string][], graphDelta: [] };
    const { rows, keyOf } = columns([f]);
    const got = encodeCommitRows(env, new NamespaceTable(), rows, keyOf);
    const want = encodeCommit({ ...env, meta: [], flakes: [{ ...f, op: true }] }, new NamespaceTable());
    expect(hexOf(got.bytes)).toBe(hexOf(want.bytes));
    expect(decodeCommit(got.bytes, new NamespaceTable()).flakes[0]!.o).toEqual(keyToTerm(termKey(f.o)));
  });

  test('metadata entries are encoded as encodeCommit encodes them (their namespace codes allocated first)', async () => {
    const parent = await cidOf(Codec.commit, new Uint8Array([1]));
    const fs = facts(500);
    const meta = [
      { p: namedNode('http://meta.example/v#message'), o: literal('a message') },
      { p: namedNode('http://meta.example/v#by'), o: namedNode('http://people.example/x/alice') },
      { p: namedNode('http://example.org/vocab#p1'), o: literal('7', namedNode(xsd.integer)) },
    ];
    const env = { t: 2, parents: [parent], time: TIME, txn: null, author: '', nsDelta: [] as [number, string][], graphDelta: [[3, 'http://example.org/g3'], [4, 'http://example.org/g4']] as [number, string][] };
    const flakes: CommitFlake[] = fs.map((f) => ({ g: f.g, s: f.s as CommitFlake['s'], p: f.p as CommitFlake['p'], o: f.o, op: true }));
    const want = encodeCommit({ ...env, meta, flakes }, new NamespaceTable());
    const { rows, keyOf } = columns(fs);
    const got = encodeCommitRows({ ...env, meta }, new NamespaceTable(), rows, keyOf);
    expect(hexOf(got.bytes)).toBe(hexOf(want.bytes));
    expect(got.nsDelta).toEqual(want.nsDelta);
    expect(decodeCommit(got.bytes, new NamespaceTable()).meta.length).toBe(3);
    expect(() => encodeCommitRows({ ...env, meta: [meta[0]!, meta[0]!] }, new NamespaceTable(), rows, keyOf)).toThrow('invalid commit: duplicate metadata entry');
  });

  test('duplicates, literal subjects and empty commits are refused as by encodeCommit', async () => {
    const parent = await cidOf(Codec.commit, new Uint8Array([1]));
    const env = { t: 1, parents: [parent], time: TIME, txn: null, author: '', nsDelta: [] as [number, string][], graphDelta: [] };
    const s = namedNode('http://a.example/x'), p = namedNode('http://a.example/p');
    const keys = [termKey(s), termKey(p), termKey(literal('1', namedNode(xsd.integer))), termKey(literal('01', namedNode(xsd.integer)))];
    // "01" is not canonical: stored lexically, so distinct from "1" and accepted.
    const two: CommitRows = { n: 2, g: Int32Array.of(0, 0), s: Int32Array.of(0, 0), p: Int32Array.of(1, 1), o: Int32Array.of(2, 3) };
    expect(encodeCommitRows(env, new NamespaceTable(), two, (x) => keys[x]!).bytes.length).toBeGreaterThan(0);
    const dup: CommitRows = { n: 2, g: Int32Array.of(0, 0), s: Int32Array.of(0, 0), p: Int32Array.of(1, 1), o: Int32Array.of(2, 2) };
    expect(() => encodeCommitRows(env, new NamespaceTable(), dup, (x) => keys[x]!)).toThrow('invalid commit: duplicate flake');
    const litSubject: CommitRows = { n: 1, g: Int32Array.of(0), s: Int32Array.of(2), p: Int32Array.of(1), o: Int32Array.of(0) };
    expect(() => encodeCommitRows(env, new NamespaceTable(), litSubject, (x) => keys[x]!)).toThrow(/invalid commit: flake subject .* must be an IRI or blank node/);
    const empty: CommitRows = { n: 0, g: new Int32Array(0), s: new Int32Array(0), p: new Int32Array(0), o: new Int32Array(0) };
    expect(() => encodeCommitRows(env, new NamespaceTable(), empty, (x) => keys[x]!)).toThrow('invalid commit: a non-merge commit needs at least one flake');
  });

  test('SIDs kept from commit to commit of a chain give the bytes of encodeCommit over the advanced table', async () => {
    const parent = await cidOf(Codec.commit, new Uint8Array([1]));
    const fs = facts(6000);
    const { rows, keyOf } = columns(fs);
    const cache = new Map<number, { ns: number; local: string }>();
    let table = new NamespaceTable();
    for (let c = 0; c < 3; c++) {
      const part = (col: Int32Array) => col.slice(c * 2000, (c + 1) * 2000);
      const chunk: CommitRows = { n: 2000, g: part(rows.g), s: part(rows.s), p: part(rows.p), o: part(rows.o) };
      const env = { t: c + 1, parents: [parent], time: TIME, txn: null, author: '', nsDelta: [] as [number, string][], graphDelta: [] as [number, string][] };
      const flakes: CommitFlake[] = fs.slice(c * 2000, (c + 1) * 2000).map((f) => ({ g: f.g, s: f.s as CommitFlake['s'], p: f.p as CommitFlake['p'], o: f.o, op: true }));
      const want = encodeCommit({ ...env, meta: [], flakes }, table);
      const got = encodeCommitRows(env, table, chunk, keyOf, cache);
      expect(hexOf(got.bytes)).toBe(hexOf(want.bytes));
      table = got.nsTable;
    }
    expect(cache.size).toBeGreaterThan(0);
  });
});
