/**
 * The byte reader for N-Triples request bodies (server/ntriples-body.ts) must read exactly what
 * n3's parse of the whole text reads (transact/parse-rdf.ts), or give the body back to n3: over
 * every document of the W3C N-Triples, N-Quads and Turtle suites and some hand-written ones, fed in
 * small pieces, whatever it accepts n3 accepts too, with the same statements in the same order.
 */
import { describe, expect, it } from 'vitest';
import { termKey, type Term } from '../../src/core/rdf/terms.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import type { TxnQuad } from '../../src/core/transact/txn-request.js';
import { quadsOfRows } from '../../src/core/transact/key-rows.js';
import { NTriplesBody } from '../../src/server/ntriples-body.js';
import { iriOf, loadManifest, readW3c, w3cAvailable } from '../w3c/manifest.js';

const key = (q: TxnQuad) => [q.subject, q.predicate, q.object].map((t) => termKey(t as Term)).join(' ') + ` ${q.graph.termType}:${q.graph.value}`;

/** The byte reader's quads (null: it gave the body up), fed `size` bytes of the UTF-8 text at a time. */
function lineRead(text: string, size: number): string[] | null {
  const r = new NTriplesBody();
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) if (!r.feed(bytes.subarray(at, at + size))) return null;
  return r.end() ? quadsOfRows(r.rows()).map(key) : null;
}

/** n3's reading of the whole text as POST /insert's N-Triples (null: rejected). */
function n3Read(text: string): string[] | null {
  try {
    return parseRdfTxn(text, 'application/n-triples', 'insert').quads.map(key);
  } catch (e) {
    if (/nothing to write/.test((e as Error).message)) return [];
    return null;
  }
}

function check(text: string): 'lines' | 'n3' {
  const n3 = n3Read(text);
  let taken = false;
  for (const size of [text.length + 1, 97, 5, 1]) {
    const lines = lineRead(text, size);
    if (lines === null) continue;
    taken = true;
    expect(n3, `n3 rejects what the line reader accepts:\n${text.slice(0, 400)}`).not.toBeNull();
    expect(lines).toEqual(n3);
  }
  return taken ? 'lines' : 'n3';
}

describe('N-Triples bodies read by the line reader', () => {
  it('reads plain N-Triples as n3 does: comments, CRLF, no final newline, escapes, language tags, datatypes, blank nodes', () => {
    const docs = [
      '<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n',
      '# a comment\r\n<http://a.example/s> <http://a.example/p> "x"@EN-gb .\r\n\r\n_:b1 <http://a.example/p> _:b2 . # trailing\n<http://a.example/s> <http://a.example/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
      '<http://a.example/s> <http://a.example/p> "tab\\there \\"q\\" \\u00E9 \\U0001F600 — ünï" .\n<http://a.example/s\\u0041> <http://a.example/p> "x"^^<http://www.w3.org/2001/XMLSchema#string> .\n',
      '   \n\t<http://a.example/s>\t<http://a.example/p>   "x"  .   \n',
      '',
      '# only a comment\n',
    ];
    for (const d of docs) expect(check(d)).toBe('lines');
  });

  it('gives anything else back to n3: Turtle, relative IRIs, graphs, bare carriage returns, syntax errors', () => {
    const docs = [
      '@prefix ex: <http://a.example/> .\nex:s ex:p ex:o .\n',
      '<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n<s> <p> <o> .\n',
      '<http://a.example/s> <http://a.example/p> <http://a.example/o> <http://a.example/g> .\n',
      '<http://a.example/s> <http://a.example/p> <http://a.example/o> .\r<http://a.example/s> <http://a.example/p> "2" .',
      '<http://a.example/s> <http://a.example/p> """long""" .\n',
      '<http://a.example/s> <http://a.example/p> 12 .\n',
      '_:\u00B2 <http://a.example/p> "x" .\n',
      '<http://a.example/s> <http://a.example/p> "a"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .\n',
      '<http://a.example/s> <http://a.example/p> "a"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString> .\n',
      '<http://a.example/s> <http://a.example/p> "unterminated .\n',
      '<http://a.example/s> <http://a.example/p> [ <http://a.example/q> "x" ] .\n',
      '<http://a.example/s> <http://a.example/p> "x" ; <http://a.example/q> "y" .\n',
    ];
    for (const d of docs) expect(check(d)).toBe('n3');
    // A line still unfinished after 1 MiB is not waited for: n3 reads the body (one
    // arriving whole in a piece is read).
    const long = '<http://a.example/s> <http://a.example/p> "' + 'x'.repeat(2 ** 21) + '" .\n';
    expect(lineRead(long, 65536) === null).toBe(true);
    const whole = lineRead(long, long.length);
    expect(whole !== null && whole.length === 1 && whole[0] === n3Read(long)?.[0]).toBe(true);
  });

  it('refuses bytes that are not UTF-8 as decoding the body does, wherever a piece ends', () => {
    const ok = new TextEncoder().encode('<http://a.example/s> <http://a.example/p> "é€😀" .\n');
    const bad = [
      new Uint8Array([...ok.subarray(0, 44), 0xff, ...ok.subarray(44)]), // a byte no character starts with
      new Uint8Array([...ok.subarray(0, 44), 0xe2, 0x28, ...ok.subarray(44)]), // a lead byte without its continuation
      new Uint8Array([...ok, 0xf0, 0x9f]), // cut at the end
      new Uint8Array([...ok.subarray(0, 44), 0xc0, 0xaf, ...ok.subarray(44)]), // overlong
    ];
    for (const size of [1, 2, 3, 7, 1000]) {
      const r = new NTriplesBody();
      for (let at = 0; at < ok.length; at += size) expect(r.feed(ok.subarray(at, at + size))).toBe(true);
      expect(r.end()).toBe(true);
      expect(quadsOfRows(r.rows()).map(key)).toEqual(n3Read(new TextDecoder().decode(ok)));
      for (const b of bad) {
        const x = new NTriplesBody();
        expect(() => {
          for (let at = 0; at < b.length; at += size) x.feed(b.subarray(at, at + size));
          x.end();
        }).toThrow('the request body is not valid UTF-8');
      }
    }
  });

  it.skipIf(!w3cAvailable())('agrees with n3 on every document of the W3C N-Triples, N-Quads and Turtle suites', () => {
    const tests = ['rdf-n-triples', 'rdf-n-quads', 'rdf-turtle'].flatMap((f) => loadManifest(iriOf(`rdf11/${f}/manifest.ttl`)));
    let taken = 0;
    for (const t of tests) {
      if (!t.action) continue;
      if (check(readW3c(t.action)) === 'lines') taken++;
    }
    // The suites' plain N-Triples documents do take the line reader.
    expect(taken).toBeGreaterThan(40);
  });
});
