/** The Hono environment type shared by the app, its routes and the OpenAPI route table. */
import type { Logger } from './log.js';

/**
 * Hono environment of every Ledgraph route: `c.get('requestId')`, and `c.get('log')`, a logger whose
 * lines already carry `request_id` (and `trace_id`/`span_id` when a W3C traceparent came in).
 */
export type AppEnv = { Variables: { requestId: string; log: Logger } };
