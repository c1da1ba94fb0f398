/**
 * The query endpoints (http-api.md §4.5): `POST /query` (connection-scoped: the ledger comes from
 * the query's `from` / `FROM`, or the Ledgraph-Ledger header) and `POST /query/<ledger...>`
 * (ledger-scoped), for SPARQL (also in SPARQL 1.1 Protocol form: `GET ?query=`, form-encoded POST,
 * `default-graph-uri` / `named-graph-uri`) and JSON-LD queries. The response format is negotiated
 * from Accept or `format=`; results stream from the engine to the socket, buffered only up to a
 * small prefix so that an early failure can still carry its own status. Also home of the request
 * helpers the streaming and multi-query endpoints share.
 */
import type { Context } from 'hono';
import { badRequest, forbidden, isLedgraphError, LedgraphError, timeoutError, unsupportedMediaType } from '../../core/errors.js';
import { checkQueryLength } from '../../core/limits.js';
import type { DbView } from '../../core/index/view.js';
import type { Connection } from '../../core/ledger/connection.js';
import { parseLedgerRef, type TimeSpec } from '../../core/ledger/ledger-id.js';
import { isRootPolicy, mergePolicyInputs, policyView, type PolicyInputs } from '../../core/policy/index.js';
import { parseSparqlSliced } from '../../core/query/sparql/parse.js';
import { parseQueryOpts } from '../../core/query/jsonld/opts.js';
import { effectiveContext } from '../../core/query/jsonld/parse.js';
import { policyInputsOf, runJsonLdQuery, streamJsonLdSelect, type JsonLdQueryRequest } from '../../core/query/jsonld/service.js';
import { writeNQuads, writeNTriples, writeRdfXml, writeTriG, writeTurtle } from '../../core/query/results/rdf-writers.js';
import { writeJsonLd } from '../../core/query/results/jsonld-writer.js';
import { writeCsv, writeTsv } from '../../core/query/results/sparql-csv-tsv.js';
import { writeSparqlJsonChunked } from '../../core/query/results/sparql-json.js';
import { SparqlJsonByteChunks, sparqlJsonBytes } from '../../core/query/results/sparql-json-bytes.js';
import { writeSparqlXml } from '../../core/query/results/sparql-xml.js';
import type { QueryResult } from '../../core/query/results/types.js';
import { executeSparql, sparqlHistoryRange, type SparqlRun } from '../../core/query/sparql-run.js';
import { parseJsonLdTxn } from '../../core/transact/parse-jsonld.js';
import { responseWithId, type AppEnv } from '../app.js';
import type { Logger } from '../log.js';
import { abortTransfer, decodeUtf8, parseJsonText, parseMediaType, queryAll, readBytes, requestAbort, type RequestAbort } from '../http-util.js';
import { MEDIA_TYPE, negotiateFormat, outputOptions, type OutputOptions, type ResultFormat } from '../negotiate.js';
import { headerLedger, type HeaderReader, parseMaxFuel, parseMinT, policyFromHeaders, sparqlPolicyInputs, waitForMinT, POLICY_HEADERS } from '../query-headers.js';
import { requireQueryServed } from '../storage-proxy/serving.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { route } from '../swagger.js';
import { serviceDescription } from './service-description.js';
import { cypherQuery, isCypher } from './cypher.js';
import { authenticate, POLICY_CONFLICT, resolvePolicyInputs, type AuthState } from '../auth/index.js';

type Ctx = Context<AppEnv>;

// ---------------------------------------------------------------------------------------------
// Shared request reading

/** A query as it arrived: SPARQL text or a JSON-LD query object, plus SPARQL Protocol dataset parameters. */
export type QueryInput =
  | { lang: 'sparql'; text: string; defaultGraphUris: string[]; namedGraphUris: string[] }
  | { lang: 'jsonld'; body: Record<string, unknown> };

/** Request content types of the query endpoints (and what they mean). */
export const QUERY_CONTENT_TYPES = ['application/json', 'application/ld+json', 'application/sparql-query', 'application/x-www-form-urlencoded'] as const;

/**
 * Read the query of a POST (or a SPARQL Protocol GET with `?query=`). JSON bodies are JSON-LD
 * queries; `application/sparql-query` is SPARQL text; a form body carries `query=`. Anything
 * else is a 415 that names what to use (SPARQL UPDATE belongs to /update).
 */
export async function readQueryInput(c: Ctx, opts: { form: boolean } = { form: true }): Promise<QueryInput> {
  const dflt = queryAll(c, 'default-graph-uri');
  const named = queryAll(c, 'named-graph-uri');
  if (c.req.method === 'GET' || c.req.method === 'HEAD') {
    const text = c.req.query('query');
    if (text === undefined) throw badRequest('missing query: give SPARQL text as ?query=, or POST the query');
    return { lang: 'sparql', text, defaultGraphUris: dflt, namedGraphUris: named };
  }
  const raw = c.req.header('Content-Type');
  const mt = parseMediaType(raw);
  const allowed = opts.form ? QUERY_CONTENT_TYPES : QUERY_CONTENT_TYPES.filter((t) => t !== 'application/x-www-form-urlencoded');
  const cs = mt?.params.charset?.toLowerCase();
  if (mt && cs && cs !== 'utf-8' && cs !== 'utf8' && cs !== 'us-ascii') throw unsupportedMediaType(`unsupported charset ${cs}; bodies must be UTF-8`);
  switch (mt?.type) {
    case 'application/json':
    case 'application/ld+json': {
      const text = decodeUtf8(await readBytes(c));
      checkQueryLength(text, 'JSON-LD query');
      const json = parseJsonText(text);
      if (typeof json !== 'object' || json === null || Array.isArray(json)) throw badRequest('a JSON-LD query must be a JSON object');
      return { lang: 'jsonld', body: json as Record<string, unknown> };
    }
    case 'application/sparql-query':
      return { lang: 'sparql', text: decodeUtf8(await readBytes(c)), defaultGraphUris: dflt, namedGraphUris: named };
    case 'application/x-www-form-urlencoded': {
      if (!opts.form) break;
      const params = new URLSearchParams(decodeUtf8(await readBytes(c)));
      if (params.has('update')) throw unsupportedMediaType('this is a SPARQL UPDATE request; send it to /update');
      const text = params.get('query');
      if (text === null) throw badRequest('missing query: a form-encoded request needs a query= field');
      return { lang: 'sparql', text, defaultGraphUris: [...dflt, ...params.getAll('default-graph-uri')], namedGraphUris: [...named, ...params.getAll('named-graph-uri')] };
    }
    case 'application/sparql-update':
      throw unsupportedMediaType('application/sparql-update is a SPARQL UPDATE request; send it to /update');
    case 'application/cypher':
      throw unsupportedMediaType('Cypher (application/cypher) is answered on POST /query/<ledger> only, not on this endpoint');
    case 'application/jose':
      throw unsupportedMediaType('signed (application/jose) query requests are not supported by this server yet; send the query unsigned with a bearer token');
    default:
      break;
  }
  const list = allowed.join(', ');
  throw unsupportedMediaType(!raw ? `missing Content-Type for a query; use one of ${list}` : `unsupported Content-Type ${mt?.type ?? raw} for a query; use one of ${list}`);
}

// ---------------------------------------------------------------------------------------------
// SPARQL text inspection (before parsing: form, prologue declarations, history ranges)

/** What the prologue of SPARQL text declares, and the query form that follows it. */
export interface SparqlPrologue {
  form: 'select' | 'ask' | 'construct' | 'describe' | null;
  /** Number of PREFIX declarations. */
  prefixes: number;
  /** A BASE declaration is present. */
  base: boolean;
}

/**
 * Scan the prologue of SPARQL text (comments, BASE, PREFIX) up to the query-form keyword, without
 * parsing the query: the form decides the response format before anything runs. An unrecognised
 * start gives form null (the parser then reports the real error).
 */
export function sparqlPrologue(text: string): SparqlPrologue {
  const out: SparqlPrologue = { form: null, prefixes: 0, base: false };
  let i = 0;
  const n = text.length;
  const skip = () => {
    for (;;) {
      while (i < n && /\s/.test(text[i]!)) i++;
      if (text[i] !== '#') return;
      while (i < n && text[i] !== '\n') i++;
    }
  };
  const iri = (): boolean => {
    skip();
    if (text[i] !== '<') return false;
    const end = text.indexOf('>', i);
    if (end < 0) return false;
    i = end + 1;
    return true;
  };
  for (;;) {
    skip();
    const m = /^[A-Za-z]+/.exec(text.slice(i, i + 16));
    if (!m) return out;
    const word = m[0].toLowerCase();
    i += m[0].length;
    if (word === 'prefix') {
      skip();
      const p = /^[^\s:<]*:/.exec(text.slice(i, i + 256));
      if (!p) return out;
      i += p[0].length;
      if (!iri()) return out;
      out.prefixes++;
    } else if (word === 'base') {
      if (!iri()) return out;
      out.base = true;
    } else {
      if (word === 'select' || word === 'ask' || word === 'construct' || word === 'describe') out.form = word;
      return out;
    }
  }
}

/** The ledger ids a SPARQL request reads: the default ledger and every FROM / FROM NAMED IRI naming an existing ledger. */
export async function sparqlLedgerIds(conn: Connection, text: string, opts: { ledger?: string | undefined; defaultGraphUris?: string[]; namedGraphUris?: string[] }): Promise<string[]> {
  const ids = new Set<string>();
  if (opts.ledger !== undefined) ids.add(parseLedgerRef(opts.ledger).id);
  const protocol = [...(opts.defaultGraphUris ?? []), ...(opts.namedGraphUris ?? [])];
  let iris = protocol;
  if (!protocol.length) {
    const ds = (await parseSparqlSliced(text)).dataset;
    iris = ds ? [...ds.defaultGraphs, ...ds.namedGraphs].map((g) => g.value) : [];
  }
  for (const iri of iris) {
    let id: string;
    try { id = parseLedgerRef(iri).id; } catch { continue; }
    if (await conn.exists(id)) ids.add(id);
  }
  return [...ids];
}

/** Wait for every ledger to reach `minT` (Ledgraph-Min-T), within the time left before `deadline` (ms since the epoch; 0 = none). */
export async function awaitFreshness(conn: Connection, ledgers: readonly string[], minT: number, deadline: number, signal?: AbortSignal): Promise<void> {
  for (const id of ledgers) {
    const left = deadline ? Math.max(1, deadline - Date.now()) : 0;
    await waitForMinT(conn, id, minT, { timeoutMs: left, ...(signal ? { signal } : {}) });
  }
}

// ---------------------------------------------------------------------------------------------
// Responses

/** What each result shape of SPARQL can be written as, server preference first. */
export const SPARQL_FORMATS: Record<'bindings' | 'boolean' | 'quads', readonly ResultFormat[]> = {
  bindings: ['sparql-json', 'json', 'sparql-xml', 'csv', 'tsv'],
  boolean: ['sparql-json', 'json', 'sparql-xml'],
  quads: ['jsonld', 'json', 'turtle', 'ntriples', 'nquads', 'trig', 'rdfxml'],
};

/** The result shape of a query form. */
export function shapeOfForm(form: SparqlPrologue['form']): 'bindings' | 'boolean' | 'quads' {
  return form === 'ask' ? 'boolean' : form === 'construct' || form === 'describe' ? 'quads' : 'bindings';
}

/** Serialise a result in a negotiated format, as text chunks. */
export function writeResult(result: QueryResult, format: ResultFormat): AsyncIterable<string> {
  switch (format) {
    case 'sparql-json': return writeSparqlJsonChunked(result);
    case 'json': return result.type === 'quads' ? writeJsonLd(result) : writeSparqlJsonChunked(result);
    case 'jsonld': return writeJsonLd(result);
    case 'sparql-xml': return writeSparqlXml(result);
    case 'csv': return writeCsv(result);
    case 'tsv': return writeTsv(result);
    case 'turtle': return writeTurtle(result);
    case 'ntriples': return writeNTriples(result);
    case 'nquads': return writeNQuads(result);
    case 'trig': return writeTriG(result);
    case 'rdfxml': return writeRdfXml(result);
    case 'agent': throw badRequest('agent JSON is produced for JSON-LD queries only');
  }
}

/** Results up to this size are sent whole, so a failure while producing them still gets its own status. */
const PREFIX_BYTES = 256 * 1024;
/** Target size of one streamed chunk. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Respond with text chunks. The first PREFIX_BYTES are produced before the status is sent: a
 * result that fits is one ordinary response (an error on the way is a normal error response);
 * a larger one streams with status 200, pulled as the socket drains. A failure after that point
 * aborts the connection, so a client never mistakes a truncated body for a complete one. A client
 * that goes away aborts the request signal the query runs under; the chunks are abandoned too.
 */
export async function respondChunks(c: Ctx, chunks: BodyChunks, contentType: string): Promise<Response> {
  const body = await chunksBody(chunks, () => c.get('log'), () => abortTransfer(c));
  // The writers' byte chunks are plain ArrayBuffer-backed arrays.
  return responseWithId(c, body as BodyInit, 200, { 'content-type': contentType });
}

/** A response body as the writers produce it: text chunks, or UTF-8 byte chunks. */
export type BodyChunks = AsyncIterable<string> | AsyncIterable<Uint8Array>;

/** The parts as one body: the text joined, or the bytes (one part as it is). */
function joinParts(parts: (string | Uint8Array)[]): string | Uint8Array {
  if (parts.length === 0) return '';
  if (parts.length === 1) return parts[0]!;
  if (typeof parts[0] === 'string') return (parts as string[]).join('');
  const bytes = parts as Uint8Array[];
  let n = 0;
  for (const p of bytes) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of bytes) { out.set(p, n); n += p.length; }
  return out;
}

/**
 * The body of respondChunks: the whole text (or bytes) when it fits PREFIX_BYTES, else a byte
 * stream pulled as the socket drains. `abort` ends the transfer mid-way (false when it cannot: the
 * stream errors).
 */
export async function chunksBody(chunks: BodyChunks, log: () => Logger, abort: () => boolean): Promise<string | Uint8Array | ReadableStream<Uint8Array>> {
  const prefix: (string | Uint8Array)[] = [];
  let size = 0;
  let it: AsyncIterator<string | Uint8Array>;
  if (chunks instanceof SparqlJsonByteChunks) {
    // The byte writer's first chunk in one call: a small result (one chunk) is the whole body,
    // with no generator between the writer and the response.
    const first = (await chunks.next())!;
    if (chunks.done) return first;
    prefix.push(first);
    size = first.length;
    it = chunks[Symbol.asyncIterator]();
  } else {
    it = (chunks as AsyncIterable<string | Uint8Array>)[Symbol.asyncIterator]();
  }
  for (;;) {
    const r = await it.next();
    if (r.done) return joinParts(prefix);
    prefix.push(r.value);
    size += r.value.length;
    if (size >= PREFIX_BYTES) break;
  }
  const enc = new TextEncoder();
  const bytesOf = (x: string | Uint8Array): Uint8Array => (typeof x === 'string' ? enc.encode(x) : x);
  let pending: (string | Uint8Array)[] | null = prefix;
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      if (pending !== null) { ctl.enqueue(bytesOf(joinParts(pending))); pending = null; return; }
      const buf: (string | Uint8Array)[] = [];
      let n = 0;
      try {
        while (n < CHUNK_CHARS) {
          const r = await it.next();
          if (r.done) {
            if (n) ctl.enqueue(bytesOf(joinParts(buf)));
            ctl.close();
            return;
          }
          buf.push(r.value);
          n += r.value.length;
        }
        ctl.enqueue(bytesOf(joinParts(buf)));
      } catch (e) {
        log().warn('query response failed after the status was sent; aborting the connection', {
          error: e instanceof Error ? e.message : String(e), ...(isLedgraphError(e) ? { status: e.status, type: e.type } : {}),
        });
        // Destroying the socket ends the transfer without its last chunk; the adapter then
        // cancels this stream. Erroring the stream instead would have the adapter log the error
        // and try to end the response with its text.
        if (!abort()) ctl.error(e);
      }
    },
    cancel() {
      void it.return?.()?.catch(() => {});
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Running queries (shared by /query, /stream/query and /multi-query)

export { executeSparql, sparqlHistoryRange, type SparqlRun };

/**
 * The policy a request runs under (policy.md §3, §3.1): with a verified credential the server
 * selects it and client inputs may only narrow it (else 403); without one the client's inputs
 * stand. The server's default policy class joins where the spec applies it.
 */
export function resolvePolicy(c: Ctx, ctx: ServerContext, client: PolicyInputs, applyDefaultClass: boolean): PolicyInputs {
  return resolvePolicyInputs(authenticate(c), client, ctx.config.defaultPolicyClass, applyDefaultClass) ?? {};
}

/** The form of a JSON-LD query body, by its keys (before parsing, to negotiate the format). */
export function jsonLdForm(body: Record<string, unknown>): 'select' | 'selectOne' | 'construct' | 'ask' {
  if (body.ask !== undefined) return 'ask';
  if (body.construct !== undefined) return 'construct';
  if (body.selectOne !== undefined || body['select-one'] !== undefined) return 'selectOne';
  return 'select';
}

/**
 * The policy hook of a JSON-LD query: restrict the resolved view to what `inputs` allow; a `from`
 * object's own `policy` replaces them for its ledger (jsonld-query.md §12). Undefined when no
 * policy applies anywhere.
 */
export function jsonLdWrapView(conn: Connection, body: Record<string, unknown>, inputs: PolicyInputs, sources: { ledger: string; policy: unknown }[] | undefined): JsonLdQueryRequest['wrapView'] {
  if (isRootPolicy(inputs) && !sources?.length) return undefined;
  return async (view: DbView, ledgers: Record<string, number>) => {
    const ids = Object.keys(ledgers);
    let applied = inputs;
    const own = sources?.find((s) => ids.includes(parseLedgerRef(s.ledger).id));
    if (own) applied = parseQueryOpts(own.policy, effectiveContext(body, undefined).ctx).policy;
    if (isRootPolicy(applied)) return view;
    if (ids.length !== 1) throw badRequest('a query under a policy (identity, policy-class, policy or default-allow) must read exactly one ledger');
    return (await policyView(conn, view, applied, { ledgerId: ids[0]! })).view;
  };
}

/** Everything a JSON-LD query needs from the HTTP request (headers are defaults; the body's opts win). */
export function jsonLdRequest(c: Ctx, ctx: ServerContext, body: Record<string, unknown>, o: {
  ledger?: string | undefined; at?: TimeSpec; timeoutMs?: number | undefined; maxFuel?: number | undefined;
  signal: AbortSignal; output: OutputOptions; agent: boolean; headerPolicy: PolicyInputs;
}): JsonLdQueryRequest {
  const { sources, ...bodyPolicy } = policyInputsOf(body);
  const inputs = resolvePolicy(c, ctx, mergePolicyInputs(o.headerPolicy, bodyPolicy as PolicyInputs), true);
  // A per-source policy is a client selection too: under a verified credential it conflicts (§3.1).
  const st = authenticate(c);
  if (sources?.length && (st.bearer || st.signer)) throw forbidden(POLICY_CONFLICT);
  const wrapView = jsonLdWrapView(ctx.conn, body, inputs, sources);
  const maxFuel = o.maxFuel;
  return {
    ...(o.ledger !== undefined ? { ledger: o.ledger } : {}),
    ...(o.at ? { at: o.at } : {}),
    ...(maxFuel !== undefined ? { maxFuel } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    signal: o.signal,
    ...(o.output.outputFormat ? { outputFormat: o.output.outputFormat } : {}),
    ...(o.output.normalizeArrays !== undefined ? { normalizeArrays: o.output.normalizeArrays } : {}),
    ...(o.agent ? { agent: o.output.maxBytes !== undefined ? { maxBytes: o.output.maxBytes } : {} } : {}),
    ...(wrapView ? { wrapView } : {}),
  };
}

/**
 * The Ledgraph-Ledger header as the ledger of a connection-scoped JSON-LD query: only when the
 * body names none itself (`from` / `fromNamed`, also inside `opts`), since the header is the
 * fallback, not a scope.
 */
export function jsonLdDefaultLedger(body: Record<string, unknown>, headers: Headers): string | undefined {
  const opts = typeof body.opts === 'object' && body.opts !== null ? body.opts as Record<string, unknown> : {};
  const names = ['from', 'fromNamed', 'from-named'].some((k) => body[k] !== undefined || opts[k] !== undefined);
  return names ? undefined : headerLedger(headers);
}

/** `Ledgraph-Max-Fuel` as the default of a JSON-LD body that sets no `max-fuel` of its own (the body wins). */
export function headerFuelDefault(headers: Headers, body: Record<string, unknown>): number | undefined {
  const fuel = parseMaxFuel(headers);
  const opts = typeof body.opts === 'object' && body.opts !== null ? body.opts as Record<string, unknown> : {};
  return opts['max-fuel'] !== undefined || opts.maxFuel !== undefined || opts.max_fuel !== undefined ? undefined : fuel;
}

/** A body with the header's `min-t` as its default (the JSON-LD service waits for it). */
function withHeaderMinT(body: Record<string, unknown>, minT: number | undefined): Record<string, unknown> {
  if (minT === undefined) return body;
  const opts = typeof body.opts === 'object' && body.opts !== null && !Array.isArray(body.opts) ? body.opts as Record<string, unknown> : {};
  if (opts['min-t'] !== undefined || opts.minT !== undefined || opts.min_t !== undefined) return body;
  return { ...body, opts: { ...opts, 'min-t': minT } };
}

/** The JSON body of a JSON-LD result: the result itself, or with tracking `{status, result, time, fuel, policy}`. */
export function jsonLdBody(res: Awaited<ReturnType<typeof runJsonLdQuery>>): unknown {
  const t = res.tracking;
  if (!t) return res.result;
  const members = t.members ?? ['time', 'fuel', 'policy'];
  const out: Record<string, unknown> = { status: 200, result: res.result };
  if (members.includes('time')) out.time = t.time;
  if (members.includes('fuel')) out.fuel = t.fuel;
  if (members.includes('policy') && t.policy) out.policy = t.policy;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Handlers

/** Server limits of one query request: its deadline (ms since the epoch; 0 = none) and timeout. */
export function queryDeadline(ctx: Pick<ServerContext, 'config'>): { deadline: number; timeoutMs: number | undefined } {
  const t = ctx.config.queryTimeoutMs;
  return t > 0 ? { deadline: Date.now() + t, timeoutMs: t } : { deadline: 0, timeoutMs: undefined };
}

/** Time left before a deadline (undefined when there is none). */
export function remaining(deadline: number): number | undefined {
  return deadline ? Math.max(1, deadline - Date.now()) : undefined;
}

/** What running a query needs of the server: its configuration and Connection. */
export type QueryServices = Pick<ServerContext, 'config' | 'conn'>;

/**
 * What a SPARQL query request of /query brings besides its text: the same for the app's route and
 * for the plain-request fast path (fast-query.ts), so both answer alike.
 */
export interface SparqlCall {
  accept: string | undefined;
  /** The `format=` parameter. */
  formatParam: string | undefined;
  /** Request headers (Ledgraph-Min-T, -Max-Fuel, -Ledger and the policy headers are read from them). */
  headers: HeaderReader;
  /** The request's authentication outcome (auth middleware). */
  auth: AuthState;
  pathLedger: string | undefined;
  /** The request's cancellation (made once the request is otherwise accepted). */
  abort: () => RequestAbort;
  /** The responder takes UTF-8 byte chunks where the format has a byte writer (SPARQL JSON from term ids). */
  bytes?: boolean;
}

/**
 * Run a SPARQL query of /query and hand its result, as chunks in the negotiated format (text, or
 * bytes where `call.bytes` and the format has a byte writer), to `respond`; the request's
 * cancellation is disposed of when `respond` fails.
 */
export async function runSparqlCall<R>(ctx: QueryServices, input: Extract<QueryInput, { lang: 'sparql' }>, call: SparqlCall,
  respond: (chunks: BodyChunks, contentType: string) => Promise<R>): Promise<R> {
  const { text } = input;
  const { headers, accept, formatParam } = call;
  const prologue = sparqlPrologue(text);
  const format = negotiateFormat(accept, formatParam, SPARQL_FORMATS[shapeOfForm(prologue.form)]);
  const maxFuel = parseMaxFuel(headers);
  const minT = parseMinT(headers);
  const policy = resolvePolicyInputs(call.auth, sparqlPolicyInputs(text, headers), ctx.config.defaultPolicyClass, true) ?? {};
  const ledger = call.pathLedger ?? headerLedger(headers);
  const { deadline } = queryDeadline(ctx);
  // One signal stops the query when the client goes away and, once the query runs, at the deadline.
  const abort = call.abort();
  try {
    if (minT !== undefined) {
      const range = sparqlHistoryRange(text);
      const ids = range ? [parseLedgerRef(range.from).id]
        : await sparqlLedgerIds(ctx.conn, text, { ledger, defaultGraphUris: input.defaultGraphUris, namedGraphUris: input.namedGraphUris });
      await awaitFreshness(ctx.conn, ids, minT, deadline, abort.signal);
    }
    // The query's time budget is what the wait left of the deadline (at least 1 ms), as timeoutMs
    // would give; without a wait, the deadline itself (no second clock read).
    const until = !deadline ? undefined : minT === undefined ? deadline : Date.now() + remaining(deadline)!;
    if (until !== undefined) abort.expireAt(until, () => timeoutError('query timeout exceeded'));
    const res = await executeSparql(ctx.conn, {
      text, ledger, defaultGraphUris: input.defaultGraphUris, namedGraphUris: input.namedGraphUris,
      maxFuel, deadline: until, signal: abort.signal, policy, onFinish: abort.dispose,
    });
    const served = requireQueryServed(ctx.conn, Object.keys(res.ledgers));
    if (served) await served;
    const supported = SPARQL_FORMATS[res.result.type];
    // The prologue scan and the parser agree on the form; should they not, the parser's word counts.
    const fmt = supported.includes(format) ? format : negotiateFormat(accept, formatParam, supported);
    const bytes = call.bytes && (fmt === 'sparql-json' || fmt === 'json') ? sparqlJsonBytes(res.result) : null;
    return await respond(bytes ?? writeResult(res.result, fmt), MEDIA_TYPE[fmt]);
  } catch (e) {
    abort.dispose();
    throw e;
  }
}

/** Run a SPARQL query of /query and write its result in the negotiated format. */
function sparqlQuery(c: Ctx, ctx: ServerContext, input: Extract<QueryInput, { lang: 'sparql' }>, pathLedger: string | undefined): Promise<Response> {
  const call: SparqlCall = {
    accept: c.req.header('Accept'), formatParam: c.req.query('format'), headers: c.req.raw.headers,
    auth: authenticate(c), pathLedger, abort: () => requestAbort(c),
  };
  return runSparqlCall(ctx, input, call, (chunks, type) => respondChunks(c, chunks, type));
}

/** What a JSON-LD query of each form can be written as, the compact JSON default first. */
const JSONLD_FORMATS: Record<ReturnType<typeof jsonLdForm>, readonly ResultFormat[]> = {
  select: ['json', 'jsonld', 'agent', 'sparql-json', 'sparql-xml', 'csv', 'tsv'],
  selectOne: ['json', 'jsonld', 'agent'],
  ask: ['json', 'jsonld', 'agent', 'sparql-json', 'sparql-xml'],
  construct: ['json', 'jsonld', 'agent', 'turtle', 'ntriples', 'nquads', 'trig', 'rdfxml'],
};

/**
 * Run a JSON-LD query of /query. JSON forms return the JSON-LD result (with tracking when asked);
 * the SPARQL result formats take a select's solutions as bindings, or an ask's boolean; graph
 * formats serialise a construct document's triples.
 */
async function jsonLdQuery(c: Ctx, ctx: ServerContext, body: Record<string, unknown>, pathLedger: string | undefined): Promise<Response> {
  const headers = c.req.raw.headers;
  const output = outputOptions(headers);
  const form = jsonLdForm(body);
  const format = negotiateFormat(c.req.header('Accept'), c.req.query('format'), JSONLD_FORMATS[form]);
  const { timeoutMs } = queryDeadline(ctx);
  const signal = c.req.raw.signal;
  const q = withHeaderMinT(body, parseMinT(headers));
  const req = jsonLdRequest(c, ctx, q, {
    ledger: pathLedger ?? jsonLdDefaultLedger(q, headers), timeoutMs, maxFuel: headerFuelDefault(headers, q),
    signal, output, agent: format === 'agent', headerPolicy: policyFromHeaders(headers),
  });
  if (form === 'select' && (format === 'sparql-json' || format === 'sparql-xml' || format === 'csv' || format === 'tsv')) {
    let sel;
    try {
      sel = await streamJsonLdSelect(ctx.conn, q, req);
      await requireQueryServed(ctx.conn, Object.keys(sel.ledgers));
    } catch (e) {
      if (isLedgraphError(e) && e.status === 400 && /cannot be streamed/.test(e.message)) {
        throw new LedgraphError(406, 'err:db/NotAcceptable', `this JSON-LD query's result is JSON only (${e.message}); ask for application/json`);
      }
      throw e;
    }
    const result: QueryResult = { type: 'bindings', variables: sel.vars, rows: sel.rows };
    return respondChunks(c, writeResult(result, format), MEDIA_TYPE[format]);
  }
  const res = await runJsonLdQuery(ctx.conn, q, req);
  await requireQueryServed(ctx.conn, Object.keys(res.ledgers));
  if (format === 'json' || format === 'jsonld' || format === 'agent') {
    return responseWithId(c, JSON.stringify(jsonLdBody(res)), 200, { 'content-type': MEDIA_TYPE[format] });
  }
  if (form === 'ask') return respondChunks(c, writeResult({ type: 'boolean', value: res.result === true }, format), MEDIA_TYPE[format]);
  // A construct document as triples, read back with the JSON-LD transaction parser.
  const txn = await parseJsonLdTxn(res.result, 'insert');
  const quads = txn.kind === 'insert' ? txn.quads : [];
  return respondChunks(c, writeResult({ type: 'quads', quads: (async function* () { yield* quads; })() }, format), MEDIA_TYPE[format]);
}

/** Handle POST/GET /query and /query/<ledger...>; a GET without `query=` is the service description. */
export async function handleQuery(c: Ctx, ctx: ServerContext): Promise<Response> {
  const pathLedger = c.req.param('ledger') || undefined;
  if ((c.req.method === 'GET' || c.req.method === 'HEAD') && c.req.query('query') === undefined) {
    return serviceDescription(c, ctx, pathLedger ?? headerLedger(c.req.raw.headers), { update: false });
  }
  if (c.req.method === 'POST' && isCypher(c.req.header('Content-Type'))) return cypherQuery(c, ctx, pathLedger);
  const input = await readQueryInput(c);
  if (input.lang === 'sparql') return sparqlQuery(c, ctx, input, pathLedger);
  return jsonLdQuery(c, ctx, input.body, pathLedger);
}

const QUERY_HEADERS = [
  { name: 'Ledgraph-Ledger', description: 'Ledger of a connection-scoped query (when the query names none)' },
  { name: 'Ledgraph-Min-T', type: 'integer' as const, description: 'Wait until every queried ledger has reached this t (read-after-write), within the query timeout' },
  { name: 'Ledgraph-Max-Fuel', type: 'integer' as const, description: 'Fuel budget; overrun is 400 "fuel limit exceeded"' },
  { name: 'Ledgraph-Output-Format', description: 'json (default) or typed-json (JSON-LD queries)' },
  { name: 'Ledgraph-Normalize-Arrays', type: 'boolean' as const, description: 'Wrap single crawl values in arrays (JSON-LD queries)' },
  { name: 'Ledgraph-Max-Bytes', type: 'integer' as const, description: 'Byte budget of agent JSON (Accept: application/vnd.ledgraph.agent+json)' },
  ...POLICY_HEADERS,
];

const PROTOCOL_PARAMS = [
  { name: 'format', description: 'Response format override: json, jsonld, agent, sparql-json, sparql-xml, csv, tsv, turtle, ntriples, nquads, trig, rdfxml (or a media type)' },
  { name: 'default-graph-uri', repeatable: true, description: 'SPARQL Protocol default graph (overrides FROM)' },
  { name: 'named-graph-uri', repeatable: true, description: 'SPARQL Protocol named graph (overrides FROM NAMED)' },
];

const RESPONSE_TYPES = [...new Set(Object.values(MEDIA_TYPE).map((m) => m.split(';')[0]!))];

/** Register the query endpoints. */
export const queryRoutes: Registrar = (api, ctx) => {
  const responses = {
    200: 'Query result in the negotiated format',
    400: 'Invalid query, header or dataset; fuel limit exceeded',
    404: 'Ledger not found (or not visible)',
    406: 'No acceptable format for this result',
    408: 'Query timeout exceeded',
    415: 'Unsupported Content-Type',
  };
  for (const [path, scope] of [['/query', 'connection-scoped'], ['/query/{ledger}', 'ledger-scoped']] as const) {
    route(api, ctx.table, {
      method: 'POST', path, tag: 'query',
      summary: scope === 'ledger-scoped' ? 'Run a SPARQL, JSON-LD or Cypher (application/cypher) query (ledger-scoped)' : 'Run a SPARQL or JSON-LD query (connection-scoped)',
      description: scope === 'connection-scoped'
        ? 'The ledger comes from the query (JSON-LD from/fromNamed, SPARQL FROM/FROM NAMED) or the Ledgraph-Ledger header.'
        : 'The ledger is the path tail (may carry a time specifier); FROM IRIs that are not ledgers name graphs of it.',
      query: PROTOCOL_PARAMS, headers: QUERY_HEADERS,
      requestTypes: scope === 'ledger-scoped' ? [...QUERY_CONTENT_TYPES, 'application/cypher'] : [...QUERY_CONTENT_TYPES], responseTypes: RESPONSE_TYPES, responses,
    }, (c) => handleQuery(c, ctx));
    route(api, ctx.table, {
      method: 'GET', path, tag: 'query',
      summary: `Run a SPARQL query given as ?query= (SPARQL 1.1 Protocol; ${scope}); without query=, the SPARQL Service Description`,
      query: [{ name: 'query', description: 'SPARQL query text (absent: the service description, Turtle or JSON-LD by Accept)' }, ...PROTOCOL_PARAMS], headers: QUERY_HEADERS, head: true,
      responseTypes: RESPONSE_TYPES, responses,
    }, (c) => handleQuery(c, ctx));
  }
};

