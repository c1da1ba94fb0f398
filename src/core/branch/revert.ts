/**
 * `POST /revert` and `GET /revert-preview` (branches.md §8): one new commit that undoes earlier
 * commits (their flakes inverted, newest commit first); history is not rewritten. A conflict is a
 * key the selected commits changed that a later (or as old) unselected commit of the branch changed too.
 */
import { CID } from 'multiformats/cid';
import { commitConflict, invalidBranchOp, isLedgraphError, notFound } from '../errors.js';
import { isCidRef, type Ledger } from '../ledger/ledger.js';
import { literal, namedNode } from '../rdf/terms.js';
import { F } from '../rdf/vocab.js';
import { conflictingKeys, netChange, parseStrategy, resolve, splitKey, type Strategy } from './changes.js';
import type { Node } from './dag.js';
import { holdBranch, type BranchEnv } from './env.js';
import { commitList, type CommitList, type PreviewLimits } from './merge.js';
import { conflictKey, CommitReader, type KeyedFlake } from './reader.js';
import { resolveRef } from './refs.js';
import { writeCommits } from './write.js';

/** What to undo: one reference, a list, or a range (`from` exclusive, `to` inclusive). */
export interface RevertSelection { commit?: unknown; commits?: unknown; range?: unknown }

/** `POST /revert` response. */
export interface RevertResponse {
  ledger_id: string; branch: string; reverted_commits: string[]; conflict_count: number; strategy: string; new_head_t: number; new_head_id: string;
}

/** `GET /revert-preview` response (keys as full IRIs; the server compacts them). */
export interface RevertPreview {
  branch: string; reverted_count: number; reverted_commits: CommitList['commits']; truncated: boolean;
  conflicts: { count: number; keys: { s: string; p: string; g: string | null }[]; truncated: boolean }; revertable: boolean;
}

function revertStrategy(v: unknown): Strategy {
  const s = parseStrategy(v, 'abort');
  if (s === 'take-both' || s === 'skip') throw invalidBranchOp(`the ${s} strategy is not allowed for a revert (use abort, take-source or take-branch)`);
  return s;
}

/** Resolve one selected reference: a stored commit the head cannot reach is a 400, an unknown one a 404 (§8, §2). */
async function selectedRef(env: BranchEnv, ledger: Ledger, ref: unknown): Promise<Node> {
  try {
    return await resolveRef(env.graphFor(ledger.id), ledger, ref);
  } catch (e) {
    if (isLedgraphError(e) && e.status === 404 && typeof ref === 'string' && isCidRef(ref) && (await env.contentFor(ledger.id).has(CID.parse(ref)))) {
      throw invalidBranchOp(`commit ${ref} is not reachable from the head of ${ledger.id}`);
    }
    throw e;
  }
}

/** The selected commits, newest first (validated: reachable, not merges, not genesis, not empty). */
async function select(env: BranchEnv, ledger: Ledger, sel: RevertSelection): Promise<Node[]> {
  const given = [sel.commit, sel.commits, sel.range].filter((v) => v !== undefined).length;
  if (given !== 1) throw invalidBranchOp('give exactly one of "commit", "commits" or "range"');
  let nodes: Node[];
  if (sel.commit !== undefined) nodes = [await selectedRef(env, ledger, sel.commit)];
  else if (sel.commits !== undefined) {
    if (!Array.isArray(sel.commits) || sel.commits.length === 0) throw invalidBranchOp('"commits" must be a non-empty array of commit references');
    nodes = [];
    for (const r of sel.commits) nodes.push(await selectedRef(env, ledger, r));
  } else {
    const r = sel.range as { from?: unknown; to?: unknown } | null;
    if (r === null || typeof r !== 'object' || Array.isArray(r)) throw invalidBranchOp('"range" must be an object {"from", "to"}');
    const from = await selectedRef(env, ledger, r.from);
    const to = await selectedRef(env, ledger, r.to);
    const graph = env.graphFor(ledger.id);
    if (!(await graph.ancestors(to.cid)).has(from.cid)) throw invalidBranchOp('range: "from" is not an ancestor of "to"');
    nodes = await graph.only(to.cid, await graph.ancestors(from.cid));
    if (nodes.length === 0) throw invalidBranchOp('the range selects no commit');
  }
  const unique = new Map(nodes.map((n) => [n.cid, n]));
  for (const n of unique.values()) {
    if (n.parents.length === 0) throw invalidBranchOp('the genesis commit cannot be reverted');
    if (n.parents.length > 1) throw invalidBranchOp(`commit ${n.cid} is a merge commit and cannot be reverted`);
  }
  return [...unique.values()].sort((a, b) => b.t - a.t || (a.cid < b.cid ? 1 : -1));
}

/** The undo flakes and the conflicting keys of a selection. */
async function plan(env: BranchEnv, ledger: Ledger, selected: Node[]): Promise<{ undo: KeyedFlake[]; conflicts: string[] }> {
  const graph = env.graphFor(ledger.id);
  const reader = new CommitReader(env.contentFor(ledger.id), graph, [ledger]);
  const undo: KeyedFlake[] = [];
  const keys = new Set<string>();
  for (const n of selected) {
    for (const f of (await reader.read(n.cid)).flakes) {
      undo.push({ ...f, op: !f.op });
      keys.add(conflictKey(f));
    }
  }
  const chosen = new Set(selected.map((n) => n.cid));
  const oldest = Math.min(...selected.map((n) => n.t));
  const later = new Set<string>();
  for (const cid of await graph.ancestors(ledger.head.cid)) {
    const n = await graph.node(cid);
    if (n.t < oldest || chosen.has(cid)) continue;
    for (const f of (await reader.read(cid)).flakes) later.add(conflictKey(f));
  }
  return { undo: netChange(undo), conflicts: conflictingKeys(keys, later) };
}

/** Write one commit undoing the selected commits. */
export async function revertCommits(env: BranchEnv, name: string, branch: string, sel: RevertSelection, strategyIn: unknown): Promise<RevertResponse> {
  const strategy = revertStrategy(strategyIn);
  const id = `${name}:${branch}`;
  const ledger = await env.ledger(id);
  return holdBranch(env, id, () => ledger.lock.run(async () => {
    await ledger.catchUp(env.ns);
    const selected = await select(env, ledger, sel);
    const { undo, conflicts } = await plan(env, ledger, selected);
    if (strategy === 'abort' && conflicts.length > 0) {
      throw commitConflict(`Revert aborted: ${conflicts.length} conflict(s) on ${branch} with abort strategy`);
    }
    const flakes = await resolve(undo, new Set(conflicts), strategy === 'take-source' ? 'incoming' : 'state', await ledger.db());
    const meta = selected.map((n) => ({ p: namedNode(F + 'reverts'), o: literal(n.cid) }));
    await writeCommits(env, { target: ledger, base: ledger }, [{ flakes, meta, extraParents: [], keepEmpty: false }]);
    return {
      ledger_id: id, branch, reverted_commits: selected.map((n) => n.cid), conflict_count: conflicts.length, strategy,
      new_head_t: ledger.t, new_head_id: ledger.head.cid,
    };
  }));
}

/** What a revert would do, without writing. */
export async function previewRevert(env: BranchEnv, name: string, branch: string, sel: RevertSelection, strategyIn: unknown, lim: PreviewLimits): Promise<RevertPreview> {
  const strategy = revertStrategy(strategyIn);
  const id = `${name}:${branch}`;
  const ledger = await env.ledger(id);
  if (!ledger) throw notFound(`ledger ${id} not found`);
  const selected = await select(env, ledger, sel);
  const list = await commitList(env, ledger.id, selected, lim.maxCommits);
  const keys = lim.includeConflicts ? (await plan(env, ledger, selected)).conflicts : [];
  return {
    branch, reverted_count: selected.length, reverted_commits: list.commits, truncated: list.truncated,
    conflicts: { count: keys.length, keys: keys.slice(0, lim.maxConflictKeys).map(splitKey), truncated: keys.length > lim.maxConflictKeys },
    revertable: !(strategy === 'abort' && keys.length > 0),
  };
}
