/**
 * `GET /commits/<ledger>` (http-api.md §2.5, §4.3): commit export pages over
 * core/commit/export-page.ts, blobs base64-encoded. Storage-claim auth and the 404 while the storage
 * proxy is disabled are enforced by the auth middleware (the route group `storage`); a ledger with
 * `f:serveBlocks false` answers 404 like an unknown one.
 */
import { COMMITS_DEFAULT_LIMIT, COMMITS_MAX_LIMIT, commitPage } from '../../core/commit/export-page.js';
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import { boolQuery, intQuery, pathLedger } from '../http-util.js';
import type { Registrar } from '../server-context.js';
import { requireBlocksServed } from '../storage-proxy/serving.js';
import { route } from '../swagger.js';
import { toBase64 } from './base64.js';

/** Registers GET /commits. */
export const commitsRoutes: Registrar = (api, ctx) => {
  route(api, ctx.table, {
    method: 'GET', path: '/commits/{ledger}', tag: 'replication', summary: 'Raw commits, newest first, in pages',
    query: [
      { name: 'limit', type: 'integer', description: `Commits per page (default ${COMMITS_DEFAULT_LIMIT}, clamped to ${COMMITS_MAX_LIMIT}; counts merged_commits in lineage mode)` },
      { name: 'cursor_id', description: 'next_cursor_id of the previous page' },
      { name: 'lineage', type: 'boolean', description: 'First-parent chain plus merged_commits' },
      { name: 'base_id', description: 'Lineage mode: the client head; the export stops above it' },
    ],
    responses: {
      200: 'Commit export page {ledger, head_commit_id, head_t, commits, blobs, missing_blobs?, newest_t, oldest_t, next_cursor_id, count, effective_limit, lineage?, merged_commits?}',
      401: 'Missing or invalid storage token', 404: 'Storage proxy disabled, ledger not found, not authorized, or f:serveBlocks false', 409: 'base_id not on the first-parent chain',
    },
  }, async (c) => {
    const limit = intQuery(c, 'limit', COMMITS_DEFAULT_LIMIT, { min: 1, max: COMMITS_MAX_LIMIT, clamp: true });
    const lineage = boolQuery(c, 'lineage', false);
    const ledger = await ctx.conn.ledger(normalizeLedgerId(pathLedger(c)));
    await requireBlocksServed(ledger);
    const page = await commitPage(ledger, { limit, lineage, cursor: c.req.query('cursor_id') || undefined, base: lineage ? c.req.query('base_id') || undefined : undefined });
    const body: Record<string, unknown> = {
      ledger: page.ledger, head_commit_id: page.head_commit_id, head_t: page.head_t,
      commits: page.commits.map(toBase64),
      blobs: Object.fromEntries([...page.blobs].map(([k, v]) => [k, toBase64(v)])),
    };
    if (page.missing_blobs.length) body['missing_blobs'] = page.missing_blobs;
    Object.assign(body, { newest_t: page.newest_t, oldest_t: page.oldest_t, next_cursor_id: page.next_cursor_id, count: page.count, effective_limit: page.effective_limit });
    if (page.lineage) {
      body['lineage'] = true;
      if (page.merged_commits) body['merged_commits'] = page.merged_commits.map(toBase64);
    }
    return c.json(body);
  });
};
