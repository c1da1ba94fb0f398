import { describe, expect, it } from 'vitest';
import type { DbView } from '../../index/view.js';
import { querySparql, runningQueries } from '../engine.js';
import { writeSparqlJsonChunked } from './sparql-json.js';
import { sparqlJsonBytes } from './sparql-json-bytes.js';
import { TERM_BYTES_SCRATCH, TermBytes } from './term-bytes.js';
import type { QueryResult } from './types.js';

// The fixture lives outside src (tsconfig rootDir), so it is loaded by a path tsc does not follow.
const FIXTURE = '../../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const DATA = String.raw`
@prefix : <http://ex/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:a :p "plain", "chat"@fr, "1"^^xsd:integer, "quote \" backslash \\ tab \t newline \n", "\u00e9t\u00e9 \u2603", _:b1, :a .
:b :p "x"^^<http://ex/dt> ; :q "only b" .
_:b1 :p "in a blank node" .
`;
const view = viewFromRdf(DATA);

async function text(q: string, path: 'ids' | 'batches' | 'rows'): Promise<string> {
  const r = await querySparql('PREFIX : <http://ex/> ' + q, { view });
  if (r.type !== 'bindings') throw new Error('not bindings');
  const res: QueryResult = path === 'ids' ? r : path === 'batches'
    ? { type: 'bindings', variables: r.variables, rows: r.rows, ...(r.batches ? { batches: r.batches } : {}) }
    : { type: 'bindings', variables: r.variables, rows: r.rows };
  if (path === 'ids') expect(r.ids).toBeDefined();
  let s = '';
  for await (const c of writeSparqlJsonChunked(res, 64)) s += c;
  return s;
}

const QUERIES = [
  'SELECT ?s ?p ?o WHERE { ?s ?p ?o }',
  'SELECT ?o ?s WHERE { ?s :p ?o } ORDER BY ?o',
  // Unbound variables (OPTIONAL, a variable the pattern never binds) are omitted.
  'SELECT ?s ?q ?nothing WHERE { ?s :p ?o OPTIONAL { ?s :q ?q } }',
  // Terms the query computes (overflow ids) beside stored ones.
  'SELECT ?s ?len ?up WHERE { ?s :p ?o BIND(STRLEN(STR(?o)) AS ?len) BIND(UCASE(STR(?o)) AS ?up) }',
  'SELECT * WHERE { VALUES ?v { :a "new" 42 } OPTIONAL { ?v :q ?q } }',
  // Variable names a JS object would reorder take the object route.
  'SELECT ?b ?1 ?0 WHERE { ?b :p ?1 BIND(1 AS ?0) }',
  'SELECT ?s WHERE { ?s :p :nothing }',
  // Rows that bind nothing (`{}`), and a document past the pooled 16 KiB buffer (the buffer grows mid-row).
  'SELECT ?nothing WHERE { ?s :p ?o }',
  'SELECT * WHERE { ?s ?p ?o . ?s2 ?p2 ?o2 }',
];

/** The byte writer's document (chunks of about `chunkBytes`), or null where it declines the result. */
async function bytes(q: string, chunkBytes: number, cache?: TermBytes): Promise<string | null> {
  const r = await querySparql('PREFIX : <http://ex/> ' + q, { view });
  const it = sparqlJsonBytes(r, chunkBytes, cache);
  if (!it) return null;
  const parts: Uint8Array[] = [];
  for await (const c of it) parts.push(c);
  expect(parts.length).toBeGreaterThan(0);
  // A chunk ends at the first row past chunkBytes, inside a batch too (these rows are < 300 bytes; the head is ≈ 60).
  for (const c of parts) expect(c.length).toBeLessThan(Math.max(chunkBytes, 64) + 300);
  return Buffer.concat(parts).toString('utf8');
}

describe('SPARQL JSON from term ids', () => {
  for (const q of QUERIES) {
    it(`writes the same document as from bindings: ${q}`, async () => {
      const fromRows = await text(q, 'rows');
      expect(await text(q, 'batches')).toBe(fromRows);
      expect(await text(q, 'ids')).toBe(fromRows);
      // Again, with every fragment cached now.
      expect(await text(q, 'ids')).toBe(fromRows);
      expect(JSON.parse(fromRows)).toBeTruthy();
    });
    it(`writes the same document as bytes: ${q}`, async () => {
      const fromRows = await text(q, 'rows');
      const direct = !q.includes('?1');
      // One chunk, then chunks of a few bytes (a chunk per batch), then again with every term's bytes cached.
      for (const chunk of [64 * 1024, 8, 64 * 1024]) expect(await bytes(q, chunk)).toBe(direct ? fromRows : null);
      // A ring smaller than one result, and a table of one set: fragments overwritten and evicted mid-document.
      const tiny = new TermBytes(256, 8);
      for (let i = 0; i < 3; i++) expect(await bytes(q, 64 * 1024, tiny)).toBe(direct ? fromRows : null);
    });
  }

  it('gives a small document whole from one next() call, and close() ends the plan of a document left half-written', async () => {
    const q = 'SELECT * WHERE { ?s ?p ?o . ?s2 ?p2 ?o2 }';
    const fromRows = await text(q, 'rows');
    const before = runningQueries();
    const whole = sparqlJsonBytes(await querySparql('PREFIX : <http://ex/> ' + q, { view }))!;
    const one = await whole.next();
    expect(whole.done).toBe(true);
    expect(Buffer.from(one!).toString('utf8')).toBe(fromRows);
    expect(await whole.next()).toBeNull();
    expect(runningQueries()).toBe(before);
    const half = sparqlJsonBytes(await querySparql('PREFIX : <http://ex/> ' + q, { view }), 64)!;
    const first = await half.next();
    expect(half.done).toBe(false);
    expect(fromRows.startsWith(Buffer.from(first!).toString('utf8'))).toBe(true);
    expect(runningQueries()).toBe(before + 1);
    await half.close();
    expect(half.done).toBe(true);
    expect(await half.next()).toBeNull();
    expect(runningQueries()).toBe(before);
  });
  it('writes a document larger than the writer\'s scratch bytes in one chunk, cached fragments and misses mixed', async () => {
    const q = 'SELECT * WHERE { ?s ?p ?o . ?s2 ?p2 ?o2 . ?s3 ?p3 ?o3 }';
    const fromRows = await text(q, 'rows');
    expect(fromRows.length).toBeGreaterThan(4 * TERM_BYTES_SCRATCH);
    for (let i = 0; i < 2; i++) expect(await bytes(q, 4 << 20)).toBe(fromRows);
    // Fragments evicted as the document is written: misses go straight to the output between scratch runs.
    const small = new TermBytes(512, 8);
    for (let i = 0; i < 2; i++) expect(await bytes(q, 4 << 20, small)).toBe(fromRows);
  });
});
