/**
 * The paged dictionary end to end: a ledger of several dictionary pages, indexed and reopened,
 * answers queries and writes whose terms live in pages not yet loaded; a ledger whose index root
 * still has the old whole-dictionary chunks opens, answers, and is rewritten paged at the next index.
 */
import { CID } from 'multiformats/cid';
import { describe, expect, it } from 'vitest';
import { Codec } from '../../src/core/commit/cid.js';
import { PAGE_IDS } from '../../src/core/index/dict-page.js';
import { canonicalJsonBytes, encodeDictChunk, parseJsonNode, type IndexRoot } from '../../src/core/index/root-codec.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { collect } from '../../src/core/query/results/types.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { parseSparqlUpdate } from '../../src/core/query/sparql/update.js';
import { defaultGraph, literal, namedNode } from '../../src/core/rdf/terms.js';
import type { TxnQuad } from '../../src/core/transact/txn-request.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const N = 4096; // subjects: with their values and links, ≈ 3 × N terms over several pages
const ex = (s: string | number) => namedNode('http://ex.org/' + s);

function data(): TxnQuad[] {
  const out: TxnQuad[] = [];
  for (let i = 0; i < N; i++) {
    out.push({ subject: ex('s' + i), predicate: ex('value'), object: literal('value ' + i), graph: defaultGraph });
    out.push({ subject: ex('s' + i), predicate: ex('group'), object: literal(String(i % 7), namedNode('http://www.w3.org/2001/XMLSchema#integer')), graph: defaultGraph });
    out.push({ subject: ex('s' + i), predicate: ex('link'), object: ex('t' + i), graph: defaultGraph });
  }
  return out;
}

async function rows(conn: Connection, q: string): Promise<string[]> {
  const { result } = await runSparql(conn, q, { ledger: 'pd' });
  if (result.type !== 'bindings') throw new Error('bindings');
  return (await collect(result.rows)).map((r) => result.variables.map((v) => r[v]?.value ?? '-').join(' ')).sort();
}

const update = (conn: Connection, text: string) => conn.transact('pd', parseSparqlUpdate(text));

/** Queries whose constants, results and computed terms need pages of a cold dictionary. */
async function checkQueries(conn: Connection, extra: string[] = []): Promise<void> {
  expect(await rows(conn, 'SELECT ?v { <http://ex.org/s4000> <http://ex.org/value> ?v }')).toEqual(['value 4000']);
  expect(await rows(conn, 'SELECT ?s { ?s <http://ex.org/value> "value 17" }')).toEqual(['http://ex.org/s17']);
  expect(await rows(conn, 'SELECT ?s { ?s <http://ex.org/value> ?v FILTER(?v = "value 3001" || ?v = "value 9") }')).toEqual(['http://ex.org/s3001', 'http://ex.org/s9']);
  // A computed IRI that is stored joins with the stored term (its id must be the dictionary's).
  expect(await rows(conn, 'SELECT ?v { BIND(IRI(CONCAT("http://ex.org/s", "40")) AS ?s) ?s <http://ex.org/value> ?v }')).toEqual(['value 40']);
  expect(await rows(conn, 'SELECT ?t { VALUES ?s { <http://ex.org/s1> <http://ex.org/s4095> } ?s <http://ex.org/link> ?t }')).toEqual(['http://ex.org/t1', 'http://ex.org/t4095']);
  // Group keys and aggregate results are computed terms; the integers are also stored literals.
  expect(await rows(conn, 'SELECT ?g (COUNT(*) AS ?n) { ?s <http://ex.org/group> ?g } GROUP BY ?g HAVING (?g = 3)')).toEqual([`3 ${[...Array(N).keys()].filter((i) => i % 7 === 3).length}`]);
  expect(await rows(conn, 'SELECT (COUNT(DISTINCT ?t) AS ?n) { ?s <http://ex.org/link> ?t }')).toEqual([String(N)]);
  for (const e of extra) expect((await rows(conn, e)).length).toBeGreaterThan(0);
}

describe('paged dictionary', () => {
  it('a reopened ledger loads dictionary pages on demand for queries and writes', async () => {
    const storage = openMemoryStorage();
    const conn = new Connection(storage);
    await conn.create('pd');
    await conn.transact('pd', { kind: 'insert', quads: data(), meta: [], opts: {} });
    await conn.reindex('pd');
    const root = parseJsonNode<IndexRoot>(await storage.content.get(CID.parse((await storage.ns.get('pd:main'))!.index_head_id!)), 'index root');
    expect(root.dict.chunks).toEqual([]);
    expect(root.dict.pages!.length).toBe(Math.ceil(root.dict.size / PAGE_IDS));
    expect(root.dict.pages!.length).toBeGreaterThanOrEqual(6);

    // Cold: nothing of the dictionary is in memory but the root.
    const cold = new Connection(storage, { leafCacheBytes: 64 * 1024 });
    const l = await cold.ledger('pd');
    expect(l.dict.baseSize).toBe(root.dict.size);
    expect(l.dict.memory().dictPageBytes).toBe(0);
    await checkQueries(cold);
    // Writes: a retraction and an assertion about terms in pages, and a new term.
    await update(cold, 'DELETE DATA { <http://ex.org/s5> <http://ex.org/value> "value 5" } ; INSERT DATA { <http://ex.org/s6> <http://ex.org/link> <http://ex.org/t4000> . <http://ex.org/new> <http://ex.org/value> "value 6" }');
    expect(await rows(cold, 'SELECT ?v { <http://ex.org/s5> <http://ex.org/value> ?v }')).toEqual([]);
    expect(await rows(cold, 'SELECT ?s { ?s <http://ex.org/link> <http://ex.org/t4000> }')).toEqual(['http://ex.org/s4000', 'http://ex.org/s6']);
    expect(await rows(cold, 'SELECT ?s { ?s <http://ex.org/value> "value 6" }')).toEqual(['http://ex.org/new', 'http://ex.org/s6']);
    await cold.reindex('pd');
    const after = await cold.ledger('pd');
    // The new term and the commit's metadata terms are folded into pages.
    expect(after.dict.baseSize).toBe(after.dict.size);
    expect(after.dict.size).toBeGreaterThan(root.dict.size);
    // A third process sees both.
    const third = new Connection(storage, { leafCacheBytes: 64 * 1024 });
    expect(await rows(third, 'SELECT ?s { ?s <http://ex.org/value> "value 6" }')).toEqual(['http://ex.org/new', 'http://ex.org/s6']);
    expect(await rows(third, 'SELECT ?v { <http://ex.org/s5> <http://ex.org/value> ?v }')).toEqual([]);
    await checkQueries(third);
    // Time travel before the update decodes the same pages.
    const { result } = await runSparql(third, 'SELECT ?v { <http://ex.org/s5> <http://ex.org/value> ?v }', { ledger: 'pd@t:1' });
    expect(result.type === 'bindings' && (await collect(result.rows)).map((r) => r.v!.value)).toEqual(['value 5']);
  });

  it('opens a ledger indexed in the old whole-dictionary format and rewrites it paged at the next index', async () => {
    const storage = openMemoryStorage();
    const conn = new Connection(storage);
    await conn.create('pd');
    await conn.transact('pd', { kind: 'insert', quads: data(), meta: [], opts: {} });
    await conn.reindex('pd');
    // Rewrite the index root the way `main` wrote it: the keys as JSON chunks of 65,536.
    const rec = (await storage.ns.get('pd:main'))!;
    const root = parseJsonNode<IndexRoot>(await storage.content.get(CID.parse(rec.index_head_id!)), 'index root');
    const l = await conn.ledger('pd');
    const keys = await l.dict.keysOf(0, root.dict.size);
    const chunks: string[] = [];
    for (let i = 0; i < keys.length; i += 65_536) chunks.push((await storage.content.put(Codec.dict, encodeDictChunk(i, keys.slice(i, i + 65_536)))).toString());
    const old: IndexRoot = { ...root, dict: { size: root.dict.size, chunks } };
    const oldCid = (await storage.content.put(Codec.indexRoot, canonicalJsonBytes(old))).toString();
    expect(await storage.ns.compareAndSet('pd:main', rec, { ...rec, index_head_id: oldCid })).toBe(true);

    const reopened = new Connection(storage);
    const l2 = await reopened.ledger('pd');
    expect(l2.tree!.root.dict.pages).toBeUndefined();
    expect(l2.dict.baseSize).toBe(0); // read whole, as before
    expect(l2.dict.size).toBe(root.dict.size);
    await checkQueries(reopened);
    await update(reopened, 'INSERT DATA { <http://ex.org/s1> <http://ex.org/value> "again" }');
    await reopened.reindex('pd');
    const next = parseJsonNode<IndexRoot>(await storage.content.get(CID.parse((await storage.ns.get('pd:main'))!.index_head_id!)), 'index root');
    expect(next.dict.chunks).toEqual([]);
    expect(next.dict.size).toBeGreaterThan(root.dict.size);
    // The same pages the new format wrote for the same ids (content-addressed).
    expect(next.dict.pages!.slice(0, -1)).toEqual(root.dict.pages!.slice(0, -1));
    const paged = new Connection(storage, { leafCacheBytes: 64 * 1024 });
    expect((await paged.ledger('pd')).dict.baseSize).toBe(next.dict.size);
    await checkQueries(paged);
    expect(await rows(paged, 'SELECT ?v { <http://ex.org/s1> <http://ex.org/value> ?v }')).toEqual(['again', 'value 1']);
  });
});
