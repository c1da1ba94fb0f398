/**
 * The engine-facing glue of the W3C runner, and the only file that knows how the engine is called:
 * it loads a test's data files into a dataset, makes files named by FROM / FROM NAMED available
 * under their IRIs, parses and runs queries and updates, and reads back the resulting dataset.
 *
 * Backends: queries run over the FixtureView (test/support/fixture-view.ts) by default; with
 * LEDGRAPH_W3C_BACKEND=ledger they run over a real in-memory ledger (Connection + memory storage),
 * which updates always use. The engine modules are imported lazily, so the runner reports
 * "not available" (as skipped tests) until they exist instead of failing to load.
 */
import { FixtureView } from '../support/fixture-view.js';
import type { DbView } from '../../src/core/index/view.js';
import type { Query } from '../../src/core/query/algebra/algebra.js';
import type { QueryResult } from '../../src/core/query/results/types.js';
import { defaultGraph, namedNode, type Quad, type Term } from '../../src/core/rdf/terms.js';
import type { TxnQuad, TxnRequest } from '../../src/core/transact/txn-request.js';
import { readW3c, w3cFileExists, type DatasetSpec } from './manifest.js';
import { readRdfFile } from './rdf-files.js';

/** The query context the engine takes (src/core/query/engine.ts). */
interface QueryCtx {
  view: DbView;
  defaultGraphs?: number[];
  namedGraphs?: number[];
  resolveGraph?(iri: string): number | undefined;
  baseIri?: string;
  timeoutMs?: number;
}

type Fn = (...args: never[]) => unknown;
interface EngineApi {
  parseQuery?: (text: string, opts: { baseIri?: string }) => Query;
  executeQuery?: (q: Query, ctx: QueryCtx) => Promise<QueryResult>;
  parseUpdate?: (text: string, opts: { baseIri?: string }) => unknown;
  executeUpdate?: Fn;
}

// Module paths are kept in variables so that a module that does not exist yet is a runtime
// "not available", not a transform error.
const ENGINE = '../../src/core/query/engine.js';
const SPARQL_PARSE = '../../src/core/query/sparql/parse.js';

async function tryImport(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    return await import(/* @vite-ignore */ path) as Record<string, unknown>;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    if (/Cannot find module|Failed to load url|does not exist|Failed to resolve/i.test(msg)) return undefined;
    throw e;
  }
}

let api: Promise<EngineApi> | undefined;
function engine(): Promise<EngineApi> {
  api ??= (async () => {
    const eng = await tryImport(ENGINE);
    const out: EngineApi = {};
    const pick = <T>(m: Record<string, unknown> | undefined, ...names: string[]): T | undefined => {
      for (const n of names) if (typeof m?.[n] === 'function') return m[n] as T;
      return undefined;
    };
    out.parseQuery = pick(eng, 'parseSparql') ?? pick(await tryImport(SPARQL_PARSE), 'parseSparql');
    out.executeQuery = pick(eng, 'executeQuery');
    out.parseUpdate = pick(eng, 'parseSparqlUpdate', 'parseUpdate');
    out.executeUpdate = pick(eng, 'executeUpdate');
    return out;
  })();
  return api;
}

/** Why queries cannot be parsed / run yet, or undefined when they can. */
export async function queryUnavailable(what: 'parse' | 'run'): Promise<string | undefined> {
  const e = await engine();
  if (!e.parseQuery) return 'SPARQL query parser not implemented';
  if (what === 'run' && !e.executeQuery) return 'query engine (executeQuery) not implemented';
  return undefined;
}

/** Why updates cannot be parsed / run yet, or undefined when they can. */
export async function updateUnavailable(what: 'parse' | 'run'): Promise<string | undefined> {
  const e = await engine();
  if (what === 'parse' && !e.parseUpdate) return 'SPARQL UPDATE parser not implemented';
  if (what === 'run' && !e.executeUpdate && !e.parseUpdate) return 'SPARQL UPDATE not implemented';
  return undefined;
}

/** Parse query text with the engine's parser (throws on a syntax or static error). */
export async function parseQuery(text: string, baseIri: string): Promise<Query> {
  const e = await engine();
  if (!e.parseQuery) throw new Error('SPARQL query parser not implemented');
  return e.parseQuery(text, { baseIri });
}

/** Parse update text with the engine's update parser (throws on a syntax or static error). */
export async function parseUpdate(text: string, baseIri: string): Promise<unknown> {
  const e = await engine();
  if (!e.parseUpdate) throw new Error('SPARQL UPDATE parser not implemented');
  return e.parseUpdate(text, { baseIri });
}

/**
 * The quads of a test dataset: `data` files merged into the default graph, `graphData` files in
 * their named graphs, and any further W3C files in `extraNamed` as named graphs under their IRIs.
 */
export function loadDataset(spec: DatasetSpec, extraNamed: string[] = []): Quad[] {
  const quads: Quad[] = [];
  for (const f of spec.data) for (const q of readRdfFile(f)) quads.push({ ...q, graph: defaultGraph });
  const named = new Set<string>();
  for (const g of spec.graphData) { quads.push(...readRdfFile(g.file, g.name)); named.add(g.name); }
  for (const iri of extraNamed) {
    if (named.has(iri) || !w3cFileExists(iri)) continue;
    quads.push(...readRdfFile(iri, iri));
    named.add(iri);
  }
  return quads;
}

/** The engine's own time budget per query, below the harness's per-test timeout. */
const QUERY_TIMEOUT_MS = 15_000;

type Backend = 'fixture' | 'ledger';
const BACKEND: Backend = process.env.LEDGRAPH_W3C_BACKEND === 'ledger' ? 'ledger' : 'fixture';

/** A fresh in-memory ledger holding `quads`; returns its connection and id. */
async function ledgerWith(quads: Quad[]): Promise<{ conn: import('../../src/core/ledger/connection.js').Connection; id: string }> {
  const { Connection } = await import('../../src/core/ledger/connection.js');
  const { openMemoryStorage } = await import('../../src/storage/index.js');
  const conn = new Connection(openMemoryStorage(), { indexingEnabled: false });
  const { ledger: id } = await conn.create('w3c');
  if (quads.length) {
    const txn: TxnQuad[] = quads.map((q) => ({ subject: q.subject as TxnQuad['subject'], predicate: q.predicate, object: q.object, graph: q.graph as TxnQuad['graph'] }));
    await conn.transact(id, { kind: 'insert', quads: txn, meta: [], opts: {} });
  }
  return { conn, id };
}

async function viewOf(quads: Quad[]): Promise<DbView> {
  if (BACKEND === 'fixture') return new FixtureView(quads);
  const { conn, id } = await ledgerWith(quads);
  return conn.db(id);
}

/** Run the query file `queryIri` over the test dataset. */
export async function runQuery(queryIri: string, spec: DatasetSpec): Promise<QueryResult> {
  const e = await engine();
  if (!e.parseQuery || !e.executeQuery) throw new Error('query engine not implemented');
  const query = e.parseQuery(readW3c(queryIri), { baseIri: queryIri });
  const ds = query.dataset;
  const fromIris = ds ? [...ds.defaultGraphs, ...ds.namedGraphs].map((n) => n.value) : [];
  const view = await viewOf(loadDataset(spec, fromIris));
  const ctx: QueryCtx = { view, baseIri: queryIri, resolveGraph: (iri) => view.graphId(iri), timeoutMs: QUERY_TIMEOUT_MS };
  if (!ds) {
    ctx.defaultGraphs = [0];
    ctx.namedGraphs = spec.graphData.map((g) => view.graphId(g.name)).filter((g): g is number => g !== undefined);
  }
  return e.executeQuery(query, ctx);
}

/** Every quad of a view's default and named graphs (system graphs 1 and 2 excluded). */
export async function datasetOf(view: DbView): Promise<Quad[]> {
  const out: Quad[] = [];
  for await (const b of view.scan({})) {
    for (let i = 0; i < b.n; i++) {
      const g = b.g[i]!;
      if (g === 1 || g === 2) continue;
      const giri = g === 0 ? undefined : view.graphIri(g);
      const graph = giri === undefined ? defaultGraph : giri.startsWith('_:') ? { termType: 'BlankNode' as const, value: giri.slice(2) } : namedNode(giri);
      out.push({ subject: view.dict.term(b.s[i]!), predicate: view.dict.term(b.p[i]!) as Quad['predicate'], object: view.dict.term(b.o[i]!) as Term, graph });
    }
  }
  return out;
}

/**
 * Run the update file `requestIri` on a ledger holding the test's initial dataset and return the
 * whole resulting dataset. With an `executeUpdate` export it is called as
 * `executeUpdate(update, { conn, ledger, baseIri })`, `update` being the parsed update (the text
 * when there is no parser); otherwise the update parser's TxnRequest (kind `sparql-update`) goes
 * through the one write pipeline, `conn.transact`.
 */
export async function runUpdate(requestIri: string, spec: DatasetSpec): Promise<Quad[]> {
  const e = await engine();
  const text = readW3c(requestIri);
  const { conn, id } = await ledgerWith(loadDataset(spec));
  if (e.executeUpdate) {
    const update = e.parseUpdate ? e.parseUpdate(text, { baseIri: requestIri }) : text;
    await (e.executeUpdate as (u: unknown, ctx: unknown) => Promise<unknown>)(update, { conn, ledger: id, baseIri: requestIri });
  } else if (e.parseUpdate) {
    const req = e.parseUpdate(text, { baseIri: requestIri }) as TxnRequest;
    if (typeof req !== 'object' || req === null || !('kind' in req)) throw new Error('the update parser did not return a TxnRequest');
    await conn.transact(id, req);
  } else {
    throw new Error('SPARQL UPDATE not implemented');
  }
  return datasetOf(await conn.db(id));
}
