/**
 * A body cut into pieces after line feeds, read by several readers (each reading its pieces in body
 * order, as a reading thread does) and merged in body order (server/body-pieces.ts), gives what
 * reading it whole gives: each key once in the order it first appears, the same statements, the
 * same escaped text, and "not plain N-Triples" exactly when the whole reading says so — for cuts at
 * many places, pieces merged in any order, BOMs, blank nodes and long literals across pieces.
 */
import { describe, expect, it } from 'vitest';
import { escapeJsonUtf8 } from '../../src/core/commit/txn-blob.js';
import type { KeyRows } from '../../src/core/transact/txn-request.js';
import { PieceMerge, PieceReader, type PieceRows } from '../../src/server/body-pieces.js';
import { NTriplesBody } from '../../src/server/ntriples-body.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => ((x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5 | 0) >>> 0) / 2 ** 32;
}

/** The body read whole, as the inline path reads it, and escaped as the blob has it. */
function whole(bytes: Uint8Array): { rows: KeyRows; escaped: Uint8Array } | null {
  const body = new NTriplesBody(false);
  if (!body.feed(bytes) || !body.end()) return null;
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { rows: body.rows(), escaped: escapeJsonUtf8(bytes, bom ? 3 : 0, bytes.length) };
}

/** Cut after the first line feed at or past each of `at` (the last piece keeps the rest). */
function cut(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const a of [...at].sort((x, y) => x - y)) {
    if (a < from) continue;
    const nl = bytes.indexOf(10, a);
    if (nl < 0) break;
    pieces.push(bytes.subarray(from, nl + 1));
    from = nl + 1;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

/** The pieces read by `readers` readers (piece k by a random one), merged in a random order. */
function pieced(bytes: Uint8Array, at: number[], readers: number, rnd: () => number): { rows: KeyRows; escaped: Uint8Array } | null {
  const pieces = cut(bytes, at);
  const rs = Array.from({ length: readers }, () => new PieceReader());
  const read: { seq: number; reader: number; piece: PieceRows }[] = [];
  for (let k = 0; k < pieces.length; k++) {
    const reader = Math.floor(rnd() * readers);
    const piece = rs[reader]!.read(pieces[k]!.slice(), k === 0, k === pieces.length - 1);
    if (!piece) return null;
    read.push({ seq: k, reader, piece });
  }
  for (let k = read.length - 1; k > 0; k--) {
    const j = Math.floor(rnd() * (k + 1));
    [read[k], read[j]] = [read[j]!, read[k]!];
  }
  const merge = new PieceMerge();
  for (const r of read) merge.add(r.seq, r.reader, r.piece);
  expect(merge.merged).toBe(pieces.length);
  return merge.result();
}

/** Keys once each, in first-appearance order (two spellings of a key, or a long literal read twice, give it twice in a whole reading). */
const once = (keys: readonly string[]) => [...new Set(keys)];
const statements = (r: KeyRows) => Array.from({ length: r.n }, (_, i) => `${r.keys[r.s[i]!]} ${r.keys[r.p[i]!]} ${r.keys[r.o[i]!]}`).join('\n');

/** Pieced readings at many cuts agree with the whole reading; `exact`: the whole reading's keys are distinct, so the KeyRows are equal too. */
function agrees(text: string | Uint8Array, exact: boolean, seed = 1): void {
  const bytes = typeof text === 'string' ? enc(text) : text;
  const want = whole(bytes);
  const rnd = random(seed);
  for (let round = 0; round < 12; round++) {
    const at = Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => Math.floor(rnd() * bytes.length));
    // Pieces at every line, too.
    if (round === 0) for (let k = 0; k < bytes.length; k += 1 + Math.floor(bytes.length / 200)) at.push(k);
    const got = pieced(bytes, at, 1 + (round % 3), rnd);
    if (want === null) { expect(got).toBeNull(); continue; }
    expect(got).not.toBeNull();
    // Compared as text: the same, and much faster to compare than arrays of thousands of items.
    expect(got!.rows.keys.join('\n')).toBe(once(want.rows.keys).join('\n'));
    expect(statements(got!.rows)).toBe(statements(want.rows));
    if (exact) {
      expect(got!.rows.keys.length).toBe(want.rows.keys.length);
      expect(got!.rows.n).toBe(want.rows.n);
      for (const c of ['s', 'p', 'o'] as const) expect(got!.rows[c].join()).toBe(want.rows[c].join());
    }
    expect(Buffer.compare(got!.escaped, want.escaped)).toBe(0);
  }
}

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('');

describe('N-Triples bodies read in pieces', () => {
  it('merge to the whole reading: keys in first-appearance order, statements, escaped text', () => {
    agrees(lines(3000, (i) => `<http://a.example/s${i % 170}> <http://a.example/p${i % 7}> "v ${i % 900} é€😀 \\"q\\" \\t"@en .\n`), true);
    // A byte-order mark, CRLF lines, comments and blank lines, a last line without a line feed.
    agrees('\uFEFF' + lines(500, (i) => `<http://a.example/s${i % 40}> <http://a.example/p> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> . # c ${i}\r\n${i % 9 ? '' : '\n# only a comment\r\n'}`) + '<http://a.example/s> <http://a.example/p> "end" .', true);
    // Blank nodes repeated across pieces are one key each (the pipeline renames them per transaction).
    agrees(lines(2000, (i) => `_:b${i % 50} <http://a.example/p${i % 3}> _:b${(i * 7) % 61} .\n`), true);
    // Control characters escaped in the blob; tabs between terms.
    agrees(lines(400, (i) => `<http://a.example/s${i}>\t<http://a.example/p>\t"raw \u0001\t\u001f ${i % 13}" .\n`), true);
    agrees('', true);
    agrees('\n\n# nothing\n', true);
  });

  it('merge where the whole reading gives a key twice: two spellings of one key, long literals', () => {
    const long = 'x'.repeat(600);
    agrees(lines(900, (i) => `<http://a.example/s${i % 30}> <http://a.example/p> "${long}${i % 5}" .\n<http://a.example/\\u0073${i % 30}> <http://a.example/p> "a\\u00e9${i % 4}" .\n<http://a.example/s${i % 30}> <http://a.example/p> "aé${i % 4}" .\n`), false);
    // Lines the byte scanner leaves to the line reader (labels outside ASCII are left to n3; an escaped IRI is read by the line reader).
    agrees(lines(600, (i) => `<http://a.example/s${i % 11}> <http://a.example/p> <http://a.example/o\\u00e9${i % 3}> .\n_:b${i % 5} <http://a.example/q> "v" .\n`), false);
  });

  it('say "not plain N-Triples" for the whole body when any piece does', () => {
    const good = lines(1000, (i) => `<http://a.example/s${i % 20}> <http://a.example/p> "${i}" .\n`);
    for (const bad of ['@prefix ex: <http://a.example/> .\n', '<s> <p> <o> .\n', '<http://a.example/s> <http://a.example/p> "x" .\r<http://a.example/s> <http://a.example/p> "y" .\n', '_:é <http://a.example/p> "x" .\n']) {
      agrees(good + bad + good, true);
      agrees(good + good.slice(0, 5000) + bad, true);
    }
    // A carriage return ending the body.
    agrees(good + '<http://a.example/s> <http://a.example/p> "x" .\r', true);
    // A byte-order mark inside the body is no mark (the line reader reads such a line): kept in a later piece too.
    const marked = enc(good + '\uFEFF<http://a.example/s> <http://a.example/p> "x" .\n' + good);
    agrees(marked, false);
    // The mark opens a piece, the first a second reader reads: the same statements.
    const at = marked.indexOf(0xef);
    const [a, b] = [marked.subarray(0, at), marked.subarray(at)];
    const r0 = new PieceReader(), r1 = new PieceReader(), merge = new PieceMerge();
    merge.add(1, 1, r1.read(b.slice(), false, true)!);
    merge.add(0, 0, r0.read(a.slice(), true, false)!);
    const want = whole(marked)!;
    expect(statements(merge.result().rows)).toBe(statements(want.rows));
    expect(statements(want.rows)).toContain('http://a.example/s http://a.example/p "http://www.w3.org/2001/XMLSchema#string||x');
  });

  it('take a reader\'s pieces whatever order they arrive in', () => {
    for (let seed = 1; seed <= 20; seed++) agrees(lines(300, (i) => `<http://a.example/s${(i * seed) % 37}> <http://a.example/p${i % 4}> _:n${i % 23} .\n`), true, seed);
  });
});
