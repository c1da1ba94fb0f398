/**
 * Request helpers shared by every endpoint group: where the ledger comes from, content-type parsing
 * and 415s, body reading (body-limit and UTF-8 errors), JSON parsing (400 err:db/JsonParse), typed
 * query parameters, and Accept negotiation (406).
 */
import type { Context } from 'hono';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  badRequest, isLedgraphError, jsonParseError, LedgraphError, payloadTooLarge, unsupportedMediaType,
} from '../core/errors.js';
import { parseJsonWithinLimits } from '../core/json-depth.js';
import type { AppEnv } from './app-env.js';
import { memoryGuard } from './memory-guard.js';
import { addDeadline, cancelDeadline, type Deadline } from './deadlines.js';
import { chooseMediaType } from './negotiate.js';

type Ctx = Context<AppEnv>;

/** Header naming the ledger of connection-scoped calls. */
export const LEDGER_HEADER = 'Ledgraph-Ledger';

/** A parsed Content-Type: lower-cased essence (`type/subtype`) and parameters. */
export interface MediaType { type: string; params: Record<string, string> }

/** Parse a Content-Type (or one Accept entry); null when absent or malformed. */
export function parseMediaType(header: string | undefined | null): MediaType | null {
  if (!header) return null;
  const [essence, ...rest] = header.split(';');
  const type = essence!.trim().toLowerCase();
  if (!/^(?:[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+*-]+|\*\/\*)$/.test(type)) return null;
  const params: Record<string, string> = {};
  for (const p of rest) {
    const i = p.indexOf('=');
    if (i < 0) continue;
    params[p.slice(0, i).trim().toLowerCase()] = p.slice(i + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return { type, params };
}

/**
 * The request's media type when it is one of `allowed`, else 415 err:db/UnsupportedMediaType (a
 * missing Content-Type is also a 415). A charset other than UTF-8 is refused the same way, since
 * every text body is decoded as UTF-8.
 */
export function requireMediaType(c: Ctx, allowed: readonly string[], what: string): string {
  const raw = c.req.header('Content-Type');
  const mt = parseMediaType(raw);
  const list = allowed.join(', ');
  if (!mt) {
    throw unsupportedMediaType(raw ? `invalid Content-Type "${raw}" for ${what}; use one of ${list}` : `missing Content-Type for ${what}; use one of ${list}`);
  }
  if (!allowed.includes(mt.type)) throw unsupportedMediaType(`unsupported Content-Type ${mt.type} for ${what}; use one of ${list}`);
  const cs = mt.params.charset?.toLowerCase();
  if (cs && cs !== 'utf-8' && cs !== 'utf8' && cs !== 'us-ascii') throw unsupportedMediaType(`unsupported charset ${cs}; bodies must be UTF-8`);
  return mt.type;
}

/** The body-limit error (or any LedgraphError) behind a failed body read, else a 400. */
export function bodyReadError(e: unknown): LedgraphError {
  for (let cur: unknown = e, depth = 0; cur && depth < 4; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (isLedgraphError(cur)) return cur;
  }
  return badRequest(`could not read the request body: ${e instanceof Error ? e.message : String(e)}`);
}

/** The raw request body (empty when there is none); a body over --body-limit is a 413. */
export async function readBytes(c: Ctx): Promise<Uint8Array> {
  try {
    return new Uint8Array(await c.req.arrayBuffer());
  } catch (e) {
    throw bodyReadError(e);
  }
}

/** Bodies up to this declared length are read whole at once (see smallBody). */
export const SMALL_BODY_BYTES = 64 * 1024;

/**
 * The body bytes of a request whose Content-Length declares at most SMALL_BODY_BYTES (and no
 * Transfer-Encoding), read whole and cached by Hono so every later reader (`readBytes`, the signed
 * body check, the RDF body parser) gets the same bytes; null for other requests, whose bodies stay
 * streaming. Under @hono/node-server this reads the socket directly: no web Request or stream is
 * built for the request, which was most of the per-request cost of a small query or write.
 */
export function smallBody(c: Context): Promise<Uint8Array> | null {
  const declared = c.req.header('content-length');
  if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return null;
  const n = Number(declared);
  if (!(n >= 0 && n <= SMALL_BODY_BYTES)) return null;
  return c.req.arrayBuffer().then((b) => new Uint8Array(b), (e: unknown) => { throw bodyReadError(e); });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Largest request body parsed whole as text (JSON, SPARQL, GraphQL, Cypher, forms), in bytes: such
 * a body becomes strings and objects several times its size before anything can refuse it, so under
 * a sized heap it is bounded by the memory total (1/32 of --memory-limit, set by server-context.ts;
 * measured at 512 MiB: a 64 MB JSON-LD insert and a 48 MB SPARQL INSERT DATA each ended the server
 * with V8's out-of-memory). Streamed bodies (Turtle, N-Triples, N-Quads, TriG, /load, /import) and
 * binary push bodies are not affected.
 */
let textBodyLimit = Infinity;
/** Set the bound on bodies parsed whole (server start). */
export function setTextBodyLimit(bytes: number): void { textBodyLimit = bytes; }

function textBodyTooLarge(): LedgraphError {
  return payloadTooLarge(`a request body of more than ${Math.floor(textBodyLimit / 1048576)} MiB that is parsed whole (JSON, SPARQL, GraphQL, Cypher) cannot fit this server's memory (1/32 of --memory-limit); send RDF (Turtle, N-Triples) to stream it, split it, or raise --memory-limit`);
}

/** Decode body bytes as UTF-8; invalid bytes are a 400, a body over the whole-parse bound a 413. */
export function decodeUtf8(bytes: Uint8Array): string {
  if (bytes.length > textBodyLimit) throw textBodyTooLarge();
  try {
    return utf8.decode(bytes);
  } catch {
    throw badRequest('the request body is not valid UTF-8');
  }
}

/** Parse JSON text; invalid JSON is a 400 err:db/JsonParse, text over the whole-parse bound a 413. */
export function parseJsonText(text: string): unknown {
  if (text.length > textBodyLimit) throw textBodyTooLarge();
  if (text.trim() === '') throw jsonParseError('invalid JSON: the request body is empty');
  return parseJsonWithinLimits(text);
}

/** The raw body, its text and its parsed JSON. */
export async function readJson(c: Ctx): Promise<{ bytes: Uint8Array; json: unknown }> {
  const bytes = await readBytes(c);
  return { bytes, json: parseJsonText(decodeUtf8(bytes)) };
}

/** A JSON object body's string field, or undefined when absent; 400 when present but not a string. */
export function bodyString(body: unknown, key: string): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const v = (body as Record<string, unknown>)[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw badRequest(`"${key}" must be a string`);
  return v;
}

/**
 * The ledger a request addresses: the path tail, then `?ledger=`, then the Ledgraph-Ledger header,
 * then a body key `"ledger"` (jsonld-transactions.md §1). Null when none is given.
 */
export function ledgerFrom(c: Ctx, body?: unknown): string | null {
  const fromPath = c.req.param('ledger');
  if (fromPath) return fromPath;
  const q = c.req.query('ledger');
  if (q) return q;
  const h = c.req.header(LEDGER_HEADER);
  if (h && h.trim()) return h.trim();
  return bodyString(body, 'ledger') ?? null;
}

/** As ledgerFrom, but a missing ledger is a 400. */
export function requireLedger(c: Ctx, body?: unknown): string {
  const id = ledgerFrom(c, body);
  if (!id) throw badRequest(`missing ledger: give it in the path, as ?ledger=, in the ${LEDGER_HEADER} header or as a body "ledger" key`);
  return id;
}

/** The `{ledger}` path tail of a ledger-scoped route. */
export function pathLedger(c: Ctx): string {
  const id = c.req.param('ledger');
  if (!id) throw badRequest('missing ledger in the path');
  return id;
}

/** Every value of a repeatable query parameter. */
export function queryAll(c: Ctx, name: string): string[] {
  return c.req.queries(name) ?? [];
}

/** A boolean query parameter (`true`/`false`, also `1`/`0`; a bare `?x` is true); else 400. */
export function boolQuery(c: Ctx, name: string, dflt: boolean): boolean {
  const v = c.req.query(name);
  if (v === undefined) return dflt;
  const s = v.trim().toLowerCase();
  if (s === 'true' || s === '1' || s === '') return true;
  if (s === 'false' || s === '0') return false;
  throw badRequest(`query parameter ${name} must be true or false, not "${v}"`);
}

/** An integer query parameter within [min, max]; `clamp` pulls values above max down instead of refusing them. */
export function intQuery(c: Ctx, name: string, dflt: number, opts: { min: number; max: number; clamp?: boolean }): number {
  const v = c.req.query(name);
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v.trim())) throw badRequest(`query parameter ${name} must be a non-negative integer, not "${v}"`);
  const n = Number(v.trim());
  if (n < opts.min) throw badRequest(`query parameter ${name} must be at least ${opts.min}`);
  if (n > opts.max) {
    if (opts.clamp) return opts.max;
    throw badRequest(`query parameter ${name} must be at most ${opts.max}`);
  }
  return n;
}

/** 406: none of the offered response formats is acceptable. */
export function notAcceptable(offered: readonly string[]): LedgraphError {
  return new LedgraphError(406, 'err:db/NotAcceptable', `none of the available response formats is acceptable; available: ${offered.join(', ')}`);
}

/**
 * Pick the response media type from `offered` (the first is the default) by the Accept header, with
 * negotiate.ts's RFC 9110 rules; nothing acceptable is this module's 406.
 */
export function negotiate(accept: string | undefined, offered: readonly string[]): string {
  try {
    return chooseMediaType(accept, offered);
  } catch (e) {
    if (isLedgraphError(e) && e.status === 406) throw notAcceptable(offered);
    throw e;
  }
}

/** Cancellation of the work a request started. */
export interface RequestAbort {
  /** Aborts when the client goes away before its response is complete, or at the deadline once set. */
  readonly signal: AbortSignal;
  /** From now on, also abort at `deadline` (ms since the epoch) with the error `reason()` makes. */
  expireAt(deadline: number, reason: () => unknown): void;
  /**
   * The work is over: the deadline timer and the disconnect listener go. Call it only once nothing
   * reads or listens to `signal` any more (its controller may be handed to another request).
   */
  dispose(): void;
}

/**
 * Controllers of finished requests whose signal never aborted, for the next requests: making an
 * AbortSignal costs Node 20 several microseconds, a noticeable part of a point query.
 */
const idleControllers: AbortController[] = [];
const IDLE_MAX = 64;

/**
 * One AbortController for the work of a request: the client going away and a deadline in one
 * signal. Under @hono/node-server it watches the response's `close` itself, as the adapter does
 * for `c.req.raw.signal` (same reasons), so the adapter never builds a controller of its own;
 * elsewhere (`app.request()` in tests) it follows `c.req.raw.signal`.
 *
 * `dispose()` says the work is over and nothing polls or listens to the signal any more: a
 * controller that was not aborted then serves a later request.
 */
export function requestAbort(c: Ctx): RequestAbort {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  const incoming = env?.incoming, outgoing = env?.outgoing;
  if (incoming && outgoing && typeof outgoing.once === 'function') return nodeRequestAbort(incoming, outgoing);
  return pooledAbort((ac) => {
    const rs = c.req.raw.signal;
    const onAbort = () => ac.abort(rs.reason);
    if (rs.aborted) onAbort(); else rs.addEventListener('abort', onAbort, { once: true });
    return () => rs.removeEventListener('abort', onAbort);
  });
}

/** requestAbort of a raw node:http request: aborts when the response closes before it has finished. */
export function nodeRequestAbort(incoming: IncomingMessage, outgoing: ServerResponse): RequestAbort {
  return pooledAbort((ac) => {
    const onClose = () => abortOnClose(ac, incoming, outgoing);
    if (outgoing.destroyed) onClose(); else outgoing.once('close', onClose);
    return () => { outgoing.off('close', onClose); };
  });
}

/** What a closed connection does to a running query: aborted with the request's error, or as cut off unless its response had finished. */
export function abortOnClose(ac: AbortController, incoming: IncomingMessage, outgoing: ServerResponse): void {
  if (incoming.errored) ac.abort(incoming.errored.toString());
  else if (!outgoing.writableFinished) ac.abort('Client connection prematurely closed.');
}

/** A RequestAbort over a pooled controller; `watch` ties it to the request and returns how to untie it. */
export function pooledAbort(watch: (ac: AbortController) => () => void): RequestAbort {
  const ac = idleControllers.pop() ?? new AbortController();
  const slot = memoryGuard.track(ac); // stopped with 503 when the heap is nearly full (memory-guard.ts)
  let disposed = false;
  let expiry: Deadline | undefined;
  const unwatch = watch(ac);
  return {
    signal: ac.signal,
    expireAt(deadline, reason) {
      if (expiry !== undefined) cancelDeadline(expiry);
      expiry = addDeadline(deadline, () => ac.abort(reason()));
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      if (expiry !== undefined) cancelDeadline(expiry);
      memoryGuard.untrack(slot);
      unwatch();
      if (!ac.signal.aborted && idleControllers.length < IDLE_MAX) idleControllers.push(ac);
    },
  };
}

/**
 * Abort the response's connection mid-transfer so the client sees a truncated body (a chunked
 * response without its last chunk), never one that looks complete. Under @hono/node-server the
 * socket is destroyed here (the adapter then cancels the body stream), and true is returned;
 * elsewhere (app.request() in tests) false: the caller errors its body stream instead.
 */
export function abortTransfer(c: Ctx): boolean {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing || typeof outgoing.destroy !== 'function') return false;
  outgoing.destroy();
  return true;
}
