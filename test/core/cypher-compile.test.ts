/**
 * Compiled Cypher reads (compile.ts) on a fixed graph: exact rows, whether the compiled path was
 * taken, and Cypher's null logic where SPARQL's FILTER would differ.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { resolveDataset } from '../../src/core/query/dataset.js';
import { compiledRead } from '../../src/core/query/cypher/compile.js';
import { planSlot } from '../../src/core/query/cypher/plan-cache.js';
import { Graph } from '../../src/core/query/cypher/graph.js';
import { Names } from '../../src/core/query/cypher/names.js';
import { parseCypher } from '../../src/core/query/cypher/parse.js';
import { runStatement } from '../../src/core/query/cypher/run.js';
import { jsonOf, type Value } from '../../src/core/query/cypher/values.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const X = 'http://x/';
const conn = new Connection(openMemoryStorage());
const NAMES = new Names({ '@vocab': X });

beforeAll(async () => {
  await conn.create('c');
  await conn.transact('c', parseRdfTxn(`
    <${X}a> a <${X}P> ; <${X}name> "a" ; <${X}n> 1 ; <${X}s> "x" ; <${X}R> <${X}b> ; <${X}w> 10 .
    <${X}b> a <${X}P> ; <${X}name> "b" ; <${X}n> 5 ; <${X}s> "y", "z" ; <${X}w> 20 .
    <${X}c> a <${X}P> ; <${X}name> "c" ; <${X}R> <${X}a> .
    <${X}d> a <${X}P> ; <${X}name> "\u{1F600}" ; <${X}n> 3 .
    <${X}e> a <${X}P> ; <${X}name> "\uFFFD" ; <${X}n> "2.5"^^<http://www.w3.org/2001/XMLSchema#double> .
  `, 'text/turtle', 'insert'));
});

async function run(text: string): Promise<{ compiled: boolean; rows: unknown[][] }> {
  const ds = await resolveDataset(conn, {}, { defaultLedger: 'c' });
  const env = () => ({ g: new Graph({ view: ds.view, defaultGraphs: ds.defaultGraphs }), names: new Names({ '@vocab': X }), params: {}, now: new Date() });
  const stmt = parseCypher(text);
  const fast = await compiledRead(stmt, env());
  const slow = await runStatement(stmt, env(), false);
  const rows = slow.rows.map((r) => r.map((v) => jsonOf(v)));
  if (fast) expect(fast.rows.map((r) => r.map((v) => jsonOf(v)))).toEqual(rows);
  return { compiled: fast !== undefined, rows };
}

describe('compiled Cypher reads', () => {
  it('numeric WHERE, ORDER BY a single-valued property, SKIP and LIMIT', async () => {
    expect(await run('MATCH (p:P) WHERE p.n > 1 RETURN p.name AS name ORDER BY p.n DESC SKIP 1 LIMIT 2')).toEqual({ compiled: true, rows: [['\u{1F600}'], ['\uFFFD']] });
  });

  it('NOT keeps Cypher null: a missing property is neither > 2 nor NOT > 2', async () => {
    // c has no n: `p.n > 2` is null, and so is its negation; negating the translated "true" condition would keep c
    expect(await run('MATCH (p:P) WHERE NOT p.n > 2 RETURN p.name AS name ORDER BY name')).toEqual({ compiled: true, rows: [['a']] });
    expect(await run('MATCH (p:P) WHERE NOT p.n > 2 OR p.n IS NULL RETURN p.name AS name ORDER BY name')).toEqual({ compiled: true, rows: [['a'], ['c']] });
  });

  it('strings order by code point (U+1F600 after U+FFFD), nulls last, DESC reverses both', async () => {
    expect(await run('MATCH (p:P) RETURN p.name AS name ORDER BY name')).toEqual({ compiled: true, rows: [['a'], ['b'], ['c'], ['\uFFFD'], ['\u{1F600}']] });
    expect(await run('MATCH (p:P) RETURN p.name AS name, p.n AS n ORDER BY n DESC, name')).toEqual({ compiled: true, rows: [['c', null], ['b', 5], ['\u{1F600}', 3], ['\uFFFD', 2.5], ['a', 1]] });
  });

  it('a multi-valued property is a list: the statement runs clause by clause', async () => {
    expect(await run('MATCH (p:P) RETURN p.name AS name, p.s AS s ORDER BY name LIMIT 2')).toEqual({ compiled: false, rows: [['a', 'x'], ['b', ['y', 'z']]] });
  });

  it('EXISTS, node inequality and relationship patterns', async () => {
    expect(await run('MATCH (p:P)-[:R]->(q) WHERE p <> q AND EXISTS { (q)-[:R]->() } RETURN p.name AS p, q.name AS q')).toEqual({ compiled: true, rows: [['c', 'a']] });
    expect(await run('MATCH (p:P) WHERE NOT EXISTS { (p)-[:R]->(:P) } AND p.n < 4 RETURN DISTINCT p.name AS name ORDER BY name')).toEqual({ compiled: true, rows: [['\uFFFD'], ['\u{1F600}']] });
  });

  it('OPTIONAL MATCH with WHERE: a left join; a node it left null reads null', async () => {
    // a -R-> b (n 5), c -R-> a (n 1): only a has a neighbour with n > 1
    expect(await run('MATCH (p:P) OPTIONAL MATCH (p)-[:R]->(q) WHERE q.n > 1 RETURN p.name AS a, q.name AS b, q.n AS n ORDER BY a')).toEqual({ compiled: true, rows: [['a', 'b', 5], ['b', null, null], ['c', null, null], ['\uFFFD', null, null], ['\u{1F600}', null, null]] });
    expect(await run('MATCH (p {`@id`: "http://x/c"}) OPTIONAL MATCH (p)-[:R]->(q) OPTIONAL MATCH (r)-[:R]->(p) RETURN p.name AS p, q.name AS q, r.name AS r')).toEqual({ compiled: true, rows: [['c', 'a', null]] });
    // an OPTIONAL MATCH through a node an earlier one may have left null runs clause by clause
    expect(await run('MATCH (p:P) OPTIONAL MATCH (p)-[:R]->(q) OPTIONAL MATCH (q)-[:R]->(r) RETURN p.name AS p, r.name AS r ORDER BY p LIMIT 1')).toEqual({ compiled: false, rows: [['a', null]] });
  });

  it('ORDER BY toFloat(x): numbers of any numeric type, nulls last; a non-numeral value runs clause by clause', async () => {
    expect(await run('MATCH (p:P) RETURN p.name AS name ORDER BY toFloat(p.n)')).toEqual({ compiled: true, rows: [['a'], ['\uFFFD'], ['\u{1F600}'], ['b'], ['c']] });
    expect(await run('MATCH (p:P) RETURN p.name AS name, p.n AS n ORDER BY toFloat(n) DESC LIMIT 2')).toEqual({ compiled: true, rows: [['c', null], ['b', 5]] });
    expect(await run('MATCH (p:P) RETURN p.name AS name ORDER BY toFloat(p.name), name LIMIT 1')).toEqual({ compiled: false, rows: [['a']] });
  });

  it('aggregation: count, sum, min, max with nodes as grouping keys; nulls skipped; empty input', async () => {
    expect(await run('MATCH (p:P)-[:R]->(q) RETURN count(*) AS n, sum(q.w) AS s, min(q.w) AS lo, max(q.w) AS hi')).toEqual({ compiled: true, rows: [[2, 30, 10, 20]] });
    expect(await run('MATCH (p:P) OPTIONAL MATCH (p)-[:R]->(q) WHERE q.w > 15 RETURN count(q) AS k, count(*) AS n, sum(q.w) AS s, min(q.w) AS lo')).toEqual({ compiled: true, rows: [[1, 5, 20, 20]] });
    expect(await run('MATCH (p {`@id`: "http://x/c"}) OPTIONAL MATCH (p)-[:R]->(q) WHERE q.w > 100 RETURN p AS p, count(q) AS k, sum(q.w) AS s, min(q.w) AS lo, max(q.w) AS hi')).toEqual({ compiled: true, rows: [['http://x/c', 0, 0, null, null]] });
    expect(await run('MATCH (p:Nothing) RETURN count(*) AS n, sum(p.w) AS s, max(p.w) AS m')).toEqual({ compiled: true, rows: [[0, 0, null]] });
    expect(await run('MATCH (p:P)-[:R]->(q {`@id`: "http://x/b"}) RETURN q AS q, count(p) AS k ORDER BY k DESC')).toEqual({ compiled: true, rows: [['http://x/b', 1]] });
    // a sum over a property holding a double, and a value key, run clause by clause
    expect((await run('MATCH (p:P) RETURN sum(p.n) AS s')).compiled).toBe(false);
    expect((await run('MATCH (p:P) RETURN p.name AS name, count(*) AS n ORDER BY name LIMIT 1')).compiled).toBe(false);
  });

  it('kept translations: per parameters (1 and 1.0 apart) and per ledger state; none for datetime()', async () => {
    const stmt = parseCypher('MATCH (p:P) WHERE p.n > $x RETURN p.name AS name ORDER BY name');
    const rows = async (params: Record<string, Value>) => {
      const ds = await resolveDataset(conn, {}, { defaultLedger: 'c' });
      const t = await compiledRead(stmt, { g: new Graph({ view: ds.view, defaultGraphs: ds.defaultGraphs }), names: NAMES, params, now: new Date() });
      return t?.rows.map((r) => r.map((v) => jsonOf(v)));
    };
    expect(await rows({ x: 3n })).toEqual([['b']]);
    expect(await rows({ x: 1n })).toEqual([['b'], ['\uFFFD'], ['\u{1F600}']]);
    expect(await rows({ x: 3n })).toEqual([['b']]);
    await conn.transact('c', parseRdfTxn(`<${X}f> a <${X}P> ; <${X}name> "f" ; <${X}n> 9 .`, 'text/turtle', 'insert'));
    expect(await rows({ x: 3n })).toEqual([['b'], ['f']]);
    await conn.transact('c', parseRdfTxn(`<${X}f> <${X}n> 1 .`, 'text/turtle', 'upsert'));
    expect(await rows({ x: 3n })).toEqual([['b']]);
    // a pattern map's parameter becomes a term: 1 and 1.0 are different keys
    const byMap = parseCypher('MATCH (p:P {n: $x}) RETURN p.name AS name');
    const ds = await resolveDataset(conn, {}, { defaultLedger: 'c' });
    const env = (x: Value) => ({ g: new Graph({ view: ds.view, defaultGraphs: ds.defaultGraphs }), names: NAMES, params: { x }, now: new Date() });
    expect((await compiledRead(byMap, env(1n)))?.rows.map((r) => r[0]).sort()).toEqual(['a', 'f']);
    expect((await compiledRead(byMap, env(1)))?.rows).toEqual([]);
    // a statement whose constants depend on the moment is translated every time
    expect(planSlot(parseCypher('MATCH (p:P) WHERE p.d < datetime() RETURN p.name AS n'), ds.view, NAMES, {})).toBeUndefined();
    expect(planSlot(byMap, ds.view, NAMES, { x: 1n })).toBeDefined();
    // keyed by the parameters the statement reads: another value of an unread one is the same translation
    const slot = planSlot<string>(byMap, ds.view, NAMES, { x: 1n, unused: 'a' })!;
    slot.set('kept');
    expect(planSlot<string>(byMap, ds.view, NAMES, { x: 1n, unused: 'b' })!.get()).toBe('kept');
    expect(planSlot<string>(byMap, ds.view, NAMES, { x: 2n, unused: 'a' })!.get()).toBeUndefined();
    // a string that looks like another key's encoding stays apart (length-prefixed)
    expect(planSlot<string>(byMap, ds.view, NAMES, { x: 'S1:a' })!.get()).toBeUndefined();
  });
});
