/**
 * Branch endpoints (branches.md §§2–8): create, list and drop branches; merge, rebase and revert
 * (admin group, admitted writes, `Idempotency-Key` replays a stored success); merge and revert
 * previews (data read). The work is in core/branch; this file parses requests and shapes answers.
 */
import type { Context } from 'hono';
import { badRequest } from '../../core/errors.js';
import { conflictKeysOut } from './branch-keys.js';
import { bareLedgerName, branchField, createBranch, listBranches } from '../../core/branch/fork.js';
import { dropBranch } from '../../core/branch/drop-branch.js';
import { mergeBranches, previewMerge, type PreviewLimits } from '../../core/branch/merge.js';
import { rebaseBranch } from '../../core/branch/rebase.js';
import { previewRevert, revertCommits, type RevertSelection } from '../../core/branch/revert.js';
import type { AppEnv } from '../app.js';
import { boolQuery, intQuery, pathLedger, readJson, requireMediaType } from '../http-util.js';
import { IdempotencyStore } from '../replication/idempotency.js';
import type { Registrar } from '../server-context.js';
import { route } from '../swagger.js';

const JSON_TYPES = ['application/json', 'application/ld+json'];

/** The JSON object body of a branch command (a missing Content-Type is read as JSON). */
async function commandBody(c: Context<AppEnv>, what: string): Promise<{ bytes: Uint8Array; body: Record<string, unknown> }> {
  if (c.req.header('Content-Type')) requireMediaType(c, JSON_TYPES, what);
  const { bytes, json } = await readJson(c);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw badRequest(`the ${what} body must be a JSON object`);
  return { bytes, body: json as Record<string, unknown> };
}

function optionalBranch(body: Record<string, unknown>, field: string): string | undefined {
  return body[field] === undefined ? undefined : branchField(body[field], field);
}

const PREVIEW_QUERY = [
  { name: 'strategy', description: 'Conflict strategy' },
  { name: 'include_conflicts', description: 'Compute conflict keys (default true)' },
  { name: 'max_commits', description: 'Most commits listed (default 500, clamped to 5000)' },
  { name: 'max_conflict_keys', description: 'Most conflict keys listed (default 200, clamped to 5000)' },
];

/** Preview limits (§6.3): defaults 500 commits and 200 keys, clamped to 5000. */
function previewLimits(c: Context<AppEnv>): PreviewLimits {
  return {
    includeConflicts: boolQuery(c, 'include_conflicts', true),
    maxCommits: intQuery(c, 'max_commits', 500, { min: 0, max: 5000, clamp: true }),
    maxConflictKeys: intQuery(c, 'max_conflict_keys', 200, { min: 0, max: 5000, clamp: true }),
  };
}

/** Registers /branch, /drop-branch, /merge, /merge-preview, /rebase, /revert and /revert-preview. */
export const branchRoutes: Registrar = (api, ctx) => {
  const remembered = new IdempotencyStore();
  /** Run a maintenance command, replaying a stored success for a repeated Idempotency-Key. */
  const idempotent = async (c: Context<AppEnv>, what: string, run: (body: Record<string, unknown>, name: string) => Promise<unknown>) => {
    const { bytes, body } = await commandBody(c, what);
    const name = bareLedgerName(body.ledger);
    const key = c.req.header('Idempotency-Key');
    const k = key ? IdempotencyStore.key(`${what}:${name}`, key, bytes) : null;
    const stored = k ? remembered.get(k) : undefined;
    if (stored !== undefined) return c.json(stored as Record<string, unknown>);
    const res = await ctx.admission.run(() => run(body, name));
    if (k) remembered.set(k, res);
    c.get('log').info(`branch ${what}`, { ledger: name });
    return c.json(res as Record<string, unknown>);
  };

  route(api, ctx.table, {
    method: 'POST', path: '/branch', tag: 'admin', summary: 'Create a branch (fork without copying)',
    description: 'Body {"ledger", "branch", "source"? (default main), "at"? (t:N, hex digest prefix or CID on the source\'s first-parent chain)}.',
    requestTypes: JSON_TYPES,
    responses: { 201: '{ledger_id, branch, source, t}', 400: 'Invalid name, at through a merge, branching at genesis', 404: 'Ledger, source or commit not found', 409: 'err:db/LedgerExists' },
  }, async (c) => {
    const { body } = await commandBody(c, 'branch');
    const name = bareLedgerName(body.ledger);
    const branch = branchField(body.branch, 'branch');
    const source = optionalBranch(body, 'source') ?? 'main';
    if (body.at !== undefined && typeof body.at !== 'string') throw badRequest('"at" must be a commit reference string');
    const res = await ctx.admission.run(() => createBranch(ctx.conn, name, branch, source, body.at as string | undefined));
    c.get('log').info('branch created', { ledger: res.ledger_id, source, t: res.t });
    return c.json(res, 201);
  });

  route(api, ctx.table, {
    method: 'GET', path: '/branch/{ledger}', tag: 'admin', summary: 'List the branches of a ledger',
    responses: { 200: 'Array of {branch, ledger_id, t, source?}, sorted by name', 404: 'Ledger not found' },
  }, async (c) => c.json(await listBranches(ctx.conn, bareLedgerName(pathLedger(c)))));

  route(api, ctx.table, {
    method: 'POST', path: '/drop-branch', tag: 'admin', summary: 'Drop a branch',
    description: 'Body {"ledger", "branch"}. A leaf is purged; a branch with children is retracted; the root goes through /drop.',
    requestTypes: JSON_TYPES,
    responses: { 200: '{ledger_id, status, deferred, files_deleted?, cascaded?, warnings?}', 400: 'Root branch or invalid name' },
  }, async (c) => {
    const { body } = await commandBody(c, 'drop-branch');
    const name = bareLedgerName(body.ledger);
    const branch = branchField(body.branch, 'branch');
    const res = await ctx.admission.run(() => dropBranch(ctx.conn, name, branch));
    c.get('log').info('branch dropped', { ledger: res.ledger_id, status: res.status, deferred: res.deferred });
    return c.json(res);
  });

  const idemHeader = [{ name: 'Idempotency-Key', description: 'Replays the stored success (24 h) for the same key and body' }];
  route(api, ctx.table, {
    method: 'POST', path: '/merge', tag: 'admin', summary: 'Merge a branch into another (fast-forward or merge commit)',
    description: 'Body {"ledger", "source", "target"? (default the source\'s parent), "strategy"? (take-both | take-source | take-branch | abort)}.',
    headers: idemHeader, requestTypes: JSON_TYPES,
    responses: { 200: '{ledger_id, target, source, fast_forward, new_head_t, commits_copied, conflict_count, strategy?}', 400: 'Root as source, self-merge, skip', 404: 'Branch not found', 409: 'err:db/CommitConflict' },
  }, (c) => idempotent(c, 'merge', (body, name) =>
    mergeBranches(ctx.conn, name, branchField(body.source, 'source'), optionalBranch(body, 'target'), body.strategy)));

  route(api, ctx.table, {
    method: 'GET', path: '/merge-preview/{ledger}', tag: 'admin', summary: 'What a merge would do',
    query: [
      { name: 'source', required: true, description: 'Branch to merge from' },
      { name: 'target', description: 'Branch to merge into (default: the source\'s parent)' },
      ...PREVIEW_QUERY,
    ],
    responses: { 200: '{source, target, ancestor, ahead, behind, fast_forward, conflicts, mergeable}', 404: 'Branch not found' },
  }, async (c) => {
    const name = bareLedgerName(pathLedger(c));
    const source = c.req.query('source');
    if (source === undefined) throw badRequest('missing query parameter source');
    const target = c.req.query('target');
    const p = await previewMerge(ctx.conn, name, branchField(source, 'source'), target === undefined ? undefined : branchField(target, 'target'), c.req.query('strategy'), previewLimits(c));
    return c.json({ ...p, conflicts: { ...p.conflicts, keys: await conflictKeysOut(ctx.conn, `${name}:${p.target}`, p.conflicts.keys) } });
  });

  route(api, ctx.table, {
    method: 'POST', path: '/rebase', tag: 'admin', summary: 'Replay a branch\'s own commits on its source\'s head',
    description: 'Body {"ledger", "branch", "strategy"? (take-both | take-source | take-branch | skip | abort)}.',
    headers: idemHeader, requestTypes: JSON_TYPES,
    responses: { 200: '{ledger_id, branch, fast_forward, replayed, skipped, conflicts, failures, total_commits, source_head_t}', 400: 'Root branch', 409: 'err:db/CommitConflict' },
  }, (c) => idempotent(c, 'rebase', (body, name) => rebaseBranch(ctx.conn, name, branchField(body.branch, 'branch'), body.strategy)));

  route(api, ctx.table, {
    method: 'POST', path: '/revert', tag: 'admin', summary: 'Write one commit undoing earlier commits',
    description: 'Body {"ledger", "branch", exactly one of "commit" | "commits" | "range" {"from", "to"}, "strategy"? (abort | take-source | take-branch)}.',
    headers: idemHeader, requestTypes: JSON_TYPES,
    responses: { 200: '{ledger_id, branch, reverted_commits, conflict_count, strategy, new_head_t, new_head_id}', 400: 'Invalid selection, merge or genesis commit', 409: 'err:db/CommitConflict' },
  }, (c) => idempotent(c, 'revert', (body, name) => {
    const sel: RevertSelection = { commit: body.commit, commits: body.commits, range: body.range };
    return revertCommits(ctx.conn, name, branchField(body.branch, 'branch'), sel, body.strategy);
  }));

  route(api, ctx.table, {
    method: 'GET', path: '/revert-preview/{ledger}', tag: 'admin', summary: 'What a revert would do',
    query: [
      { name: 'branch', required: true, description: 'Branch whose commits are reverted' },
      { name: 'commit', description: 'One commit reference' },
      { name: 'commits', description: 'Comma-separated commit references' },
      { name: 'from', description: 'Range start (exclusive)' },
      { name: 'to', description: 'Range end (inclusive)' },
      ...PREVIEW_QUERY,
    ],
    responses: { 200: '{branch, reverted_count, reverted_commits, truncated, conflicts, revertable}', 404: 'Branch or commit not found' },
  }, async (c) => {
    const name = bareLedgerName(pathLedger(c));
    const branch = branchField(c.req.query('branch') ?? 'main', 'branch');
    const q = (k: string) => c.req.query(k);
    const sel: RevertSelection = {};
    if (q('commit') !== undefined) sel.commit = q('commit');
    if (q('commits') !== undefined) sel.commits = q('commits')!.split(',').filter((s) => s !== '');
    if (q('from') !== undefined || q('to') !== undefined) sel.range = { from: q('from'), to: q('to') };
    const p = await previewRevert(ctx.conn, name, branch, sel, q('strategy'), previewLimits(c));
    return c.json({ ...p, conflicts: { ...p.conflicts, keys: await conflictKeysOut(ctx.conn, `${name}:${branch}`, p.conflicts.keys) } });
  });
};
