/**
 * The W3C SPARQL query suite inside Chromium: `window.ledgraphW3cEval(cases)` runs each test's
 * query with the browser build of the engine over an in-memory ledger holding its dataset (as the
 * Node runner's ledger backend does, test/w3c/engine-adapter.ts) and returns the result written
 * in every format the judge may ask for. e2e/w3c-case.js prepares the cases and judges the answers
 * in Node with test/w3c/query-judge.ts, the same code the Node suite uses.
 */
import { Connection } from '../src/core/ledger/connection.js';
import { executeQuery } from '../src/core/query/engine.js';
import { toSparqlJson } from '../src/core/query/results/sparql-json.js';
import { toSparqlXml } from '../src/core/query/results/sparql-xml.js';
import { toCsv, toTsv } from '../src/core/query/results/sparql-csv-tsv.js';
import { toNQuads } from '../src/core/query/results/rdf-writers.js';
import type { Binding, QueryResult } from '../src/core/query/results/types.js';
import { parseSparql } from '../src/core/query/sparql/parse.js';
import { blankNode, defaultGraph, literal, namedNode, type Term } from '../src/core/rdf/terms.js';
import type { TxnQuad } from '../src/core/transact/txn-request.js';
import { openMemoryStorage } from '../src/storage/memory-store.js';

/** A term as plain data: [kind, value, language or datatype IRI]. */
export type WireTerm = ['n' | 'b' | 'l' | 'd', string, string?];
export interface W3cCase { id: string; queryIri: string; queryText: string; quads: [WireTerm, WireTerm, WireTerm, WireTerm][]; graphNames: string[] }
export type W3cAnswer =
  | { id: string; kind: 'quads'; nquads: string }
  | { id: string; kind: 'table'; srj: Written; tsv: Written; srx: Written; csv: Written }
  | { id: string; kind: 'error'; error: string };

/** A serialisation, or why the writer refused (e.g. TSV of an ASK result). */
export type Written = string | { error: string };

declare global {
  interface Window { ledgraphW3cEval: (cases: W3cCase[]) => Promise<W3cAnswer[]> }
}

function term(w: WireTerm): Term {
  switch (w[0]) {
    case 'n': return namedNode(w[1]);
    case 'b': return blankNode(w[1]);
    case 'd': return defaultGraph as unknown as Term;
    default: return w[2]?.startsWith('@') ? literal(w[1], w[2].slice(1)) : literal(w[1], w[2] ? namedNode(w[2]) : undefined);
  }
}

async function evalCase(c: W3cCase): Promise<W3cAnswer> {
  const conn = new Connection(openMemoryStorage(), { indexingEnabled: false });
  const { ledger: id } = await conn.create('w3c');
  if (c.quads.length) {
    const quads = c.quads.map(([s, p, o, g]) => ({ subject: term(s), predicate: term(p), object: term(o), graph: term(g) }) as unknown as TxnQuad);
    await conn.transact(id, { kind: 'insert', quads, meta: [], opts: {} });
  }
  const view = await conn.db(id);
  const query = parseSparql(c.queryText, { baseIri: c.queryIri });
  const ctx: Parameters<typeof executeQuery>[1] = { view, baseIri: c.queryIri, resolveGraph: (iri: string) => view.graphId(iri), timeoutMs: 15_000 };
  if (!query.dataset) {
    ctx.defaultGraphs = [0];
    ctx.namedGraphs = c.graphNames.map((g) => view.graphId(g)).filter((g): g is number => g !== undefined);
  }
  const result = await executeQuery(query, ctx);
  if (result.type === 'quads') return { id: c.id, kind: 'quads', nquads: await toNQuads(result) };
  // Rows are read once and replayed for each format.
  const rows: Binding[] = [];
  if (result.type === 'bindings') for await (const r of result.rows) rows.push(r);
  const again = (): QueryResult => result.type === 'bindings' ? { type: 'bindings', variables: result.variables, rows: (async function* () { yield* rows; })() } : result;
  const write = async (f: (r: QueryResult) => Promise<string>): Promise<Written> => {
    try { return await f(again()); } catch (e) { return { error: e instanceof Error ? e.message : String(e) }; }
  };
  return { id: c.id, kind: 'table', srj: await write(toSparqlJson), tsv: await write(toTsv), srx: await write(toSparqlXml), csv: await write(toCsv) };
}

window.ledgraphW3cEval = async (cases) => {
  const out: W3cAnswer[] = [];
  for (const c of cases) {
    try {
      out.push(await evalCase(c));
    } catch (e) {
      out.push({ id: c.id, kind: 'error', error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  }
  return out;
};
