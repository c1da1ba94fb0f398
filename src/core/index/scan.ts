/**
 * Time-bounded range scans: merge the persisted index (current rows, plus leaf history when reading
 * before index_t) with novelty events, so a fact is returned when its latest event at or before t is
 * an assert. A scan at or after index_t never reads history, so head reads do not pay for it.
 */
import type { IndexOrder } from '../flake/flake.js';
import type { Novelty } from './novelty.js';
import { allocRun, cmpRows, copyRow, keyCols, lowerBound, upperBound, type KeyPrefix, type Run } from './run.js';
import type { IndexTree } from './tree.js';
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

const EMPTY_RUN = allocRun(0);

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
 * Run scan steps in sequence as one generator (nested async generators cost more than the scan
 * itself for point lookups): per leaf, the current rows in range (or the rows current at t when
 * reading before index_t), merged with novelty events, filtered, into a pooled batch.
 */
export async function* scanSteps(src: ScanSource, steps: readonly ScanStep[], signal?: AbortSignal): AsyncGenerator<FactBatch> {
  const batch = acquireBatch();
  try {
    for (const step of steps) {
      const { order, prefix, filter } = step;
      const tree = src.tree;
      const indexT = tree ? tree.t : 0;
      const nov = src.t > indexT && src.novelty.size > 0 ? src.novelty.range(order, prefix, src.t) : EMPTY_RUN;
      const nc = keyCols(nov, order);
      let j = 0;
      const fs = filter.s, fp = filter.p, fo = filter.o;
      const emit = (r: Run, i: number): boolean => {
        if ((fs >= 0 && r.s[i] !== fs) || (fp >= 0 && r.p[i] !== fp) || (fo >= 0 && r.o[i] !== fo)) return false;
        const n = batch.n++;
        batch.g[n] = r.g[i]!; batch.s[n] = r.s[i]!; batch.p[n] = r.p[i]!; batch.o[n] = r.o[i]!; batch.m[n] = r.m[i]!;
        return batch.n === batch.g.length;
      };
      // Emit the novelty group starting at j (its first event is the newest <= t); returns the group end.
      const novGroup = (): [number, boolean] => {
        let k = j + 1;
        while (k < nov.n && cmpRows(nc, j, nc, k) === 0) k++;
        return [k, nov.op[j] === 1 ? emit(nov, j) : false];
      };
      if (tree) {
        const [lo, hi] = tree.leafSpan(order, prefix);
        for (let li = lo; li < hi; li++) {
          const ref = tree.leaves[order][li]!;
          const leaf = tree.cachedLeaf(ref) ?? await tree.leaf(ref);
          let run = leaf.run;
          let cols = keyCols(run, order);
          let a = lowerBound(cols, 0, run.n, prefix);
          let b = upperBound(cols, a, run.n, prefix);
          if (src.t < indexT) {
            const hist = await tree.history(leaf);
            run = asOf(order, sliceRun(run, a, b), hist ? historyRange(hist, order, prefix) : EMPTY_RUN, src.t);
            cols = keyCols(run, order);
            a = 0; b = run.n;
          }
          for (let i = a; i < b; i++) {
            while (j < nov.n && cmpRows(nc, j, cols, i) < 0) {
              const [k, full] = novGroup();
              j = k;
              if (full) { if (signal?.aborted) return; yield batch; batch.n = 0; }
            }
            if (j < nov.n && cmpRows(nc, j, cols, i) === 0) {
              const [k, full] = novGroup();
              j = k;
              if (full) { if (signal?.aborted) return; yield batch; batch.n = 0; }
              continue;
            }
            if (emit(run, i)) { if (signal?.aborted) return; yield batch; batch.n = 0; }
          }
        }
      }
      while (j < nov.n) {
        const [k, full] = novGroup();
        j = k;
        if (full) { if (signal?.aborted) return; yield batch; batch.n = 0; }
      }
    }
    if (batch.n > 0) yield batch;
  } finally {
    releaseBatch(batch);
  }
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
      if (!leaf) { total += (li === lo || li === hi - 1) ? Math.ceil(ref.rows / 4) : ref.rows; continue; }
      const cc = keyCols(leaf.run, order);
      const a = lowerBound(cc, 0, leaf.run.n, prefix);
      total += upperBound(cc, a, leaf.run.n, prefix) - a;
    }
  }
  if (src.novelty.size > 0) {
    const nov = src.novelty.range(order, prefix, Number.MAX_SAFE_INTEGER);
    total += nov.n;
  }
  return total;
}
