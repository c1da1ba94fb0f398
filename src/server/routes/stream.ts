/**
 * Streaming SELECT over NDJSON (http-api.md §4.6, records §2.12, lifecycle §3):
 * `POST /stream/query/<ledger...>` and `POST /stream/query`. Everything that can be refused is
 * refused before the first byte with a normal 4xx; after it the status is 200 and the stream is
 * `head`, any number of `row` and `heartbeat` records, then exactly one `end` or `error`. Rows are
 * pulled from the engine only as the socket drains, so memory stays flat however many rows there
 * are; a client that goes away cancels the query.
 */
import type { Context } from 'hono';
import { badRequest } from '../../core/errors.js';
import { formatMs, streamErrorCode } from '../../core/query/results/ndjson.js';
import type { Binding } from '../../core/query/results/types.js';
import type { Term } from '../../core/rdf/terms.js';
import { xsd } from '../../core/rdf/vocab.js';
import type { AppEnv } from '../app.js';
import type { Logger } from '../log.js';
import { hasPolicyInputs } from '../../core/policy/index.js';
import { headerLedger, parseMaxFuel, parseMinT, policyFromHeaders, sparqlPolicyInputs } from '../query-headers.js';
import { outputOptions } from '../negotiate.js';
import { streamJsonLdSelect } from '../../core/query/jsonld/service.js';
import { requireQueryServed } from '../storage-proxy/serving.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { route } from '../swagger.js';
import {
  awaitFreshness, executeSparql, headerFuelDefault, jsonLdDefaultLedger, jsonLdRequest, queryDeadline, readQueryInput, remaining, resolvePolicy, sparqlHistoryRange, sparqlLedgerIds, sparqlPrologue,
  type QueryInput,
} from './query.js';

type Ctx = Context<AppEnv>;

// Moved to core (the browser peer writes the same records); re-exported for the routes that import them here.
export { formatMs, streamErrorCode, type StreamErrorCode } from '../../core/query/results/ndjson.js';

/** A started query, ready to stream: its columns, its solutions, and its tracking. */
export interface StreamSource {
  vars: string[];
  rows: AsyncIterable<Binding>;
  /** t observed per ledger. */
  ledgers: Record<string, number>;
  /** Fuel spent so far, when the engine reports it while running. */
  fuelNow?: () => number;
  /** Fuel spent in all, once the rows are exhausted. */
  fuelTotal: () => number | undefined;
  /** Stop the query (in-flight scans end at their next row). */
  abort(reason: unknown): void;
  /** The query's deadline (ms since the epoch), when it has one: the stream ends there even if the client stopped reading. */
  deadline?: number | undefined;
}

/** A term as SPARQL JSON text, as termToSparqlJson + JSON.stringify would write it, without the object. */
function termJson(t: Term): string {
  const v = JSON.stringify(t.value);
  switch (t.termType) {
    case 'NamedNode': return '{"type":"uri","value":' + v + '}';
    case 'BlankNode': return '{"type":"bnode","value":' + v + '}';
    case 'Literal':
      if (t.language) return '{"type":"literal","value":' + v + ',"xml:lang":' + JSON.stringify(t.language) + '}';
      if (t.datatype.value === xsd.string) return '{"type":"literal","value":' + v + '}';
      return '{"type":"literal","value":' + v + ',"datatype":' + JSON.stringify(t.datatype.value) + '}';
  }
}

/** A `row` record line (the row object is a /query SPARQL JSON bindings entry; unbound variables omitted). */
function rowWriter(vars: readonly string[]): (b: Binding) => string {
  const keys = vars.map((v) => JSON.stringify(v) + ':');
  return (b) => {
    let s = '{"type":"row","row":{';
    let first = true;
    for (let i = 0; i < vars.length; i++) {
      const t = b[vars[i]!];
      if (!t) continue;
      s += (first ? '' : ',') + keys[i] + termJson(t);
      first = false;
    }
    return s + '}}\n';
  };
}

/** Rows are flushed once this many characters are pending, or after FLUSH_MS, whichever comes first. */
const CHUNK_CHARS = 32 * 1024;
const FLUSH_MS = 10;

/**
 * The NDJSON response of a started query. Rows are pulled as the client reads; pending rows are
 * flushed within FLUSH_MS, so a slow query's rows are not held back. A wall-clock timer sends a
 * `heartbeat` whenever no record went out for `heartbeatMs` (0: never). The stream always ends
 * with one terminal record, except when the client left: then the query is cancelled and the
 * terminal `cancelled` is only logged, there being nobody to send it to.
 */
export function ndjsonResponse(src: StreamSource, opts: { heartbeatMs: number; log: Logger; started: number }): Response {
  const enc = new TextEncoder();
  const it = src.rows[Symbol.asyncIterator]();
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  let rows = 0;
  let buf = '';
  let lastSent = performance.now();
  let finished = false;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  let heartbeat: ReturnType<typeof setTimeout> | undefined;
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  /** A pull is running the query: it will meet the deadline itself and end the stream. */
  let pulling = false;

  const send = (s: string) => {
    if (finished) return;
    ctl.enqueue(enc.encode(s));
    lastSent = performance.now();
  };
  const flush = () => {
    if (flushTimer) { clearTimeout(flushTimer); flushTimer = undefined; }
    if (buf) { const s = buf; buf = ''; send(s); }
  };
  const beat = () => {
    heartbeat = undefined;
    if (finished) return;
    const idle = performance.now() - lastSent;
    if (idle >= opts.heartbeatMs) {
      const rec: Record<string, unknown> = { type: 'heartbeat', t_ms: Math.round(performance.now() - opts.started) };
      if (src.fuelNow) rec.fuel = src.fuelNow();
      flush();
      send(JSON.stringify(rec) + '\n');
      heartbeat = setTimeout(beat, opts.heartbeatMs);
    } else {
      heartbeat = setTimeout(beat, opts.heartbeatMs - idle);
    }
  };
  const stopTimers = () => {
    if (flushTimer) clearTimeout(flushTimer);
    if (heartbeat) clearTimeout(heartbeat);
    if (deadlineTimer) clearTimeout(deadlineTimer);
    flushTimer = heartbeat = deadlineTimer = undefined;
  };
  const terminal = (rec: Record<string, unknown>, level: 'info' | 'warn') => {
    flush();
    send(JSON.stringify(rec) + '\n');
    finished = true;
    stopTimers();
    ctl.close();
    opts.log[level]('stream query ended', { code: rec.type === 'end' ? 'end' : (rec.error as { code: string }).code, rows });
  };
  const ts = Object.values(src.ledgers);
  const row = rowWriter(src.vars);

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      ctl = c;
      send(JSON.stringify({ type: 'head', vars: src.vars }) + '\n');
      if (opts.heartbeatMs > 0) heartbeat = setTimeout(beat, opts.heartbeatMs);
      // A client that stops reading does not keep the stream (and its query) past the deadline.
      if (src.deadline) {
        deadlineTimer = setTimeout(() => {
          deadlineTimer = undefined;
          if (finished || pulling) return;
          const message = 'query timeout exceeded';
          src.abort(new Error(message));
          void it.return?.()?.catch(() => {});
          terminal({ type: 'error', error: { code: 'timeout', message }, rows }, 'warn');
        }, Math.max(0, src.deadline - Date.now()) + 10);
      }
    },
    async pull() {
      if (finished) return;
      pulling = true;
      try {
        for (;;) {
          const r = await it.next();
          if (finished) return;
          if (r.done) {
            const end: Record<string, unknown> = { type: 'end', rows };
            if (ts.length) end.t = Math.max(...ts);
            if (ts.length > 1) end.ledgers = src.ledgers;
            const fuel = src.fuelTotal();
            if (fuel !== undefined) end.fuel = fuel;
            end.time = formatMs(performance.now() - opts.started);
            terminal(end, 'info');
            return;
          }
          buf += row(r.value);
          rows++;
          if (buf.length >= CHUNK_CHARS) { flush(); return; }
          flushTimer ??= setTimeout(flush, FLUSH_MS);
        }
      } catch (e) {
        if (finished) return;
        const code = streamErrorCode(e);
        if (code === 'internal') opts.log.error('stream query failed', { error: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined });
        const message = code === 'internal' ? 'internal error' : e instanceof Error ? e.message : String(e);
        terminal({ type: 'error', error: { code, message }, rows }, 'warn');
      } finally {
        pulling = false;
      }
    },
    cancel() {
      if (finished) return;
      finished = true;
      stopTimers();
      src.abort(new Error('client disconnected'));
      void it.return?.()?.catch(() => {});
      opts.log.info('stream query ended', { code: 'cancelled', rows, fuel: src.fuelNow?.() ?? src.fuelTotal() });
    },
  }, { highWaterMark: 1 });
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-transform', 'X-Accel-Buffering': 'no' },
  });
}

/** Start a streamed SPARQL SELECT, refusing with 4xx whatever §4.6 refuses before the stream. */
async function startSparql(c: Ctx, ctx: ServerContext, input: Extract<QueryInput, { lang: 'sparql' }>, pathLedger: string | undefined): Promise<StreamSource> {
  const { text } = input;
  const headers = c.req.raw.headers;
  const history = sparqlHistoryRange(text);
  if (history) throw badRequest('history queries (FROM ... TO ...) cannot be streamed; use POST /query');
  const form = sparqlPrologue(text).form;
  if (form === 'ask' || form === 'construct' || form === 'describe') {
    throw badRequest(`streaming supports SELECT queries only, not ${form.toUpperCase()}; use POST /query`);
  }
  const client = sparqlPolicyInputs(text, headers);
  if (pathLedger === undefined && hasPolicyInputs(client)) {
    throw badRequest('policy pragmas and policy headers are not accepted on the connection-scoped SPARQL stream; use POST /stream/query/<ledger>');
  }
  // default_policy_class applies to JSON-LD only on this endpoint (§4.6).
  const policy = resolvePolicy(c, ctx, client, false);
  const maxFuel = parseMaxFuel(headers);
  const minT = parseMinT(headers);
  const ledger = pathLedger ?? headerLedger(headers);
  const { deadline } = queryDeadline(ctx);
  const signal = c.req.raw.signal;
  if (minT !== undefined) {
    const ids = await sparqlLedgerIds(ctx.conn, text, { ledger, defaultGraphUris: input.defaultGraphUris, namedGraphUris: input.namedGraphUris });
    await awaitFreshness(ctx.conn, ids, minT, deadline, signal);
  }
  const ac = new AbortController();
  let fuel: number | undefined;
  const res = await executeSparql(ctx.conn, {
    text, ledger, defaultGraphUris: input.defaultGraphUris, namedGraphUris: input.namedGraphUris,
    maxFuel, timeoutMs: remaining(deadline), signal: ac.signal, policy,
    onFinish: (s) => { fuel = s.fuel; },
  });
  if (res.result.type !== 'bindings') {
    ac.abort();
    throw badRequest('streaming supports SELECT queries only; use POST /query');
  }
  const { variables, rows } = res.result;
  return {
    vars: variables,
    rows,
    ledgers: res.ledgers,
    fuelTotal: () => fuel,
    abort: (reason) => ac.abort(reason),
    ...(deadline ? { deadline } : {}),
  };
}

/**
 * Start a streamed JSON-LD select: the JSON-LD service refuses selectOne, crawls (hydration),
 * grouped value arrays, construct, ask and history with 400 before anything runs. A body without
 * `max-fuel` takes `Ledgraph-Max-Fuel`; `Ledgraph-Min-T` is its `min-t` default.
 */
async function startJsonLd(c: Ctx, ctx: ServerContext, body: Record<string, unknown>, pathLedger: string | undefined): Promise<StreamSource> {
  const headers = c.req.raw.headers;
  const minT = parseMinT(headers);
  const opts = typeof body.opts === 'object' && body.opts !== null && !Array.isArray(body.opts) ? body.opts as Record<string, unknown> : {};
  const q = minT !== undefined && opts['min-t'] === undefined && opts.minT === undefined ? { ...body, opts: { ...opts, 'min-t': minT } } : body;
  const ac = new AbortController();
  const { timeoutMs } = queryDeadline(ctx);
  const req = jsonLdRequest(c, ctx, q, {
    ledger: pathLedger ?? jsonLdDefaultLedger(q, headers), timeoutMs, maxFuel: headerFuelDefault(headers, q),
    signal: ac.signal, output: outputOptions(headers), agent: false, headerPolicy: policyFromHeaders(headers),
  });
  const sel = await streamJsonLdSelect(ctx.conn, q, req);
  return {
    vars: sel.vars,
    rows: sel.rows,
    ledgers: sel.ledgers,
    // The JSON-LD service settles its fuel when the rows end, so heartbeats carry none.
    fuelTotal: () => sel.fuel(),
    abort: (reason) => ac.abort(reason),
    ...(timeoutMs !== undefined ? { deadline: Date.now() + timeoutMs } : {}),
  };
}

/** Handle POST /stream/query and /stream/query/<ledger...>. */
async function handleStream(c: Ctx, ctx: ServerContext): Promise<Response> {
  const started = performance.now();
  const pathLedger = c.req.param('ledger') || undefined;
  const input = await readQueryInput(c, { form: false });
  const src = input.lang === 'sparql' ? await startSparql(c, ctx, input, pathLedger) : await startJsonLd(c, ctx, input.body, pathLedger);
  try {
    await requireQueryServed(ctx.conn, Object.keys(src.ledgers));
  } catch (e) {
    src.abort(e);
    throw e;
  }
  // The client going away also aborts the request signal; the stream's cancel does the rest.
  return ndjsonResponse(src, { heartbeatMs: ctx.config.streamHeartbeatMs, log: c.get('log'), started });
}

/** Register the streaming query endpoints. */
export const streamRoutes: Registrar = (api, ctx) => {
  for (const [path, scope] of [['/stream/query', 'connection-scoped'], ['/stream/query/{ledger}', 'ledger-scoped']] as const) {
    route(api, ctx.table, {
      method: 'POST', path, tag: 'query',
      summary: `Stream a SELECT as NDJSON (${scope})`,
      description: 'Records: head {vars}, row {row}, heartbeat {t_ms, fuel?}, then exactly one end {rows, t, fuel, time} or error {error: {code, message}, rows}. '
        + 'ASK/CONSTRUCT/DESCRIBE, selectOne, crawl selections and history queries are refused with 400 before the stream starts.',
      headers: [
        { name: 'Ledgraph-Ledger', description: 'Ledger of a connection-scoped query (when the query names none)' },
        { name: 'Ledgraph-Min-T', type: 'integer', description: 'Wait until every queried ledger has reached this t' },
        { name: 'Ledgraph-Max-Fuel', type: 'integer', description: 'Fuel budget; overrun ends the stream with error code fuel_exhausted' },
        { name: 'Ledgraph-Identity', description: 'Identity whose policies apply (not on the connection-scoped SPARQL form)' },
      ],
      requestTypes: ['application/json', 'application/sparql-query'],
      responseTypes: ['application/x-ndjson'],
      responses: { 200: 'NDJSON record stream', 400: 'Not streamable, invalid query or no ledger', 404: 'Ledger not found', 408: 'Ledgraph-Min-T not reached in time', 415: 'Unsupported Content-Type' },
    }, (c) => handleStream(c, ctx));
  }
};
