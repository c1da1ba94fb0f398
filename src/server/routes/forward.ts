/**
 * The peer role's forwarding (http-api.md rule 7, replication.md §14.5): a peer answers reads from
 * its local copy and passes everything else — writes, admin calls, `/log`, `/show` in shared
 * storage mode, replication endpoints — to the transaction server unchanged: method, path, query,
 * headers (Authorization included) and body go out, status, headers and body come back, streamed.
 * In proxy storage mode `/show` answers 501 (http-api.md §7). Registered before every other group.
 */
import type { Context } from 'hono';
import { LedgraphError } from '../../core/errors.js';
import type { AppEnv } from '../app-env.js';
import type { Registrar } from '../server-context.js';
import { isUpdate } from './sparql-endpoint.js';

/** Path prefixes (relative to api_base_url) a peer answers itself, for every method. */
const LOCAL_ANY = ['/query', '/stream/query', '/multi-query', '/info', '/exists', '/ledgers', '/stats', '/whoami', '/events'];
/** Hop-by-hop and transport headers that are not forwarded (RFC 9110 §7.6.1; fetch sets its own). */
const HOP = ['connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'proxy-connection', 'host', 'content-length', 'accept-encoding'];

const under = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + '/');

/** What a peer does with a request: answer it here, forward it, or refuse /show in proxy mode. */
export async function peerDisposition(c: Context<AppEnv>, rel: string, proxyMode: boolean): Promise<'local' | 'forward' | 'show-501'> {
  const method = c.req.method;
  if (LOCAL_ANY.some((p) => under(rel, p))) return 'local';
  if (under(rel, '/data')) return method === 'GET' || method === 'HEAD' ? 'local' : 'forward';
  if (under(rel, '/sparql')) return method === 'POST' && (await isUpdate(c)) ? 'forward' : 'local';
  if (under(rel, '/show') && proxyMode) return 'show-501';
  return 'forward';
}

/** Send the request on to the transaction server at `txServerUrl` (same path and query) and stream the answer back. */
export async function forwardRequest(c: Context<AppEnv>, txServerUrl: string): Promise<Response> {
  const src = new URL(c.req.url);
  const headers = new Headers(c.req.raw.headers);
  for (const h of HOP) headers.delete(h);
  const id = c.get('requestId');
  if (id && !headers.has('x-request-id')) headers.set('x-request-id', id);
  const method = c.req.method;
  let body: BodyInit | null = null;
  if (method !== 'GET' && method !== 'HEAD') {
    // A body the peer already read (a SPARQL form it inspected) is cached by Hono; else stream it.
    body = c.req.raw.bodyUsed ? await c.req.arrayBuffer() : c.req.raw.body;
  }
  let res: Response;
  try {
    res = await fetch(txServerUrl + src.pathname + src.search, {
      method, headers, body, redirect: 'manual', signal: c.req.raw.signal,
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
  } catch (e) {
    throw new LedgraphError(502, 'err:db/BadGateway', `the transaction server at ${txServerUrl} could not be reached: ${e instanceof Error ? (e.cause as Error | undefined)?.message ?? e.message : String(e)}`);
  }
  const out = new Headers(res.headers);
  // fetch has decoded the body already; its length and encoding no longer apply.
  for (const h of ['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']) out.delete(h);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: out });
}

/** Registers the forwarder of a peer (no-op on a transaction server). */
export const forwardRoutes: Registrar = (api, ctx) => {
  if (ctx.config.role !== 'peer' || !ctx.config.txServerUrl) return;
  const tx = ctx.config.txServerUrl;
  const base = ctx.config.apiBaseUrl;
  const proxyMode = ctx.config.storageProxyToken !== null;
  api.use('*', async (c, next) => {
    const path = c.req.path;
    const rel = path.startsWith(base) ? path.slice(base.length) || '/' : path;
    const d = await peerDisposition(c, rel, proxyMode);
    if (d === 'local') return next();
    if (d === 'show-501') {
      throw new LedgraphError(501, 'err:db/NotImplemented', 'GET /show is not available on a peer in proxy storage mode: ask the transaction server');
    }
    return forwardRequest(c, tx);
  });
};
