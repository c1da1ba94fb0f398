/**
 * The Hono application: root diagnostics (http-api.md §4.1), request ids and trace context, request
 * logging, answers that leave the body unread (unread-body.ts), CORS, the body-size limit, 404s and error mapping (§7). Endpoint groups under
 * `api_base_url` are mounted from `deps.routes`, so the ledger endpoints built over the engine's
 * Connection plug in here; every group documents its routes in the shared RouteTable that
 * `GET /swagger.json` publishes.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { randomUUID } from 'node:crypto';
import { cors } from 'hono/cors';
import { LedgraphError } from '../core/errors.js';
import { setInputLimits } from '../core/limits.js';
import { inputLimitsOf, type LogLevel, type ServerConfig } from './config.js';
import { mapError } from './errors.js';
import { silentLogger, type LogFields, type Logger } from './log.js';
import { openApiDocument, route, RouteTable } from './swagger.js';
import { mountExplorer, type ExplorerSite } from './explorer.js';
import { unreadBodyMiddleware } from './unread-body.js';

import type { AppEnv } from './app-env.js';
export type { AppEnv } from './app-env.js';

/** What a route group gets when it is mounted. */
export interface RouteContext {
  config: ServerConfig;
  log: Logger;
  version: string;
  /** Where the group documents its routes (see swagger.ts `route()`). */
  table: RouteTable;
}

/**
 * Registers one endpoint group on the sub-app mounted at `config.apiBaseUrl` (paths are relative to
 * it, e.g. `api.post('/update', ...)`). Group factories close over the engine's Connection, storage, etc.
 */
export type RouteGroup = (api: Hono<AppEnv>, ctx: RouteContext) => void;

/** Collaborators of the app. */
export interface AppDeps {
  /** Server version reported by /health. */
  version: string;
  log?: Logger;
  /** Endpoint groups mounted under api_base_url, in order (ledger, query, admin, events, ...). */
  routes?: readonly RouteGroup[];
  /** Feature blocks the discovery document advertises (e.g. `push.merged_commits`). */
  discovery?: DiscoveryFeatures;
  /** Route table to document into (a fresh one when absent). */
  table?: RouteTable;
  /** The web explorer build served at `/` (none: the root paths stay 404). */
  explorer?: ExplorerSite | null;
}

/** Optional feature blocks of the discovery document, advertised by the route groups mounted. */
export interface DiscoveryFeatures { push?: { merged_commits: boolean } }

/** The discovery document of `GET /.well-known/ledgraph.json` (§2.8). */
export function discoveryDocument(config: ServerConfig, features: DiscoveryFeatures = {}): { version: 1; api_base_url: string; auth?: { type: 'token' } } & DiscoveryFeatures {
  const doc: { version: 1; api_base_url: string; auth?: { type: 'token' } } & DiscoveryFeatures = { version: 1, api_base_url: config.apiBaseUrl };
  if (config.dataAuthMode !== 'none' || config.eventsAuthMode !== 'none' || config.adminAuthMode !== 'none') {
    doc.auth = { type: 'token' };
  }
  if (features.push) doc.push = features.push;
  return doc;
}

const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Trace and parent span ids of a valid W3C `traceparent` header, else null. */
export function parseTraceparent(header: string | undefined): { trace_id: string; span_id: string } | null {
  const m = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return null;
  return { trace_id: m[2]!, span_id: m[3]! };
}

/** A logger that adds `fields` to every line it writes through `base` (nothing is built for a filtered level). */
export function withFields(base: Logger, fields: LogFields): Logger {
  const at = (level: LogLevel) => (msg: string, more?: LogFields) => {
    if (base.enabled(level)) base[level](msg, more ? { ...fields, ...more } : fields);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), enabled: (l) => base.enabled(l) };
}

/**
 * The request id of a request: a sane incoming X-Request-ID, else a new (version 4) UUID. node:crypto's
 * randomUUID, not the global Web Crypto one, whose wrapper cost as much again on every request.
 */
export function requestIdOf(incoming: string | undefined): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** Log a failed request as the error handler does: unexpected errors and 5xx other than 503 (the client got a message without paths). */
export function logRequestError(log: Logger, err: unknown, m: ReturnType<typeof mapError>, req: { request_id: string | undefined; method: string; path: string }): void {
  if (m.unexpected) {
    log.error('unhandled error', {
      ...req, error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined,
    });
  } else if (m.status >= 500 && m.status !== 503) {
    log.warn('request failed', { ...req, status: m.status, error: err instanceof Error ? err.message : String(err) });
  }
}

/** Responses built with their request's X-Request-ID already among their headers. */
const carriesRequestId = new WeakSet<Response>();

/**
 * A Response whose plain header object (the caller's, which this adds to) already carries the
 * request's X-Request-ID, so the request-id middleware need not turn its headers into a Headers
 * object to add it. Header names in lower case, as that conversion would send them.
 */
export function responseWithId(c: Context<AppEnv>, body: BodyInit | null, status: number, headers: Record<string, string>): Response {
  const id = c.get('requestId');
  if (id === undefined) return new Response(body, { status, headers });
  headers['x-request-id'] = id;
  const res = new Response(body, { status, headers });
  carriesRequestId.add(res);
  return res;
}

/**
 * Echo a sane incoming X-Request-ID or generate one, pick up the W3C trace context, give the request
 * a logger carrying both, and log one line per request when it completes.
 */
function requestIdMiddleware(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdOf(c.req.header('X-Request-ID'));
    c.set('requestId', id);
    const traceparent = c.req.header('traceparent');
    const trace = traceparent ? parseTraceparent(traceparent) : null;
    const reqLog = withFields(log, trace ? { request_id: id, ...trace } : { request_id: id });
    c.set('log', reqLog);
    const start = performance.now();
    await next();
    // Set on the final response (error responses included), so no header set is prepared only to
    // be replaced by the route's own Response.
    const res = c.res;
    if (!carriesRequestId.has(res) && res.headers.get('X-Request-ID') !== id) {
      try {
        res.headers.set('X-Request-ID', id);
      } catch {
        c.res = new Response(res.body, res);
        c.res.headers.set('X-Request-ID', id);
      }
    }
    if (reqLog.enabled('info')) {
      reqLog.info('request', {
        method: c.req.method, path: c.req.path, status: c.res.status,
        ms: Math.round((performance.now() - start) * 10) / 10,
      });
    }
  };
}

/**
 * Refuse bodies over `maxBytes` with 413 err:db/PayloadTooLarge: at once from Content-Length, or
 * while streaming (the body stream errors) when the length is not declared. Nothing is buffered.
 * `exempt` paths (archive import) bound their bodies themselves.
 */
function bodyLimitMiddleware(maxBytes: number, exempt: (path: string) => boolean): MiddlewareHandler<AppEnv> {
  const tooLarge = () => new LedgraphError(413, 'err:db/PayloadTooLarge', `request body exceeds the body limit of ${maxBytes} bytes`);
  return async (c, next) => {
    // Decided from the method and headers alone: touching `raw.body` makes @hono/node-server build a
    // full web Request (and a web stream over the socket) for every request.
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next(); // never has a body
    if (exempt(c.req.path)) return next();
    const headers = c.req.raw.headers;
    const declared = headers.get('content-length');
    if (declared !== null && !headers.has('transfer-encoding')) {
      // The HTTP parser holds the body to its declared length, so no counting is needed.
      if (Number(declared) > maxBytes) throw tooLarge();
      return next();
    }
    const raw = c.req.raw;
    if (!raw.body) return next();
    let seen = 0;
    const counted = raw.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > maxBytes) ctl.error(tooLarge());
        else ctl.enqueue(chunk);
      },
    }));
    c.req.raw = new Request(raw, { body: counted, duplex: 'half' } as RequestInit);
    return next();
  };
}

/** Build the Ledgraph HTTP application. */
export function createApp(config: ServerConfig, deps: AppDeps): Hono<AppEnv> {
  const log = deps.log ?? silentLogger;
  const table = deps.table ?? new RouteTable();
  const app = new Hono<AppEnv>();
  // Process-wide: the parsers that enforce them are shared by every entry point (docs/limits.md).
  setInputLimits(inputLimitsOf(config));

  // Outermost: it sees the final answer of every request (unread-body.ts).
  app.use('*', unreadBodyMiddleware());
  app.use('*', requestIdMiddleware(log));
  if (config.corsEnabled) {
    // The CORS preflight answers OPTIONS itself; it carries Allow as every OPTIONS answer does.
    app.use('*', async (c, next) => {
      await next();
      if (c.req.method !== 'OPTIONS' || c.res.status !== 204) return;
      const allow = table.methodsAt(c.req.path, config.apiBaseUrl);
      if (allow.length) c.res.headers.set('Allow', allow.join(', '));
    });
    // Browser peers read storage-proxy ranges, ETags and debug headers too.
    app.use('*', cors({ origin: '*', exposeHeaders: ['X-Request-ID', 'Retry-After', 'Ledgraph-T', 'Ledgraph-Commit-Id', 'Content-Range', 'ETag', 'Ledgraph-Block-Type', 'Ledgraph-Policy-Applied'] }));
  }
  // Archive restores stream frame by frame with their own per-frame limit (http-api.md §8).
  const importPrefix = `${config.apiBaseUrl}/import/`;
  app.use('*', bodyLimitMiddleware(config.bodyLimit, (path) => path.startsWith(importPrefix)));

  route(app, table, {
    method: 'GET', path: '/health', root: true, tag: 'diagnostics', summary: 'Liveness: status and version',
    responses: { 200: 'Health object {status, version}' },
  }, (c) => c.json({ status: 'ok', version: deps.version }));
  route(app, table, {
    method: 'GET', path: '/.well-known/ledgraph.json', root: true, tag: 'diagnostics', summary: 'Discovery document',
    responses: { 200: 'Discovery document {version, api_base_url, auth?}' },
  }, (c) => c.json(discoveryDocument(config, deps.discovery)));
  route(app, table, {
    method: 'GET', path: '/swagger.json', root: true, tag: 'diagnostics', summary: 'This OpenAPI 3.0 description',
    responses: { 200: 'OpenAPI document' },
  }, (c) => c.json(openApiDocument(table, { version: deps.version, apiBaseUrl: config.apiBaseUrl })));

  if (deps.explorer) mountExplorer(app, deps.explorer);

  if (deps.routes?.length) {
    const api = new Hono<AppEnv>();
    const ctx: RouteContext = { config, log, version: deps.version, table };
    for (const group of deps.routes) group(api, ctx);
    app.route(config.apiBaseUrl, api);
  }

  // A known path with another method: OPTIONS lists the methods (204, also without CORS), any
  // other method is 405 with the same Allow header (RFC 9110 §9.3.7, §15.5.6).
  app.notFound((c) => {
    const allow = table.methodsAt(c.req.path, config.apiBaseUrl);
    if (allow.length) {
      const header = allow.join(', ');
      if (c.req.method === 'OPTIONS') return c.body(null, 204, { Allow: header });
      return c.json({ error: `${c.req.method} is not allowed on ${c.req.path}; allowed: ${header}`, status: 405, '@type': 'err:db/MethodNotAllowed' }, 405, { Allow: header });
    }
    return c.json({ error: `no route for ${c.req.method} ${c.req.path}`, status: 404, '@type': 'err:db/LedgerNotFound' }, 404);
  });

  app.onError((err, c) => {
    const m = mapError(err);
    logRequestError(c.get('log') ?? log, err, m, { request_id: c.get('requestId'), method: c.req.method, path: c.req.path });
    for (const [k, v] of Object.entries(m.headers)) c.header(k, v);
    return c.json(m.body, m.status as 400);
  });

  return app;
}
