/**
 * `POST /merge` and `GET /merge-preview` (branches.md §6). A merge fast-forwards when the target
 * head is the common ancestor; otherwise it writes one merge commit on the target with parents
 * [target head, source head] whose flakes are the source's net change since the ancestor, resolved
 * by the strategy against the target's current state.
 */
import { CID } from 'multiformats/cid';
import { summarize } from '../commit/commit-ref.js';
import { commitConflict, invalidBranchOp, notFound } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { conflictingKeys, netChange, parseStrategy, readSide, resolve, splitKey, type Strategy } from './changes.js';
import type { Node } from './dag.js';
import { holdBranch, type BranchEnv } from './env.js';
import { CommitReader } from './reader.js';
import { writeCommits } from './write.js';

/** `POST /merge` response. */
export interface MergeResponse {
  ledger_id: string; target: string; source: string; fast_forward: boolean; new_head_t: number;
  commits_copied: number; conflict_count: number; strategy?: string;
}

/** A commit summary as `/log` lists it. */
export interface LogSummary { t: number; commit_id: string; time: string; asserts: number; retracts: number; flake_count: number; message: string | null }

/** A list of commits capped for a preview. */
export interface CommitList { count: number; commits: LogSummary[]; truncated: boolean }

/** `GET /merge-preview` response (conflict keys as full IRIs; the server compacts them). */
export interface MergePreview {
  source: string; target: string; ancestor: { commit_id: string; t: number }; ahead: CommitList; behind: CommitList;
  fast_forward: boolean; conflicts: { count: number; keys: { s: string; p: string; g: string | null }[]; truncated: boolean; strategy?: string };
  mergeable: boolean;
}

interface Pair { source: Ledger; target: Ledger; sourceBranch: string; targetBranch: string }

/** Resolve and check the branches of a merge (§6 checks). */
async function mergePair(env: BranchEnv, name: string, sourceBranch: string, targetBranch: string | undefined): Promise<Pair> {
  const sourceId = `${name}:${sourceBranch}`;
  const rec = await env.ns.get(sourceId);
  if (!rec || rec.retracted) throw notFound(`ledger ${sourceId} not found`);
  if (rec.source_branch === undefined) throw invalidBranchOp(`${sourceId} is the root branch and cannot be a merge source; bring upstream changes into a branch with rebase`);
  const tb = targetBranch ?? rec.source_branch;
  if (tb === sourceBranch) throw invalidBranchOp('cannot merge a branch into itself');
  const target = await env.ledger(`${name}:${tb}`);
  const source = await env.ledger(sourceId);
  return { source, target, sourceBranch, targetBranch: tb };
}

/** How the two heads relate. */
interface Divergence { ancestor: Node; targetAnc: Set<string>; upToDate: boolean; fastForward: boolean }

async function diverge(env: BranchEnv, source: Ledger, target: Ledger): Promise<Divergence> {
  const graph = env.graphFor(target.id);
  const targetAnc = await graph.ancestors(target.head.cid);
  const ancestor = await graph.commonAncestor(target.head.cid, source.head.cid);
  if (!ancestor) throw invalidBranchOp(`${source.id} and ${target.id} share no history`);
  return { ancestor, targetAnc, upToDate: targetAnc.has(source.head.cid), fastForward: ancestor.cid === target.head.cid };
}

/** Conflict keys between the source's and the target's changes since the ancestor, with the source's net change. */
async function sides(env: BranchEnv, p: Pair, ancestor: Node) {
  const graph = env.graphFor(p.target.id);
  const reader = new CommitReader(env.contentFor(p.target.id), graph, [p.source, p.target]);
  const ancAnc = await graph.ancestors(ancestor.cid);
  const src = await readSide(reader, await graph.only(p.source.head.cid, ancAnc));
  const tgt = await readSide(reader, await graph.only(p.target.head.cid, ancAnc));
  return { src, conflicts: conflictingKeys(src.keys, tgt.keys) };
}

/** Merge `source` into `target` (default: the source's parent branch). */
export async function mergeBranches(env: BranchEnv, name: string, sourceBranch: string, targetBranch: string | undefined, strategyIn: unknown): Promise<MergeResponse> {
  const strategy = parseStrategy(strategyIn, 'take-both');
  if (strategy === 'skip') throw invalidBranchOp('the skip strategy applies to rebase only');
  const p = await mergePair(env, name, sourceBranch, targetBranch);
  const { source, target } = p;
  return holdBranch(env, target.id, () => target.lock.run(async () => {
    await target.catchUp(env.ns);
    const d = await diverge(env, source, target);
    const base = { ledger_id: target.id, target: p.targetBranch, source: sourceBranch };
    if (d.upToDate) return { ...base, fast_forward: true, new_head_t: target.t, commits_copied: 0, conflict_count: 0 };
    const copied = (await env.graphFor(target.id).only(source.head.cid, d.targetAnc)).length;
    if (d.fastForward) {
      const idx = { id: source.record.index_head_id, t: source.record.index_t };
      await writeCommits(env, { target, base: source, headIfEmpty: { cid: source.head.cid, t: source.t }, index: idx }, []);
      return { ...base, fast_forward: true, new_head_t: source.t, commits_copied: copied, conflict_count: 0 };
    }
    const { src, conflicts } = await sides(env, p, d.ancestor);
    if (strategy === 'abort' && conflicts.length > 0) {
      throw commitConflict(`Merge aborted: ${conflicts.length} conflict(s) between ${sourceBranch} and ${p.targetBranch} with abort strategy`);
    }
    const mode = strategy === 'take-source' ? 'incoming' : strategy === 'take-branch' ? 'state' : 'both';
    const flakes = await resolve(netChange(src.flakes), new Set(conflicts), mode, await target.db());
    const written = await writeCommits(env, { target, base: target }, [{ flakes, meta: [], extraParents: [source.head.cid], keepEmpty: true }]);
    return { ...base, fast_forward: false, new_head_t: written[written.length - 1]!.t, commits_copied: copied, conflict_count: conflicts.length, strategy };
  }));
}

/** Options of a merge or revert preview. */
export interface PreviewLimits { includeConflicts: boolean; maxCommits: number; maxConflictKeys: number }

/** `/log`-style summaries of commits of ledger `ledgerId`, newest first, capped. */
export async function commitList(env: BranchEnv, ledgerId: string, nodes: Node[], max: number): Promise<CommitList> {
  const content = env.contentFor(ledgerId);
  const sorted = [...nodes].sort((a, b) => b.t - a.t || (a.cid < b.cid ? -1 : a.cid > b.cid ? 1 : 0));
  const commits: LogSummary[] = [];
  for (const n of sorted.slice(0, max)) {
    const s = summarize(CID.parse(n.cid), await content.get(CID.parse(n.cid)));
    commits.push({ t: s.t, commit_id: n.cid, time: s.time, asserts: s.asserts, retracts: s.retracts, flake_count: s.asserts + s.retracts, message: s.message });
  }
  return { count: nodes.length, commits, truncated: nodes.length > commits.length };
}

/** What a merge would do, without writing (§6.3). */
export async function previewMerge(env: BranchEnv, name: string, sourceBranch: string, targetBranch: string | undefined, strategyIn: unknown, lim: PreviewLimits): Promise<MergePreview> {
  const strategy = parseStrategy(strategyIn, 'take-both');
  if (strategy === 'skip') throw invalidBranchOp('the skip strategy applies to rebase only');
  if (strategy === 'abort' && !lim.includeConflicts) throw invalidBranchOp('strategy=abort needs include_conflicts (the preview cannot tell whether the merge would abort)');
  const p = await mergePair(env, name, sourceBranch, targetBranch);
  const d = await diverge(env, p.source, p.target);
  const graph = env.graphFor(p.target.id);
  const sourceAnc = await graph.ancestors(p.source.head.cid);
  const ahead = await commitList(env, p.target.id, await graph.only(p.source.head.cid, d.targetAnc), lim.maxCommits);
  const behind = await commitList(env, p.target.id, await graph.only(p.target.head.cid, sourceAnc), lim.maxCommits);
  let keys: string[] = [];
  if (lim.includeConflicts && !d.fastForward && !d.upToDate) keys = (await sides(env, p, d.ancestor)).conflicts;
  const conflicts: MergePreview['conflicts'] = {
    count: keys.length, keys: keys.slice(0, lim.maxConflictKeys).map(splitKey), truncated: keys.length > lim.maxConflictKeys,
  };
  if (lim.includeConflicts) conflicts.strategy = strategy;
  return {
    source: sourceBranch, target: p.targetBranch, ancestor: { commit_id: d.ancestor.cid, t: d.ancestor.t }, ahead, behind,
    fast_forward: d.fastForward && !d.upToDate, conflicts, mergeable: !(strategy === 'abort' && keys.length > 0),
  };
}
