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

/**
 * Index facts current at src.t with the key prefix, in key order, one leaf at a time.
 * Each yielded run holds only facts current at t (before novelty is applied).
 */
async function* indexRuns(src: ScanSource, order: IndexOrder, prefix: KeyPrefix): AsyncGenerator<Run> {
  const tree = src.tree;
  if (!tree) return;
  const [lo, hi] = tree.leafSpan(order, prefix);
  const asOfIndex = src.t >= tree.t;
  for (let li = lo; li < hi; li++) {
    const leaf = await tree.leaf(tree.leaves[order][li]!);
    const cur = leaf.run;
    const cc = keyCols(cur, order);
    const a = lowerBound(cc, 0, cur.n, prefix);
    const b = upperBound(cc, a, cur.n, prefix);
    if (asOfIndex) {
      if (b > a) yield sliceRun(cur, a, b);
      continue;
    }
    const hist = await tree.history(leaf);
    yield asOf(order, sliceRun(cur, a, b), hist ? historyRange(hist, order, prefix) : allocRun(0), src.t);
  }
}

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

/** Scan one order over a key prefix, merging novelty, applying the row filter; yields batches. */
export async function* scanOrder(src: ScanSource, order: IndexOrder, prefix: KeyPrefix, filter: RowFilter, batch: FactBatch): AsyncGenerator<FactBatch> {
  const indexT = src.tree ? src.tree.t : 0;
  const nov = src.t > indexT ? src.novelty.range(order, prefix, src.t) : allocRun(0);
  const nc = keyCols(nov, order);
  let j = 0;
  batch.n = 0;
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
    const full = nov.op[j] === 1 ? emit(nov, j) : false;
    return [k, full];
  };

  for await (const run of indexRuns(src, order, prefix)) {
    const rc = keyCols(run, order);
    for (let i = 0; i < run.n; i++) {
      while (j < nov.n && cmpRows(nc, j, rc, i) < 0) {
        const [k, full] = novGroup();
        j = k;
        if (full) { yield batch; batch.n = 0; }
      }
      if (j < nov.n && cmpRows(nc, j, rc, i) === 0) {
        const [k, full] = novGroup();
        j = k;
        if (full) { yield batch; batch.n = 0; }
        continue;
      }
      if (emit(run, i)) { yield batch; batch.n = 0; }
    }
  }
  while (j < nov.n) {
    const [k, full] = novGroup();
    j = k;
    if (full) { yield batch; batch.n = 0; }
  }
  if (batch.n > 0) { yield batch; batch.n = 0; }
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
