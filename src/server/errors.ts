/**
 * The one place errors become HTTP responses (http-api.md §7): a LedgraphError keeps its status,
 * `@type`, cause and headers; Hono's HTTPException is mapped by status; anything else is a 500
 * `err:db/Internal` whose details stay in the log, never in the response.
 */
import { HTTPException } from 'hono/http-exception';
import { isLedgraphError, retryAfterSeconds, type LedgraphError } from '../core/errors.js';
import { capMessage } from '../core/excerpt.js';

/** The §7 error body. */
export interface ErrorBody {
  error: string;
  status: number;
  '@type': string;
  cause?: unknown;
}

/** A mapped error: status, body and the extra headers to send. */
export interface MappedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True when the error was not a LedgraphError/HTTPException, i.e. a bug worth logging with its stack. */
  unexpected: boolean;
}

/** `@type` for statuses produced outside Ledgraph's own code (framework exceptions). */
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'err:db/BadRequest',
  401: 'err:db/Unauthorized',
  403: 'err:db/Forbidden',
  404: 'err:db/LedgerNotFound',
  408: 'err:db/Timeout',
  409: 'err:db/CommitConflict',
  413: 'err:db/PayloadTooLarge',
  415: 'err:db/UnsupportedMediaType',
  422: 'err:db/ConstraintViolation',
  429: 'err:db/RateLimited',
  502: 'err:db/BadGateway',
  503: 'err:system/InternalError',
  504: 'err:db/GatewayTimeout',
};

/** Longest `error` text sent to a client, whatever built it (a net under the parsers' own excerpts). */
export const MAX_ERROR_CHARS = 4096;

// Absolute POSIX paths (not the path part of a URL or IRI: those follow a host name) and Windows paths.
const ABS_PATH = /(?<![\w.~%:/-])\/(?:[^\s'"`<>()/]+\/)*[^\s'"`<>()/,;]+\/?|\b[A-Za-z]:\\[^\s'"`<>]*/g;

/**
 * The text of a 5xx as a client sees it: no file-system path and no stack frame (the server log
 * keeps the original). 4xx messages describe the client's own input and are only capped.
 */
export function publicMessage(message: string, status: number): string {
  let m = message;
  if (status >= 500) m = m.split(/\n\s*at /)[0]!.replace(ABS_PATH, '<path>');
  return capMessage(m, MAX_ERROR_CHARS);
}

function publicBody(body: ErrorBody): ErrorBody {
  const out: ErrorBody = { ...body, error: publicMessage(body.error, body.status) };
  if (body.cause && typeof body.cause === 'object') {
    const c = body.cause as ErrorBody;
    if (typeof c.error === 'string') out.cause = publicBody({ ...c, status: typeof c.status === 'number' ? c.status : body.status });
  }
  return out;
}

function internal(): MappedError {
  return { status: 500, body: { error: 'internal server error', status: 500, '@type': 'err:db/Internal' }, headers: {}, unexpected: true };
}

function withRetryAfter(status: number, headers: Record<string, string>): Record<string, string> {
  // §7 rule 1: every 503 is retryable capacity pressure and carries Retry-After.
  if (status === 503 && !Object.keys(headers).some((h) => h.toLowerCase() === 'retry-after')) {
    return { ...headers, 'Retry-After': retryAfterSeconds() };
  }
  return headers;
}

/** Map any thrown value to the §7 status, body and headers. */
export function mapError(err: unknown): MappedError {
  if (isLedgraphError(err)) {
    const e = err as LedgraphError;
    if (!Number.isInteger(e.status) || e.status < 400 || e.status > 599) return internal();
    const body = publicBody(typeof e.toJSON === 'function' ? e.toJSON() : { error: e.message, status: e.status, '@type': e.type });
    return { status: e.status, body, headers: withRetryAfter(e.status, { ...(e.headers ?? {}) }), unexpected: false };
  }
  if (err instanceof HTTPException && err.status >= 400 && err.status < 600 && err.status !== 500) {
    const type = TYPE_BY_STATUS[err.status] ?? (err.status < 500 ? 'err:db/BadRequest' : 'err:db/Internal');
    const error = publicMessage(err.message || `request failed with status ${err.status}`, err.status);
    return { status: err.status, body: { error, status: err.status, '@type': type }, headers: withRetryAfter(err.status, {}), unexpected: false };
  }
  return internal();
}

/** A JSON Response carrying the mapped error (Content-Type application/json). */
export function errorResponse(err: unknown, extraHeaders: Record<string, string> = {}): Response {
  const m = mapError(err);
  return new Response(JSON.stringify(m.body), {
    status: m.status,
    headers: { 'Content-Type': 'application/json', ...m.headers, ...extraHeaders },
  });
}
