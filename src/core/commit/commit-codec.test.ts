import { beforeAll, describe, expect, test } from 'vitest';
import {
  COMMIT_HEADER_SIZE, canonicalJson, compareCodePoints, decodeCommit, decodeEnvelope, encodeCommit, formatDouble,
  inspectCommit, type CommitData, type CommitFlake,
} from './commit-codec.js';
import { ByteReader } from './bytes.js';
import { Codec, cidOf, type CID } from './cid.js';
import { NamespaceTable } from './namespaces.js';
import { blankNode, literal, namedNode, type Term } from '../rdf/terms.js';
import { rdf, xsd } from '../rdf/vocab.js';
import { expect422 } from '../test-support/expect-error.js';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const EX = 'http://example.org/';
const ex = (l: string) => namedNode(EX + l);
const TIME = '2024-01-02T03:04:05.678Z';

let parent: CID;
let parent2: CID;
let txnCid: CID;
beforeAll(async () => {
  parent = await cidOf(Codec.commit, new Uint8Array([1]));
  parent2 = await cidOf(Codec.commit, new Uint8Array([2]));
  txnCid = await cidOf(Codec.txn, new Uint8Array([3]));
});

function commit(flakes: CommitFlake[], extra: Partial<CommitData> = {}): CommitData {
  return { t: 1, parents: [parent], time: TIME, txn: null, author: '', nsDelta: [], graphDelta: [], meta: [], flakes, ...extra };
}
/** Encode, check the decode equals the input (with the delta the encoder wrote), return the bytes. */
function roundTrip(data: CommitData, table = new NamespaceTable()): Uint8Array {
  const enc = encodeCommit(data, table);
  expect(decodeCommit(enc.bytes, table)).toEqual({ ...data, nsDelta: enc.nsDelta });
  return enc.bytes;
}
const assert = (s: CommitFlake['s'], p: string, o: Term, more: Partial<CommitFlake> = {}): CommitFlake => ({ g: 0, s, p: ex(p), o, op: true, ...more });

/** Object tags of the flakes, in stored order, read straight from the bytes. */
function storedTags(bytes: Uint8Array): number[] {
  const r = new ByteReader(bytes);
  r.raw(8);
  const envLen = r.u32();
  r.u32();
  r.raw(envLen);
  for (let n = r.varint(), k = 0; k < n; k++) r.skipBytes();
  const tags: number[] = [];
  for (let n = r.varint(), k = 0; k < n; k++) {
    r.varint();
    for (let j = 0; j < 6; j++) r.varint();
    const flags = r.u8();
    const tag = r.u8();
    tags.push(tag);
    if (tag === 0) { r.varint(); r.varint(); } else if (tag === 1) r.varintBig(); else if (tag === 2) r.f64(); else if (tag === 4) r.u8(); else r.skipBytes();
    if (flags & 2) r.skipBytes();
    if (flags & 4) r.varint();
  }
  return tags;
}

describe('exact layout', () => {
  test('a one-flake commit, byte by byte', () => {
    const { bytes, nsDelta, nsTable } = encodeCommit(commit([assert(ex('alice'), 'name', literal('Alice'))]), new NamespaceTable());
    expect(nsDelta).toEqual([[100, EX]]);
    expect(nsTable.prefixOf(100)).toBe(EX);
    const expected =
      '4c474332' + '02' + '00' + '0000' + '5d000000' + '23000000' // header: magic, version, flags, reserved, envelope_len 93, flakes_len 35
      + '01' // t = 1
      + '01' + '27' + hex(parent.bytes) // one parent, 39-byte binary CID
      + '18' + hex(new TextEncoder().encode(TIME)) // time
      + '00' // txn absent
      + '00' // author ""
      + '01' + '64' + '13' + hex(new TextEncoder().encode(EX)) // ns_delta: 100 -> http://example.org/
      + '00' // graph_delta
      + '00' // meta
      + '03' + '05616c696365' + '046e616d65' + '06737472696e67' // names: alice, name, string
      + '01' // one flake
      + '00' // g
      + '6400' + '6401' + '0102' // s = (100, #0), p = (100, #1), dt = (1 xsd:, #2)
      + '01' // flags: assert
      + '03' + '05416c696365'; // tag 3 string "Alice"
    expect(hex(bytes)).toBe(expected);
    expect(bytes.length).toBe(144);
    expect(parent.bytes.length).toBe(39);
  });

  test('txn CID, author, graph delta, language and list index fields', () => {
    const data = commit([
      assert(ex('a'), 'label', literal('hi', 'en'), { g: 3, i: 2 }),
    ], { txn: txnCid, author: 'did:key:z6Mk', graphDelta: [[3, 'http://example.org/g']] });
    const bytes = roundTrip(data);
    const env = decodeEnvelope(bytes);
    expect(env.txn!.equals(txnCid)).toBe(true);
    expect(env.author).toBe('did:key:z6Mk');
    expect(env.graphDelta).toEqual([[3, 'http://example.org/g']]);
    // Flake tail: flags = assert|lang|list (07), tag 3 "hi", lang "en", list index 2.
    expect(hex(bytes.subarray(bytes.length - 9))).toBe('07' + '03026869' + '02656e' + '02');
  });
});

describe('object kinds round-trip exactly', () => {
  const cases: [string, Term, number][] = [
    ['IRI reference', ex('bob'), 0],
    ['blank node reference', blankNode('b0'), 0],
    ['string', literal('Alice'), 3],
    ['empty string', literal(''), 3],
    ['unicode string', literal('Zoë 😀 日本'), 3],
    ['language string', literal('Olá', 'pt-br'), 3],
    ['integer', literal('42', namedNode(xsd.integer)), 1],
    ['negative integer', literal('-7', namedNode(xsd.integer)), 1],
    ['zero', literal('0', namedNode(xsd.integer)), 1],
    ['int64 max', literal('9223372036854775807', namedNode(xsd.integer)), 1],
    ['int64 min', literal('-9223372036854775808', namedNode(xsd.integer)), 1],
    ['beyond int64', literal('9223372036854775808', namedNode(xsd.integer)), 5],
    ['non-canonical integer 01', literal('01', namedNode(xsd.integer)), 5],
    ['non-canonical integer +1', literal('+1', namedNode(xsd.integer)), 5],
    ['non-canonical integer -0', literal('-0', namedNode(xsd.integer)), 5],
    ['xsd:int', literal('34', namedNode(xsd.int)), 1],
    ['xsd:long', literal('-34', namedNode(xsd.long)), 1],
    ['double', literal('1.5', namedNode(xsd.double)), 2],
    ['double exponent', literal('1e+21', namedNode(xsd.double)), 2],
    ['double INF', literal('INF', namedNode(xsd.double)), 2],
    ['double -INF', literal('-INF', namedNode(xsd.double)), 2],
    ['double NaN', literal('NaN', namedNode(xsd.double)), 2],
    ['double -0', literal('-0', namedNode(xsd.double)), 2],
    ['double 1.50 keeps its lexical', literal('1.50', namedNode(xsd.double)), 5],
    ['double 1.0E0 keeps its lexical', literal('1.0E0', namedNode(xsd.double)), 5],
    ['double Infinity is not XSD', literal('Infinity', namedNode(xsd.double)), 5],
    ['float', literal('0.1', namedNode(xsd.float)), 2],
    ['boolean true', literal('true', namedNode(xsd.boolean)), 4],
    ['boolean false', literal('false', namedNode(xsd.boolean)), 4],
    ['boolean 1', literal('1', namedNode(xsd.boolean)), 5],
    ['decimal', literal('3.14', namedNode(xsd.decimal)), 5],
    ['dateTime', literal('2024-05-06T07:08:09Z', namedNode(xsd.dateTime)), 5],
    ['custom datatype', literal('x y', namedNode('http://example.org/dt')), 5],
    ['canonical JSON', literal('{"a":[1,true,null],"b":"x"}', namedNode(rdf.JSON)), 6],
    ['non-canonical JSON keeps its text', literal('{"b":1, "a":2}', namedNode(rdf.JSON)), 5],
    ['invalid JSON keeps its text', literal('{nope', namedNode(rdf.JSON)), 5],
  ];
  for (const [name, o, tag] of cases) {
    test(`${name} (tag ${tag})`, () => {
      const data = commit([assert(ex('s'), 'p', o)]);
      expect(storedTags(roundTrip(data))).toEqual([tag]);
    });
  }

  test('blank node subjects are stored as ns 0 `_:label`', () => {
    const data = commit([assert(blankNode('x1'), 'knows', blankNode('x2'))]);
    const { bytes, nsDelta } = encodeCommit(data, new NamespaceTable());
    expect(nsDelta).toEqual([[100, EX]]);
    const r = new ByteReader(bytes, 'commit blob', COMMIT_HEADER_SIZE + new DataView(bytes.buffer).getUint32(8, true));
    expect([r.varint(), r.str(), r.str(), r.str(), r.str()]).toEqual([4, '_:x1', 'knows', '@id', '_:x2']);
    roundTrip(data);
  });

  test('all kinds in one commit, sorted, with retractions and graphs', () => {
    const flakes = cases.map(([, o], k) => assert(ex('s' + (k % 5)), 'p' + (k % 3), o, { g: k % 2 ? 3 : 0, op: k % 4 !== 0 }));
    const data = commit(flakes, { graphDelta: [[3, EX + 'graph']] });
    const { bytes } = encodeCommit(data, new NamespaceTable());
    const decoded = decodeCommit(bytes, new NamespaceTable());
    expect(decoded.flakes.length).toBe(flakes.length);
    expect(new Set(decoded.flakes.map((f) => JSON.stringify(f)))).toEqual(new Set(flakes.map((f) => JSON.stringify(f))));
    // Re-encoding the decoded commit gives the same bytes.
    expect(hex(encodeCommit(decoded, new NamespaceTable()).bytes)).toBe(hex(bytes));
  });
});

describe('views', () => {
  test('a blob inside a larger buffer at an odd offset decodes the same', () => {
    const data = commit([assert(ex('a'), 'p', literal('1.5', namedNode(xsd.double)))]);
    const enc = encodeCommit(data, new NamespaceTable());
    const big = new Uint8Array(enc.bytes.length + 10);
    big.set(enc.bytes, 3);
    const view = big.subarray(3, 3 + enc.bytes.length);
    expect(decodeCommit(view, new NamespaceTable())).toEqual({ ...data, nsDelta: enc.nsDelta });
    expect(decodeEnvelope(view).size).toBe(enc.bytes.length);
  });
});

describe('canonical order', () => {
  test('flakes sorted by (g, s, p, o, dt), retraction before assertion', () => {
    const a = ex('a'), b = ex('b');
    const flakes: CommitFlake[] = [
      assert(b, 'p', literal('1', namedNode(xsd.integer))),
      { g: 3, s: a, p: ex('p'), o: literal('x'), op: true },
      assert(a, 'q', literal('x')),
      assert(a, 'p', literal('y')),
      { g: 0, s: a, p: ex('p'), o: literal('y'), op: false },
      assert(a, 'p', literal('10', namedNode(xsd.integer))),
      assert(a, 'p', literal('9', namedNode(xsd.integer))),
      assert(a, 'p', ex('z')),
    ];
    const { bytes } = encodeCommit(commit(flakes, { graphDelta: [[3, EX + 'g']] }), new NamespaceTable());
    const out = decodeCommit(bytes, new NamespaceTable()).flakes.map((f) => `${f.g} ${f.s.value} ${f.p.value.slice(EX.length)} ${f.o.value} ${f.op}`);
    expect(out).toEqual([
      `0 ${EX}a p ${EX}z true`,
      `0 ${EX}a p 9 true`,
      `0 ${EX}a p 10 true`,
      `0 ${EX}a p y false`,
      `0 ${EX}a p y true`,
      `0 ${EX}a q x true`,
      `0 ${EX}b p 1 true`,
      `3 ${EX}a p x true`,
    ]);
  });

  test('the bytes do not depend on input order', () => {
    const flakes = [
      assert(ex('b'), 'p', literal('x')),
      assert(namedNode('http://z.org/c'), 'p', literal('y')),
      assert(ex('a'), 'p', namedNode('http://y.org/o')),
    ];
    const meta = [{ p: ex('batch'), o: literal('7', namedNode(xsd.integer)) }, { p: namedNode('https://ns.ledgraph.dev/message'), o: literal('m') }];
    const one = encodeCommit(commit(flakes, { meta }), new NamespaceTable());
    const two = encodeCommit(commit([...flakes].reverse(), { meta: [...meta].reverse() }), new NamespaceTable());
    expect(hex(one.bytes)).toBe(hex(two.bytes));
    // Allocation follows sorted metadata, then sorted flakes: ex: (meta), then y.org (a's object), then z.org.
    expect(one.nsDelta).toEqual([[100, EX], [101, 'http://y.org/'], [102, 'http://z.org/']]);
  });

  test('strings compare by code point (UTF-8 order), not UTF-16 unit', () => {
    expect(compareCodePoints('\uff5e', '😀')).toBeLessThan(0);
    expect('\uff5e' < '😀').toBe(false);
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
    expect(compareCodePoints('b', 'a')).toBeGreaterThan(0);
    expect(compareCodePoints('x', 'x')).toBe(0);
  });

  test('duplicates are refused', () => {
    expect422(() => encodeCommit(commit([assert(ex('a'), 'p', literal('x')), assert(ex('a'), 'p', literal('x'))]), new NamespaceTable()), 'invalid commit: duplicate flake');
    const m = { p: ex('m'), o: literal('x') };
    expect422(() => encodeCommit(commit([assert(ex('a'), 'p', literal('x'))], { meta: [m, m] }), new NamespaceTable()), 'invalid commit: duplicate metadata entry');
    // The same fact with a different list index or language is a different fact.
    const ok = encodeCommit(commit([assert(ex('a'), 'p', literal('x'), { i: 0 }), assert(ex('a'), 'p', literal('x'), { i: 1 })]), new NamespaceTable());
    expect(decodeCommit(ok.bytes, new NamespaceTable()).flakes.map((f) => f.i)).toEqual([0, 1]);
  });
});

describe('namespace codes across a chain', () => {
  test('delta announces new codes; known codes are not re-announced', () => {
    const t0 = new NamespaceTable();
    const c1 = encodeCommit(commit([assert(ex('a'), 'p', namedNode('http://other.org/x'))]), t0);
    expect(c1.nsDelta).toEqual([[100, EX], [101, 'http://other.org/']]);
    expect(t0.nextCode).toBe(100); // the input table is never mutated
    const c2 = encodeCommit(commit([assert(ex('b'), 'p', literal('x'))], { t: 2 }), c1.nsTable);
    expect(c2.nsDelta).toEqual([]);
    expect(c2.nsTable).toBe(c1.nsTable);
    const c3 = encodeCommit(commit([assert(ex('b'), 'p', namedNode('urn:x:1'))], { t: 3 }), c2.nsTable);
    expect(c3.nsDelta).toEqual([[102, 'urn:x:']]);

    // Decoding each commit over the table before it, then advancing with its delta.
    const table = new NamespaceTable();
    for (const c of [c1, c2, c3]) {
      const d = decodeCommit(c.bytes, table);
      table.applyDelta(d.nsDelta);
    }
    expect(table.allocated()).toEqual(c3.nsTable.allocated());
    expect(decodeCommit(c3.bytes, c2.nsTable).flakes[0]!.o).toEqual(namedNode('urn:x:1'));
  });

  test('a code nobody announced is a 422', () => {
    const c1 = encodeCommit(commit([assert(ex('a'), 'p', literal('x'))]), new NamespaceTable());
    const c2 = encodeCommit(commit([assert(ex('b'), 'p', literal('x'))], { t: 2 }), c1.nsTable);
    expect422(() => decodeCommit(c2.bytes, new NamespaceTable()), 'malformed commit blob: unknown namespace code 100');
  });

  test('a delta contradicting the table is a 422', () => {
    const c1 = encodeCommit(commit([assert(ex('a'), 'p', literal('x'))]), new NamespaceTable());
    const other = new NamespaceTable();
    other.applyDelta([[100, 'http://else.org/']]);
    expect422(() => decodeCommit(c1.bytes, other), 'malformed commit blob: namespace delta contradicts the table: code 100 is "http://else.org/", not "http://example.org/"');
  });

  test('caller-provided delta entries are announced as given', () => {
    const data = commit([assert(namedNode('http://f.org/voc/a'), 'p', literal('x'))], { nsDelta: [[500, 'http://f.org/voc/']] });
    const enc = encodeCommit(data, new NamespaceTable());
    expect(enc.nsDelta).toEqual([[500, 'http://f.org/voc/'], [501, EX]]);
    const dec = decodeCommit(enc.bytes, new NamespaceTable());
    expect(dec.nsDelta).toEqual([[500, 'http://f.org/voc/'], [501, EX]]);
    expect(hex(encodeCommit(dec, new NamespaceTable()).bytes)).toBe(hex(enc.bytes));
  });

  test('past the code limit IRIs are stored whole under code 0', () => {
    const t = new NamespaceTable();
    t.applyDelta([[65535, 'http://last.org/']]);
    const enc = encodeCommit(commit([assert(ex('a'), 'p', literal('x'))]), t);
    expect(enc.nsDelta).toEqual([]);
    expect(decodeCommit(enc.bytes, t).flakes[0]!.s).toEqual(ex('a'));
  });
});

describe('metadata', () => {
  test('round trip of string, typed, language and reference values', () => {
    const meta = [
      { p: namedNode('https://ns.ledgraph.dev/message'), o: literal('nightly import') },
      { p: ex('batch'), o: literal('7', namedNode(xsd.integer)) },
      { p: ex('note'), o: literal('oi', 'pt') },
      { p: ex('source'), o: namedNode('http://src.org/feed') },
      { p: ex('when'), o: literal('2024-01-01', namedNode(xsd.date)) },
    ];
    const data = commit([assert(ex('dan'), 'name', literal('Dan'))], { meta });
    const { bytes } = encodeCommit(data, new NamespaceTable());
    const dec = decodeCommit(bytes, new NamespaceTable());
    expect(dec.meta).toEqual([meta[1], meta[2], meta[3], meta[4], meta[0]]);
    const env = decodeEnvelope(bytes);
    expect(env.meta[4]).toEqual({ p: { ns: 6, local: 'message' }, dt: { ns: 1, local: 'string' }, o: { tag: 3, v: 'nightly import' }, lang: null });
    expect(env.meta[0]!.o).toEqual({ tag: 1, v: 7 });
    expect(env.meta[2]!.o).toEqual({ tag: 0, v: { ns: 101, local: 'feed' } });
  });
});

describe('genesis, merges, envelope', () => {
  test('genesis: t 0, no parents, may be empty', () => {
    const data = commit([], { t: 0, parents: [] });
    const bytes = roundTrip(data);
    expect(decodeEnvelope(bytes)).toEqual({ t: 0, parents: [], time: TIME, txn: null, author: '', nsDelta: [], graphDelta: [], meta: [], flakeCount: 0, size: bytes.length });
  });

  test('merge commit may be empty', () => {
    const data = commit([], { t: 5, parents: [parent, parent2] });
    const { bytes } = encodeCommit(data, new NamespaceTable());
    const d = decodeCommit(bytes, new NamespaceTable());
    expect(d.parents.map(String)).toEqual([parent.toString(), parent2.toString()]);
    expect(d.flakes).toEqual([]);
  });

  test('decodeEnvelope and inspectCommit', () => {
    const data = commit([assert(ex('a'), 'p', literal('x')), { ...assert(ex('a'), 'p', literal('y')), op: false }], { t: 9, txn: txnCid });
    const { bytes } = encodeCommit(data, new NamespaceTable());
    const env = decodeEnvelope(bytes);
    expect([env.t, env.time, env.flakeCount, env.size, env.parents[0]!.equals(parent), env.txn!.equals(txnCid)]).toEqual([9, TIME, 2, bytes.length, true, true]);
    const ins = inspectCommit(bytes);
    expect([ins.asserts, ins.retracts, ins.flakeCount]).toEqual([1, 1, 2]);
  });

  test('encode-side validation', async () => {
    const f = [assert(ex('a'), 'p', literal('x'))];
    const t = new NamespaceTable();
    const many = await Promise.all(Array.from({ length: 17 }, (_, k) => cidOf(Codec.commit, new Uint8Array([k]))));
    expect422(() => encodeCommit(commit(f, { parents: many, t: 3 }), t), 'invalid commit: 17 parents (at most 16)');
    expect422(() => encodeCommit(commit(f, { parents: [parent, parent] }), t), 'invalid commit: duplicate parent');
    expect422(() => encodeCommit(commit(f, { parents: [txnCid] }), t), 'invalid commit: parents[0] has codec 0x300002, expected 0x300001');
    expect422(() => encodeCommit(commit(f, { txn: parent }), t), 'invalid commit: txn has codec 0x300001, expected 0x300002');
    expect422(() => encodeCommit(commit(f, { t: 0 }), t), 'invalid commit: t is 0 exactly for the genesis commit (no parents)');
    expect422(() => encodeCommit(commit(f, { t: 1, parents: [] }), t), 'invalid commit: t is 0 exactly for the genesis commit (no parents)');
    expect422(() => encodeCommit(commit(f, { t: -1 }), t), 'invalid commit: t must be an integer in 0..9007199254740991, got -1');
    expect422(() => encodeCommit(commit([]), t), 'invalid commit: a non-merge commit needs at least one flake');
    expect422(() => encodeCommit(commit(f, { time: '2024-01-02T03:04:05Z' }), t), 'invalid commit: time "2024-01-02T03:04:05Z" is not RFC 3339 UTC with milliseconds');
    expect422(() => encodeCommit(commit(f, { time: '2024-02-30T03:04:05.000Z' }), t), 'invalid commit: time "2024-02-30T03:04:05.000Z" is not RFC 3339 UTC with milliseconds');
    expect422(() => encodeCommit(commit(f, { graphDelta: [[2, 'x:y']] }), t), 'invalid commit: graph id 2 in graph_delta is below 3');
    expect422(() => encodeCommit(commit(f, { graphDelta: [[4, 'x:y'], [3, 'x:z']] }), t), 'invalid commit: graph_delta ids not strictly ascending at 3');
    expect422(() => encodeCommit(commit([assert(ex('a'), 'p', literal('x'), { i: -1 })]), t), 'invalid commit: flakes[0].i must be an integer in 0..9007199254740991, got -1');
    expect422(() => encodeCommit(commit([assert(namedNode('_:x'), 'p', literal('x'))]), t), 'invalid commit: flakes[0].s: IRI "_:x" looks like a blank node');
    expect422(() => encodeCommit(commit([{ ...assert(ex('a'), 'p', literal('x')), p: blankNode('p') as never }]), t), 'invalid commit: flakes[0].p must be an IRI');
    const badLang = { termType: 'Literal', value: 'x', language: 'en', datatype: namedNode(xsd.string) } as const;
    expect422(() => encodeCommit(commit([assert(ex('a'), 'p', badLang)]), t), 'invalid commit: flakes[0].o: a language tag goes with rdf:langString and only with it');
    const noLang = { termType: 'Literal', value: 'x', language: '', datatype: namedNode(rdf.langString) } as const;
    expect422(() => encodeCommit(commit([assert(ex('a'), 'p', noLang)]), t), 'invalid commit: flakes[0].o: a language tag goes with rdf:langString and only with it');
    expect422(() => encodeCommit(commit(f, { nsDelta: [[7, 'http://x/']] }), t), 'namespace delta contradicts the table: code 7 is outside 100..65535');
  });
});

describe('rejection of malformed blobs', () => {
  let good: Uint8Array;
  beforeAll(() => {
    good = encodeCommit(commit([assert(ex('alice'), 'name', literal('Alice'))]), new NamespaceTable()).bytes;
  });
  const patched = (at: number, ...vals: number[]) => {
    const b = good.slice();
    vals.forEach((v, k) => { b[at + k] = v; });
    return b;
  };
  const decoders = [
    (b: Uint8Array) => decodeCommit(b, new NamespaceTable()),
    (b: Uint8Array) => decodeEnvelope(b),
    (b: Uint8Array) => inspectCommit(b),
  ];

  test('every truncation is a 422', () => {
    for (let n = 0; n < good.length; n++) {
      for (const dec of decoders) {
        expect(() => dec(good.subarray(0, n))).toThrow(/^malformed commit blob: /);
      }
    }
  });

  test('header checks', () => {
    for (const dec of decoders) {
      expect422(() => dec(patched(0, 0x4d)), 'malformed commit blob: bad magic (expected LGC2)');
      expect422(() => dec(patched(4, 3)), 'malformed commit blob: unsupported format version 3');
      expect422(() => dec(patched(5, 1)), 'malformed commit blob: flags must be 0, got 1');
      expect422(() => dec(patched(6, 0, 1)), 'malformed commit blob: reserved header bytes must be 0');
      expect422(() => dec(Uint8Array.from([...good, 0])), 'malformed commit blob: declared lengths 16+93+35 do not match the blob size 145');
      expect422(() => dec(patched(8, 94)), 'malformed commit blob: declared lengths 16+94+35 do not match the blob size 144');
      expect422(() => dec(good.subarray(0, 10)), 'malformed commit blob: 10 bytes is shorter than the 16-byte header');
    }
  });

  test('envelope length must end exactly at the envelope', () => {
    // Move one byte from the flake section into the envelope: the envelope then has a trailing byte.
    expect422(() => decodeEnvelope(patched(8, 94, 0, 0, 0, 34)), 'malformed commit blob: 1 trailing bytes after envelope');
    expect422(() => decodeEnvelope(patched(8, 92, 0, 0, 0, 36)), 'malformed commit blob: truncated varint at offset 108');
  });

  test('envelope field checks', () => {
    expect422(() => decodeEnvelope(patched(16, 0)), 'malformed commit blob: t 0 with 1 parents (t is 0 exactly for the genesis commit)');
    expect422(() => decodeEnvelope(patched(17, 17)), 'malformed commit blob: 17 parents (at most 16)');
    expect422(() => decodeEnvelope(patched(20, 0x82)), 'malformed commit blob: CID at offset 18 has codec 0x300002, expected 0x300001');
    expect422(() => decodeEnvelope(patched(59 + 10, 0x20)), 'malformed commit blob: time "2024-01-02 03:04:05.678Z" is not RFC 3339 UTC with milliseconds');
    expect422(() => decodeEnvelope(patched(86, 99)), 'malformed commit blob: ns_delta code 99 outside 100..65535');
    expect422(() => decodeEnvelope(patched(88, 0xff)), 'malformed commit blob: invalid UTF-8 in string at offset 88');
  });

  test('flake section checks', () => {
    // Flake section starts at 109: names (19 bytes), count at 128, g 129, sids 130..135, flags 136, tag 137.
    expect422(() => decodeCommit(patched(128, 0), new NamespaceTable()), 'malformed commit blob: a non-genesis, non-merge commit has no flakes');
    expect422(() => decodeCommit(patched(131, 3), new NamespaceTable()), 'malformed commit blob: name index 3 at offset 131 beyond the 3-entry name table');
    expect422(() => decodeCommit(patched(130, 99), new NamespaceTable()), 'malformed commit blob: unknown namespace code 99');
    expect422(() => decodeCommit(patched(136, 9), new NamespaceTable()), 'malformed commit blob: flake 0: unknown flag bits in 9');
    expect422(() => decodeCommit(patched(137, 8), new NamespaceTable()), 'malformed commit blob: unknown object tag 8 at offset 137');
    expect422(() => decodeCommit(patched(137, 7), new NamespaceTable()), 'malformed commit blob: vector objects (tag 7) are not supported yet (offset 137)');
    expect422(() => inspectCommit(patched(137, 8)), 'malformed commit blob: unknown object tag 8 at offset 137');
    // Tag 4 (boolean) with payload byte 5 ("Alice" length), then trailing bytes.
    expect422(() => decodeCommit(patched(137, 4), new NamespaceTable()), 'malformed commit blob: boolean byte 5 at offset 138');
    // Tag 0 (reference) with datatype xsd:string.
    expect422(() => decodeCommit(patched(137, 0, 100, 0, 0, 0, 0, 0), new NamespaceTable()), 'malformed commit blob: reference object with a literal datatype');
    // Flag "has lang" on an xsd:string literal, with "Alice" consumed as the language: runs out of bytes.
    expect422(() => decodeCommit(patched(136, 3), new NamespaceTable()), 'malformed commit blob: truncated varint at offset 144');
    // A literal whose datatype is "@id", and a blank-node datatype.
    const two = encodeCommit(commit([assert(ex('a'), 'p', literal('x')), assert(ex('a'), 'q', blankNode('b'))]), new NamespaceTable()).bytes;
    const r = new ByteReader(two, 'commit blob', COMMIT_HEADER_SIZE + new DataView(two.buffer).getUint32(8, true));
    const names: string[] = [];
    for (let n = r.varint(), k = 0; k < n; k++) names.push(r.str());
    expect(names).toEqual(['a', 'p', 'string', 'q', '@id', '_:b']);
    r.varint();
    const dtAt = r.pos + 5; // g (1 byte), s (2), p (2)
    expect([two[dtAt], two[dtAt + 1]]).toEqual([1, 2]);
    const withDt = (ns: number, idx: number) => { const b = two.slice(); b[dtAt] = ns; b[dtAt + 1] = idx; return b; };
    expect422(() => decodeCommit(withDt(0, 4), new NamespaceTable()), 'malformed commit blob: object tag 3 with datatype @id');
    expect422(() => decodeCommit(withDt(0, 5), new NamespaceTable()), 'malformed commit blob: datatype "_:b" is not an IRI');
    expect(decodeCommit(withDt(0, 2), new NamespaceTable()).flakes[0]!.o).toEqual(literal('x', namedNode('string')));
    // A predicate that resolves to a blank node: point p at the object's name `_:x`.
    const blankP = encodeCommit(commit([assert(ex('a'), 'p', blankNode('x'))]), new NamespaceTable()).bytes;
    const p = blankP.slice();
    const flakeStart = p.length - 11;
    // g; s (100, "a"); p (100, "p"); dt (0, "@id"); flags assert; tag 0; o (0, "_:x").
    expect(Array.from(p.subarray(flakeStart))).toEqual([0, 100, 0, 100, 1, 0, 2, 1, 0, 0, 3]);
    p[flakeStart + 3] = 0; p[flakeStart + 4] = 3;
    expect422(() => decodeCommit(p, new NamespaceTable()), 'malformed commit blob: flake 0: predicate is a blank node');
  });
});

describe('lexical helpers', () => {
  test('formatDouble', () => {
    expect([0.1, 1e21, -0, 0, NaN, Infinity, -Infinity, 5e-324, 100].map(formatDouble)).toEqual(['0.1', '1e+21', '-0', '0', 'NaN', 'INF', '-INF', '5e-324', '100']);
  });
  test('canonicalJson (RFC 8785)', () => {
    expect(canonicalJson({ b: [1, 2.5, -0, 1e21], a: { d: null, c: 'é\n' }, '€': true, '\u0080': false })).toBe('{"a":{"c":"é\\n","d":null},"b":[1,2.5,0,1e+21],"\u0080":false,"€":true}');
    expect422(() => canonicalJson({ x: Infinity }), 'invalid commit: JSON numbers must be finite');
    expect422(() => canonicalJson(undefined), 'invalid commit: undefined is not a JSON value');
  });
});
