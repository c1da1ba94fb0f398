/**
 * SPARQL text as the query endpoints run it: an ordinary query through the SPARQL service, or a
 * history range (`FROM <a@t:1> TO <a@t:latest>`, outside the SPARQL grammar) over the JSON-LD
 * engine's EventView. Shared by the server's routes and the browser peer (runtime-agnostic).
 */
import { badRequest, notFound } from '../errors.js';
import { GRAPH_TXN_META } from '../flake/flake.js';
import type { Connection } from '../ledger/connection.js';
import { parseLedgerRef, type TimeSpec } from '../ledger/ledger-id.js';
import { isRootPolicy, policyView, type PolicyInputs } from '../policy/index.js';
import { executeQuery, parseSparql, type QueryContext } from './engine.js';
import { EventView } from './jsonld/history.js';
import type { QueryResult } from './results/types.js';
import { runSparql } from './sparql-service.js';

/** Text with `#` comments blanked (IRIs and string literals kept, so `#` inside them survives). */
function withoutComments(text: string): string {
  return text.replace(/<[^<>\s]*>|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|#[^\n]*/g, (m) => (m.startsWith('#') ? ' '.repeat(m.length) : m));
}

/**
 * The history range of SPARQL text (`FROM <a@t:1> TO <a@t:latest>`, not part of the SPARQL
 * grammar), or null when the text has none.
 */
export function sparqlHistoryRange(text: string): { from: string; to: string; start: number; end: number } | null {
  if (!/\bTO\b/i.test(text)) return null;
  const m = /\bFROM\s+<([^<>\s]*)>\s+TO\s+<([^<>\s]*)>/i.exec(withoutComments(text));
  return m ? { from: m[1]!, to: m[2]!, start: m.index, end: m.index + m[0].length } : null;
}

/** A SPARQL query to run. */
export interface SparqlRun {
  text: string;
  ledger?: string | undefined;
  defaultGraphUris?: string[];
  namedGraphUris?: string[];
  at?: TimeSpec;
  maxFuel?: number | undefined;
  timeoutMs?: number | undefined;
  /** A deadline polled by the engine without a timer: `signal` aborts at it (see QueryContext.deadline). */
  deadline?: number | undefined;
  signal: AbortSignal;
  policy?: PolicyInputs;
  onFinish?: QueryContext['onFinish'];
}

/** Run SPARQL text: an ordinary query through the SPARQL service, a `FROM … TO …` range as a history query. */
export async function executeSparql(conn: Connection, run: SparqlRun): Promise<{ result: QueryResult; ledgers: Record<string, number> }> {
  const range = sparqlHistoryRange(run.text);
  if (range) return sparqlHistory(conn, run, range);
  const res = await runSparql(conn, run.text, {
    ledger: run.ledger, defaultGraphUris: run.defaultGraphUris, namedGraphUris: run.namedGraphUris, at: run.at,
    maxFuel: run.maxFuel, timeoutMs: run.timeoutMs, deadline: run.deadline, policy: run.policy, onFinish: run.onFinish, signal: run.signal,
  });
  return { result: res.result, ledgers: res.ledgers };
}

/**
 * A SPARQL history query (`FROM <a@t:1> TO <a@t:latest>`, outside the SPARQL grammar): the range
 * is cut from the text and the query runs over the JSON-LD engine's EventView, where every
 * assertion and retraction in the range is a fact of an event graph
 * `urn:ledgraph:event:<t>:<assert|retract>:0`. The default graph merges all events; `GRAPH ?e`
 * binds the event graph, from which t and the operation are read with string functions.
 */
async function sparqlHistory(conn: Connection, run: SparqlRun, range: { from: string; to: string; start: number; end: number }): Promise<{ result: QueryResult; ledgers: Record<string, number> }> {
  if (!range.from.includes('@') || !range.to.includes('@')) {
    throw badRequest('a SPARQL history query needs a time specifier on both ends: FROM <ledger@t:1> TO <ledger@t:latest>');
  }
  const a = parseLedgerRef(range.from), b = parseLedgerRef(range.to);
  if (a.id !== b.id) throw badRequest(`FROM and TO must name the same ledger (got ${a.id} and ${b.id})`);
  if (run.ledger !== undefined && parseLedgerRef(run.ledger).id !== a.id) throw badRequest(`a ledger-scoped history query must range over its own ledger (${parseLedgerRef(run.ledger).id})`);
  if (run.defaultGraphUris?.length || run.namedGraphUris?.length) throw badRequest('default-graph-uri / named-graph-uri cannot be combined with a history range');
  const text = run.text.slice(0, range.start) + ' '.repeat(range.end - range.start) + run.text.slice(range.end);
  const query = parseSparql(text);
  if (query.dataset) throw badRequest('a SPARQL history query takes exactly one dataset clause: FROM <ledger@t:N> TO <ledger@t:M>');
  const ledger = await conn.ledger(a.id);
  const fromDb = await ledger.db(a.time);
  const toDb = await ledger.db(b.time);
  if (fromDb.t > toDb.t) throw badRequest(`FROM (t ${fromDb.t}) is after TO (t ${toDb.t})`);
  const g = a.fragment === null || a.fragment === '' ? 0 : a.fragment === 'txn-meta' ? GRAPH_TXN_META : toDb.graphId(a.fragment);
  if (g === undefined) throw notFound(`ledger ${a.id} has no graph <${a.fragment}>`);
  const view = isRootPolicy(run.policy) ? toDb : (await policyView(conn, toDb, run.policy)).view;
  const ev = new EventView(view, [g], fromDb.t, toDb.t, 'history');
  const events = ev.eventGraphs();
  const result = await executeQuery(query, {
    view: ev, defaultGraphs: events, namedGraphs: events, resolveGraph: (iri) => ev.graphId(iri),
    ...(run.maxFuel !== undefined ? { maxFuel: run.maxFuel } : {}),
    ...(run.timeoutMs !== undefined ? { timeoutMs: run.timeoutMs } : {}),
    ...(run.deadline !== undefined ? { deadline: run.deadline } : {}),
    ...(run.onFinish ? { onFinish: run.onFinish } : {}),
    signal: run.signal,
  });
  return { result, ledgers: { [toDb.ledgerId]: toDb.t } };
}
