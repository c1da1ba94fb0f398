import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'n3';
import { describe, expect, it } from 'vitest';
import { readNTriplesLine } from '../../src/core/rdf/ntriples.js';

const RDFT = 'http://www.w3.org/ns/rdftest#';
const MF = 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#';

function suite(folder: string): { name: string; file: string; positive: boolean }[] {
  const dir = join(__dirname, '../../../shared/w3c/rdf11', folder);
  const base = `https://w3c.github.io/rdf-tests/rdf/rdf11/${folder}/`;
  const quads = new Parser({ baseIRI: base + 'manifest.ttl' }).parse(readFileSync(join(dir, 'manifest.ttl'), 'utf8'));
  const out: { name: string; file: string; positive: boolean }[] = [];
  for (const q of quads) {
    if (q.predicate.value !== 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type') continue;
    const type = q.object.value;
    if (!type.startsWith(RDFT) || !/Syntax$/.test(type)) continue;
    const action = quads.find((x) => x.subject.equals(q.subject) && x.predicate.value === MF + 'action');
    out.push({ name: q.subject.value, file: join(dir, action!.object.value.slice(base.length)), positive: type.includes('Positive') });
  }
  return out;
}

function readAll(text: string, quads: boolean): number {
  let n = 0;
  text.split(/\r?\n|\r/).forEach((line, i) => { if (readNTriplesLine(line, i + 1, quads)) n++; });
  return n;
}

for (const [folder, quads] of [['rdf-n-triples', false], ['rdf-n-quads', true]] as const) {
  describe(`W3C ${folder} syntax with the bulk-load reader`, () => {
    for (const t of suite(folder)) {
      it(`${t.positive ? '+' : '-'} ${t.name.split('#').pop()}`, () => {
        const text = readFileSync(t.file, 'utf8');
        if (t.positive) expect(() => readAll(text, quads)).not.toThrow();
        else expect(() => readAll(text, quads)).toThrow(/syntax error/);
      });
    }
  });
}

describe('readNTriplesLine keys', () => {
  it('produces dictionary keys', () => {
    expect(readNTriplesLine('<http://a/s> <http://a/p> "x\\"y"@EN-gb .', 1, false)).toEqual({ s: 'http://a/s', p: 'http://a/p', o: '"http://www.w3.org/1999/02/22-rdf-syntax-ns#langString|en-gb|x"y', g: null });
    expect(readNTriplesLine('_:b1 <http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> <http://g/> .', 1, true)).toEqual({ s: '_:b1', p: 'http://a/p', o: '"http://www.w3.org/2001/XMLSchema#integer||1', g: 'http://g/' });
    expect(readNTriplesLine('  # comment', 1, false)).toBeNull();
    expect(() => readNTriplesLine('<http://a/s> <http://a/p> "x" ', 7, false)).toThrow(/line 7, column/);
  });
});
