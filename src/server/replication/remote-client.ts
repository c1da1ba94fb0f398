/**
 * The HTTP client side of replication, shared by the command-line client and the tests: read a
 * remote's commit pages since a base, push commits to it, and turn error responses into errors that
 * name the remote, the ledger and the HTTP status.
 */
import { LedgraphError } from '../../core/errors.js';
import { fromBase64, toBase64 } from './base64.js';

/** Where a remote server is and how to authenticate to it. */
export interface RemoteTarget {
  /** A name for messages (the configured remote name, or the URL). */
  name: string;
  /** `{base_url}{api_base_url}`, e.g. http://127.0.0.1:8090/v1/ledgraph. */
  api: string;
  token?: string | null;
}

/** Commits read from a remote, oldest first, ready to push elsewhere. */
export interface CommitBatch {
  commits: Uint8Array[];
  merged: Uint8Array[];
  blobs: Map<string, Uint8Array>;
  missingBlobs: string[];
  headId: string;
  headT: number;
}

function headers(r: RemoteTarget, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(r.token ? { Authorization: `Bearer ${r.token}` } : {}), ...extra };
}

/** An error for a failed call: remote, ledger, status and the server's message. */
export async function remoteError(r: RemoteTarget, ledger: string, res: Response, what: string): Promise<LedgraphError> {
  let msg = '';
  let type = 'err:db/BadGateway';
  try {
    const body = (await res.json()) as { error?: string; '@type'?: string };
    msg = body.error ?? '';
    type = body['@type'] ?? type;
  } catch { /* not JSON */ }
  return new LedgraphError(res.status, type, `${what} ${ledger} on remote ${r.name}: HTTP ${res.status}${msg ? ` — ${msg}` : ''}`);
}

/** A call that got no HTTP answer (refused, reset, dropped): a 502 naming the remote and ledger. */
function unreachable(r: RemoteTarget, ledger: string, what: string, e: unknown): LedgraphError {
  const cause = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
  return new LedgraphError(502, 'err:db/BadGateway', `${what} ${ledger} on remote ${r.name}: no HTTP response (${cause})`);
}

/** `fetch`, with a failure to get any response turned into an error naming remote and ledger. */
async function call(r: RemoteTarget, ledger: string, what: string, url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    throw unreachable(r, ledger, what, e);
  }
}

/** Ledger path segment: name and branch as typed (`/` and `:` stay). */
export function ledgerPath(ledger: string): string {
  return ledger.split('/').map(encodeURIComponent).join('/').replace(/%3A/gi, ':');
}

/** One export page with its objects as bytes (what GET /commits returns, decoded). */
export interface RawPage {
  head_commit_id: string;
  head_t: number;
  commits: Uint8Array[];
  merged_commits?: Uint8Array[];
  blobs: Map<string, Uint8Array>;
  missing_blobs: string[];
  next_cursor_id: string | null;
}

/**
 * Every commit above `baseId` (null = from genesis) from lineage-mode pages, oldest first: the
 * first-parent chain in `commits`, what merges brought in in `merged`. `page` reads one page.
 */
export async function collectCommitsSince(page: (cursor: string | null) => Promise<RawPage>): Promise<CommitBatch> {
  const pages: RawPage[] = [];
  let cursor: string | null = null;
  do {
    const p = await page(cursor);
    pages.push(p);
    cursor = p.next_cursor_id;
  } while (cursor);
  // Pages run newest to oldest (each page too); merged commits within a page are parents-first.
  const commits: Uint8Array[] = [];
  const merged: Uint8Array[] = [];
  const blobs = new Map<string, Uint8Array>();
  const missing = new Set<string>();
  for (let i = pages.length - 1; i >= 0; i--) {
    const p = pages[i]!;
    for (let k = p.commits.length - 1; k >= 0; k--) commits.push(p.commits[k]!);
    merged.push(...(p.merged_commits ?? []));
    for (const [k, v] of p.blobs) blobs.set(k, v);
    for (const m of p.missing_blobs) missing.add(m);
  }
  return { commits, merged, blobs, missingBlobs: [...missing], headId: pages[0]!.head_commit_id, headT: pages[0]!.head_t };
}

/** Every commit of a remote ledger above `baseId`, through GET /commits in lineage mode. */
export async function fetchCommitsSince(r: RemoteTarget, ledger: string, baseId: string | null): Promise<CommitBatch> {
  return collectCommitsSince(async (cursor) => {
    const q = new URLSearchParams({ lineage: 'true', limit: '500' });
    if (baseId) q.set('base_id', baseId);
    if (cursor) q.set('cursor_id', cursor);
    const res = await call(r, ledger, 'reading commits of', `${r.api}/commits/${ledgerPath(ledger)}?${q}`, { headers: headers(r) });
    if (!res.ok) throw await remoteError(r, ledger, res, 'reading commits of');
    const p = (await res.json()) as {
      head_commit_id: string; head_t: number; commits: string[]; merged_commits?: string[];
      blobs: Record<string, string>; missing_blobs?: string[]; next_cursor_id: string | null;
    };
    return {
      head_commit_id: p.head_commit_id, head_t: p.head_t,
      commits: p.commits.map((c) => fromBase64(c, 'commit')),
      merged_commits: (p.merged_commits ?? []).map((c) => fromBase64(c, 'merged commit')),
      blobs: new Map(Object.entries(p.blobs).map(([k, v]) => [k, fromBase64(v, `blob ${k}`)])),
      missing_blobs: p.missing_blobs ?? [], next_cursor_id: p.next_cursor_id,
    };
  });
}

/** The push response of http-api.md §2.6. */
export interface PushResult { ledger: string; accepted: number; head: { t: number; commit_id: string }; indexing: Record<string, unknown> }

/** Push a batch to a remote ledger (`/push-merges` when it carries merged commits). */
export async function pushCommits(r: RemoteTarget, ledger: string, batch: Pick<CommitBatch, 'commits' | 'merged' | 'blobs' | 'missingBlobs'>, idempotencyKey?: string): Promise<PushResult> {
  const merges = batch.merged.length > 0;
  const body: Record<string, unknown> = {
    commits: batch.commits.map(toBase64),
    blobs: Object.fromEntries([...batch.blobs].map(([k, v]) => [k, toBase64(v)])),
  };
  if (batch.missingBlobs.length) body['missing_blobs'] = batch.missingBlobs;
  if (merges) body['merged_commits'] = batch.merged.map(toBase64);
  const url = `${r.api}/${merges ? 'push-merges' : 'push'}/${ledgerPath(ledger)}`;
  const init = {
    method: 'POST',
    headers: headers(r, { 'Content-Type': 'application/json', ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) }),
    body: JSON.stringify(body),
  };
  // With a key, a push whose answer was lost is sent again: the server answers with the success it
  // stored if the first one landed, or applies it now if it did not (replication.md §7).
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await call(r, ledger, 'pushing to', url, init);
      if (!res.ok) throw await remoteError(r, ledger, res, 'pushing to');
      return (await res.json()) as PushResult;
    } catch (e) {
      const lost = e instanceof LedgraphError && e.status === 502 && e.type === 'err:db/BadGateway' && e.message.includes('no HTTP response');
      if (!idempotencyKey || !lost || attempt >= PUSH_ATTEMPTS) throw e;
      await new Promise((ok) => setTimeout(ok, 250 * attempt));
    }
  }
}

/** Tries of a push with an Idempotency-Key whose answer is lost. */
const PUSH_ATTEMPTS = 3;

/** A ledger's heads on a remote (`GET /info`), or null when it does not exist there. */
export interface RemoteHeads { t: number; commitId: string; indexId: string | null; indexT: number }

/** The heads of a remote ledger, or null when the remote has no such ledger (404). */
export async function remoteHeads(r: RemoteTarget, ledger: string): Promise<RemoteHeads | null> {
  // Heads only: the light form of /info (no per-class details or datatype counts to compute).
  const res = await call(r, ledger, 'reading the head of', `${r.api}/info/${ledgerPath(ledger)}?realtime_property_details=false&include_property_datatypes=false`, { headers: headers(r) });
  if (res.status === 404) return null;
  if (!res.ok) throw await remoteError(r, ledger, res, 'reading the head of');
  const i = (await res.json()) as { t: number; commitId: string; indexId?: string | null; index?: { t: number } };
  return { t: i.t, commitId: i.commitId, indexId: i.indexId ?? null, indexT: i.index?.t ?? 0 };
}

/** A remote ledger's stored default context (`GET /context`), or null when it has none or the remote lacks the route. */
export async function remoteContext(r: RemoteTarget, ledger: string): Promise<unknown> {
  const res = await call(r, ledger, 'reading the default context of', `${r.api}/context/${ledgerPath(ledger)}`, { headers: headers(r) });
  if (res.status === 404) return null;
  if (!res.ok) throw await remoteError(r, ledger, res, 'reading the default context of');
  return ((await res.json()) as { '@context'?: unknown })['@context'] ?? null;
}

/** Replace a remote ledger's stored default context (`PUT /context`). */
export async function putRemoteContext(r: RemoteTarget, ledger: string, context: unknown): Promise<void> {
  const res = await call(r, ledger, 'setting the default context of', `${r.api}/context/${ledgerPath(ledger)}`, {
    method: 'PUT', headers: { ...headers(r), 'Content-Type': 'application/json' }, body: JSON.stringify({ '@context': context }),
  });
  if (!res.ok) throw await remoteError(r, ledger, res, 'setting the default context of');
}

/** The body of `POST /pack` as a byte stream (after checking the status). */
export async function fetchPack(r: RemoteTarget, ledger: string, req: Record<string, unknown>): Promise<AsyncIterable<Uint8Array>> {
  const res = await call(r, ledger, 'packing', `${r.api}/pack/${ledgerPath(ledger)}`, {
    method: 'POST', headers: headers(r, { 'Content-Type': 'application/json', Accept: 'application/x-ledgraph-pack' }),
    body: JSON.stringify({ protocol: 'ledgraph-pack-v1', ...req }),
  });
  if (!res.ok || !res.body) throw await remoteError(r, ledger, res, 'packing');
  return namedFailures(r, ledger, 'packing', res.body as unknown as AsyncIterable<Uint8Array>);
}

/** A response body whose connection failing midway is an error naming the remote, the ledger and the bytes received. */
async function* namedFailures(r: RemoteTarget, ledger: string, what: string, body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let n = 0;
  try {
    for await (const chunk of body) { n += chunk.length; yield chunk; }
  } catch (e) {
    if (e instanceof LedgraphError) throw e;
    throw new LedgraphError(502, 'err:db/BadGateway', `${what} ${ledger} on remote ${r.name}: the connection failed after ${n} bytes (${e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e)})`);
  }
}

/** Stream an archive to `POST /import/<ledger>`. */
export async function postArchive(r: RemoteTarget, ledger: string, bytes: AsyncIterable<Uint8Array>): Promise<Record<string, unknown>> {
  const it = bytes[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(ctl) { const n = await it.next(); if (n.done) ctl.close(); else ctl.enqueue(n.value); },
    async cancel() { await it.return?.(); },
  });
  const res = await call(r, ledger, 'importing', `${r.api}/import/${ledgerPath(ledger)}`, {
    method: 'POST', headers: headers(r, { 'Content-Type': 'application/x-ledgraph-pack' }), body, duplex: 'half',
  } as RequestInit);
  if (!res.ok) throw await remoteError(r, ledger, res, 'importing');
  return (await res.json()) as Record<string, unknown>;
}

/** The API base of a server from its discovery document (`/.well-known/ledgraph.json`). */
export async function discoverApi(baseUrl: string): Promise<string> {
  const origin = baseUrl.replace(/\/+$/, '');
  let res: Response;
  try {
    res = await fetch(`${origin}/.well-known/ledgraph.json`);
  } catch (e) {
    throw new LedgraphError(502, 'err:db/BadGateway', `cannot reach ${origin}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!res.ok) throw new LedgraphError(502, 'err:db/BadGateway', `${origin} has no Ledgraph discovery document (HTTP ${res.status})`);
  const doc = (await res.json()) as { api_base_url?: string };
  return origin + (doc.api_base_url ?? '/v1/ledgraph');
}
