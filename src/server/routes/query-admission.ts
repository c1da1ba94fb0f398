/**
 * Query admission: every request that executes a query (`/query`, `/stream/query`, `/multi-query`,
 * `/sparql`, graph-store reads of `/data`) holds a permit of the server's QueryGate
 * (--max-concurrent-queries) from before its handler runs until its response has been written or
 * its connection closed, so a streamed result counts for as long as it is being produced. Past the
 * cap a request waits in the gate's small queue, then gets 503 with Retry-After (http-api.md §7);
 * under memory pressure the gate refuses it at once with the memory guard's 503.
 */
import type { ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app.js';
import type { QueryGate } from '../admission.js';
import type { Registrar } from '../server-context.js';

/** Paths (under api_base_url) whose requests execute queries, with the methods that do. */
const GATED: readonly { path: string; methods: readonly string[] | null }[] = [
  { path: '/query', methods: null },
  { path: '/query/*', methods: null },
  { path: '/stream/query', methods: null },
  { path: '/stream/query/*', methods: null },
  { path: '/multi-query', methods: null },
  { path: '/sparql/*', methods: ['GET', 'HEAD', 'POST'] },
  { path: '/data/*', methods: ['GET', 'HEAD'] },
];

/** Middleware holding a QueryGate permit for the lifetime of the response. */
export function queryAdmission(gate: QueryGate, methods: readonly string[] | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (methods && !methods.includes(c.req.method)) return next();
    // The request's signal (withdraws a queued wait when the client goes away) only when waiting.
    const release = gate.tryAcquire() ?? await gate.acquire(c.req.raw.signal);
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    try {
      await next();
    } catch (e) {
      release();
      throw e;
    }
    // Under node:http the response is written after this returns (and a large result streams on):
    // the permit is held until the response is done or its connection is gone.
    if (outgoing && typeof outgoing.once === 'function' && !outgoing.destroyed && !outgoing.writableFinished) {
      outgoing.once('close', release);
    } else {
      release();
    }
  };
}

/** Registers the query admission middleware on every query-executing path. */
export const queryAdmissionRoutes: Registrar = (api, ctx) => {
  for (const g of GATED) api.use(g.path, queryAdmission(ctx.queryGate, g.methods));
};
