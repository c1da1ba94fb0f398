/**
 * Time-bounded range scans: merge the persisted index (current rows, plus leaf history when reading
 * before index_t) with novelty events, so a fact is returned when its latest event at or before t is
 * an assert. A scan at or after index_t never reads history, so head reads do not pay for it.
 */
import type { IndexOrder } from '../flake/flake.js';
import type { Novelty } from './novelty.js';
import { EMPTY_RUN, allocRun, cmpRows, copyRow, keyCols, lowerBound, upperBound, type KeyPrefix, type Run } from './run.js';
import type { DecodedLeaf } from './leaf-codec.js';
import type { IndexTree, LeafRef } from './tree.js';
import type { FactBatch } from './view.js';

export const BATCH_SIZE = 1024;

/** Where a scan reads from. */
export interface ScanSource { tree: IndexTree | null; novelty: Novelty; t: number }

/** Post-prefix equality filters (-1 = none). */
export interface RowFilter { s: number; p: number; o: number }
export const NO_FILTER: RowFilter = { s: -1, p: -1, o: -1 };

/** A reusable output batch. */
export function newBatch(cap = BATCH_SIZE): FactBatch {
  return { n: 0, g: new Int32Array(cap), s: new Int32Array(cap), p: new Int32Array(cap), o: new Int32Array(cap), m: new Int32Array(cap) };
}

// Point lookups run by the thousand in nested-loop joins; allocating 20 KB of columns per scan
// dominated their cost, so finished scans return their batch to a small pool.
const pool: FactBatch[] = [];
/** A batch from the pool (or a new one). */
export function acquireBatch(): FactBatch {
  return pool.pop() ?? newBatch();
}
/** Return a batch when its scan is done. */
export function releaseBatch(b: FactBatch): void {
  b.n = 0;
  if (pool.length < 64) pool.push(b);
}

/**
 * Work one `fill` may do before it hands back what it has (possibly nothing): a step (one range
 * lookup in the index and in novelty) counts STEP_WORK, a row it reads and drops counts 1. A
 * pattern with a literal object and open subject and predicate is one step per predicate, and
 * under `GRAPH ?g` one per named graph too: a million steps that find nothing never fill a
 * batch, and ran as one synchronous call for seconds. Handing back every ~0.5 ms of work lets the
 * consumer look at its clock, deadline and signal (docs/isolation.md).
 */
const FILL_WORK = 8192;
const STEP_WORK = 32;

function sliceRun(r: Run, a: number, b: number): Run {
  return { n: b - a, g: r.g.subarray(a, b), s: r.s.subarray(a, b), p: r.p.subarray(a, b), o: r.o.subarray(a, b),
    m: r.m.subarray(a, b), t: r.t.subarray(a, b), op: r.op.subarray(a, b) };
}

function historyRange(h: Run, order: IndexOrder, prefix: KeyPrefix): Run {
  const hc = keyCols(h, order);
  const a = lowerBound(hc, 0, h.n, prefix);
  return sliceRun(h, a, upperBound(hc, a, h.n, prefix));
}

/** Facts current at t < index_t: current rows asserted by t, else the latest history event <= t. */
function asOf(order: IndexOrder, cur: Run, hist: Run, t: number): Run {
  const out = allocRun(cur.n + hist.n);
  const cc = keyCols(cur, order), hc = keyCols(hist, order);
  let i = 0, j = 0;
  while (i < cur.n || j < hist.n) {
    const d = i >= cur.n ? 1 : j >= hist.n ? -1 : cmpRows(cc, i, hc, j);
    let k = j;
    if (d >= 0) while (k < hist.n && cmpRows(hc, j, hc, k) === 0) k++;
    if (d <= 0 && cur.t[i]! <= t) {
      copyRow(out, cur, i);
    } else if (d >= 0) {
      for (let e = j; e < k; e++) {
        if (hist.t[e]! <= t) { if (hist.op[e] === 1) copyRow(out, hist, e); break; }
      }
    }
    if (d <= 0) i++;
    if (d >= 0) j = k;
  }
  out.op.fill(1, 0, out.n);
  return out;
}

/** One range scan: an order, a key prefix, and equality filters on later columns. */
export interface ScanStep { order: IndexOrder; prefix: KeyPrefix; filter: RowFilter }

/**
 * A resumable scan over steps: per leaf, the current rows in range (or the rows current at t when
 * reading before index_t) merged with novelty events and filtered into a batch. `fill` runs
 * synchronously until the batch is full, the scan is done, or a leaf must be fetched (it then
 * returns the fetch); the async generator awaits fetches, `scanSync` gives up on them.
 */
class ScanCursor {
  private readonly steps: Iterator<ScanStep>;
  /** The step being read; null before the first and after the last. */
  private cur: ScanStep | null = null;
  private ended = false;
  private nov: Run = EMPTY_RUN;
  private nc = keyCols(EMPTY_RUN, 'spot');
  private j = 0;
  private leaf = 0;
  private leafEnd = 0;
  private run: Run | null = null;
  private cols: Int32Array[] = [];
  private i = 0;
  private b = 0;
  /** The last leaf (and history) fetched for this cursor. */
  private held: { ref: LeafRef; leaf: DecodedLeaf; hist?: Run } | null = null;
  private work = 0;

  constructor(private readonly src: ScanSource, steps: Iterable<ScanStep>, readonly batch: FactBatch) {
    this.steps = steps[Symbol.iterator]();
  }

  private emit(r: Run, i: number, f: RowFilter): boolean {
    if ((f.s >= 0 && r.s[i] !== f.s) || (f.p >= 0 && r.p[i] !== f.p) || (f.o >= 0 && r.o[i] !== f.o)) { this.work++; return false; }
    const batch = this.batch;
    const n = batch.n++;
    batch.g[n] = r.g[i]!; batch.s[n] = r.s[i]!; batch.p[n] = r.p[i]!; batch.o[n] = r.o[i]!; batch.m[n] = r.m[i]!;
    return batch.n === batch.g.length;
  }

  /** Emit the novelty group at j (its first event is the newest <= t) and move past it. */
  private novGroup(f: RowFilter): boolean {
    const { nov, nc } = this;
    const j = this.j;
    let k = j + 1;
    while (k < nov.n && cmpRows(nc, j, nc, k) === 0) k++;
    this.j = k;
    if (nov.op[j] === 1) return this.emit(nov, j, f);
    this.work++;
    return false;
  }

  private startStep(): void {
    const { order, prefix } = this.cur!;
    const tree = this.src.tree;
    const indexT = tree ? tree.t : 0;
    this.nov = this.src.t > indexT && this.src.novelty.size > 0 ? this.src.novelty.range(order, prefix, this.src.t) : EMPTY_RUN;
    this.nc = keyCols(this.nov, order);
    this.j = 0;
    [this.leaf, this.leafEnd] = tree ? tree.leafSpan(order, prefix) : [0, 0];
    this.run = null;
  }

  /** Load the current leaf's rows in range; a fetch promise when it is not decoded yet. */
  private openLeaf(): Promise<unknown> | null {
    const tree = this.src.tree!;
    const { order, prefix } = this.cur!;
    const ref = tree.leaves[order][this.leaf]!;
    // What a fetch brought is held here too: with a small cache, fetching the history may evict
    // the leaf (and the leaf the history) before this cursor reads them, forever.
    const held = this.held?.ref === ref ? this.held : null;
    const leaf = tree.cachedLeaf(ref) ?? held?.leaf;
    if (!leaf) return tree.leaf(ref).then((l) => { this.held = { ref, leaf: l }; });
    let run = leaf.run;
    let cols = keyCols(run, order);
    let a = lowerBound(cols, 0, run.n, prefix);
    let b = upperBound(cols, a, run.n, prefix);
    if (this.src.t < tree.t && leaf.history) {
      const hist = tree.cachedHistory(leaf) ?? held?.hist;
      if (!hist) return tree.history(leaf).then((h) => { this.held = { ref, leaf, hist: h ?? EMPTY_RUN }; });
      run = asOf(order, sliceRun(run, a, b), historyRange(hist, order, prefix), this.src.t);
      cols = keyCols(run, order);
      a = 0; b = run.n;
    } else if (this.src.t < tree.t) {
      run = asOf(order, sliceRun(run, a, b), EMPTY_RUN, this.src.t);
      cols = keyCols(run, order);
      a = 0; b = run.n;
    }
    this.run = run; this.cols = cols; this.i = a; this.b = b;
    return null;
  }

  /**
   * Fill the batch: 'full', 'done', 'yield' (the work budget of one call is spent: hand back the
   * batch as it is, maybe empty, and call again), or a fetch to await before calling again.
   */
  fill(): 'full' | 'done' | 'yield' | Promise<unknown> {
    this.work = 0;
    for (;;) {
      if (this.work >= FILL_WORK) return 'yield';
      if (this.ended) return 'done';
      if (this.cur === null || (this.run === null && this.leaf >= this.leafEnd && this.j >= this.nov.n)) {
        const next = this.steps.next();
        if (next.done) { this.ended = true; this.cur = null; return 'done'; }
        this.cur = next.value;
        this.startStep();
        this.work += STEP_WORK;
        continue;
      }
      const f = this.cur.filter;
      if (this.run === null && this.leaf < this.leafEnd) {
        const fetch = this.openLeaf();
        if (fetch) return fetch;
        this.work += STEP_WORK;
        continue;
      }
      if (this.run !== null) {
        const { run, cols, nc } = this;
        const nov = this.nov;
        while (this.i < this.b) {
          if (this.work >= FILL_WORK) return 'yield';
          const i = this.i;
          if (this.j < nov.n) {
            const d = cmpRows(nc, this.j, cols, i);
            if (d < 0) { if (this.novGroup(f)) return 'full'; continue; }
            if (d === 0) { this.i++; if (this.novGroup(f)) return 'full'; continue; }
          }
          this.i++;
          if (this.emit(run, i, f)) return 'full';
        }
        this.run = null;
        this.leaf++;
        continue;
      }
      // Leaves done: the rest of novelty.
      while (this.j < this.nov.n) {
        if (this.work >= FILL_WORK) return 'yield';
        if (this.novGroup(f)) return 'full';
      }
    }
  }
}

/** Run scan steps as one generator (nested async generators cost more than a point lookup itself). */
export async function* scanSteps(src: ScanSource, steps: Iterable<ScanStep>, signal?: AbortSignal): AsyncGenerator<FactBatch> {
  const batch = acquireBatch();
  try {
    const cursor = new ScanCursor(src, steps, batch);
    for (;;) {
      const r = cursor.fill();
      if (r === 'done') break;
      if (r === 'full' || r === 'yield') {
        if (signal?.aborted) return;
        yield batch;
        batch.n = 0;
        continue;
      }
      await r;
    }
    if (batch.n > 0) yield batch;
  } finally {
    releaseBatch(batch);
  }
}

const syncBatch = newBatch();
/**
 * The whole result in one batch when every leaf it needs is decoded, it fits and it takes one
 * fill's work; otherwise null (use scanSteps). The batch is shared: consume it before the next call.
 */
export function scanStepsSync(src: ScanSource, steps: Iterable<ScanStep>): FactBatch | null {
  syncBatch.n = 0;
  const r = new ScanCursor(src, steps, syncBatch).fill();
  return r === 'done' ? syncBatch : null;
}

/** Estimated rows for a prefix in an order: exact over decoded leaves, proportional otherwise. */
export function estimateOrder(src: ScanSource, order: IndexOrder, prefix: KeyPrefix): number {
  let total = 0;
  const tree = src.tree;
  if (tree) {
    const [lo, hi] = tree.leafSpan(order, prefix);
    for (let li = lo; li < hi; li++) {
      const ref = tree.leaves[order][li]!;
      const leaf = tree.cachedLeaf(ref);
      if (!leaf) {
        // Guess now, and fetch the leaf in the background so later plans count exactly.
        void tree.leaf(ref).catch(() => undefined);
        total += (li === lo || li === hi - 1) ? Math.ceil(ref.rows / 4) : ref.rows;
        continue;
      }
      const cc = keyCols(leaf.run, order);
      const a = lowerBound(cc, 0, leaf.run.n, prefix);
      total += upperBound(cc, a, leaf.run.n, prefix) - a;
    }
  }
  // Counted, not copied: a pattern with few constants spans most of novelty, and the planner
  // estimates every pattern (per named graph under GRAPH ?g) synchronously.
  if (src.novelty.size > 0) total += src.novelty.count(order, prefix);
  return total;
}
