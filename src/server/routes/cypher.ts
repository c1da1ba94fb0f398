/**
 * Cypher on `POST /query/<ledger>` (cypher.md §1): `application/cypher` bodies, raw statement text
 * or a `{"cypher", "params"}` envelope, answered with the §8 envelope (or, under
 * `Accept: application/ld+json`, rows as objects keyed by column).
 */
import type { Context } from 'hono';
import { badRequest, timeoutError } from '../../core/errors.js';
import { checkQueryLength } from '../../core/limits.js';
import { envelope, readCypherBody, rowObjects, runCypherRead } from '../../core/query/cypher/service.js';
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
