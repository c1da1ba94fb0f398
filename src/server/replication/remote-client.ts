/**
 * The HTTP client side of replication, shared by the command-line client and the tests: read a
 * remote's commit pages since a base, push commits to it, and turn error responses into errors that
 * name the remote, the ledger and the HTTP status.
 */
import { LedgraphError } from '../../core/errors.js';
import { fromBase64, toBase64 } from './push.js';

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

/** Ledger path segment: name and branch as typed (`/` and `:` stay). */
export function ledgerPath(ledger: string): string {
  return ledger.split('/').map(encodeURIComponent).join('/').replace(/%3A/gi, ':');
}

/**
 * Every commit of a remote ledger above `baseId` (null = from genesis), in lineage mode, oldest
 * first: the first-parent chain in `commits`, what merges brought in in `merged`.
 */
export async function fetchCommitsSince(r: RemoteTarget, ledger: string, baseId: string | null): Promise<CommitBatch> {
  const pages: { commits: string[]; merged: string[] }[] = [];
  const blobs = new Map<string, Uint8Array>();
  const missing = new Set<string>();
  let cursor: string | null = null;
  let headId = '', headT = -1;
  do {
    const q = new URLSearchParams({ lineage: 'true', limit: '500' });
    if (baseId) q.set('base_id', baseId);
    if (cursor) q.set('cursor_id', cursor);
    const res = await fetch(`${r.api}/commits/${ledgerPath(ledger)}?${q}`, { headers: headers(r) });
    if (!res.ok) throw await remoteError(r, ledger, res, 'reading commits of');
    const page = (await res.json()) as {
      head_commit_id: string; head_t: number; commits: string[]; merged_commits?: string[];
      blobs: Record<string, string>; missing_blobs?: string[]; next_cursor_id: string | null;
    };
    if (!cursor) { headId = page.head_commit_id; headT = page.head_t; }
    pages.push({ commits: page.commits, merged: page.merged_commits ?? [] });
    for (const [k, v] of Object.entries(page.blobs)) blobs.set(k, fromBase64(v, `blob ${k}`));
    for (const m of page.missing_blobs ?? []) missing.add(m);
    cursor = page.next_cursor_id;
  } while (cursor);
  // Pages run newest to oldest (each page too); merged commits within a page are parents-first.
  const commits: Uint8Array[] = [];
  const merged: Uint8Array[] = [];
  for (let i = pages.length - 1; i >= 0; i--) {
    const p = pages[i]!;
    for (let k = p.commits.length - 1; k >= 0; k--) commits.push(fromBase64(p.commits[k], 'commit'));
    for (const m of p.merged) merged.push(fromBase64(m, 'merged commit'));
  }
  // The base itself is not part of the export, but a page from genesis includes genesis.
  return { commits, merged, blobs, missingBlobs: [...missing], headId, headT };
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
  const res = await fetch(`${r.api}/${merges ? 'push-merges' : 'push'}/${ledgerPath(ledger)}`, {
    method: 'POST',
    headers: headers(r, { 'Content-Type': 'application/json', ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) }),
    body: JSON.stringify(body),
  });
  if (!res.ok) throw await remoteError(r, ledger, res, 'pushing to');
  return (await res.json()) as PushResult;
}
