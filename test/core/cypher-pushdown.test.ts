/**
 * WHERE pre-filters pushed into the MATCH algebra (src/core/query/cypher/pushdown.ts) never change
 * a result: rows with non-numeric, multi-valued, missing or out-of-range values are decided by the
 * Cypher evaluation exactly as without the pushdown.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { runCypherRead } from '../../src/core/query/cypher/service.js';
import { fromParam, jsonOf } from '../../src/core/query/cypher/values.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const X = 'http://example.org/';
let conn: Connection;
beforeAll(async () => {
  conn = new Connection(openMemoryStorage());
  await conn.create('p:main', { context: { '@vocab': X, ex: X } });
  await conn.transact('p:main', parseRdfTxn(`@prefix ex: <${X}> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
    ex:a a ex:T ; ex:n 5 ; ex:s "a" . ex:b a ex:T ; ex:n "x" ; ex:s "a1" . ex:c a ex:T ; ex:n 1, 9 . ex:d a ex:T .
    ex:e a ex:T ; ex:n "1200"^^xsd:byte . ex:f a ex:T ; ex:n 2.5 ; ex:m ex:a .
    ex:a ex:v 5 . ex:e ex:v "1200"^^xsd:byte . ex:f ex:v 2.5 .`, 'text/turtle', 'insert'));
});

async function ids(text: string, params: Record<string, unknown> = {}): Promise<unknown[]> {
  const { table, names } = await runCypherRead(conn, { text, params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, fromParam(v)])) }, { ledger: 'p:main' });
  return table.rows.map((r) => r.map((v) => jsonOf(v, names)));
}

describe('pushed-down comparisons', () => {
  it('numeric comparisons with constants and parameters', async () => {
    expect(await ids('MATCH (p:T) WHERE p.n > 3 RETURN id(p) ORDER BY id(p)')).toEqual([['ex:a'], ['ex:e']]);
    expect(await ids('MATCH (p:T) WHERE p.n <= $x AND p.n > 0 RETURN id(p) ORDER BY id(p)', { x: 5 })).toEqual([['ex:a'], ['ex:f']]);
    expect(await ids('MATCH (p:T) WHERE p.n = 2.5 RETURN id(p)')).toEqual([['ex:f']]);
    expect(await ids('MATCH (p:T) WHERE -p.v < -4 RETURN id(p) ORDER BY id(p)')).toEqual([['ex:a'], ['ex:e']]);
  });
  it('comparisons between two nodes\' properties with arithmetic, and string concatenation kept for Cypher', async () => {
    expect(await ids('MATCH (p:T), (q:T) WHERE p.v < q.v - 2 RETURN id(p), id(q) ORDER BY id(p), id(q)')).toEqual([['ex:a', 'ex:e'], ['ex:f', 'ex:a'], ['ex:f', 'ex:e']]);
    // "a" < "a" + 1 = "a1": true in Cypher although nothing is numeric
    expect(await ids('MATCH (p:T), (q:T) WHERE p.s < q.s + 1 AND p <> q RETURN id(p), id(q)')).toEqual([['ex:a', 'ex:b']]);
  });
  it('IS NOT NULL holds for literal values only (an IRI value is a relationship)', async () => {
    expect(await ids('MATCH (p:T) WHERE p.s IS NOT NULL RETURN id(p) ORDER BY id(p)')).toEqual([['ex:a'], ['ex:b']]);
    expect(await ids('MATCH (p:T) WHERE p.m IS NOT NULL RETURN id(p)')).toEqual([]);
    expect(await ids('MATCH (p:T) WHERE p.n IS NOT NULL AND p.n > 2 RETURN id(p) ORDER BY id(p)')).toEqual([['ex:a'], ['ex:e'], ['ex:f']]);
  });
  it('OPTIONAL MATCH with a pushed comparison still yields the null row', async () => {
    expect(await ids('MATCH (p {`@id`: "ex:f"}) OPTIONAL MATCH (p)-[:m]->(q) WHERE q.n > 100 RETURN id(p), q')).toEqual([['ex:f', null]]);
  });
});
