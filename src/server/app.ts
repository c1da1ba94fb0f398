/**
 * The Hono application: root diagnostics (http-api.md §4.1), request ids, CORS, the body-size
 * limit, 404s and error mapping (§7). Endpoint groups under `api_base_url` are mounted from
 * `deps.routes`, so the ledger endpoints built over the engine's Connection plug in here.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { LedgraphError } from '../core/errors.js';
import type { ServerConfig } from './config.js';
import { mapError } from './errors.js';
import { silentLogger, type Logger } from './log.js';

/** Hono environment of every Ledgraph route: the request id is available as `c.get('requestId')`. */
export type AppEnv = { Variables: { requestId: string } };

/** What a route group gets when it is mounted. */
export interface RouteContext {
  config: ServerConfig;
  log: Logger;
  version: string;
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
}

/** The discovery document of `GET /.well-known/ledgraph.json` (§2.8). */
export function discoveryDocument(config: ServerConfig): { version: 1; api_base_url: string; auth?: { type: 'token' } } {
  const doc: { version: 1; api_base_url: string; auth?: { type: 'token' } } = { version: 1, api_base_url: config.apiBaseUrl };
  if (config.dataAuthMode !== 'none' || config.eventsAuthMode !== 'none' || config.adminAuthMode !== 'none') {
    doc.auth = { type: 'token' };
  }
  return doc;
}

const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/** Echo a sane incoming X-Request-ID or generate one; log each request at debug level. */
function requestIdMiddleware(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header('X-Request-ID');
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set('requestId', id);
    c.header('X-Request-ID', id);
    const start = performance.now();
    await next();
    if (c.res.headers.get('X-Request-ID') !== id) {
      try {
        c.res.headers.set('X-Request-ID', id);
      } catch {
        c.res = new Response(c.res.body, c.res);
        c.res.headers.set('X-Request-ID', id);
      }
    }
    if (log.enabled('debug')) {
      log.debug('request', {
        request_id: id, method: c.req.method, path: c.req.path, status: c.res.status,
        ms: Math.round((performance.now() - start) * 10) / 10,
      });
    }
  };
}

/**
 * Refuse bodies over `maxBytes` with 413 err:db/PayloadTooLarge: at once from Content-Length, or
 * while streaming (the body stream errors) when the length is not declared. Nothing is buffered.
 */
function bodyLimitMiddleware(maxBytes: number): MiddlewareHandler<AppEnv> {
  const tooLarge = () => new LedgraphError(413, 'err:db/PayloadTooLarge', `request body exceeds the body limit of ${maxBytes} bytes`);
  return async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const declared = raw.headers.get('content-length');
    if (declared !== null && !raw.headers.has('transfer-encoding')) {
      if (Number(declared) > maxBytes) throw tooLarge();
      return next();
    }
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
  const app = new Hono<AppEnv>();

  app.use('*', requestIdMiddleware(log));
  if (config.corsEnabled) app.use('*', cors({ origin: '*', exposeHeaders: ['X-Request-ID', 'Retry-After'] }));
  app.use('*', bodyLimitMiddleware(config.bodyLimit));

  app.get('/health', (c) => c.json({ status: 'ok', version: deps.version }));
  app.get('/.well-known/ledgraph.json', (c) => c.json(discoveryDocument(config)));

  if (deps.routes?.length) {
    const api = new Hono<AppEnv>();
    const ctx: RouteContext = { config, log, version: deps.version };
    for (const group of deps.routes) group(api, ctx);
    app.route(config.apiBaseUrl, api);
  }

  app.notFound((c) => c.json(
    { error: `no route for ${c.req.method} ${c.req.path}`, status: 404, '@type': 'err:db/LedgerNotFound' },
    404,
  ));

  app.onError((err, c) => {
    const m = mapError(err);
    if (m.unexpected) {
      log.error('unhandled error', {
        request_id: c.get('requestId'), method: c.req.method, path: c.req.path,
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    for (const [k, v] of Object.entries(m.headers)) c.header(k, v);
    return c.json(m.body, m.status as 400);
  });

  return app;
}
