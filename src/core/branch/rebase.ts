/**
 * `POST /rebase` (branches.md §7): replay a branch's own commits (those after the common ancestor
 * with its source branch) on top of the source's current head, one parent each, then move the
 * branch once. A branch with no own commits fast-forwards.
 */
import { commitConflict, invalidBranchOp, notFound } from '../errors.js';
import type { Db } from '../ledger/db.js';
import { parseStrategy, readSide, resolve } from './changes.js';
import { holdBranch, type BranchEnv } from './env.js';
import { conflictKey, CommitReader, type KeyedFlake } from './reader.js';
import { writeCommits, type PlannedCommit } from './write.js';

/** `POST /rebase` response. */
export interface RebaseResponse {
  ledger_id: string; branch: string; fast_forward: boolean; replayed: number; skipped: number; conflicts: number;
  failures: number; total_commits: number; source_head_t: number;
}

/** Rebase `branch` onto its source branch's head. */
export async function rebaseBranch(env: BranchEnv, name: string, branch: string, strategyIn: unknown): Promise<RebaseResponse> {
  const strategy = parseStrategy(strategyIn, 'take-both');
  const id = `${name}:${branch}`;
  const rec = await env.ns.get(id);
  if (!rec || rec.retracted) throw notFound(`ledger ${id} not found`);
  if (rec.source_branch === undefined) throw invalidBranchOp(`${id} is the root branch and cannot be rebased`);
  const ledger = await env.ledger(id);
  const source = await env.ledger(`${name}:${rec.source_branch}`);
  // Lock order: the branch, then its source (a source chain never loops back).
  return holdBranch(env, id, () => ledger.lock.run(() => source.lock.run(async () => {
    await ledger.catchUp(env.ns);
    await source.catchUp(env.ns);
    const res = { ledger_id: id, branch, fast_forward: false, replayed: 0, skipped: 0, conflicts: 0, failures: 0, total_commits: 0, source_head_t: source.t };
    const graph = env.graphFor(id);
    const a = await graph.commonAncestor(ledger.head.cid, source.head.cid);
    if (!a) throw invalidBranchOp(`${id} shares no history with its source`);
    const move = { target: ledger, base: source, headIfEmpty: { cid: source.head.cid, t: source.t }, index: { id: source.record.index_head_id, t: source.record.index_t } };
    if (a.cid === ledger.head.cid) {
      if (ledger.head.cid !== source.head.cid) await writeCommits(env, move, []);
      return { ...res, fast_forward: true };
    }
    if (a.cid === source.head.cid) return res; // already on top of the source head: nothing to replay
    const reader = new CommitReader(env.contentFor(id), graph, [ledger, source]);
    const ancAnc = await graph.ancestors(a.cid);
    const sourceKeys = (await readSide(reader, await graph.only(source.head.cid, ancAnc))).keys;
    // Merge commits are not replayed: the commits they brought in are (their changes, one by one).
    const own = (await graph.only(ledger.head.cid, ancAnc)).filter((n) => n.parents.length === 1);
    const plans: PlannedCommit[] = [];
    for (const n of own) {
      const c = await reader.read(n.cid);
      const conflicts = new Set(c.flakes.map(conflictKey).filter((k) => sourceKeys.has(k)));
      if (conflicts.size > 0) res.conflicts++;
      if (conflicts.size > 0 && strategy === 'skip') { res.skipped++; continue; }
      const flakes: KeyedFlake[] = c.flakes;
      const mode = strategy === 'take-source' ? 'state' : strategy === 'take-branch' ? 'incoming' : 'both';
      plans.push({ flakes, meta: c.data.meta, extraParents: [], keepEmpty: false, prepare: (state: Db) => resolve(flakes, conflicts, mode, state) });
    }
    if (strategy === 'abort' && res.conflicts > 0) {
      throw commitConflict(`Rebase aborted: ${res.conflicts} commit(s) of ${branch} conflict with ${rec.source_branch} with abort strategy`);
    }
    const written = await writeCommits(env, move, plans);
    return { ...res, replayed: written.length, total_commits: own.length };
  })));
}
