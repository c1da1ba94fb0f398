/**
 * `POST /drop-branch` (branches.md §5). A leaf branch is purged with the objects only it reaches;
 * a branch with children is retracted and keeps its storage for them; dropping the last child of a
 * retracted branch purges that branch too (and so on up). Objects shared with any other record of
 * the ledger (pre-fork history, inherited index nodes, commits merged elsewhere) are never deleted.
 */
import { CID } from 'multiformats/cid';
import { internalError, invalidBranchOp } from '../errors.js';
import { collectReachable, reachableFromOthers } from '../ledger/reachable.js';
import type { Ledger } from '../ledger/ledger.js';
import type { NsRecord } from '../store.js';
import type { BranchEnv } from './env.js';
import { adjustChildren } from './records.js';

/** `POST /drop-branch` response. */
export interface DropBranchResponse {
  ledger_id: string;
  status: 'dropped' | 'already_retracted' | 'not_found';
  deferred: boolean;
  files_deleted?: number;
  cascaded?: string[];
  warnings?: string[];
}

/** Drop one branch of a ledger. */
export async function dropBranch(env: BranchEnv, name: string, branch: string): Promise<DropBranchResponse> {
  const id = `${name}:${branch}`;
  const rec = await env.ns.get(id);
  if (!rec) return { ledger_id: id, status: 'not_found', deferred: false };
  if (rec.source_branch === undefined) throw invalidBranchOp(`${id} is the root branch; drop the ledger with /drop`);
  if (rec.retracted) return { ledger_id: id, status: 'already_retracted', deferred: false };
  if ((rec.branches ?? 0) > 0) {
    const ledger = await env.ledger(id);
    await ledger.lock.run(async () => {
      const cur = await env.ns.get(id);
      if (!cur || !(await env.ns.compareAndSet(id, cur, { ...cur, retracted: true }))) throw internalError(`drop of ${id} raced with a write; retry`);
    });
    env.forget(id);
    return { ledger_id: id, status: 'dropped', deferred: true };
  }
  const ledger = await env.ledger(id).catch(() => null);
  const deleted = await purge(env, rec, ledger);
  env.forget(id);
  const res: DropBranchResponse = { ledger_id: id, status: 'dropped', deferred: false };
  // The source loses a child; a retracted source left childless goes too, and so on up.
  let files = deleted;
  const cascaded: string[] = [];
  let parentId = `${name}:${rec.source_branch}`;
  for (;;) {
    const parent = await adjustChildren(env, parentId, -1);
    if (!parent || !parent.retracted || (parent.branches ?? 0) > 0) break;
    files += await purge(env, parent);
    cascaded.push(parentId);
    if (parent.source_branch === undefined) break;
    parentId = `${name}:${parent.source_branch}`;
  }
  if (files > 0) res.files_deleted = files;
  if (cascaded.length > 0) res.cascaded = cascaded;
  return res;
}

/**
 * Purge `rec`'s record, then delete the objects only it reached; returns the number of objects
 * deleted. The walk and the purge run under the branch's lock (no write adds a commit after the
 * walk); the deletes run outside it, while no index job writes (one may be writing an equal
 * object), and keep whatever any other record of the content partition reaches (any ledger's, under the
 * shared layout; the ledger's other branches, under a per-ledger one).
 */
async function purge(env: BranchEnv, rec: NsRecord, ledger: Ledger | null = null): Promise<number> {
  const mine = new Set<string>();
  const unlink = async (): Promise<void> => {
    await collectReachable(env.contentFor(rec.ledger_id), rec, mine);
    // Record first: a failure part-way then leaves only unreferenced objects, never a dangling record.
    if (!(await env.ns.delete(rec.ledger_id)) && (await env.ns.get(rec.ledger_id))) throw internalError(`could not purge ${rec.ledger_id}; retry`);
  };
  if (ledger) await ledger.lock.run(unlink); else await unlink();
  const remove = async (): Promise<number> => {
    const keep = await reachableFromOthers(env, env.partitionOf(rec.ledger_id), new Set([rec.ledger_id]), 'all');
    const content = env.contentFor(rec.ledger_id);
    let deleted = 0;
    for (const c of mine) if (!keep.has(c) && (await content.delete(CID.parse(c)))) deleted++;
    return deleted;
  };
  return env.exclusively ? env.exclusively(remove) : remove();
}
