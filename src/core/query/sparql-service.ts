/**
 * SPARQL against a connection: parse, resolve the dataset (query FROM / FROM NAMED, or the
 * protocol's default-graph-uri / named-graph-uri, which override it), execute.
 */
import type { Connection } from '../ledger/connection.js';
import type { TimeSpec } from '../ledger/ledger-id.js';
import { executeQuery, parseSparql, type QueryContext } from './engine.js';
import { resolveDataset } from './dataset.js';
import type { QueryResult } from './results/types.js';
import type { Query } from './algebra/algebra.js';
import { restrictDataset, type PolicyInputs, type PolicyStats } from '../policy/index.js';

export interface SparqlRequest {
  /** Ledger of a ledger-scoped call. */
  ledger?: string;
  /** Protocol dataset (overrides the query's FROM / FROM NAMED when either is given). */
  defaultGraphUris?: string[];
  namedGraphUris?: string[];
  /** Time for ledger references without their own specifier. */
  at?: TimeSpec;
  maxFuel?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  onFinish?: QueryContext['onFinish'];
  baseIri?: string;
  /** Policy inputs (policy.md §3); absent or empty = the root view. */
  policy?: PolicyInputs;
}

export interface SparqlResponse { query: Query; result: QueryResult; ledgers: Record<string, number>; policy: () => PolicyStats }

/** Parse and run SPARQL query text against the connection. */
export async function runSparql(conn: Connection, text: string, req: SparqlRequest = {}): Promise<SparqlResponse> {
  const query = parseSparql(text, req.baseIri !== undefined ? { baseIri: req.baseIri } : {});
  const protocol = (req.defaultGraphUris?.length ?? 0) + (req.namedGraphUris?.length ?? 0) > 0;
  const spec = protocol
    ? { defaultGraphs: req.defaultGraphUris ?? [], namedGraphs: req.namedGraphUris ?? [] }
    : query.dataset
      ? { defaultGraphs: query.dataset.defaultGraphs.map((g) => g.value), namedGraphs: query.dataset.namedGraphs.map((g) => g.value) }
      : {};
  const resolved = await resolveDataset(conn, spec, { ...(req.ledger !== undefined ? { defaultLedger: req.ledger } : {}), ...(req.at ? { at: req.at } : {}) });
  // Policy filters inside the scans of the dataset's view (policy.md §5).
  const { ds, stats } = await restrictDataset(conn, resolved, req.policy);
  const result = await executeQuery({ ...query, dataset: undefined } as Query, {
    view: ds.view, defaultGraphs: ds.defaultGraphs, namedGraphs: ds.namedGraphs, resolveGraph: ds.resolveGraph,
    ...(req.maxFuel !== undefined ? { maxFuel: req.maxFuel } : {}),
    ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.onFinish ? { onFinish: req.onFinish } : {}),
    ...(req.baseIri !== undefined ? { baseIri: req.baseIri } : {}),
  });
  return { query, result, ledgers: ds.ledgers, policy: stats };
}
