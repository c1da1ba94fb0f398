/** SELECT results as sorted lines for exact comparisons in tests. */
import type { Connection } from '../../src/core/ledger/connection.js';
import { collect } from '../../src/core/query/results/types.js';
import { runSparql } from '../../src/core/query/sparql-service.js';

/** The rows of a SELECT on `ledger`, each as its values joined by spaces (`-` when unbound), sorted. */
export async function sortedRows(conn: Connection, ledger: string, q: string): Promise<string[]> {
  const { result } = await runSparql(conn, q, { ledger });
  if (result.type !== 'bindings') throw new Error('bindings');
  return (await collect(result.rows)).map((r) => result.variables.map((v) => r[v]?.value ?? '-').join(' ')).sort();
}
