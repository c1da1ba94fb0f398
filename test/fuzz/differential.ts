/**
 * Differential testing against oxigraph: random SPARQL queries (sparql-smith.ts) over random small
 * datasets, run in process by Ledgraph (a real ledger on memory storage) and by the `oxigraph` npm
 * package; solutions compared as multisets under one blank-node bijection (test/w3c/compare.ts),
 * CONSTRUCT results as graphs up to isomorphism, ASK as booleans. Both engines failing counts as
 * agreement (both refuse an invalid query); a query Ledgraph stops at its timeout is counted apart.
 *
 * Known differences (docs/RELIABILITY.md explains each) are recognised by KNOWN_DIFFERENCES and
 * counted under their id instead of as failures.
 */
import fc from 'fast-check';
import * as ox from 'oxigraph';
import { Connection } from '../../src/core/ledger/connection.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { resultToTable } from '../../src/core/query/results/sparql-json.js';
import { collect } from '../../src/core/query/results/types.js';
import { openMemoryStorage } from '../../src/storage/memory-store.js';
import { blankNode, defaultGraph, literal, namedNode, type Quad, type Term } from '../../src/core/rdf/terms.js';
import { compareAnswers, type Answer } from './answers.js';
import { KNOWN_DIFFERENCES } from './known-differences.js';
import { graphArb, queryArb, type SmithQuery } from './sparql-smith.js';

type OxTerm = { termType: string; value: string; language?: string; datatype?: { value: string } };

function fromOx(t: OxTerm): Term {
  switch (t.termType) {
    case 'NamedNode': return namedNode(t.value);
    case 'BlankNode': return blankNode(t.value);
    default: return t.language ? literal(t.value, t.language) : literal(t.value, namedNode(t.datatype!.value));
  }
}

function oxAnswer(store: ox.Store, q: SmithQuery, vars: string[] | undefined): Answer {
  try {
    const r = store.query(q.text) as unknown;
    if (typeof r === 'boolean') return { kind: 'table', table: { type: 'boolean', value: r } };
    if (q.form === 'construct') {
      const quads = (r as { subject: OxTerm; predicate: OxTerm; object: OxTerm }[]).map((x) => ({
        subject: fromOx(x.subject), predicate: namedNode(x.predicate.value), object: fromOx(x.object), graph: defaultGraph,
      }) as Quad);
      return { kind: 'quads', quads };
    }
    const rows = (r as Map<string, OxTerm>[]).map((m) => {
      const b: Record<string, Term> = {};
      for (const [k, v] of m) b[k] = fromOx(v);
      return b;
    });
    // oxigraph does not report the projection; take Ledgraph's plus anything oxigraph bound.
    const variables = [...new Set([...(vars ?? []), ...rows.flatMap((b) => Object.keys(b))])];
    return { kind: 'table', table: { type: 'bindings', variables, rows } };
  } catch (e) {
    return { kind: 'error', message: e instanceof Error ? e.message : String(e) };
  }
}

async function ledgraphAnswer(conn: Connection, ledger: string, q: SmithQuery, timeoutMs: number): Promise<Answer> {
  try {
    const { result } = await runSparql(conn, q.text, { ledger, timeoutMs });
    if (result.type === 'quads') return { kind: 'quads', quads: await collect(result.quads) };
    return { kind: 'table', table: await resultToTable(result) };
  } catch (e) {
    const err = e as { message?: string; type?: string };
    return { kind: 'error', message: err.message ?? String(e), timeout: err.type === 'err:db/Timeout' };
  }
}

/** One query's outcome. */
export type Verdict = 'same' | 'both-error' | 'timeout' | 'different' | `known:${string}`;

export interface CaseResult { verdict: Verdict; query: string; data: string; detail?: string }

/** A loaded dataset in both engines. */
export interface Pair { conn: Connection; ledger: string; store: ox.Store; data: string; close(): Promise<void> }

let pairSeq = 0;
/** Load the N-Quads `data` into a fresh ledger and a fresh oxigraph store. */
export async function loadPair(data: string): Promise<Pair> {
  const conn = new Connection(openMemoryStorage());
  const ledger = `diff${pairSeq++}:main`;
  await conn.create(ledger);
  if (data.trim()) await conn.transact(ledger, parseRdfTxn(data, 'application/n-quads', 'insert'));
  const store = new ox.Store();
  if (data.trim()) store.load(data, { format: 'application/n-quads' });
  return { conn, ledger, store, data, close: () => conn.close() };
}

/** Both engines' answers to one query. */
async function answers(pair: Pair, q: SmithQuery, timeoutMs: number): Promise<{ lg: Answer; oxa: Answer }> {
  const lg = await ledgraphAnswer(pair.conn, pair.ledger, q, timeoutMs);
  const vars = lg.kind === 'table' && lg.table.type === 'bindings' ? lg.table.variables : undefined;
  return { lg, oxa: oxAnswer(pair.store, q, vars) };
}

/** Run one query on both engines and judge it. */
export async function judge(pair: Pair, q: SmithQuery, timeoutMs = 10_000, depth = 0): Promise<CaseResult> {
  const { lg, oxa } = await answers(pair, q, timeoutMs);
  if (lg.kind === 'error' && lg.timeout) return { verdict: 'timeout', query: q.text, data: pair.data };
  const detail = compareAnswers(lg, oxa);
  if (detail === undefined) return { verdict: lg.kind === 'error' ? 'both-error' : 'same', query: q.text, data: pair.data };
  // A variant agrees when it gives the same answers or differs only by other known differences
  // (a query often holds two of them); the depth bounds that search.
  const rerun = async (data: string, query: string) => {
    if (depth >= 3) return 'too deep';
    if (data === pair.data && query === q.text) return 'the variant is the query itself';
    const p = await loadPair(data);
    try {
      const r = await judge(p, { ...q, text: query }, timeoutMs, depth + 1);
      return r.verdict === 'different' || r.verdict === 'timeout' ? (r.detail ?? r.verdict) : undefined;
    } finally { await p.close(); }
  };
  for (const k of KNOWN_DIFFERENCES) {
    if (await k.matches({ query: q.text, data: pair.data, lg, oxa, rerun })) return { verdict: `known:${k.id}`, query: q.text, data: pair.data, detail };
  }
  return { verdict: 'different', query: q.text, data: pair.data, detail };
}

/** A dataset with the queries to run over it (ORDER BY+LIMIT only over blank-node-free data). */
export const scenarioArb = (queriesPerGraph: number) => fc.boolean().chain((bnodes) =>
  fc.tuple(graphArb(bnodes), fc.array(queryArb(!bnodes), { minLength: queriesPerGraph, maxLength: queriesPerGraph })));
