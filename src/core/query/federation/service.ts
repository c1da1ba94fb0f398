/**
 * SPARQL 1.1 Federated Query's SERVICE, client side: which endpoints a query may reach (an
 * allow-list of URL prefixes; none means federation is off) and one remote SELECT sent with the
 * SPARQL 1.1 Protocol (form POST, SPARQL JSON results read as they stream in). Uses the global
 * `fetch` (Node and browsers), or one supplied by the caller.
 */
import { LedgraphError } from '../../errors.js';
import { sparqlJsonSolutions, type RemoteSolution } from './sparql-json-stream.js';

/** Where federated requests (SERVICE, LOAD) may go. */
export interface FederationOptions {
  /** URL prefixes a request may reach; empty turns federation off. */
  allow: readonly string[];
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** True when `url` starts with an allowed prefix at a path boundary (so `http://h:80` does not allow `http://h:8080`). */
export function allowedUrl(url: string, allow: readonly string[]): boolean {
  for (const p of allow) {
    if (url === p) return true;
    if (url.startsWith(p) && (/[/?#]$/.test(p) || '/?#'.includes(url[p.length]!))) return true;
  }
  return false;
}

/** 400 unless `url` may be reached (`what` names the feature in the message). */
export function checkAllowed(url: string, fed: FederationOptions | undefined, what: string): void {
  if (!fed || fed.allow.length === 0) {
    throw new LedgraphError(400, 'err:db/BadRequest', `${what} <${url}> is not allowed: federation is off on this server (start it with --federation-allow <url-prefix>)`);
  }
  if (!/^https?:\/\//i.test(url) || !allowedUrl(url, fed.allow)) {
    throw new LedgraphError(400, 'err:db/BadRequest', `${what} <${url}> is not allowed: it matches no --federation-allow prefix`);
  }
}

/** The error of a remote endpoint that failed. */
export function remoteError(url: string, detail: string): LedgraphError {
  return new LedgraphError(502, 'err:db/BadGateway', `SERVICE <${url}> failed: ${detail}`);
}

let calls = 0;

/**
 * The solutions of `query` (a SELECT) at `endpoint`, streamed in the batches the network delivers.
 * `signal` aborts the request (the query's deadline and cancellation reach the remote call this way).
 */
export async function* remoteSolutions(endpoint: string, query: string, fed: FederationOptions | undefined, signal: AbortSignal | undefined): AsyncIterable<RemoteSolution[]> {
  checkAllowed(endpoint, fed, 'SERVICE');
  const doFetch = fed!.fetch ?? globalThis.fetch;
  let res: Response;
  try {
    res = await doFetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/sparql-results+json' },
      body: new URLSearchParams({ query }).toString(),
      ...(signal ? { signal } : {}),
    });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw remoteError(endpoint, e instanceof Error ? e.message : String(e));
  }
  if (res.status !== 200) {
    const text = (await res.text().catch(() => '')).slice(0, 200);
    throw remoteError(endpoint, `status ${res.status}${text ? `: ${text}` : ''}`);
  }
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/sparql-results+json' && type !== 'application/json') {
    await res.body?.cancel();
    throw remoteError(endpoint, `answered ${type || 'no content type'}, not SPARQL JSON results`);
  }
  const body = res.body;
  if (!body) return;
  const prefix = `svc${++calls}_`;
  yield* sparqlJsonSolutions(textChunks(body), prefix);
}

async function* textChunks(body: ReadableStream<Uint8Array>): AsyncIterable<string> {
  const dec = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      yield dec.decode(r.value, { stream: true });
    }
    const tail = dec.decode();
    if (tail) yield tail;
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
