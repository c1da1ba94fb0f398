import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NTriplesByteReader, type IdSink } from '../../src/core/rdf/ntriples-bytes.js';
import { readNTriplesLine } from '../../src/core/rdf/ntriples.js';

/** The byte reader's statements as keys (or its error), fed in chunks of `size` bytes. */
function viaBytes(bytes: Uint8Array, quads: boolean, size: number): { quads: string[][]; fresh: number } | string {
  const keys: string[] = [];
  const byKey = new Map<string, number>();
  const graphs: string[] = [];
  const out: string[][] = [];
  let fresh = 0;
  const sink: IdSink = {
    fresh: (k) => { fresh++; return keys.push(k) - 1; },
    keyId: (k) => { let id = byKey.get(k); if (id === undefined) byKey.set(k, id = keys.push(k) - 1); return id; },
    graphId: (k) => { const i = graphs.indexOf(k); return i >= 0 ? i : graphs.push(k) - 1; },
    row: (g, s, p, o) => { out.push([keys[s]!, keys[p]!, keys[o]!, g < 0 ? '-' : graphs[g]!]); },
  };
  const r = new NTriplesByteReader(quads, sink);
  try {
    for (let i = 0; i < bytes.length; i += size) r.push(bytes.subarray(i, i + size));
    r.end();
  } catch (e) {
    return (e as Error).message;
  }
  return { quads: out, fresh };
}

/** The line reader's statements (or first error) over the same text, as the bulk load splits it. */
function viaLines(bytes: Uint8Array, quads: boolean): string[][] | string {
  let text: string;
  try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { return 'the input is not valid UTF-8'; }
  const out: string[][] = [];
  try {
    text.split('\n').forEach((line, i) => {
      const kq = readNTriplesLine(line.endsWith('\r') ? line.slice(0, -1) : line, i + 1, quads);
      if (kq) out.push([kq.s, kq.p, kq.o, kq.g ?? '-']);
    });
  } catch (e) {
    return (e as Error).message;
  }
  return out;
}

function same(bytes: Uint8Array, quads: boolean): void {
  const want = viaLines(bytes, quads);
  for (const size of [1, 3, 17, 1 << 20]) {
    const got = viaBytes(bytes, quads, size);
    expect(typeof got === 'string' ? got : got.quads).toEqual(want);
  }
}

const enc = (s: string) => new TextEncoder().encode(s);

for (const [folder, quads] of [['rdf-n-triples', false], ['rdf-n-quads', true]] as const) {
  describe(`W3C ${folder}: the byte reader gives the line reader's statements and errors`, () => {
    const dir = join(__dirname, '../../../shared/w3c/rdf11', folder);
    for (const file of readdirSync(dir).filter((f) => /\.n[tq]$/.test(f))) {
      it(file, () => {
        const bytes = new Uint8Array(readFileSync(join(dir, file)));
        same(bytes, quads);
        // Twice over: the second copy's terms come from the table of spellings.
        const twice = new Uint8Array(bytes.length * 2 + 1);
        twice.set(bytes); twice[bytes.length] = 10; twice.set(bytes, bytes.length + 1);
        same(twice, quads);
      });
    }
  });
}

describe('NTriplesByteReader', () => {
  it('decodes each spelling once and takes repeats from the table', () => {
    const line = '<http://a/s> <http://a/p> "x"@en .\n';
    const r = viaBytes(enc(line.repeat(50)), false, 7);
    expect(r).toEqual({ quads: Array(50).fill(['http://a/s', 'http://a/p', '"http://www.w3.org/1999/02/22-rdf-syntax-ns#langString|en|x', '-']), fresh: 3 });
  });

  it('reads CRLF, a byte-order mark, trailing comments, lines split anywhere and a last line without a break', () => {
    same(enc('\uFEFF<http://a/s> <http://a/p> "é" . # ç\r\n_:b1 <http://a/p> _:b2.\r\n\t<http://a/s>\t<http://a/p>\t"1"^^<http://www.w3.org/2001/XMLSchema#integer>.'), false);
    same(enc('<http://a/s> <http://a/p> "x" <http://g/> .\n<http://a/s> <http://a/p> "x" _:g .\n<http://a/s> <http://a/p> "x" .'), true);
  });

  it('gives two spellings of one key the same key (the consumer interns it once), and long literals their own ids', () => {
    const long = 'y'.repeat(600);
    const r = viaBytes(enc(`<http://a/\\u0041> <http://a/p> "${long}" .\n<http://a/A> <http://a/p> "${long}" .\n`), false, 5);
    expect(typeof r === 'string' ? r : r.quads.map((q) => q[0])).toEqual(['http://a/A', 'http://a/A']);
    expect(typeof r === 'string' ? r : r.fresh).toBe(5);
  });

  it('hands lines outside its scanner to the line reader: non-ASCII blank-node labels, errors with their line and column', () => {
    same(enc('_:é1 <http://a/p> _:b·2 .\n_:é1 <http://a/p> "ü" .\n'), false);
    same(enc('<http://a/s> <http://a/p> "x" .\n<http://a/s> <http://a/p> oops .\n'), false);
    same(enc('<http://a/s> <http://a/p> "ü" .\n<http://a/s> <http://a/p> "ü" . junk\n'), false);
    same(enc('<http://a/s> <http://a/p> "x"^<http://a/d> .\n'), false);
    same(enc('<http://a/s> <http://a/p> "a\rb" .\n'), false);
    same(enc('<rel> <http://a/p> "x" .\n'), false);
    same(enc('<http://a/s> <http://a/p> "x" <http://g/> .\n'), false);
  });

  it('refuses bytes that are not UTF-8, in a term, a comment or a cut-off last line', () => {
    for (const bad of [[0xc3, 0x28], [0xff]]) {
      const at = (prefix: string, suffix: string) => { const a = enc(prefix), b = enc(suffix); const x = new Uint8Array(a.length + bad.length + b.length); x.set(a); x.set(bad, a.length); x.set(b, a.length + bad.length); return x; };
      for (const bytes of [at('<http://a/s> <http://a/p> "', '" .\n'), at('<http://a/s> <http://a/p> "x" . # ', '\n'), at('# ', '\n'), at('<http://a/s> <http://a/', '> "x" .\n')]) {
        expect(viaBytes(bytes, false, 4)).toBe('the input is not valid UTF-8');
        expect(viaLines(bytes, false)).toBe('the input is not valid UTF-8');
      }
    }
    expect(viaBytes(enc('<http://a/s> <http://a/p> "\u00e9').subarray(0, -1), false, 4)).toBe('the input is not valid UTF-8');
  });
});
