/**
 * The fast path of the hottest request (issue 18): a plain SPARQL query, `POST
 * <api_base_url>/query/<ledger>` with an `application/sparql-query` body, answered on the raw
 * node:http request instead of through the Hono app (its router, middleware chain and the web
 * Request/Response adapter cost about as much as running a point query). It runs the route's own
 * code (query.ts runSparqlCall, chunksBody; app.ts request ids, logging and error mapping), so
 * status, headers and body are the app's. Everything else goes to the app unchanged: other methods,
 * paths and content types, a query string, a percent-encoded or dot path, a body over 64 KiB or
 * without Content-Length, duplicate headers, Authorization, any Ledgraph-* header (fuel, min-t,
 * policy), Expect, a data auth mode other than none, CORS, a body that opens like a signed request
 * (handed over with the bytes already read, as `rawBody`, which @hono/node-server reads), and a
 * request the query gate cannot admit at once (the app then queues it or answers 503).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { logRequestError, parseTraceparent, requestIdOf, withFields } from './app.js';
import type { AuthState } from './auth/index.js';
import { mapError } from './errors.js';
import { abortOnClose, bodyReadError, decodeUtf8, parseMediaType, pooledAbort, SMALL_BODY_BYTES } from './http-util.js';
import type { Logger } from './log.js';
import type { HeaderReader } from './query-headers.js';
import { chunksBody, runSparqlCall } from './routes/query.js';
import { releaseSparqlJsonBytes } from '../core/query/results/sparql-json-bytes.js';
import type { ServerContext } from './server-context.js';

/** A path tail the app's router would hand to the route as is: segments of unreserved characters, none starting with a dot. */
const PLAIN_TAIL = /^[A-Za-z0-9_~:@+-][A-Za-z0-9._~:@+-]*(?:\/[A-Za-z0-9_~:@+-][A-Za-z0-9._~:@+-]*)*$/;
/** What the auth middleware records for a data request without a credential when the data group's mode is none. */
const NO_CREDENTIAL: AuthState = { group: 'data', mode: 'none', tokenPresent: false };
/** The request carries no Ledgraph-* header (checked), so the query headers read as absent (without a web Headers' checks per read). */
const NO_QUERY_HEADERS: HeaderReader = { get: () => null };

let answered = 0;
const EMPTY = Buffer.alloc(0);

/** Requests this process answered on the fast path (for tests that compare it with the app). */
export function fastQueriesAnswered(): number {
  return answered;
}

/** A node:http request body handed to @hono/node-server already read. */
type WithRawBody = IncomingMessage & { rawBody?: Buffer };

/**
 * The server's request listener: plain SPARQL queries answered here, everything else by `fallback`
 * (the app's listener). Off (just `fallback`) when the server's configuration could make any such
 * request behave differently (data auth, CORS).
 */
export function fastQueryListener(ctx: Pick<ServerContext, 'config' | 'conn' | 'queryGate'>, log: Logger, fallback: RequestListener): RequestListener {
  const { config } = ctx;
  if (config.dataAuthMode !== 'none' || config.corsEnabled) return fallback;
  const prefix = `${config.apiBaseUrl}/query/`;
  const maxBody = Math.min(config.bodyLimit, SMALL_BODY_BYTES);

  /** The ledger of a plain query request, else null. */
  const plainLedger = (req: IncomingMessage): string | null => {
    if (req.method !== 'POST') return null;
    const url = req.url;
    if (url === undefined || !url.startsWith(prefix)) return null;
    const tail = url.slice(prefix.length);
    if (!PLAIN_TAIL.test(tail)) return null;
    const h = req.headers;
    let n = 0;
    for (const k in h) {
      n++;
      if (k.startsWith('ledgraph-')) return null;
    }
    // Every header once (node:http and the web Headers the app sees would join repeats differently).
    if (n * 2 !== req.rawHeaders.length) return null;
    if (h.authorization !== undefined || h['transfer-encoding'] !== undefined || h.expect !== undefined) return null;
    const declared = h['content-length'];
    if (declared === undefined || !/^\d+$/.test(declared) || Number(declared) > maxBody) return null;
    const ct = h['content-type'];
    // The usual header as clients send it, without parsing it.
    if (ct === 'application/sparql-query') return tail;
    const mt = parseMediaType(ct);
    if (mt?.type !== 'application/sparql-query') return null;
    const cs = mt.params.charset?.toLowerCase();
    if (cs && cs !== 'utf-8' && cs !== 'utf8' && cs !== 'us-ascii') return null;
    return tail;
  };

  return (req, res) => {
    const ledger = plainLedger(req);
    if (ledger === null) { fallback(req, res); return; }
    // Most bodies arrive as one chunk: the array only for a second one.
    let first: Buffer | null = null;
    let more: Buffer[] | null = null;
    let done = false;
    req.on('data', (d: Buffer) => {
      if (first === null) first = d;
      else (more ??= [first]).push(d);
    });
    req.on('error', (e) => {
      if (done) return;
      done = true;
      void answer(req, res, ledger, null, e);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      const body = more !== null ? Buffer.concat(more) : first ?? EMPTY;
      // A body opening like a JWS ("eyJ") may be a signed request: the auth middleware's to unwrap.
      if (body.length > 3 && body[0] === 0x65 && body[1] === 0x79 && body[2] === 0x4a) return handOver(req, res, body);
      void answer(req, res, ledger, body, null);
    });
  };

  function handOver(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    (req as WithRawBody).rawBody = body;
    fallback(req, res);
  }

  /**
   * Answer a plain query as the app would (request id, log line, query gate, route, error mapping).
   * One 'close' listener on the response does what the app path spreads over three (the query's
   * disconnect watch, the permit's release, the pooled body's return), and the request's logger
   * is made only when a line is written.
   */
  async function answer(req: IncomingMessage, res: ServerResponse, ledger: string, body: Buffer | null, readError: unknown): Promise<void> {
    // The query gate first: a request that would wait, or one the memory guard refuses, is the
    // app's (its queue, its 503).
    const release = ctx.queryGate.tryAcquire();
    if (!release) {
      if (body) handOver(req, res, body);
      return;
    }
    answered++;
    const logging = log.enabled('info');
    const start = logging ? performance.now() : 0;
    const id = requestIdOf(req.headers['x-request-id'] as string | undefined);
    let reqLog: Logger | null = null;
    const logOf = (): Logger => (reqLog ??= requestLogger(log, id, req.headers.traceparent as string | undefined));
    const method = 'POST', path = req.url!;
    /** The running query's controller while it runs (nodeRequestAbort's watch, without a listener of its own). */
    let watched: AbortController | null = null;
    /** A pooled body handed to the socket, returned once the response has finished. */
    let sent: Uint8Array | null = null;
    let closed = res.destroyed;
    const onClose = (): void => {
      closed = true;
      if (watched !== null) abortOnClose(watched, req, res);
      // The permit is held until the response is done or its connection is gone (query-admission.ts).
      release();
      if (sent !== null && res.writableFinished) releaseSparqlJsonBytes(sent);
    };
    if (!closed) res.on('close', onClose);
    const unwatch = (): void => { watched = null; };
    const watch = (ac: AbortController): () => void => {
      if (closed) abortOnClose(ac, req, res);
      else watched = ac;
      return unwatch;
    };
    try {
      if (!body) throw bodyReadError(readError);
      const input = { lang: 'sparql' as const, text: decodeUtf8(body), defaultGraphUris: [], namedGraphUris: [] };
      await runSparqlCall(ctx, input, {
        accept: req.headers.accept, formatParam: undefined, headers: NO_QUERY_HEADERS, auth: NO_CREDENTIAL,
        pathLedger: ledger, abort: () => pooledAbort(watch), bytes: true,
      }, async (chunks, contentType) => {
        const out = await chunksBody(chunks, logOf, () => { res.destroy(); return true; });
        if (logging) logLine(logOf(), method, path, 200, start);
        if (typeof out === 'string' || out instanceof Uint8Array) {
          // node:http sets Content-Length from a whole body (a byte count for bytes, no encoding pass).
          res.statusCode = 200;
          res.setHeader('content-type', contentType);
          res.setHeader('x-request-id', id);
          // A byte body's buffer serves a later response once the socket has taken it (onClose).
          if (typeof out !== 'string') sent = out;
          res.end(out);
        } else {
          res.writeHead(200, { 'content-type': contentType, 'x-request-id': id });
          res.flushHeaders();
          void pump(out, res);
        }
      });
    } catch (e) {
      release();
      const m = mapError(e);
      logRequestError(logOf(), e, m, { request_id: id, method, path });
      if (logging) logLine(logOf(), method, path, m.status, start);
      sendError(res, m, id);
      return;
    }
    if (closed) release();
  }
}

/** The logger of one request: its id and trace context on every line (app.ts's request-id middleware). */
function requestLogger(log: Logger, id: string, traceparent: string | undefined): Logger {
  const trace = traceparent ? parseTraceparent(traceparent) : null;
  return withFields(log, trace ? { request_id: id, ...trace } : { request_id: id });
}

/** The request log line of app.ts's request-id middleware (the caller checked that info lines are written). */
function logLine(reqLog: Logger, method: string, path: string, status: number, start: number): void {
  reqLog.info('request', { method, path, status, ms: Math.round((performance.now() - start) * 10) / 10 });
}

/** An error response as the app's error handler sends it: c.json's body, its headers in Headers order, X-Request-ID, a Content-Length. */
function sendError(res: ServerResponse, m: ReturnType<typeof mapError>, id: string): void {
  if (res.headersSent) { res.destroy(); return; }
  const headers = new Headers({ 'content-type': 'application/json', ...m.headers });
  headers.set('x-request-id', id);
  const json = JSON.stringify(m.body);
  const out: Record<string, string | number> = {};
  for (const [k, v] of headers) out[k] = v;
  out['Content-Length'] = Buffer.byteLength(json);
  res.writeHead(m.status, out);
  res.end(json);
}

/** Write a streamed body as the socket drains; the stream is cancelled when the connection closes. */
async function pump(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  const onClose = () => { void reader.cancel().catch(() => {}); };
  res.once('close', onClose);
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      if (!res.write(r.value)) await new Promise<void>((ok) => { res.once('drain', ok); res.once('close', ok); });
      if (res.destroyed) return;
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}
