/**
 * The check both compiled-Cypher property tests make: a statement's compiled read, where it
 * compiles, gives exactly what the clause-by-clause runner gives on the same ledger.
 */
import { expect } from 'vitest';
import type { Connection } from '../../src/core/ledger/connection.js';
import { resolveDataset } from '../../src/core/query/dataset.js';
import { compiledRead } from '../../src/core/query/cypher/compile.js';
import { Graph } from '../../src/core/query/cypher/graph.js';
import { Names } from '../../src/core/query/cypher/names.js';
import { parseCypher } from '../../src/core/query/cypher/parse.js';
import { runStatement } from '../../src/core/query/cypher/run.js';
import { jsonOf, type Value } from '../../src/core/query/cypher/values.js';

/** A run's rows as JSON strings, or its error message. */
async function outcome(run: () => Promise<{ rows: Value[][] } | undefined>): Promise<unknown> {
  try {
    const t = await run();
    return t && t.rows.map((r) => JSON.stringify(r.map((v) => jsonOf(v))));
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * Compare `text`'s compiled read with the runner's answer on ledger `id` (vocabulary `vocab`;
 * `ttl` names the data in a failure). Row order counts only when `ordered`. True when it compiled.
 */
export async function compiledMatchesRunner(conn: Connection, id: string, vocab: string, text: string, ordered: boolean, ttl: string): Promise<boolean> {
  const stmt = parseCypher(text);
  const ds = await resolveDataset(conn, {}, { defaultLedger: id });
  const env = () => ({ g: new Graph({ view: ds.view, defaultGraphs: ds.defaultGraphs, namedGraphs: ds.namedGraphs, resolveGraph: ds.resolveGraph }), names: new Names({ '@vocab': vocab }), params: {}, now: new Date() });
  const fast = await outcome(() => compiledRead(stmt, env()));
  if (fast === undefined) return false;
  const slow = await outcome(() => runStatement(stmt, env(), false));
  const norm = (x: unknown) => (Array.isArray(x) && !ordered ? [...x].sort() : x);
  expect(norm(fast), text + '\n' + ttl).toEqual(norm(slow));
  return true;
}
