/**
 * Writing index trees: a whole order from sorted runs (bulk load, reindex) and the copy-on-write
 * update that merges novelty events into only the leaves they touch.
 */
import { Codec } from '../commit/cid.js';
import type { IndexOrder } from '../flake/flake.js';
import type { ContentStore } from '../store.js';
import { encodeLeaf } from './leaf-codec.js';
import { canonicalJsonBytes, type BranchNode, type ChildRef } from './root-codec.js';
import { allocRun, cmpRows, copyRow, keyCols, mergeRuns, sortRun, type Run } from './run.js';
import type { IndexTree, LeafRef } from './tree.js';

/** Target current rows per leaf; a leaf splits above twice this. */
export const TARGET_LEAF_ROWS = 16384;
/** Children per branch node. */
export const BRANCH_FANOUT = 1024;
/**
 * History rows after which an update writes the rewritten leaves it is holding even when they are
 * still small: merging leaves merges their histories, and a read before index_t fetches a leaf's
 * whole history blob (16 × 16,384 rows ≈ 6 MiB).
 */
export const MERGED_HISTORY_ROWS = 16 * TARGET_LEAF_ROWS;

function keyAt(r: Run, order: IndexOrder, i: number): number[] {
  const c = keyCols(r, order);
  return [c[0][i]!, c[1][i]!, c[2][i]!, c[3][i]!, c[4][i]!];
}

function cmpKey(a: number[], b: number[]): number {
  for (let i = 0; i < 5; i++) { const d = a[i]! - b[i]!; if (d) return d; }
  return 0;
}

function slice(r: Run, from: number, to: number): Run {
  return {
    n: to - from, g: r.g.subarray(from, to), s: r.s.subarray(from, to), p: r.p.subarray(from, to),
    o: r.o.subarray(from, to), m: r.m.subarray(from, to), t: r.t.subarray(from, to), op: r.op.subarray(from, to),
  };
}

/** Write one leaf (and its history blob when non-empty); returns its reference. */
async function writeLeaf(store: ContentStore, order: IndexOrder, cur: Run, hist: Run): Promise<LeafRef> {
  const historyCid = hist.n > 0 ? await store.put(Codec.indexLeaf, encodeLeaf(1, order, hist, null)) : null;
  const cid = await store.put(Codec.indexLeaf, encodeLeaf(0, order, cur, historyCid));
  let first: number[] | null = null, last: number[] | null = null;
  if (cur.n > 0) { first = keyAt(cur, order, 0); last = keyAt(cur, order, cur.n - 1); }
  if (hist.n > 0) {
    const hf = keyAt(hist, order, 0), hl = keyAt(hist, order, hist.n - 1);
    if (!first || cmpKey(hf, first) < 0) first = hf;
    if (!last || cmpKey(hl, last) > 0) last = hl;
  }
  return { first: first!, last: last!, rows: cur.n, cid };
}

/** Leaf writes in flight at once: each put fsyncs its file, so overlapping them keeps the CPU busy. */
const WRITE_CONCURRENCY = 8;

/** Split sorted current rows and history into leaves of about TARGET_LEAF_ROWS rows and write them. */
export async function writeLeaves(store: ContentStore, order: IndexOrder, cur: Run, hist: Run): Promise<LeafRef[]> {
  if (cur.n === 0 && hist.n === 0) return [];
  const pieces = Math.max(1, Math.ceil(cur.n / TARGET_LEAF_ROWS));
  const per = Math.ceil(cur.n / pieces);
  const hc = keyCols(hist, order), cc = keyCols(cur, order);
  const parts: [Run, Run][] = [];
  let h = 0;
  for (let k = 0; k < pieces; k++) {
    const from = k * per, to = Math.min(cur.n, from + per);
    // History events below the next leaf's first key belong to this leaf.
    let hEnd = hist.n;
    if (k < pieces - 1 && to < cur.n) {
      hEnd = h;
      while (hEnd < hist.n && cmpRows(hc, hEnd, cc, to) < 0) hEnd++;
    }
    parts.push([slice(cur, from, to), slice(hist, h, hEnd)]);
    h = hEnd;
  }
  return inParallel(parts, WRITE_CONCURRENCY, ([c, hs]) => writeLeaf(store, order, c, hs));
}

/** Map with at most `limit` promises in flight; results keep the input order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  // Filled, not `new Array(n)`: a holey array would give a first index's leaf lists another
  // hidden class than those of later updates and loaded trees, and the scan's reads of them two.
  const out = Array.from<R>({ length: items.length });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Write branch nodes over leaf references; returns the top node's CID string, or null when empty. */
export async function writeBranches(store: ContentStore, order: IndexOrder, leaves: LeafRef[]): Promise<string | null> {
  if (leaves.length === 0) return null;
  let level = 1;
  let children: ChildRef[] = leaves.map((l) => ({ first: l.first, last: l.last, rows: l.rows, cid: l.cid.toString() }));
  for (;;) {
    const nodes: ChildRef[] = [];
    for (let i = 0; i < children.length; i += BRANCH_FANOUT) {
      const part = children.slice(i, i + BRANCH_FANOUT);
      const node: BranchNode = { v: 1, order, level, children: part };
      const cid = await store.put(Codec.indexBranch, canonicalJsonBytes(node));
      nodes.push({ first: part[0]!.first, last: part[part.length - 1]!.last, rows: part.reduce((a, c) => a + c.rows, 0), cid: cid.toString() });
    }
    if (nodes.length === 1) return nodes[0]!.cid;
    children = nodes;
    level++;
  }
}

/**
 * Apply novelty events (sorted in `order`, all newer than the leaf) to a leaf's current rows and
 * history. Per fact the newest event decides the current row; every superseded event moves to history.
 */
export function applyEvents(order: IndexOrder, cur: Run, hist: Run | null, ev: Run): { cur: Run; hist: Run } {
  const cc = keyCols(cur, order), ec = keyCols(ev, order);
  const newCur = allocRun(cur.n + ev.n);
  const added = allocRun(cur.n + ev.n);
  let i = 0, j = 0;
  while (i < cur.n || j < ev.n) {
    const d = i >= cur.n ? 1 : j >= ev.n ? -1 : cmpRows(cc, i, ec, j);
    if (d < 0) { copyRow(newCur, cur, i++); continue; }
    // Events of one fact: ev is sorted t descending, so the first is the newest.
    let k = j;
    while (k < ev.n && cmpRows(ec, j, ec, k) === 0) k++;
    const newest = j;
    if (d === 0) copyRow(added, cur, i++); // the old current assert becomes history
    for (let e = j; e < k; e++) {
      if (e === newest && ev.op[e] === 1) continue;
      copyRow(added, ev, e);
    }
    if (ev.op[newest] === 1) copyRow(newCur, ev, newest);
    j = k;
  }
  newCur.op.fill(1, 0, newCur.n);
  const sortedAdded = sortRun(added, order);
  return { cur: newCur, hist: hist && hist.n > 0 ? mergeRuns(hist, sortedAdded, order) : sortedAdded };
}

/** Rows of `runs` concatenated in order (they are consecutive leaves' rows, so the result stays sorted). */
function concatRuns(runs: readonly Run[]): Run {
  if (runs.length === 1) return runs[0]!;
  const out = allocRun(runs.reduce((a, r) => a + r.n, 0));
  for (const r of runs) {
    const at = out.n;
    out.g.set(r.g.subarray(0, r.n), at); out.s.set(r.s.subarray(0, r.n), at); out.p.set(r.p.subarray(0, r.n), at);
    out.o.set(r.o.subarray(0, r.n), at); out.m.set(r.m.subarray(0, r.n), at); out.t.set(r.t.subarray(0, r.n), at);
    out.op.set(r.op.subarray(0, r.n), at);
    out.n += r.n;
  }
  return out;
}

/**
 * Copy-on-write update of one order: events are partitioned by leaf key range; only leaves that
 * receive events are rewritten (split when oversized, dropped when empty). Returns the new leaf list.
 *
 * Neighbouring rewritten leaves are written together until they hold half a leaf of current rows:
 * updates move a fact's row elsewhere in an order (a replaced value gets a new, higher object id
 * in POST), so without this the leaves it leaves behind keep only history and a few current rows
 * (after 10 rounds replacing every value of 20,000 subjects: 57 POST leaves of ≈ 1,800 current
 * rows against 7 on a ledger written once), and head reads visit them all. Untouched leaves are
 * not read or rewritten; a run of small leaves ends before one, or once it holds
 * MERGED_HISTORY_ROWS of history.
 */
export async function updateOrder(tree: IndexTree | null, store: ContentStore, order: IndexOrder, events: Run): Promise<LeafRef[]> {
  const refs = tree ? tree.leaves[order] : [];
  if (events.n === 0) return refs;
  if (refs.length === 0) {
    const { cur, hist } = applyEvents(order, allocRun(0), null, events);
    return writeLeaves(store, order, cur, hist);
  }
  const ec = keyCols(events, order);
  const out: LeafRef[] = [];
  // Rewritten leaves not written yet: their current rows and histories, in key order.
  let curs: Run[] = [], hists: Run[] = [], rows = 0, histRows = 0;
  const flush = async (): Promise<void> => {
    if (curs.length === 0) return;
    const cur = concatRuns(curs), hist = concatRuns(hists);
    curs = []; hists = []; rows = 0; histRows = 0;
    if (cur.n === 0 && hist.n === 0) return;
    for (const ref of await writeLeaves(store, order, cur, hist)) out.push(ref);
  };
  let j = 0;
  for (let li = 0; li < refs.length; li++) {
    const ref = refs[li]!;
    // Events below the next leaf's first key go to this leaf.
    let k = j;
    if (li === refs.length - 1) k = events.n;
    else {
      const next = refs[li + 1]!.first;
      while (k < events.n && cmpEventKey(ec, k, next) < 0) k++;
    }
    if (k === j) { await flush(); out.push(ref); continue; }
    const leaf = await tree!.leaf(ref);
    const hist = await tree!.history(leaf);
    const merged = applyEvents(order, leaf.run, hist, slice(events, j, k));
    j = k;
    curs.push(merged.cur); hists.push(merged.hist); rows += merged.cur.n; histRows += merged.hist.n;
    if (rows >= TARGET_LEAF_ROWS / 2 || histRows >= MERGED_HISTORY_ROWS) await flush();
  }
  await flush();
  return out;
}

function cmpEventKey(cols: Int32Array[], i: number, key: number[]): number {
  for (let c = 0; c < 5; c++) { const d = cols[c]![i]! - key[c]!; if (d) return d; }
  return 0;
}
