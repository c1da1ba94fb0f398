import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSparqlFast, parseSparqlWithSparqljs } from '../../src/core/query/sparql/parse.js';

// ../shared beside the project, as CI lays it out.
const W3C = process.env.LEDGRAPH_W3C_DIR ?? join(import.meta.dirname, '../../../shared/w3c');

/** Algebra JSON with blank-node labels and hidden blank-node variables renamed by first appearance. */
function canon(x: unknown): string {
  const names = new Map<string, string>();
  const rename = (k: string) => { if (!names.has(k)) names.set(k, `b${names.size}`); return names.get(k)!; };
  return JSON.stringify(x, (_k, v: unknown) => {
    if (v && typeof v === 'object' && (v as { termType?: string }).termType === 'BlankNode') return { termType: 'BlankNode', value: rename('bn:' + (v as { value: string }).value) };
    if (v && typeof v === 'object' && (v as { termType?: string }).termType === 'Variable' && (v as { value: string }).value.startsWith('#b:')) return { termType: 'Variable', value: rename((v as { value: string }).value) };
    if (v && typeof v === 'object' && (v as { type?: string }).type === 'var' && (v as { name: string }).name.startsWith('#b:')) return { type: 'var', name: rename((v as { name: string }).name) };
    if (typeof v === 'string' && v.startsWith('#b:')) return rename(v);
    return v;
  });
}

function rqFiles(): string[] {
  const root = join(W3C, 'sparql11');
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const d of readdirSync(root)) {
    const dir = join(root, d);
    try { for (const f of readdirSync(dir)) if (f.endsWith('.rq')) out.push(join(dir, f)); } catch { /* not a dir */ }
  }
  return out.sort();
}

/** Files where sparqljs is wrong: it keeps the backslash of PN_LOCAL_ESC escapes (\? \~ \.) in the IRI. */
const SPARQLJS_WRONG = new Set(['syn-pname-05.rq', 'syn-pname-06.rq', 'syn-pname-07.rq']);

describe('fast SPARQL parser agrees with sparqljs on the W3C query files', () => {
  const files = rqFiles().filter((f) => !SPARQLJS_WRONG.has(f.split('/').pop()!));
  it('found the W3C files', () => { expect(files.length).toBeGreaterThan(200); });
  for (const f of files) {
    it(f.slice(W3C.length + 1), () => {
      const text = readFileSync(f, 'utf8');
      const base = 'http://example.org/base/' + f.split('/').pop();
      let ref: string | undefined;
      try { ref = canon(parseSparqlWithSparqljs(text, { baseIri: base })); } catch { ref = undefined; }
      let mine: string | undefined;
      try { mine = canon(parseSparqlFast(text, { baseIri: base })); } catch (e) { mine = undefined; if (ref !== undefined) throw e; }
      expect(mine).toEqual(ref);
    });
  }
});

describe('fast SPARQL parser details', () => {
  it('unescapes local-name escapes in prefixed names', () => {
    const q = parseSparqlFast('PREFIX : <http://example/> SELECT * { :a :b%3D :c\\~z\\. }');
    expect(JSON.stringify(q.op)).toContain('"http://example/c~z."');
    expect(JSON.stringify(q.op)).toContain('"http://example/b%3D"');
  });
});
