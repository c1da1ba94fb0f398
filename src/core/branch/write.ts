/**
 * Writing the commits of a merge, rebase or revert (branches.md §1): stage each planned commit on
 * the state the previous one left (starting from a base ledger's head), encode it with the chain's
 * tables, store the blobs, then move the branch with ONE nameservice compare-and-set. Until that
 * compare-and-set succeeds nothing is visible: a failure at any step leaves only unreferenced blobs
 * and the in-memory state as it was.
 */
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../commit/cid.js';
import { encodeCommit, type CommitData, type CommitMeta } from '../commit/commit-codec.js';
import { commitConflict } from '../errors.js';
import { GRAPH_CONFIG, GRAPH_DEFAULT } from '../flake/flake.js';
import { checkDatatypeLimit } from '../ledger/datatypes-limit.js';
import { CONFIG_GRAPH_IRI } from '../ledger/graph-table.js';
import type { Db } from '../ledger/db.js';
import type { Ledger } from '../ledger/ledger.js';
import { graphNameTerm } from '../rdf/terms.js';
import type { NsRecord } from '../store.js';
import { admitNovelty } from '../transact/novelty-limits.js';
import { nowIso } from '../transact/pipeline.js';
import { checkShapes } from '../transact/shacl-validate.js';
import { Stager } from '../transact/stage.js';
import type { BranchEnv } from './env.js';
import type { KeyedFlake } from './reader.js';

/** One commit to write: its changes (staged against the state before it), metadata and extra parents. */
export interface PlannedCommit {
  flakes: KeyedFlake[];
  meta: CommitMeta[];
  /** Parents after the first (the source head of a merge). */
  extraParents: string[];
  /** Write it even when staging leaves no flake (a merge records its second parent). */
  keepEmpty: boolean;
  /** Computes the flakes from the state the commit is staged on (instead of `flakes`). */
  prepare?: (state: Db) => Promise<KeyedFlake[]>;
}

/** A commit written by writeCommits. */
export interface WrittenCommit { cid: string; t: number; asserts: number; retracts: number }

/** How the branch record moves once the blobs are stored. */
export interface BranchMove {
  /** The branch whose head moves. */
  target: Ledger;
  /** The state the first commit is staged on: the target itself, or the upstream of a rebase. */
  base: Ledger;
  /** A head to move to when no commit is planned or none is left (fast-forward); else the last written. */
  headIfEmpty?: { cid: string; t: number };
  /** Index head to publish with the move (when the new head is not on the target's own chain). */
  index?: { id: string | null; t: number };
}

/** Stage the planned commits on `base`, store them, and compare-and-set the target once. */
export async function writeCommits(env: BranchEnv, move: BranchMove, plans: PlannedCommit[]): Promise<WrittenCommit[]> {
  const { target, base } = move;
  const dictSize = base.dict.size;
  let view = await base.db();
  let ns = base.ns, t = base.t, cid = base.head.cid, time = base.head.time;
  const datatypes = new Set(base.datatypes);
  const staged: { data: CommitData; bytes: Uint8Array; nsDelta: [number, string][]; cid: string; asserts: number; retracts: number }[] = [];
  let pending = 0;
  try {
    for (const plan of plans) {
      const stager = new Stager(view, view.nextGraphId);
      for (const f of plan.prepare ? await plan.prepare(view) : plan.flakes) {
        let g: number | undefined;
        if (f.g === null) g = GRAPH_DEFAULT;
        else if (f.g === CONFIG_GRAPH_IRI) g = GRAPH_CONFIG;
        else g = f.op ? stager.graphId(graphNameTerm(f.g)) : stager.existingGraphId(graphNameTerm(f.g));
        if (g === undefined) continue; // retracting from a graph the base never had: nothing to do
        await stager.stage(g, f.s, f.p, f.o, f.i, f.op);
      }
      const flakes = stager.flakes();
      if (flakes.length === 0 && !plan.keepEmpty) continue;
      // A merge, rebase or revert commit must hold to the shapes like any write (docs/shacl.md).
      const events = stager.idFlakes(t + 1);
      const after = view.withEvents(events, view.graphTableWith(stager.newGraphs), t + 1);
      await checkShapes(after, events, undefined, view);
      const commitTime = new Date(Math.max(Date.now(), time ? Date.parse(time) : 0)).toISOString();
      const data: CommitData = {
        t: t + 1, parents: [CID.parse(cid), ...plan.extraParents.map((p) => CID.parse(p))], time: commitTime, txn: null, author: '',
        nsDelta: [], graphDelta: stager.graphDelta(flakes), meta: plan.meta, flakes,
      };
      for (const dt of checkDatatypeLimit(datatypes, flakes.map((f) => f.o))) datatypes.add(dt);
      const encoded = encodeCommit(data, ns);
      admitNovelty(env, base, pending, encoded.bytes.length);
      pending += encoded.bytes.length;
      const commitCid = (await cidOf(Codec.commit, encoded.bytes)).toString();
      let asserts = 0, retracts = 0;
      for (const f of flakes) if (f.op) asserts++; else retracts++;
      staged.push({ data, bytes: encoded.bytes, nsDelta: encoded.nsDelta, cid: commitCid, asserts, retracts });
      view = after;
      ns = encoded.nsTable;
      t++; cid = commitCid; time = commitTime;
    }
    const content = env.contentFor(target.id);
    for (const s of staged) await content.putWithCid(CID.parse(s.cid), s.bytes);
    if (base === target) for (const s of staged) await target.resolveCommitTerms({ ...s.data, nsDelta: s.nsDelta }, s.cid);
    const last = staged[staged.length - 1];
    const head = last ? { cid: last.cid, t: last.data.t } : move.headIfEmpty ?? { cid: base.head.cid, t: base.t };
    const expected = target.record;
    const next: NsRecord = { ...expected, commit_head_id: head.cid, commit_t: head.t };
    if (move.index) { next.index_head_id = move.index.id; next.index_t = move.index.t; }
    if (head.cid !== expected.commit_head_id || move.index) {
      if (!(await env.ns.compareAndSet(target.id, expected, next))) throw commitConflict(`the head of ${target.id} moved during the operation; retry`);
      // The branch's own index roots may now be on no record's chain (index-gc.ts decides).
      if (expected.index_head_id !== next.index_head_id) env.retireIndex?.(target.id, [expected.index_head_id]);
    }
    if (base === target) {
      target.record = next;
      for (const s of staged) target.applyCommit({ ...s.data, nsDelta: s.nsDelta }, s.cid, s.bytes);
    } else {
      base.dict.truncate(dictSize); // terms staged on the upstream belong to the target's reload
      target.record = next;
      target.superseded = true;
      env.forget(target.id);
      if (next.index_t < next.commit_t) env.prepare(target.id);
    }
  } catch (e) {
    base.dict.truncate(dictSize);
    throw e;
  }
  return staged.map((s) => ({ cid: s.cid, t: s.data.t, asserts: s.asserts, retracts: s.retracts }));
}
