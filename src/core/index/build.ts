/**
 * Writing index trees: a whole order from sorted runs (bulk load, reindex) and the copy-on-write
 * update that merges novelty events into only the leaves they touch.
 */
import { Codec } from '../commit/cid.js';
import type { IndexOrder } from '../flake/flake.js';
import type { ContentStore } from '../store.js';
import { encodeLeaf } from './leaf-codec.js';
import { canonicalJsonBytes, type BranchNode, type ChildRef } from './root-codec.js';
import { allocRun, cmpRows, copyRow, copyRows, keyCols, mergeRuns, sortRun, type Run } from './run.js';
import type { IndexTree, LeafRef } from './tree.js';
import { inParallel } from '../util/in-parallel.js';
import type { TimeSlice } from '../util/next-turn.js';

export { inParallel };

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
async function writeLeaf(store: ContentStore, order: IndexOrder, cur: Run, hist: Run, pace?: TimeSlice): Promise<LeafRef> {
  // Encoding a leaf is a piece of work of its own: an index job pauses before it.
  if (pace?.due()) await pace.pause();
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
export async function writeLeaves(store: ContentStore, order: IndexOrder, cur: Run, hist: Run, pace?: TimeSlice): Promise<LeafRef[]> {
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
  return inParallel(parts, WRITE_CONCURRENCY, ([c, hs]) => writeLeaf(store, order, c, hs, pace));
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
  for (const r of runs) copyRows(out, r, 0, r.n);
  return out;
}

/**
 * applyEvents when every event asserts a fact the leaf does not hold and no fact comes twice (a
 * bulk load's new facts): one merge that copies runs of rows from either side as blocks, the
 * history unchanged. Null when the events are not of that kind; the general path decides them.
 */
export function mergeAsserts(order: IndexOrder, cur: Run, hist: Run | null, ev: Run): { cur: Run; hist: Run } | null {
  for (let e = 0; e < ev.n; e++) if (ev.op[e] !== 1) return null;
  const cc = keyCols(cur, order), ec = keyCols(ev, order);
  for (let e = 1; e < ev.n; e++) if (cmpRows(ec, e - 1, ec, e) === 0) return null;
  const out = allocRun(cur.n + ev.n);
  let i = 0, j = 0;
  while (i < cur.n && j < ev.n) {
    let i2 = i;
    while (i2 < cur.n && cmpRows(cc, i2, ec, j) < 0) i2++;
    if (i2 > i) { copyRows(out, cur, i, i2); i = i2; continue; }
    if (cmpRows(cc, i, ec, j) === 0) return null; // the leaf holds the fact already
    let j2 = j + 1;
    while (j2 < ev.n && cmpRows(ec, j2, cc, i) < 0) j2++;
    copyRows(out, ev, j, j2);
    j = j2;
  }
  copyRows(out, cur, i, cur.n);
  copyRows(out, ev, j, ev.n);
  out.op.fill(1, 0, out.n);
  return { cur: out, hist: hist ?? allocRun(0) };
}

/** Touched leaves merged and written at once: reads, compression and fsyncs of one overlap the merge of another. */
const LEAF_CONCURRENCY = 4;

/**
 * Copy-on-write update of one order: events are partitioned by leaf key range; only leaves that
 * receive events are rewritten (split when oversized, dropped when empty). A leaf whose events are
 * all new facts after its last key (an append, as a load of new subjects makes in SPOT) is kept by
 * reference and the events become leaves of their own after it, when they are enough to fill one.
 * Leaves are read and merged a few at a time ahead of the writer, and written a few at a time.
 * Returns the new leaf list.
 *
 * Neighbouring rewritten leaves are written together until they hold half a leaf of current rows:
 * updates move a fact's row elsewhere in an order (a replaced value gets a new, higher object id
 * in POST), so without this the leaves it leaves behind keep only history and a few current rows
 * (after 10 rounds replacing every value of 20,000 subjects: 57 POST leaves of ≈ 1,800 current
 * rows against 7 on a ledger written once), and head reads visit them all. Untouched leaves (and
 * leaves kept by reference) are not read or rewritten; a run of small leaves ends before one, or
 * once it holds MERGED_HISTORY_ROWS of history.
 */
export async function updateOrder(tree: IndexTree | null, store: ContentStore, order: IndexOrder, events: Run, pace?: TimeSlice): Promise<LeafRef[]> {
  const refs = tree ? tree.leaves[order] : [];
  if (events.n === 0) return refs;
  if (refs.length === 0) {
    const { cur, hist } = applyEvents(order, allocRun(0), null, events);
    return writeLeaves(store, order, cur, hist, pace);
  }
  const ec = keyCols(events, order);
  // Per leaf, the event range [from, to) it receives.
  const parts: { ref: LeafRef; from: number; to: number }[] = [];
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
    parts.push({ ref, from: j, to: k });
    j = k;
  }
  /** One leaf's outcome: kept by reference, and/or rows to write after it. */
  interface Outcome { keep?: LeafRef; cur?: Run; hist?: Run }
  const outcome = async ({ ref, from, to }: { ref: LeafRef; from: number; to: number }): Promise<Outcome> => {
    if (to === from) return { keep: ref };
    // Each leaf's merge is a piece of work of its own (a few ms): the job pauses between them.
    if (pace?.due()) await pace.pause();
    const ev = slice(events, from, to);
    if (to - from >= TARGET_LEAF_ROWS && cmpEventKey(ec, from, ref.last) > 0) {
      const fresh = mergeAsserts(order, allocRun(0), null, ev);
      if (fresh) return { keep: ref, cur: fresh.cur, hist: fresh.hist };
    }
    const leaf = await tree!.leaf(ref);
    const hist = await tree!.history(leaf);
    if (pace?.due()) await pace.pause();
    const merged = mergeAsserts(order, leaf.run, hist, ev) ?? applyEvents(order, leaf.run, hist, ev);
    return { cur: merged.cur, hist: merged.hist };
  };
  // Each slot is a piece of the new leaf list, in key order; writes run a few at a time.
  const slots: Promise<LeafRef[]>[] = [];
  const writing: Promise<unknown>[] = [];
  let curs: Run[] = [], hists: Run[] = [], rows = 0, histRows = 0;
  const flush = async (): Promise<void> => {
    if (curs.length === 0) return;
    const cur = concatRuns(curs), hist = concatRuns(hists);
    curs = []; hists = []; rows = 0; histRows = 0;
    if (cur.n === 0 && hist.n === 0) return;
    const w = writeLeaves(store, order, cur, hist, pace);
    w.catch(() => undefined); // awaited below (a failure fails the update there)
    slots.push(w);
    writing.push(w);
    if (writing.length >= LEAF_CONCURRENCY) await writing.shift();
  };
  // Outcomes computed up to LEAF_CONCURRENCY leaves ahead of the writer.
  const ahead: Promise<Outcome>[] = [];
  let next = 0;
  const fill = (): void => {
    while (next < parts.length && ahead.length < LEAF_CONCURRENCY) {
      const o = outcome(parts[next++]!);
      o.catch(() => undefined); // awaited in turn below
      ahead.push(o);
    }
  };
  fill();
  while (ahead.length > 0) {
    const o = await ahead.shift()!;
    fill();
    if (o.keep) { await flush(); slots.push(Promise.resolve([o.keep])); }
    if (o.cur) {
      curs.push(o.cur); hists.push(o.hist!); rows += o.cur.n; histRows += o.hist!.n;
      if (rows >= TARGET_LEAF_ROWS / 2 || histRows >= MERGED_HISTORY_ROWS) await flush();
    }
  }
  await flush();
  return (await Promise.all(slots)).flat();
}

function cmpEventKey(cols: Int32Array[], i: number, key: number[]): number {
  for (let c = 0; c < 5; c++) { const d = cols[c]![i]! - key[c]!; if (d) return d; }
  return 0;
}
