import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { defaultGraph, literal, namedNode } from '../../src/core/rdf/terms.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { sortedRows as rows } from '../support/sparql-rows.js';

const NQ = [
  '<http://ex.org/a> <http://ex.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
  '<http://ex.org/a> <http://ex.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .', // duplicate
  '<http://ex.org/a> <http://ex.org/q> _:x .',
  '_:x <http://ex.org/name> "x node"@en .',
  '# a comment',
  '',
  '<http://ex.org/b> <http://ex.org/p> "2"^^<http://www.w3.org/2001/XMLSchema#integer> <http://ex.org/g1> .',
  '<http://ex.org/c> <http://ex.org/p> "3"^^<http://www.w3.org/2001/XMLSchema#integer> <http://ex.org/g1> .',
  '<http://ex.org/d> <http://ex.org/p> "4" .',
].join('\n');

async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('bulk load', () => {
  it('loads N-Quads in chunked commits, dedupes, and builds a queryable, reopenable index', async () => {
    const storage = openMemoryStorage();
    const conn = new Connection(storage);
    await conn.create('bulk');
    const phases = new Set<string>();
    // 7-byte chunks split lines and multi-byte characters across reads.
    const r = await conn.bulkLoad('bulk', chunks(NQ, 7), { format: 'n-quads', commitFlakes: 2, onProgress: (p) => phases.add(p.phase) });
    // Every 2 statements read are one commit of what is new among them: the duplicate leaves 1.
    expect(r).toMatchObject({ ledger_id: 'bulk:main', triples: 6, commits: 4, t: 4, statements: 7 });
    expect([...phases].sort()).toEqual(['commit', 'index']);
    expect(await rows(conn, 'bulk', 'SELECT ?s ?o { ?s <http://ex.org/p> ?o }')).toEqual(['http://ex.org/a 1', 'http://ex.org/d 4']);
    expect(await rows(conn, 'bulk', 'SELECT ?g ?s { GRAPH ?g { ?s ?p ?o } }')).toEqual(['http://ex.org/g1 http://ex.org/b', 'http://ex.org/g1 http://ex.org/c']);
    expect(await rows(conn, 'bulk', 'SELECT ?n { <http://ex.org/a> <http://ex.org/q> ?x . ?x <http://ex.org/name> ?n }')).toEqual(['x node']);
    const perCommit = await Promise.all([1, 2, 3, 4].map(async (t) => (await rows(conn, `bulk@t:${t}`, 'SELECT ?s { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }')).length));
    expect(perCommit).toEqual([1, 3, 5, 6]);
    // Reopen from storage: the index carries the data; normal writes continue at t 5.
    const again = new Connection(storage);
    expect(await rows(again, 'bulk', 'SELECT ?s ?o { ?s <http://ex.org/p> ?o }')).toEqual(['http://ex.org/a 1', 'http://ex.org/d 4']);
    const w = await again.transact('bulk', { kind: 'insert', quads: [{ subject: namedNode('http://ex.org/e'), predicate: namedNode('http://ex.org/p'), object: literal('5'), graph: defaultGraph }], meta: [], opts: {} });
    expect(w.t).toBe(5);
    expect((await rows(again, 'bulk', 'SELECT ?s { ?s <http://ex.org/p> ?o }')).length).toBe(3);
  });

  it('skips a statement already loaded by an earlier chunk, whichever chunk and graph it comes back in', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('dup');
    const lines = [
      '<http://ex.org/a> <http://ex.org/p> "1" .', '<http://ex.org/b> <http://ex.org/p> "2" .',
      '<http://ex.org/c> <http://ex.org/p> "3" <http://ex.org/g> .', '<http://ex.org/a> <http://ex.org/p> "1" .',
      '<http://ex.org/a> <http://ex.org/p> "1" <http://ex.org/g> .', '<http://ex.org/c> <http://ex.org/p> "3" <http://ex.org/g> .',
      '<http://ex.org/b> <http://ex.org/q> "2" .', '<http://ex.org/b> <http://ex.org/p> "2" .',
    ];
    const r = await conn.bulkLoad('dup', chunks(lines.join('\n'), 5), { format: 'n-quads', commitFlakes: 3 });
    expect(r).toMatchObject({ statements: 8, triples: 5, commits: 3, t: 3 });
    expect(await rows(conn, 'dup', 'SELECT ?s ?p ?o ?g { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }')).toEqual([
      'http://ex.org/a http://ex.org/p 1 -', 'http://ex.org/a http://ex.org/p 1 http://ex.org/g', 'http://ex.org/b http://ex.org/p 2 -',
      'http://ex.org/b http://ex.org/q 2 -', 'http://ex.org/c http://ex.org/p 3 http://ex.org/g',
    ]);
    expect((await rows(conn, 'dup@t:2', 'SELECT ?s ?p ?o ?g { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }')).length).toBe(4);
  });

  it('reports syntax errors with the line and loads nothing; loads into a ledger with data, skipping current facts', async () => {
    const storage = openMemoryStorage();
    const conn = new Connection(storage);
    await conn.create('b2');
    await expect(conn.bulkLoad('b2', chunks('<http://a/s> <http://a/p> "x" .\n<http://a/s> <http://a/p> oops .\n', 100))).rejects.toThrow(/line 2, column 27/);
    expect((await conn.ledger('b2')).t).toBe(0);
    expect((await conn.ledger('b2')).dict.idOfKey('http://a/s')).toBeUndefined(); // nothing interned stays
    await conn.transact('b2', { kind: 'insert', quads: [{ subject: namedNode('http://a/s'), predicate: namedNode('http://a/p'), object: literal('x'), graph: defaultGraph }], meta: [], opts: {} });
    const r = await conn.bulkLoad('b2', chunks('<http://a/s> <http://a/p> "x" .\n<http://a/s> <http://a/p> "y" .\n<http://a/t> <http://a/p> "x" .\n', 5));
    expect(r).toMatchObject({ previous_t: 1, t: 2, statements: 3, triples: 2, commits: 1 });
    expect(await rows(conn, 'b2', 'SELECT ?s ?o { ?s <http://a/p> ?o }')).toEqual(['http://a/s x', 'http://a/s y', 'http://a/t x']);
    expect(await rows(conn, 'b2@t:1', 'SELECT ?s ?o { ?s <http://a/p> ?o }')).toEqual(['http://a/s x']);
    // A rerun adds nothing and commits nothing.
    expect(await conn.bulkLoad('b2', chunks('<http://a/t> <http://a/p> "x" .', 100))).toMatchObject({ t: 2, triples: 0, commits: 0 });
    // Reopened from storage: index and history as loaded.
    const again = new Connection(storage);
    expect(await rows(again, 'b2', 'SELECT ?s ?o { ?s <http://a/p> ?o }')).toEqual(['http://a/s x', 'http://a/s y', 'http://a/t x']);
    expect(await rows(again, 'b2@t:1', 'SELECT ?s ?o { ?s <http://a/p> ?o }')).toEqual(['http://a/s x']);
  });

  it('reads Turtle, TriG and JSON-LD documents, blank nodes scoped per document', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('fmt');
    const doc = (text: string, format: 'turtle' | 'trig' | 'json-ld') => ({ source: chunks(text, 3), format });
    const r = await conn.bulkLoad('fmt', [
      doc('@prefix ex: <http://ex.org/> .\nex:a ex:knows _:x, [ ex:name "anon" ] .\n_:x ex:name "x1" .\n', 'turtle'),
      doc('@prefix ex: <http://ex.org/> .\nex:g { ex:b ex:knows _:x . _:x ex:name "x2" . }\n', 'trig'),
      doc('{"@id": "http://ex.org/c", "http://ex.org/age": 5}', 'json-ld'),
    ]);
    expect(r).toMatchObject({ statements: 7, triples: 7, t: 1 });
    expect(await rows(conn, 'fmt', 'SELECT ?s ?n { { ?s <http://ex.org/knows> ?x . ?x <http://ex.org/name> ?n } UNION { GRAPH ?g { ?s <http://ex.org/knows> ?x . ?x <http://ex.org/name> ?n } } }'))
      .toEqual(['http://ex.org/a anon', 'http://ex.org/a x1', 'http://ex.org/b x2']);
    expect(await rows(conn, 'fmt', 'SELECT ?a { <http://ex.org/c> <http://ex.org/age> ?a }')).toEqual(['5']);
    await expect(conn.bulkLoad('fmt', [doc('@prefix ex: <http://ex.org/> .\nex:a ex:p "1" .\nex:a ex:p ex:b ex:c .\n', 'turtle')])).rejects.toThrow(/Turtle syntax error at line 3/);
    await expect(conn.bulkLoad('fmt', [doc('<rel> <http://ex.org/p> "1" .', 'turtle')])).rejects.toMatchObject({ status: 400 });
    expect((await conn.ledger('fmt')).t).toBe(1);
  });
});

describe('bulk sorting', () => {
  it('derives every order from SPOT as a full sort would, and sorts grouped or scattered subjects alike', async () => {
    const { allocRun, sortUniqueRun, sortRun } = await import('../../src/core/index/run.js');
    const { orderFromSpot } = await import('../../src/core/transact/bulk-index.js');
    const { sortSpot } = await import('../../src/core/transact/bulk-sort.js');
    let seed = 7;
    const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
    for (const grouped of [true, false]) {
      const r = allocRun(5000);
      for (let i = 0; i < 5000; i++) {
        r.g[i] = rnd(5) === 0 ? 1 : 0; r.s[i] = grouped ? i >> 3 : rnd(700); r.p[i] = rnd(9); r.o[i] = rnd(90_000); r.m[i] = -1; r.op[i] = 1; r.n++;
      }
      const cols = (x: { n: number; g: Int32Array; s: Int32Array; p: Int32Array; o: Int32Array }) => Array.from({ length: x.n }, (_, i) => `${x.g[i]} ${x.s[i]} ${x.p[i]} ${x.o[i]}`);
      const spot = sortSpot(r);
      expect(cols(spot)).toEqual(cols(sortRun(r, 'spot')));
      // Unique rows (as after dedupe) for the index orders.
      const uniq = allocRun(spot.n);
      const { copyRow } = await import('../../src/core/index/run.js');
      const keys = cols(spot);
      for (let i = 0; i < spot.n; i++) if (i === 0 || keys[i] !== keys[i - 1]) copyRow(uniq, spot, i);
      for (const order of ['spot', 'psot', 'post', 'opst'] as const) expect(cols(orderFromSpot(uniq, order))).toEqual(cols(sortUniqueRun(uniq, order)));
    }
  });

  it('merges a few rows into a large run as mergeRuns does (ties, t and retractions included)', async () => {
    const { allocRun, mergeRuns, sortRun } = await import('../../src/core/index/run.js');
    const { mergeFew } = await import('../../src/core/transact/bulk-index.js');
    let seed = 11;
    const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
    const run = (n: number) => {
      const r = allocRun(n);
      for (let i = 0; i < n; i++) { r.g[i] = rnd(3); r.s[i] = rnd(40); r.p[i] = rnd(4); r.o[i] = rnd(30); r.m[i] = -1; r.t[i] = 1 + rnd(3); r.op[i] = rnd(2); r.n++; }
      return r;
    };
    const rows = (x: { n: number; g: Int32Array; s: Int32Array; p: Int32Array; o: Int32Array; t: Int32Array; op: Uint8Array }) => Array.from({ length: x.n }, (_, i) => `${x.g[i]} ${x.s[i]} ${x.p[i]} ${x.o[i]} ${x.t[i]} ${x.op[i]}`);
    for (const order of ['spot', 'psot', 'post', 'opst'] as const) {
      for (const few of [0, 1, 7, 40]) {
        const a = sortRun(run(few), order), b = sortRun(run(3000), order);
        expect(rows(mergeFew(a, b, order))).toEqual(rows(mergeRuns(a, b, order)));
      }
    }
  });
});
