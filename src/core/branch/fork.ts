/**
 * Creating and listing branches (branches.md §§3–4). A fork copies no commits: the new record
 * points at the fork commit and every earlier commit is read from the shared content store. At the
 * source head the index is inherited; at an older commit the newest index of the source that covers
 * no more than the fork commit is (an index holds the history up to its t), else none and the
 * commits are replayed on first load.
 */
import { badRequest, invalidBranchOp, ledgerExists, notFound } from '../errors.js';
import { rootHeader } from '../index/root-headers.js';
import { checkBranchName, splitLedgerId } from '../ledger/ledger-id.js';
import type { Ledger } from '../ledger/ledger.js';
import type { NsRecord } from '../store.js';
import type { BranchEnv } from './env.js';
import { resolveRef } from './refs.js';
import { adjustChildren } from './records.js';

/** `POST /branch` response. */
export interface BranchCreated { ledger_id: string; branch: string; source: string; t: number }

/** One entry of `GET /branch/<ledger>`. */
export interface BranchEntry { branch: string; ledger_id: string; t: number; source?: string }

/** Validate a bare ledger name (no branch). */
export function bareLedgerName(name: unknown): string {
  if (typeof name !== 'string' || name === '') throw badRequest('"ledger" must be a non-empty string (the bare ledger name)');
  if (name.includes(':')) throw badRequest(`"ledger" takes the bare ledger name without a branch, not "${name}"`);
  splitLedgerId(name);
  return name;
}

/** A bare branch name field. */
export function branchField(v: unknown, field: string): string {
  if (typeof v !== 'string') throw badRequest(`"${field}" must be a branch name (string)`);
  checkBranchName(v);
  return v;
}

/** Fork `branch` from `source` at `at` (default the source head). */
export async function createBranch(env: BranchEnv, name: string, branch: string, sourceBranch: string, at: string | undefined): Promise<BranchCreated> {
  checkBranchName(branch);
  checkBranchName(sourceBranch);
  const id = `${name}:${branch}`;
  const sourceId = `${name}:${sourceBranch}`;
  const sourceRec = await env.ns.get(sourceId);
  if (!sourceRec || sourceRec.retracted) throw notFound(`ledger ${sourceId} not found`);
  if (await env.ns.get(id)) throw ledgerExists(`branch ${id} already exists`);
  const source = await env.ledger(sourceId);
  if (source.t === 0) throw invalidBranchOp('cannot branch a ledger with no commits');
  let fork = { cid: source.head.cid, t: source.t };
  if (at !== undefined) {
    const ref = await resolveRef(env.graphFor(sourceId), source, at);
    if (!ref.onChain) throw invalidBranchOp(`commit ${at} reached ${sourceId} through a merge; fork from the branch it was made on`);
    if (ref.t === 0) throw invalidBranchOp('cannot branch a ledger with no commits: the genesis commit is not a fork point');
    fork = { cid: ref.cid, t: ref.t };
  }
  const atHead = fork.cid === source.head.cid;
  const index = atHead ? { id: source.record.index_head_id, t: source.record.index_t } : await indexAtOrBefore(env, source, fork.t);
  const record: NsRecord = {
    ledger_id: id, name, branch, commit_head_id: fork.cid, commit_t: fork.t, index_head_id: index.id, index_t: index.id ? index.t : 0,
    default_context: sourceRec.default_context, config_id: sourceRec.config_id, retracted: false, source_branch: sourceBranch,
  };
  if (!(await env.ns.compareAndSet(id, null, record))) throw ledgerExists(`branch ${id} already exists`);
  await adjustChildren(env, sourceId, +1);
  if (record.index_t < record.commit_t) env.prepare(id);
  return { ledger_id: id, branch, source: sourceBranch, t: fork.t };
}

/** The newest index root of `source` covering at most t on its own first-parent chain. */
async function indexAtOrBefore(env: BranchEnv, source: Ledger, t: number): Promise<{ id: string | null; t: number }> {
  const chain = await source.chainEntries();
  let cur = source.record.index_head_id;
  while (cur) {
    const root = (await rootHeader(env.contentFor(source.id), cur))!;
    if (root.index_t <= t && chain[root.index_t]?.cid === root.commit_id) return { id: cur, t: root.index_t };
    cur = root.prev_root;
  }
  return { id: null, t: 0 };
}

/** The live branches of a ledger, sorted by name (404 when it has none). */
export async function listBranches(env: BranchEnv, name: string): Promise<BranchEntry[]> {
  const live = (await env.ns.list()).filter((r) => r.name === name && !r.retracted);
  if (live.length === 0) throw notFound(`ledger ${name} not found`);
  return live
    .sort((a, b) => (a.branch < b.branch ? -1 : a.branch > b.branch ? 1 : 0))
    .map((r) => {
      const e: BranchEntry = { branch: r.branch, ledger_id: r.ledger_id, t: r.commit_t };
      if (r.source_branch !== undefined) e.source = r.source_branch;
      return e;
    });
}
