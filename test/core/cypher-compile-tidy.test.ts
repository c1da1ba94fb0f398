/**
 * Compiled Cypher reads with the profile's proofs (tidy.ts, coverage.ts): a RETURN-only property
 * every matched node has once is a required triple pattern, tests the profile proves true are
 * dropped — and where a node lacks the property, holds an IRI for it, or a value of another kind,
 * the left join and the tests stay. Rows are compared exactly with the clause-by-clause run.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Op } from '../../src/core/query/algebra/algebra.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { resolveDataset } from '../../src/core/query/dataset.js';
import { compiledRead } from '../../src/core/query/cypher/compile.js';
import { Graph } from '../../src/core/query/cypher/graph.js';
import { Names } from '../../src/core/query/cypher/names.js';
import { parseCypher } from '../../src/core/query/cypher/parse.js';
import { runStatement } from '../../src/core/query/cypher/run.js';
import { jsonOf } from '../../src/core/query/cypher/values.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const X = 'http://x/';
const conn = new Connection(openMemoryStorage());

beforeAll(async () => {
  await conn.create('c');
  await conn.transact('c', parseRdfTxn(`
    <${X}a> a <${X}P> ; <${X}name> "a" ; <${X}n> 1 ; <${X}nick> "A" ; <${X}tag> "t" ; <${X}R> <${X}b> ;
      <${X}at> "2020-01-01T00:00:00"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
    <${X}b> a <${X}P> ; <${X}name> "b" ; <${X}n> 5 ; <${X}tag> <${X}c> ; <${X}R> <${X}c> ;
      <${X}at> "2021-01-01T00:00:00"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
    <${X}c> a <${X}P> ; <${X}name> "c" ; <${X}n> 3 ; <${X}tag> "u" ;
      <${X}at> "2020-06-01"^^<http://www.w3.org/2001/XMLSchema#date> .
    <${X}d> a <${X}Q> ; <${X}m> 1 .
    <${X}e> a <${X}Q> ; <${X}m> "two" .
  `, 'text/turtle', 'insert'));
});

afterEach(() => { vi.restoreAllMocks(); });

/** The compiled read's rows (checked equal to the runner's) and the algebra it ran. */
async function run(text: string): Promise<{ rows: unknown[][]; op: string }> {
  const ds = await resolveDataset(conn, {}, { defaultLedger: 'c' });
  const env = () => ({ g: new Graph({ view: ds.view, defaultGraphs: ds.defaultGraphs }), names: new Names({ '@vocab': X }), params: {}, now: new Date() });
  const ops: Op[] = [];
  const select = Graph.prototype.select;
  const spy = vi.spyOn(Graph.prototype, 'select').mockImplementation(function (this: Graph, op: Op, vars: string[]) { ops.push(op); return select.call(this, op, vars); });
  const stmt = parseCypher(text);
  const fast = await compiledRead(stmt, env());
  spy.mockRestore();
  const slow = await runStatement(stmt, env(), false);
  expect(fast).toBeDefined();
  const rows = fast!.rows.map((r) => r.map((v) => jsonOf(v)));
  expect(rows).toEqual(slow.rows.map((r) => r.map((v) => jsonOf(v))));
  return { rows, op: JSON.stringify(ops[ops.length - 1]) };
}

describe('compiled reads with profile proofs', () => {
  it('a RETURN-only property every labelled node has once is a required pattern, not a left join', async () => {
    const r = await run('MATCH (p:P) RETURN p.name AS name ORDER BY name');
    expect(r.rows).toEqual([['a'], ['b'], ['c']]);
    expect(r.op).not.toContain('leftjoin');
    // nulls-last key dropped: the value is always bound
    expect(r.op).not.toContain('"bound"');
  });

  it('the same through a relationship end (object position)', async () => {
    const r = await run('MATCH (p:P)-[:R]->(q) RETURN p.name AS p, q.name AS q, q.n AS n ORDER BY p');
    expect(r.rows).toEqual([['a', 'b', 5], ['b', 'c', 3]]);
    expect(r.op).not.toContain('leftjoin');
  });

  it('a node without the property keeps the left join (null)', async () => {
    const r = await run('MATCH (p:P) RETURN p.name AS name, p.nick AS nick ORDER BY name');
    expect(r.rows).toEqual([['a', 'A'], ['b', null], ['c', null]]);
    expect(r.op).toContain('leftjoin');
  });

  it('an IRI value (a relationship, null as a property) keeps the left join and its isLiteral test', async () => {
    const r = await run('MATCH (p:P) RETURN p.name AS name, p.tag AS tag ORDER BY name');
    expect(r.rows).toEqual([['a', 't'], ['b', null], ['c', 'u']]);
    expect(r.op).toContain('leftjoin');
    expect(r.op).toContain('"isliteral"');
  });

  it('isNumeric is dropped for numbers-only properties and kept otherwise', async () => {
    const num = await run('MATCH (p:P) WHERE p.n > 2 RETURN p.name AS name ORDER BY name');
    expect(num.rows).toEqual([['b'], ['c']]);
    expect(num.op).not.toContain('"isnumeric"');
    const mixed = await run('MATCH (q:Q) WHERE q.m > 0 RETURN q.m AS m');
    expect(mixed.rows).toEqual([[1]]);
    expect(mixed.op).toContain('"isnumeric"');
  });

  it('a temporal comparison keeps its datatype test when the property holds several datatypes', async () => {
    const r = await run("MATCH (p:P) WHERE p.at > datetime('2019-01-01T00:00:00') RETURN p.name AS name ORDER BY name");
    // c's value is a date: not comparable with a datetime, so null
    expect(r.rows).toEqual([['a'], ['b']]);
    expect(r.op).toContain('"datatype"');
  });

  it('relationship uniqueness between two constant-typed hops to different constants is dropped', async () => {
    const r = await run(`MATCH (p)-[:R]->({\`@id\`: '${X}b'}), (p)-[:R]->(x) RETURN p.name AS name, x.name AS x`);
    // a's one R fact cannot be both hops
    expect(r.rows).toEqual([]);
    const s = await run(`MATCH (p)-[:R]->({\`@id\`: '${X}b'}), (p)-[:R]->({\`@id\`: '${X}c'}) RETURN p.name AS name`);
    expect(s.rows).toEqual([]);
    expect(s.op).not.toContain('"sameterm"');
  });
});
