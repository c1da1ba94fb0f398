/**
 * The index job: merge novelty up to the head t captured at start into a new copy-on-write index
 * (leaves, branches, dictionary pages, root), publish its root in the nameservice, switch the
 * ledger to it and drop the indexed novelty. Commits arriving meanwhile stay in novelty.
 */
import { CID } from 'multiformats/cid';
import { Codec } from '../commit/cid.js';
import { ORDERS, type IndexOrder } from '../flake/flake.js';
import type { LedgerStores } from '../ledger/stores.js';
import type { Ledger } from '../ledger/ledger.js';
import { sameRecordVersion, type NsRecord } from '../store.js';
import { updateOrder, writeBranches } from './build.js';
import { writeDictPages } from './dict-write.js';
import { canonicalJsonBytes, type IndexRoot } from './root-codec.js';
import { IndexTree, type LeafRef } from './tree.js';
import { rememberRoot } from './root-headers.js';
import { writeIndexSummary } from './class-summary-delta.js';
import { YieldingSlice } from '../util/give-way.js';
import { TimeSlice } from '../util/next-turn.js';
import { runStepsSliced } from '../util/steps.js';

/** Longest stretch (ms) an index job works on the main thread without a turn. */
const INDEX_SLICE_MS = 4;
/** Longest wait (ms) at one pause for the ledger's writes to finish (docs/isolation.md "Index jobs give way to writes"). */
export const INDEX_MAX_WAIT_MS = 100;

/**
 * The pace of a ledger's index job: slices of INDEX_SLICE_MS that give way to the ledger's writes
 * (at most INDEX_MAX_WAIT_MS per pause), except once novelty holds half of `maxNoveltyBytes` —
 * near the limit where writes are refused, indexing is what makes room for them.
 */
export function indexPace(ledger: Ledger, maxNoveltyBytes: number): YieldingSlice {
  return new YieldingSlice(INDEX_SLICE_MS, {
    activity: ledger.writes, maxWaitMs: INDEX_MAX_WAIT_MS, urgent: () => ledger.novelty.bytes >= maxNoveltyBytes / 2,
  });
}

/**
 * Run one index job for a ledger, pausing at `pace` (background jobs: indexPace; by default plain
 * slices, for an index asked for and awaited); true when its index was published.
 */
export async function runIndexJob(stores: LedgerStores, ledger: Ledger, pace: TimeSlice = new TimeSlice(INDEX_SLICE_MS)): Promise<boolean> {
  // Capture a consistent state at one t under the write lock.
  const snap = await ledger.lock.run(async () => ({
    toT: ledger.head.t,
    commitId: ledger.head.cid,
    commitTime: ledger.head.time,
    dictSize: ledger.dict.size,
    ns: ledger.ns.allocated(),
    graphs: ledger.graphs.named(),
    datatypes: [...ledger.datatypes].sort(),
    stats: ledger.stats.toJson(),
    novelty: ledger.novelty,
    tree: ledger.tree,
  }));
  const store = stores.contentFor(ledger.id);
  const leaves = {} as Record<IndexOrder, LeafRef[]>;
  const tops = {} as Record<IndexOrder, string | null>;
  for (const order of ORDERS) {
    const events = await runStepsSliced(snap.novelty.allSteps(order, snap.toT), pace);
    leaves[order] = await updateOrder(snap.tree, store, order, events, pace);
    tops[order] = await writeBranches(store, order, leaves[order]);
  }
  const dict = await writeDictPages(store, ledger.dict, snap.tree?.root.dict ?? null, snap.dictSize, pace);
  const head = await ledger.db();
  const classSummary = await writeIndexSummary(store, snap.tree, snap.novelty, snap.toT, (t) => head.at(t, snap), pace);
  const root: IndexRoot = {
    v: 1, ledger_id: ledger.id, index_t: snap.toT, base_t: 0, commit_id: snap.commitId, commit_time: snap.commitTime, ns: snap.ns, graphs: snap.graphs,
    datatypes: snap.datatypes, dict, orders: tops, stats: snap.stats,
    prev_root: snap.tree ? snap.tree.rootCid.toString() : null, class_summary: classSummary,
  };
  const rootCid = await store.put(Codec.indexRoot, canonicalJsonBytes(root));
  rememberRoot(rootCid.toString(), root);
  const tree = new IndexTree(store, rootCid, root, leaves, stores.leafCache);
  return publishIndex(stores, ledger, tree);
}

/** Compare-and-set the index head (retrying while commits move the record), then install it; false when it fits no live head. */
export async function publishIndex(stores: LedgerStores, ledger: Ledger, tree: IndexTree): Promise<boolean> {
  const published = await ledger.lock.run(async () => {
    for (let attempt = 0; attempt < 16; attempt++) {
      const cur = await stores.ns.get(ledger.id);
      if (!cur || cur.retracted || ledger.superseded) return false; // a superseded chain's index fits no live head
      if (cur.index_t > tree.t) return false; // someone published a newer index
      const next: NsRecord = { ...cur, index_head_id: tree.rootCid.toString(), index_t: tree.t };
      if (await stores.ns.compareAndSet(ledger.id, cur, next)) {
        if (sameRecordVersion(ledger.record, cur) || ledger.record.commit_head_id === cur.commit_head_id) ledger.record = next;
        ledger.installIndex(tree);
        return true;
      }
    }
    return null;
  });
  // An index no record will name: its new objects are garbage (index-gc.ts).
  if (published !== true) stores.retireIndex?.(ledger.id, [tree.rootCid.toString()]);
  if (published === null) throw new Error(`could not publish index for ${ledger.id}: nameservice kept changing`);
  return published;
}

export { CID };
