/**
 * Cypher on `POST /query/<ledger>` and `POST /update/<ledger>` (cypher.md §1): `application/cypher`
 * bodies, raw statement text or a `{"cypher", "params"}` envelope. Reads answer the §8 envelope (or,
 * under `Accept: application/ld+json`, rows as objects keyed by column); writes commit one
 * transaction and answer its receipt, with the envelope too when the statement ends with RETURN.
 */
import type { Context } from 'hono';
import { badRequest, timeoutError } from '../../core/errors.js';
import { checkQueryLength } from '../../core/limits.js';
import { envelope, prepareCypherWrite, readCypherBody, rowObjects, runCypherRead } from '../../core/query/cypher/service.js';
import type { Receipt, TxnContext } from '../../core/transact/pipeline.js';
import type { TxnRequest } from '../../core/transact/txn-request.js';
import { IdempotencyStore } from '../replication/idempotency.js';
import { responseWithId, type AppEnv } from '../app.js';
import { decodeUtf8, readBytes, requestAbort } from '../http-util.js';
import { parseMaxFuel, parseMinT, policyFromHeaders, waitForMinT } from '../query-headers.js';
import { authenticate, resolvePolicyInputs } from '../auth/index.js';
import { requireQueryServed } from '../storage-proxy/serving.js';
import type { ServerContext } from '../server-context.js';
import { parseLedgerRef } from '../../core/ledger/ledger-id.js';

type Ctx = Context<AppEnv>;

/** Whether a request body is Cypher. */
export function isCypher(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/cypher';
}

/** Run a Cypher read statement of `/query/<ledger>`. */
export async function cypherQuery(c: Ctx, ctx: ServerContext, pathLedger: string | undefined): Promise<Response> {
  if (pathLedger === undefined) throw badRequest('Cypher has no dataset clause: send it to /query/<ledger> (a ledger in the path)');
  const headers = c.req.raw.headers;
  const text = decodeUtf8(await readBytes(c));
  checkQueryLength(text, 'Cypher statement');
  const body = readCypherBody(text);
  // As for SPARQL (query.ts resolvePolicy): a verified credential selects the policy.
  const policy = resolvePolicyInputs(authenticate(c), policyFromHeaders(headers), ctx.config.defaultPolicyClass, true) ?? {};
  const maxFuel = parseMaxFuel(headers);
  const minT = parseMinT(headers);
  const deadline = ctx.config.queryTimeoutMs > 0 ? Date.now() + ctx.config.queryTimeoutMs : 0;
  const abort = requestAbort(c);
  try {
    if (minT !== undefined) {
      await waitForMinT(ctx.conn, parseLedgerRef(pathLedger).id, minT, { timeoutMs: deadline ? Math.max(1, deadline - Date.now()) : 0, signal: abort.signal });
    }
    const until = deadline ? Math.max(Date.now() + 1, deadline) : undefined;
    if (until !== undefined) abort.expireAt(until, () => timeoutError('query timeout exceeded'));
    const res = await runCypherRead(ctx.conn, body, {
      ledger: pathLedger, policy, signal: abort.signal,
      ...(maxFuel !== undefined ? { maxFuel } : {}), ...(until !== undefined ? { deadline: until } : {}),
    });
    await requireQueryServed(ctx.conn, Object.keys(res.ledgers));
    const ld = /application\/ld\+json/i.test(c.req.header('Accept') ?? '');
    const out = ld ? rowObjects(res.table, res.names) : envelope(res.table, res.names);
    return responseWithId(c, JSON.stringify(out), 200, { 'content-type': ld ? 'application/ld+json' : 'application/json' });
  } finally {
    abort.dispose();
  }
}

/** Commits a request as the write routes do (policy from the credential and headers, limits, admission, log). */
export type CommitWrite = (ledger: string, req: TxnRequest, tx: TxnContext) => Promise<Receipt>;

/** Remembered write responses per server (Idempotency-Key), by connection. */
const remembered = new WeakMap<object, IdempotencyStore>();

/**
 * Run a Cypher write statement of `/update/<ledger>`: one commit through the write pipeline. An
 * `Idempotency-Key` replays the stored response of the same key and body (no second commit).
 */
export async function cypherUpdate(c: Ctx, ctx: ServerContext, commit: CommitWrite): Promise<Response> {
  const pathLedger = c.req.param('ledger');
  if (!pathLedger) throw badRequest('Cypher has no dataset clause: send it to /update/<ledger> (a ledger in the path)');
  if (parseLedgerRef(pathLedger).time.kind !== 'head') throw badRequest(`writes cannot target a past state: remove the time specifier from ${pathLedger}`);
  const bytes = await readBytes(c);
  const text = decodeUtf8(bytes);
  checkQueryLength(text, 'Cypher statement');
  const key = c.req.header('Idempotency-Key');
  let store = remembered.get(ctx.conn);
  if (!store) remembered.set(ctx.conn, store = new IdempotencyStore(undefined, undefined, ctx.config.idempotencyCacheBytes));
  const k = key ? IdempotencyStore.key(parseLedgerRef(pathLedger).id, key, bytes) : null;
  const stored = k ? store.get(k) : undefined;
  if (stored !== undefined) return responseWithId(c, JSON.stringify(stored), 200, { 'content-type': 'application/json' });
  const body = readCypherBody(text);
  const w = await prepareCypherWrite(ctx.conn, body, parseLedgerRef(pathLedger).id);
  // Policy headers as for the other languages (§1); commitWrite resolves them against the credential.
  const req = { ...w.req, opts: { ...w.req.opts, ...policyFromHeaders(c.req.raw.headers) } } as TxnRequest;
  const receipt = await commit(pathLedger, req, { contentType: 'application/cypher', body: text.trimStart().startsWith('{') ? JSON.parse(text) as unknown : text, rawBody: bytes });
  const out = w.returns ? { ...envelope(w.table(), w.names), receipt } : receipt;
  if (k) store.set(k, out);
  return responseWithId(c, JSON.stringify(out), 200, { 'content-type': 'application/json' });
}
