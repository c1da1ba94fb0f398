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
import { badRequest, isLedgraphError, unsupportedMediaType } from '../../core/errors.js';
import type { Connection } from '../../core/ledger/connection.js';
import { parseLedgerRef } from '../../core/ledger/ledger-id.js';
import { parseSparql } from '../../core/query/engine.js';
import { writeJsonLd, writeNQuads, writeNTriples, writeRdfXml, writeTriG, writeTurtle } from '../../core/query/results/rdf-writers.js';
import { writeCsv, writeTsv } from '../../core/query/results/sparql-csv-tsv.js';
import { writeSparqlJson } from '../../core/query/results/sparql-json.js';
import { writeSparqlXml } from '../../core/query/results/sparql-xml.js';
import type { QueryResult } from '../../core/query/results/types.js';
import { runSparql } from '../../core/query/sparql-service.js';
import type { AppEnv } from '../app.js';
import { decodeUtf8, parseJsonText, parseMediaType, queryAll, readBytes } from '../http-util.js';
import { MEDIA_TYPE, negotiateFormat, type ResultFormat } from '../negotiate.js';
import { headerLedger, mergePolicy, parseMaxFuel, parseMinT, policyFromHeaders, policyFromPragmas, waitForMinT, type PolicyInputs } from '../query-headers.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { route } from '../swagger.js';

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
  if (c.req.method === 'GET') {
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
      const json = parseJsonText(decodeUtf8(await readBytes(c)));
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
      throw unsupportedMediaType('Cypher queries are not supported by this server yet; use SPARQL or a JSON-LD query');
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

/** Text with `#` comments blanked (IRIs and string literals kept, so `#` inside them survives). */
function withoutComments(text: string): string {
  return text.replace(/<[^<>\s]*>|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|#[^\n]*/g, (m) => (m.startsWith('#') ? ' '.repeat(m.length) : m));
}

/**
 * The history range of SPARQL text (`FROM <a@t:1> TO <a@t:latest>`, not part of the SPARQL
 * grammar), or null when the text has none.
 */
export function sparqlHistoryRange(text: string): { from: string; to: string } | null {
  if (!/\bTO\b/i.test(text)) return null;
  const m = /\bFROM\s+<([^<>\s]*)>\s+TO\s+<([^<>\s]*)>/i.exec(withoutComments(text));
  return m ? { from: m[1]!, to: m[2]! } : null;
}

/** 400 for a SPARQL history range: the engine has no SPARQL history mode (JSON-LD `to` has one). */
export function sparqlHistoryUnsupported(range: { from: string; to: string }): Error {
  return badRequest(`SPARQL history queries (FROM <${range.from}> TO <${range.to}>) are not supported: SPARQL has no way to bind the @t/@op of history events; use a JSON-LD history query ("from" and "to")`);
}

/** The ledger ids a SPARQL request reads: the default ledger and every FROM / FROM NAMED IRI naming an existing ledger. */
export async function sparqlLedgerIds(conn: Connection, text: string, opts: { ledger?: string | undefined; defaultGraphUris?: string[]; namedGraphUris?: string[] }): Promise<string[]> {
  const ids = new Set<string>();
  if (opts.ledger !== undefined) ids.add(parseLedgerRef(opts.ledger).id);
  const protocol = [...(opts.defaultGraphUris ?? []), ...(opts.namedGraphUris ?? [])];
  let iris = protocol;
  if (!protocol.length) {
    const ds = parseSparql(text).dataset;
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

/** SPARQL policy inputs of a request: `# PRAGMA` comments overlaid by the policy headers (policy.md §3). */
export function sparqlPolicy(text: string, headers: Headers): PolicyInputs {
  return mergePolicy(policyFromPragmas(text), policyFromHeaders(headers));
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
    case 'sparql-json': return writeSparqlJson(result);
    case 'json': return result.type === 'quads' ? writeJsonLd(result) : writeSparqlJson(result);
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
 * aborts the connection, so a client never mistakes a truncated body for a complete one. `cancel`
 * runs when the client goes away mid-stream.
 */
export async function respondChunks(c: Ctx, chunks: AsyncIterable<string>, contentType: string, cancel: () => void, extraHeaders: Record<string, string> = {}): Promise<Response> {
  const it = chunks[Symbol.asyncIterator]();
  const headers = { 'Content-Type': contentType, ...extraHeaders };
  let prefix = '';
  try {
    for (;;) {
      const r = await it.next();
      if (r.done) return new Response(prefix, { status: 200, headers });
      prefix += r.value;
      if (prefix.length >= PREFIX_BYTES) break;
    }
  } catch (e) {
    cancel();
    throw e;
  }
  const log = c.get('log');
  const enc = new TextEncoder();
  let pending: string | null = prefix;
  const body = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      if (pending !== null) { ctl.enqueue(enc.encode(pending)); pending = null; return; }
      let buf = '';
      try {
        while (buf.length < CHUNK_CHARS) {
          const r = await it.next();
          if (r.done) {
            if (buf) ctl.enqueue(enc.encode(buf));
            ctl.close();
            return;
          }
          buf += r.value;
        }
        ctl.enqueue(enc.encode(buf));
      } catch (e) {
        log.warn('query response failed after the status was sent; aborting the connection', {
          error: e instanceof Error ? e.message : String(e), ...(isLedgraphError(e) ? { status: e.status, type: e.type } : {}),
        });
        ctl.error(e);
      }
    },
    cancel() {
      cancel();
      void it.return?.()?.catch(() => {});
    },
  });
  return new Response(body, { status: 200, headers });
}

// ---------------------------------------------------------------------------------------------
// Handlers

/** Server limits of one query request: its deadline (ms since the epoch; 0 = none) and timeout. */
export function queryDeadline(ctx: ServerContext): { deadline: number; timeoutMs: number | undefined } {
  const t = ctx.config.queryTimeoutMs;
  return t > 0 ? { deadline: Date.now() + t, timeoutMs: t } : { deadline: 0, timeoutMs: undefined };
}

/** Time left before a deadline (undefined when there is none). */
export function remaining(deadline: number): number | undefined {
  return deadline ? Math.max(1, deadline - Date.now()) : undefined;
}

/** Run a SPARQL query of /query and write its result in the negotiated format. */
async function sparqlQuery(c: Ctx, ctx: ServerContext, input: Extract<QueryInput, { lang: 'sparql' }>, pathLedger: string | undefined): Promise<Response> {
  const { text } = input;
  const headers = c.req.raw.headers;
  const history = sparqlHistoryRange(text);
  if (history) throw sparqlHistoryUnsupported(history);
  const prologue = sparqlPrologue(text);
  const format = negotiateFormat(c.req.header('Accept'), c.req.query('format'), SPARQL_FORMATS[shapeOfForm(prologue.form)]);
  const maxFuel = parseMaxFuel(headers);
  const minT = parseMinT(headers);
  // Validated here; enforcement is the policy engine's (see docs/http-query.md).
  sparqlPolicy(text, headers);
  const ledger = pathLedger ?? headerLedger(headers);
  const { deadline } = queryDeadline(ctx);
  const signal = c.req.raw.signal;
  if (minT !== undefined) {
    const ids = await sparqlLedgerIds(ctx.conn, text, { ledger, defaultGraphUris: input.defaultGraphUris, namedGraphUris: input.namedGraphUris });
    await awaitFreshness(ctx.conn, ids, minT, deadline, signal);
  }
  const ac = new AbortController();
  const onAbort = () => ac.abort(signal.reason);
  if (signal.aborted) onAbort(); else signal.addEventListener('abort', onAbort, { once: true });
  const timeoutMs = remaining(deadline);
  let res;
  try {
    res = await runSparql(ctx.conn, text, {
      ...(ledger !== undefined ? { ledger } : {}),
      ...(input.defaultGraphUris.length ? { defaultGraphUris: input.defaultGraphUris } : {}),
      ...(input.namedGraphUris.length ? { namedGraphUris: input.namedGraphUris } : {}),
      ...(maxFuel !== undefined ? { maxFuel } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      signal: ac.signal,
    });
  } catch (e) {
    signal.removeEventListener('abort', onAbort);
    throw e;
  }
  const supported = SPARQL_FORMATS[res.result.type];
  // The prologue scan and the parser agree on the form; should they not, the parser's word counts.
  const fmt = supported.includes(format) ? format : negotiateFormat(c.req.header('Accept'), c.req.query('format'), supported);
  const detach = () => signal.removeEventListener('abort', onAbort);
  return respondChunks(c, finishing(writeResult(res.result, fmt), detach), MEDIA_TYPE[fmt], () => { detach(); ac.abort(); });
}

/** Chunks of `it`, then `onEnd` once the iteration ends for any reason. */
async function* finishing<T>(it: AsyncIterable<T>, onEnd: () => void): AsyncIterable<T> {
  try { yield* it; } finally { onEnd(); }
}

/** Handle POST/GET /query and /query/<ledger...>. */
async function handleQuery(c: Ctx, ctx: ServerContext): Promise<Response> {
  const pathLedger = c.req.param('ledger') || undefined;
  const input = await readQueryInput(c);
  if (input.lang === 'sparql') return sparqlQuery(c, ctx, input, pathLedger);
  throw unsupportedMediaType('JSON-LD queries are not available on this server yet; use application/sparql-query');
}

const QUERY_HEADERS = [
  { name: 'Ledgraph-Ledger', description: 'Ledger of a connection-scoped query (when the query names none)' },
  { name: 'Ledgraph-Min-T', type: 'integer' as const, description: 'Wait until every queried ledger has reached this t (read-after-write), within the query timeout' },
  { name: 'Ledgraph-Max-Fuel', type: 'integer' as const, description: 'Fuel budget; overrun is 400 "fuel limit exceeded"' },
  { name: 'Ledgraph-Output-Format', description: 'json (default) or typed-json (JSON-LD queries)' },
  { name: 'Ledgraph-Normalize-Arrays', type: 'boolean' as const, description: 'Wrap single crawl values in arrays (JSON-LD queries)' },
  { name: 'Ledgraph-Max-Bytes', type: 'integer' as const, description: 'Byte budget of agent JSON (Accept: application/vnd.ledgraph.agent+json)' },
  { name: 'Ledgraph-Identity', description: 'Identity whose policies apply' },
  { name: 'Ledgraph-Policy-Class', description: 'Policy classes (comma-separated or repeated)' },
  { name: 'Ledgraph-Policy', description: 'Inline policy (JSON)' },
  { name: 'Ledgraph-Policy-Values', description: 'Policy variable values (JSON object)' },
  { name: 'Ledgraph-Default-Allow', type: 'boolean' as const, description: 'Access when no policy matches' },
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
      summary: `Run a SPARQL or JSON-LD query (${scope})`,
      description: scope === 'connection-scoped'
        ? 'The ledger comes from the query (JSON-LD from/fromNamed, SPARQL FROM/FROM NAMED) or the Ledgraph-Ledger header.'
        : 'The ledger is the path tail (may carry a time specifier); FROM IRIs that are not ledgers name graphs of it.',
      query: PROTOCOL_PARAMS, headers: QUERY_HEADERS,
      requestTypes: [...QUERY_CONTENT_TYPES], responseTypes: RESPONSE_TYPES, responses,
    }, (c) => handleQuery(c, ctx));
    route(api, ctx.table, {
      method: 'GET', path, tag: 'query',
      summary: `Run a SPARQL query given as ?query= (SPARQL 1.1 Protocol; ${scope})`,
      query: [{ name: 'query', required: true, description: 'SPARQL query text' }, ...PROTOCOL_PARAMS], headers: QUERY_HEADERS,
      responseTypes: RESPONSE_TYPES, responses,
    }, (c) => handleQuery(c, ctx));
  }
};

