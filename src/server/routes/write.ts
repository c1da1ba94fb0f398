/**
 * Write endpoints (http-api.md §4.2, jsonld-transactions.md §1, §10–11): update (JSON-LD update,
 * SPARQL UPDATE raw or form-encoded, with the using-* protocol parameters), insert, upsert and sync
 * (with dry run). Every write goes through the one pipeline as an admitted operation; the pipeline
 * serialises per ledger and retries a moved head itself (16 attempts, then 409).
 */
import type { Context } from 'hono';
import { badRequest, isLedgraphError } from '../../core/errors.js';
import type { Connection } from '../../core/ledger/connection.js';
import { normalizeLedgerId, parseLedgerRef } from '../../core/ledger/ledger-id.js';
import { parseSparqlUpdateSliced } from '../../core/query/sparql/update.js';
import { defaultGraph, namedNode } from '../../core/rdf/terms.js';
import { parseJsonLdTxn, type JsonLdTxnOptions } from '../../core/transact/parse-jsonld.js';
import { parseRdfTxn, type RdfContentType } from '../../core/transact/parse-rdf.js';
import type { Receipt, TxnContext } from '../../core/transact/pipeline.js';
import type { GraphRef, MetaEntry, TxnOpts, TxnQuad, TxnRequest } from '../../core/transact/txn-request.js';
import type { AppEnv } from '../app.js';
import {
  boolQuery, decodeUtf8, parseJsonText, parseMediaType, queryAll, readBytes, requireLedger, requireMediaType,
} from '../http-util.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { resolveLoads } from '../load.js';
import { withOpts } from '../../core/transact/key-rows.js';
import { readRdfBody } from '../rdf-body.js';
import { route, type ParamSpec } from '../swagger.js';
import { Compactor, flakeTuple } from './history.js';
import { writePolicyOpts } from '../auth/index.js';
import { parseMaxFuel } from '../query-headers.js';
import { cypherUpdate } from './cypher.js';

type Ctx = Context<AppEnv>;

/** JSON-LD request types. */
export const JSONLD_TYPES = ['application/json', 'application/ld+json'];
/** RDF document types accepted for data writes. */
export const RDF_TYPES: RdfContentType[] = ['text/turtle', 'application/n-triples', 'application/trig', 'application/n-quads'];
const DATA_TYPES = [...JSONLD_TYPES, ...RDF_TYPES];
const SPARQL_UPDATE = 'application/sparql-update';
const FORM = 'application/x-www-form-urlencoded';
const CYPHER = 'application/cypher';
const UPDATE_TYPES = [...JSONLD_TYPES, SPARQL_UPDATE, FORM, CYPHER];

const USING_GRAPH = 'using-graph-uri';
const USING_NAMED = 'using-named-graph-uri';

const LEDGER_PARAM: ParamSpec = { name: 'ledger', description: 'Ledger id name:branch (on the form without a path ledger)' };
const LEDGER_HEADER_PARAM: ParamSpec = { name: 'Ledgraph-Ledger', description: 'Ledger id, when neither path nor ?ledger= gives it' };
const CONTEXT_PARAM: ParamSpec = {
  name: 'context',
  description: 'Default JSON-LD context for a JSON-LD body without @context, given inline as JSON (remote context URLs are not fetched)',
};
/** The `base` parameter (exported for the graph store's routes). */
export const BASE_PARAM: ParamSpec = {
  name: 'base',
  description: 'Base IRI (absolute) for relative IRI references in a JSON-LD or Turtle body that sets no @base; without it a relative reference is a 400',
};

/** An absolute IRI (scheme, then no whitespace or characters IRIs forbid). */
export function isAbsoluteIri(s: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|^`\\]*$/.test(s);
}

/** The `context` query parameter as a default context (inline JSON only). */
export function contextParam(c: Ctx): unknown {
  const raw = c.req.query('context');
  if (raw === undefined) return undefined;
  const s = raw.trim();
  if (s.startsWith('{') || s.startsWith('[')) return parseJsonText(s);
  throw badRequest(`context=${raw}: remote JSON-LD contexts are not fetched; pass the context inline as JSON or put it in the body's @context`);
}

/**
 * The `base` query parameter: the base IRI that relative references of a JSON-LD or Turtle body
 * resolve against when the body gives no `@base` (docs/jsonld-transactions.md). Absolute only.
 */
export function baseParam(c: Ctx): string | undefined {
  const raw = c.req.query('base');
  if (raw === undefined) return undefined;
  if (!isAbsoluteIri(raw)) throw badRequest(`base=${raw}: the base must be an absolute IRI`);
  return raw;
}

/** Parser options from the request: the `context` and `base` parameters. */
function jsonLdOptions(c: Ctx): JsonLdTxnOptions {
  const o: JsonLdTxnOptions = {};
  const ctx = contextParam(c);
  if (ctx !== undefined) o.ledgerDefaultContext = ctx;
  const base = baseParam(c);
  if (base !== undefined) o.base = base;
  return o;
}

/** 400 when a using-* parameter is given where only SPARQL UPDATE takes it (§4.2 rule 3). */
function rejectUsing(c: Ctx, where: string): void {
  if (queryAll(c, USING_GRAPH).length || queryAll(c, USING_NAMED).length) {
    throw badRequest(`${USING_GRAPH} / ${USING_NAMED} apply to SPARQL UPDATE only, not to ${where}; JSON-LD scopes WHERE with from / fromNamed`);
  }
}

/** A parsed data payload (JSON-LD or RDF document) of insert, upsert, sync or the graph store. */
export interface DataPayload {
  /** Media type as received. */
  contentType: string;
  /** Raw body bytes (tx-id). */
  bytes: Uint8Array;
  /** What the transaction blob records: parsed JSON for JSON bodies, else the text. */
  body: unknown;
  /** The request as the front end parsed it. */
  req: TxnRequest;
}

/** Parse a data body for `mode`; the ledger comes from the request or (JSON only) a body "ledger" key. */
async function readData(c: Ctx, contentType: string, mode: 'insert' | 'upsert'): Promise<DataPayload & { ledger: string }> {
  if (!JSONLD_TYPES.includes(contentType)) {
    // Parsed while it arrives (rdf-body.ts).
    const { bytes, body, req } = await readRdfBody(c, contentType as RdfContentType, mode, baseParam(c));
    return { contentType, bytes, body, req, ledger: requireLedger(c) };
  }
  const bytes = await readBytes(c);
  const text = decodeUtf8(bytes);
  if (JSONLD_TYPES.includes(contentType)) {
    const json = parseJsonText(text);
    const ledger = requireLedger(c, json);
    return { contentType, bytes, body: json, req: await parseJsonLdTxn(json, mode, jsonLdOptions(c)), ledger };
  }
  throw badRequest(`unexpected content type ${contentType}`);
}

/** The quads, metadata and options of a graph payload; an empty document gives no quads (not a 400). */
export async function graphPayload(contentType: string, text: string, json: unknown, base?: string): Promise<{ quads: TxnQuad[]; meta: MetaEntry[]; opts: TxnOpts; warnings?: string[] }> {
  try {
    const req = JSONLD_TYPES.includes(contentType)
      ? await parseJsonLdTxn(json, 'insert', base !== undefined ? { base } : {})
      : parseRdfTxn(text, contentType as RdfContentType, 'insert', base);
    if (req.kind !== 'insert') throw badRequest('expected graph data, not an update');
    return { quads: req.quads, meta: req.meta, opts: req.opts, ...(req.warnings ? { warnings: req.warnings } : {}) };
  } catch (e) {
    // The parsers refuse empty documents for insert; replacing a graph with nothing is meaningful.
    if (isLedgraphError(e) && e.status === 400 && e.message.startsWith('nothing to write')) return { quads: [], meta: [], opts: {} };
    throw e;
  }
}

/**
 * A graph payload body (sync, graph store): RDF text parsed while it arrives, JSON-LD read whole.
 * `body` is what the transaction blob records.
 */
export async function readGraphBody(c: Ctx, ct: string, base: string | undefined): Promise<{ bytes: Uint8Array; body: unknown; json: unknown; payload: Awaited<ReturnType<typeof graphPayload>> }> {
  if (RDF_TYPES.includes(ct as RdfContentType)) {
    const { bytes, body, req } = await readRdfBody(c, ct as RdfContentType, 'insert', base, true);
    if (req.kind !== 'insert') throw badRequest('expected graph data, not an update');
    return { bytes, body, json: undefined, payload: { quads: req.quads, meta: req.meta, opts: req.opts, ...(req.warnings ? { warnings: req.warnings } : {}) } };
  }
  const bytes = await readBytes(c);
  const text = decodeUtf8(bytes);
  const json = JSONLD_TYPES.includes(ct) ? parseJsonText(text) : undefined;
  return { bytes, body: json ?? text, json, payload: await graphPayload(ct, text, json, base) };
}

/**
 * Put payload quads into the target graph. Default-graph triples move into it; GRAPH blocks must
 * all name the target and may not sit beside default-graph triples (§4.2 sync).
 */
export function retarget(quads: TxnQuad[], target: GraphRef, what: string): TxnQuad[] {
  // A blank-node graph (a JSON-LD @graph container, TriG _:g) is a graph block too: it never names the target.
  const named = quads.filter((q) => q.graph.termType !== 'DefaultGraph');
  const label = (g: TxnQuad['graph']) => (g.termType === 'BlankNode' ? `_:${g.value}` : `<${g.value}>`);
  if (named.length === 0) return target.termType === 'DefaultGraph' ? quads : quads.map((q) => ({ ...q, graph: target }));
  if (target.termType === 'DefaultGraph') {
    throw badRequest(`${what}: the payload has a GRAPH block (${label(named[0]!.graph)}) but the target is the default graph; name the graph in the graph parameter`);
  }
  const other = named.find((q) => q.graph.termType !== 'NamedNode' || q.graph.value !== target.value);
  if (other) throw badRequest(`${what}: GRAPH ${label(other.graph)} does not name the target graph <${target.value}>`);
  if (named.length !== quads.length) throw badRequest(`${what}: GRAPH blocks may not sit beside default-graph triples`);
  return quads;
}

/** The sync `graph` parameter: absent or `default` for the default graph, else an absolute IRI. */
function syncGraph(c: Ctx): GraphRef {
  const g = c.req.query('graph');
  if (g === undefined || g === 'default') return defaultGraph;
  if (!isAbsoluteIri(g)) throw badRequest(`graph must be an absolute IRI or the word default, not "${g}"`);
  return namedNode(g);
}

/** The ledger id a write targets; a time pin or fragment is a 400 (writes go to the head). */
export function writeLedgerId(ledger: string): string {
  if (/[@#]/.test(ledger)) {
    const ref = parseLedgerRef(ledger);
    if (ref.time.kind !== 'head') throw badRequest(`writes cannot target a past state: ${ledger} is pinned in time; write to ${ref.id}`);
    if (ref.fragment !== null) throw badRequest(`a write names a ledger, not a graph: drop #${ref.fragment} from ${ledger}`);
    return ref.id;
  }
  return normalizeLedgerId(ledger);
}

/** Run one write through the pipeline as an admitted operation and log it. */
export async function commitWrite(c: Ctx, ctx: ServerContext, ledger: string, req: TxnRequest, tx: TxnContext): Promise<Receipt> {
  const id = writeLedgerId(ledger);
  // Policy (policy.md §3.1, §6): a credential's identity replaces the client's selection.
  req = withOpts(req, writePolicyOpts(c, req.opts));
  // An update's WHERE is a query: the client going away, the query timeout and fuel stop it too.
  const limits: TxnContext = { signal: c.req.raw.signal };
  if (ctx.config.queryTimeoutMs > 0) limits.whereTimeoutMs = ctx.config.queryTimeoutMs;
  // A slow write ahead of this one holds it at most this long (then 503 with Retry-After).
  if (ctx.config.writeQueueWaitMs > 0) limits.queueWaitMs = ctx.config.writeQueueWaitMs;
  const maxFuel = parseMaxFuel(c.req.raw.headers);
  if (maxFuel !== undefined) limits.maxFuel = maxFuel;
  const receipt = await ctx.admission.run(() => ctx.conn.transact(id, req, { ...tx, ...limits }));
  c.get('log').info('transaction', {
    ledger: id, kind: req.kind, t: receipt.t, commit_id: receipt.commit_id,
    flakes_added: receipt.flakes_added, flakes_retracted: receipt.flakes_retracted,
  });
  return receipt;
}

/** The delta a sync would commit, staged under the ledger's lock and then discarded. */
async function syncDelta(conn: Connection, ledgerId: string, req: TxnRequest, graph: GraphRef): Promise<Record<string, unknown>> {
  const { ledger, t, flakes, newGraphs } = await conn.stage(ledgerId, req);
  const compactor = new Compactor(ledger.ns);
  const tuples = flakes.map((f) => flakeTuple(f, compactor, (g) => ledger.graphs.iri(g) ?? newGraphs.get(g)));
  return {
    ledger_id: ledger.id, graph: graph.termType === 'DefaultGraph' ? 'default' : graph.value, dry_run: true, t,
    flakes_added: flakes.filter((f) => f.op).length, flakes_retracted: flakes.filter((f) => !f.op).length,
    '@context': compactor.context(), flakes: tuples,
  };
}

const WRITE_ERRORS = {
  400: 'Invalid body, parameters or missing ledger', 404: 'Ledger not found',
  409: 'err:db/CommitConflict: the head kept moving through 16 attempts (retryable)', 413: 'Body over --body-limit, or the novelty delta alone is too large',
  415: 'Unsupported Content-Type', 422: 'Constraint violation (eventTime order, datatype limit)',
  503: 'Novelty at reindex_max_bytes, or too many writes in flight (Retry-After)',
};
const RECEIPT = 'Commit receipt {ledger_id, t, timestamp, commit_id, previous_commit_id, flakes_added, flakes_retracted, tx-id, commit, warnings?}';

/**
 * Handle an update request: a JSON-LD update, or SPARQL UPDATE as `application/sparql-update` or a
 * form with `update=` (and the using-* parameters from the URL and the form).
 */
export async function handleUpdate(c: Ctx, ctx: ServerContext): Promise<Response> {
  if (parseMediaType(c.req.header('Content-Type'))?.type === CYPHER) {
    return cypherUpdate(c, ctx, (ledger, req, tx) => commitWrite(c, ctx, ledger, req, tx));
  }
  const ct = requireMediaType(c, UPDATE_TYPES, 'update');
  const bytes = await readBytes(c);
  const text = decodeUtf8(bytes);
  if (JSONLD_TYPES.includes(ct)) {
    rejectUsing(c, 'a JSON-LD update');
    const json = parseJsonText(text);
    if (typeof (json as { cypher?: unknown } | null)?.cypher === 'string') throw badRequest('this looks like a Cypher envelope {"cypher", "params"}: send it with Content-Type: application/cypher');
    const ledger = requireLedger(c, json);
    const req = await parseJsonLdTxn(json, 'update', jsonLdOptions(c));
    return c.json(await commitWrite(c, ctx, ledger, req, { contentType: ct, body: json, rawBody: bytes }));
  }
  let sparql = text;
  let usingGraphs = queryAll(c, USING_GRAPH), usingNamed = queryAll(c, USING_NAMED);
  if (ct === FORM) {
    const form = new URLSearchParams(text);
    const updates = form.getAll('update');
    if (updates.length !== 1) throw badRequest(updates.length ? 'give exactly one "update" form field' : 'missing "update" form field with the SPARQL UPDATE text');
    sparql = updates[0]!;
    usingGraphs = [...usingGraphs, ...form.getAll(USING_GRAPH)];
    usingNamed = [...usingNamed, ...form.getAll(USING_NAMED)];
  }
  const ledger = requireLedger(c);
  // Parsed in slices: a large INSERT DATA must not hold up other requests (docs/isolation.md).
  const parsed = await parseSparqlUpdateSliced(sparql, { usingGraphUris: usingGraphs, usingNamedGraphUris: usingNamed });
  // LOAD <url> is fetched here, before staging, behind --federation-allow (server/load.ts).
  const req = await resolveLoads(parsed, ctx.conn.federation, {
    maxBytes: ctx.config.bodyLimit, timeoutMs: ctx.config.queryTimeoutMs || 60_000, signal: c.req.raw.signal,
  });
  return c.json(await commitWrite(c, ctx, ledger, req, { contentType: SPARQL_UPDATE, body: sparql, rawBody: bytes }));
}

/** Registers /update, /insert, /upsert and /sync (each with and without a path ledger). */
export const writeRoutes: Registrar = (api, ctx) => {
  const update = (c: Ctx) => handleUpdate(c, ctx);
  const updateSpec = (path: string) => ({
    method: 'POST' as const, path, tag: 'write', summary: 'Update: JSON-LD where/delete/insert, SPARQL UPDATE, or a Cypher write statement',
    description: 'JSON-LD bodies without where/delete/insert/values are inserts. Turtle and TriG are not accepted here (use insert or upsert). '
      + 'application/cypher (raw text or {"cypher", "params"}) needs the ledger in the path; a trailing RETURN adds the result envelope beside the receipt.',
    query: [
      LEDGER_PARAM, CONTEXT_PARAM, BASE_PARAM,
      { name: USING_GRAPH, repeatable: true, description: 'SPARQL UPDATE only: the WHERE default graph of every DELETE/INSERT ... WHERE (as USING)' },
      { name: USING_NAMED, repeatable: true, description: 'SPARQL UPDATE only: the WHERE named graphs (as USING NAMED)' },
    ],
    headers: [LEDGER_HEADER_PARAM, { name: 'Idempotency-Key', description: 'Cypher writes: replays the stored response (24 h) for the same key and body' }],
    // Cypher has no dataset clause: only the path form accepts it (cypher.md §1).
    requestTypes: path.includes('{ledger}') ? UPDATE_TYPES : UPDATE_TYPES.filter((t) => t !== CYPHER),
    responses: { 200: RECEIPT, ...WRITE_ERRORS },
  });
  route(api, ctx.table, updateSpec('/update'), update);
  route(api, ctx.table, updateSpec('/update/{ledger}'), update);

  for (const mode of ['insert', 'upsert'] as const) {
    const handler = async (c: Ctx) => {
      const ct = requireMediaType(c, DATA_TYPES, mode);
      rejectUsing(c, mode);
      const p = await readData(c, ct, mode);
      return c.json(await commitWrite(c, ctx, p.ledger, p.req, { contentType: ct, body: p.body, rawBody: p.bytes }));
    };
    const spec = (path: string) => ({
      method: 'POST' as const, path, tag: 'write',
      summary: mode === 'insert' ? 'Insert data (JSON-LD, Turtle, N-Triples, TriG, N-Quads)' : 'Upsert: replace the values of each supplied (subject, predicate)',
      query: [LEDGER_PARAM, CONTEXT_PARAM, BASE_PARAM],
      headers: [LEDGER_HEADER_PARAM],
      requestTypes: DATA_TYPES,
      responses: { 200: RECEIPT, ...WRITE_ERRORS },
    });
    route(api, ctx.table, spec(`/${mode}`), handler);
    route(api, ctx.table, spec(`/${mode}/{ledger}`), handler);
  }

  const sync = async (c: Ctx) => {
    const ct = requireMediaType(c, DATA_TYPES, 'sync');
    rejectUsing(c, 'sync');
    const graph = syncGraph(c);
    const dryRun = boolQuery(c, 'dryRun', false);
    const allowEmpty = boolQuery(c, 'allowEmpty', false);
    const { bytes, body, json, payload } = await readGraphBody(c, ct, baseParam(c));
    const ledger = writeLedgerId(requireLedger(c, json));
    const quads = retarget(payload.quads, graph, 'sync');
    if (quads.length === 0 && !allowEmpty) {
      throw badRequest('the payload is empty, which would clear the graph; pass allowEmpty=true to confirm');
    }
    const req: TxnRequest = { kind: 'replace', graphs: [graph], quads, meta: payload.meta, opts: payload.opts, ...(payload.warnings ? { warnings: payload.warnings } : {}) };
    if (dryRun) return c.json(await ctx.admission.run(() => syncDelta(ctx.conn, ledger, req, graph)));
    return c.json(await commitWrite(c, ctx, ledger, req, { contentType: ct, body, rawBody: bytes }));
  };
  const syncSpec = (path: string) => ({
    method: 'POST' as const, path, tag: 'write', summary: 'Sync: make one graph exactly the payload, committing only the delta',
    query: [
      LEDGER_PARAM, BASE_PARAM,
      { name: 'graph', description: 'Target named graph IRI; omit (or give the word default) for the default graph' },
      { name: 'dryRun', type: 'boolean' as const, description: 'Stage and report the delta without committing' },
      { name: 'allowEmpty', type: 'boolean' as const, description: 'Confirm an empty payload, which clears the graph' },
    ],
    headers: [LEDGER_HEADER_PARAM],
    requestTypes: DATA_TYPES,
    responses: { 200: `${RECEIPT}; with dryRun=true the delta {ledger_id, graph, dry_run, t, flakes_added, flakes_retracted, @context, flakes}`, ...WRITE_ERRORS },
  });
  route(api, ctx.table, syncSpec('/sync'), sync);
  route(api, ctx.table, syncSpec('/sync/{ledger}'), sync);
};
