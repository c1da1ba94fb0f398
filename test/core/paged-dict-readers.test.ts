/**
 * Readers that look terms up synchronously between their own async reads (Cypher's property-graph
 * reads, GraphQL's per-object resolvers) over a cold paged dictionary: every term they name lives
 * in a page not loaded yet, and the answers must be the same as on a warm process.
 */
import { describe, expect, it } from 'vitest';
import { PAGE_IDS } from '../../src/core/index/dict-page.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { runCypherRead } from '../../src/core/query/cypher/service.js';
import { inferModel } from '../../src/core/query/graphql/model.js';
import { buildDerivedSchema } from '../../src/core/query/graphql/schema.js';
import { runGraphQL } from '../../src/core/query/graphql/service.js';
import { ActiveContext } from '../../src/core/rdf/jsonld-context.js';
import { defaultGraph, literal, namedNode } from '../../src/core/rdf/terms.js';
import { rdf } from '../../src/core/rdf/vocab.js';
import type { TxnQuad } from '../../src/core/transact/txn-request.js';
import { openMemoryStorage, type Storage } from '../../src/storage/index.js';

const EX = 'http://ex.org/';
const N = 4096;
const ex = (s: string) => namedNode(EX + s);

function data(): TxnQuad[] {
  const out: TxnQuad[] = [];
  for (let i = 0; i < N; i++) {
    out.push({ subject: ex('p' + i), predicate: namedNode(rdf.type), object: ex('Person'), graph: defaultGraph });
    out.push({ subject: ex('p' + i), predicate: ex('name'), object: literal('P' + i), graph: defaultGraph });
    out.push({ subject: ex('p' + i), predicate: ex('knows'), object: ex('p' + ((i + 1) % N)), graph: defaultGraph });
  }
  // A property only the last person has: its key is in the last page.
  out.push({ subject: ex('p' + (N - 1)), predicate: ex('late'), object: literal('last'), graph: defaultGraph });
  return out;
}

async function indexed(): Promise<Storage> {
  const storage = openMemoryStorage();
  const conn = new Connection(storage);
  await conn.create('pr');
  await conn.transact('pr', { kind: 'insert', quads: data(), meta: [], opts: {} });
  await conn.reindex('pr');
  await conn.close();
  return storage;
}

/** A new process over the storage: only the index root is read until something is looked up. */
async function cold(storage: Storage): Promise<Connection> {
  const conn = new Connection(storage, { leafCacheBytes: 64 * 1024 });
  const l = await conn.ledger('pr');
  // Every term is in pages; only rdf:type's (pinned at open, page 0) may be loaded.
  expect(l.dict.baseSize).toBe(l.dict.size);
  expect(l.dict.memory().dictPageBytes).toBeLessThan(PAGE_IDS * 200);
  return conn;
}

describe('paged dictionary readers', () => {
  it('Cypher reads on a cold dictionary', async () => {
    const storage = await indexed();
    const conn = await cold(storage);
    const { table } = await runCypherRead(conn, {
      text: 'MATCH (a:Person {name: "P4000"})-[:knows]->(b) RETURN a.name AS a, b.name AS b',
      params: {}, context: { '@vocab': EX },
    }, { ledger: 'pr' });
    expect(table.rows.map((r) => r.map((v) => JSON.stringify(v)))).toHaveLength(1);
    const again = await runCypherRead(await cold(storage), { text: 'MATCH (a:Person) WHERE a.name = "P17" RETURN a.name AS n', params: {}, context: { '@vocab': EX } }, { ledger: 'pr' });
    expect(again.table.rows).toHaveLength(1);
    expect(JSON.stringify(again.table.rows[0])).toContain('P17');
    expect(JSON.stringify(table.rows[0])).toContain('P4001');
    // A property read that is not in the pattern: its key is in a page nothing loaded yet.
    const late = await runCypherRead(await cold(storage), { text: `MATCH (a:Person) WHERE a.name = "P${N - 2}" OR a.name = "P${N - 1}" RETURN a.name AS n, a.late AS l ORDER BY n`, params: {}, context: { '@vocab': EX } }, { ledger: 'pr' });
    expect(late.table.rows.map((r) => JSON.stringify(r))).toEqual([JSON.stringify(['P' + (N - 2), null]), JSON.stringify(['P' + (N - 1), 'last'])].map((x) => x));
  });

  it('GraphQL singular and nested fields on a cold dictionary', async () => {
    const storage = await indexed();
    const ctxJson = { ex: EX };
    // The schema is derived once (it names IRIs, not ids); each request runs on a cold process.
    const warm = new Connection(storage);
    const derived = buildDerivedSchema(await inferModel(await warm.db('pr')), ActiveContext.create(ctxJson));
    const query = '{ person(id: "ex:p4000") { name knows { id name } } }';
    const expected = { data: { person: { name: ['P4000'], knows: [{ id: 'ex:p4001', name: ['P4001'] }] } } };
    expect(await runGraphQL(derived, await warm.db('pr'), ctxJson, { query, explain: false, readOnly: true })).toEqual(expected);
    const conn = await cold(storage);
    expect(await runGraphQL(derived, await conn.db('pr'), ctxJson, { query, explain: false, readOnly: true })).toEqual(expected);
    const conn2 = await cold(storage);
    expect(await runGraphQL(derived, await conn2.db('pr'), ctxJson, { query: '{ persons(limit: 2, where: { name: { EQ: "P3" } }) { name knows { name } } }', explain: false, readOnly: true }))
      .toEqual({ data: { persons: [{ name: ['P3'], knows: [{ name: ['P4'] }] }] } });
  });
});
