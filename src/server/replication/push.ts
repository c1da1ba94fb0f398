/**
 * `POST /push/<ledger>` and `POST /push-merges/<ledger>` (http-api.md §4.3, replication.md §7): the
 * JSON body is decoded (base64 blobs), then core/transact/receive.ts validates and applies the
 * commits as an admitted write under the caller's write policy. An `Idempotency-Key` replays a
 * stored success.
 */
import { badRequest } from '../../core/errors.js';
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import { receiveCommits, type ReceivedCommits } from '../../core/transact/receive.js';
import { policyInputsFor } from '../auth/index.js';
import { decodeUtf8, parseJsonText, pathLedger, readBytes } from '../http-util.js';
import type { Registrar } from '../server-context.js';
import { route } from '../swagger.js';
import { fromBase64 } from './base64.js';
import { IdempotencyStore } from './idempotency.js';

function base64List(v: unknown, what: string): Uint8Array[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw badRequest(`${what} must be an array of base64 strings`);
  return v.map((s, i) => fromBase64(s, `${what}[${i}]`));
}

/** The push request body (§2.6) as received objects; `merges` allows `merged_commits`. */
export function parsePushBody(json: unknown, merges: boolean): ReceivedCommits {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw badRequest('the push body must be a JSON object');
  const b = json as Record<string, unknown>;
  if (!Array.isArray(b['commits'])) throw badRequest('"commits" (an array of base64 commit blobs, oldest first) is required');
  const merged = base64List(b['merged_commits'], 'merged_commits');
  if (!merges && merged.length > 0) throw badRequest('this push carries merged_commits; send it to /push-merges');
  const blobs = new Map<string, Uint8Array>();
  const rawBlobs = b['blobs'];
  if (rawBlobs !== undefined) {
    if (rawBlobs === null || typeof rawBlobs !== 'object' || Array.isArray(rawBlobs)) throw badRequest('"blobs" must be an object of CID → base64');
    for (const [k, v] of Object.entries(rawBlobs)) blobs.set(k, fromBase64(v, `blobs["${k}"]`));
  }
  const missing = b['missing_blobs'];
  if (missing !== undefined && (!Array.isArray(missing) || missing.some((m) => typeof m !== 'string'))) throw badRequest('"missing_blobs" must be an array of CID strings');
  return { commits: base64List(b['commits'], 'commits'), merged, blobs, missingBlobs: (missing as string[] | undefined) ?? [] };
}

/** Registers /push and /push-merges. */
export const pushRoutes: Registrar = (api, ctx) => {
  const remembered = new IdempotencyStore(undefined, undefined, ctx.config.idempotencyCacheBytes);
  for (const merges of [false, true]) {
    const path = merges ? '/push-merges/{ledger}' : '/push/{ledger}';
    route(api, ctx.table, {
      method: 'POST', path, tag: 'replication',
      summary: merges ? 'Push commits whose merges bring in other branches\' commits' : 'Push commits that continue the ledger head',
      headers: [{ name: 'Idempotency-Key', description: 'Replays the stored success (24 h) for the same key and body' }],
      requestTypes: ['application/json'],
      responses: {
        200: 'Push response {ledger, accepted, head {t, commit_id}, indexing {enabled, needed, novelty_size, index_t, commit_t}}',
        400: merges ? 'Malformed body' : 'Malformed body, or merged_commits on /push',
        409: 'Head moved or diverged, or the first commit is not at the next t',
        422: 'Invalid commit bytes, unknown parent, empty commit, bad blob, retraction invariant, datatype limit',
        503: 'Novelty at reindex_max_bytes (Retry-After)',
      },
    }, async (c) => {
      const id = normalizeLedgerId(pathLedger(c));
      const bytes = await readBytes(c);
      const key = c.req.header('Idempotency-Key');
      const k = key ? IdempotencyStore.key(id, key, bytes) : null;
      const stored = k ? remembered.get(k) : undefined;
      if (stored !== undefined) return c.json(stored as Record<string, unknown>);
      const input = parsePushBody(parseJsonText(decodeUtf8(bytes)), merges);
      const policy = policyInputsFor(c, undefined, true);
      const res = await ctx.admission.run(async () => receiveCommits(ctx.conn, await ctx.conn.ledger(id), input, policy));
      if (k) remembered.set(k, res);
      return c.json(res);
    });
  }
};
