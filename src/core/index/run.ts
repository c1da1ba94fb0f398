/**
 * A sorted run of facts as parallel Int32Array columns (g, s, p, o, m, t) plus an op column.
 * Index leaves, leaf history and novelty are all runs; scans binary-search them by key prefix.
 */
import type { Flake, IndexOrder } from '../flake/flake.js';
import { runSteps, type Steps } from '../util/steps.js';

export interface Run {
  n: number;
  g: Int32Array;
  s: Int32Array;
  p: Int32Array;
  o: Int32Array;
  m: Int32Array;
  t: Int32Array;
  /** 1 = assert, 0 = retract. */
  op: Uint8Array;
}

/** An empty run with capacity `cap`. */
export function allocRun(cap: number): Run {
  return {
    n: 0,
    g: new Int32Array(cap), s: new Int32Array(cap), p: new Int32Array(cap), o: new Int32Array(cap),
    m: new Int32Array(cap), t: new Int32Array(cap), op: new Uint8Array(cap),
  };
}

/**
 * The empty run, shared (frozen: nothing may append to it). Range lookups that match nothing
 * return it: a scan of many steps looks up novelty once per step, and seven fresh zero-length
 * typed arrays per lookup were most of such a scan's cost.
 */
export const EMPTY_RUN: Run = Object.freeze(allocRun(0));

/** Append row `i` of `src` to `dst` (capacity must suffice). */
export function copyRow(dst: Run, src: Run, i: number): void {
  const j = dst.n++;
  dst.g[j] = src.g[i]!; dst.s[j] = src.s[i]!; dst.p[j] = src.p[i]!; dst.o[j] = src.o[i]!;
  dst.m[j] = src.m[i]!; dst.t[j] = src.t[i]!; dst.op[j] = src.op[i]!;
}

/** Shrink a run's columns to exactly n rows (copies). */
export function trimRun(r: Run): Run {
  return {
    n: r.n, g: r.g.slice(0, r.n), s: r.s.slice(0, r.n), p: r.p.slice(0, r.n), o: r.o.slice(0, r.n),
    m: r.m.slice(0, r.n), t: r.t.slice(0, r.n), op: r.op.slice(0, r.n),
  };
}

/** A run from flakes (already sorted by the caller's order). */
export function runFromFlakes(flakes: readonly Flake[]): Run {
  const r = allocRun(flakes.length);
  for (const f of flakes) {
    const j = r.n++;
    r.g[j] = f.g; r.s[j] = f.s; r.p[j] = f.p; r.o[j] = f.o; r.m[j] = f.m; r.t[j] = f.t; r.op[j] = f.op ? 1 : 0;
  }
  return r;
}

/** Row i of a run as a flake. */
export function rowFlake(r: Run, i: number): Flake {
  return { g: r.g[i]!, s: r.s[i]!, p: r.p[i]!, o: r.o[i]!, m: r.m[i]!, t: r.t[i]!, op: r.op[i] === 1 };
}

/**
 * The key columns of an order, in sort order after g: e.g. post -> [p, o, s, m].
 * Returned as column arrays of the run so comparisons index them directly.
 */
export function keyCols(r: Run, order: IndexOrder): [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array] {
  switch (order) {
    case 'spot': return [r.g, r.s, r.p, r.o, r.m];
    case 'psot': return [r.g, r.p, r.s, r.o, r.m];
    case 'post': return [r.g, r.p, r.o, r.s, r.m];
    case 'opst': return [r.g, r.o, r.p, r.s, r.m];
  }
}

/** A key prefix: up to five values in the order's key column order (g first). */
export type KeyPrefix = number[];

/** Compare row i's key against a prefix (only the prefix's length is compared). */
export function cmpRowPrefix(cols: Int32Array[], i: number, prefix: KeyPrefix): number {
  for (let c = 0; c < prefix.length; c++) {
    const d = cols[c]![i]! - prefix[c]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** First row index in [lo, hi) whose key is >= prefix. */
export function lowerBound(cols: Int32Array[], lo: number, hi: number, prefix: KeyPrefix): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmpRowPrefix(cols, mid, prefix) < 0) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** First row index in [lo, hi) whose key is > prefix (on the prefix's columns). */
export function upperBound(cols: Int32Array[], lo: number, hi: number, prefix: KeyPrefix): number {
  // Gallop from lo first: callers start at a lowerBound, and most prefix ranges are a few rows long.
  for (let step = 1, probe = lo; probe < hi; step *= 2, probe = lo + step - 1) {
    if (cmpRowPrefix(cols, probe, prefix) > 0) { hi = probe; break; }
    lo = probe + 1;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmpRowPrefix(cols, mid, prefix) <= 0) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** Compare the full fact keys (5 columns) of row i in a and row j in b. */
export function cmpRows(ca: Int32Array[], i: number, cb: Int32Array[], j: number): number {
  for (let c = 0; c < 5; c++) {
    const d = ca[c]![i]! - cb[c]![j]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Rows from which sorting takes radix passes rather than a comparison sort. */
const RADIX_MIN_ROWS = 2048;

/** Sort a run by an order's fact key, then t descending, then retract first. Returns a new run. */
export function sortRun(r: Run, order: IndexOrder): Run {
  const cols = keyCols(r, order);
  let perm: ArrayLike<number>;
  if (r.n >= RADIX_MIN_ROWS) {
    // Least significant key first: op, t descending, then the fact key columns from last to first.
    const negT = new Int32Array(r.n);
    for (let i = 0; i < r.n; i++) negT[i] = -r.t[i]!;
    perm = radixPermutation(r.n, [r.op, negT, cols[4], cols[3], cols[2], cols[1], cols[0]]);
  } else {
    const [c0, c1, c2, c3, c4] = cols;
    const t = r.t, op = r.op;
    const idx = new Array<number>(r.n);
    for (let i = 0; i < r.n; i++) idx[i] = i;
    idx.sort((a, b) => (c0[a]! - c0[b]!) || (c1[a]! - c1[b]!) || (c2[a]! - c2[b]!) || (c3[a]! - c3[b]!) ||
      (c4[a]! - c4[b]!) || (t[b]! - t[a]!) || (op[a]! - op[b]!));
    perm = idx;
  }
  const out = allocRun(r.n);
  for (let k = 0; k < r.n; k++) copyRow(out, r, perm[k]!);
  return out;
}

/**
 * Stable LSD radix sort on integer columns (least significant first): the row permutation.
 * Columns whose values are all equal are skipped; others take 16-bit digit passes over their range.
 */
export function radixPermutation(n: number, lsdFirst: ArrayLike<number>[]): Uint32Array {
  let perm = new Uint32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  let tmp = new Uint32Array(n);
  const count = new Uint32Array(65537);
  let keys = new Uint32Array(n), tmpKeys = new Uint32Array(n);
  for (const col of lsdFirst) {
    let min = Infinity, max = -Infinity;
    for (let i = 0; i < n; i++) { const v = col[i]!; if (v < min) min = v; if (v > max) max = v; }
    if (n === 0 || min === max) continue;
    const range = max - min; // ids are int32, so the range fits in 32 bits and >>> is exact
    // As few passes as 16-bit digits need, with digits split evenly: a 21-bit range takes two
    // 11-bit passes, whose 2,048 counters stay in cache where 65,536 do not.
    const bits = 32 - Math.clz32(range);
    const passes = Math.ceil(bits / 16);
    const width = Math.ceil(bits / passes);
    const mask = (1 << width) - 1;
    const buckets = mask + 2;
    // The column's values in the current permutation's order, moved along with it: each pass
    // then reads its digits sequentially instead of through the permutation.
    for (let k = 0; k < n; k++) keys[k] = (col[perm[k]!]! - min) >>> 0;
    for (let pass = 0; pass < passes; pass++) {
      const shift = pass * width;
      count.fill(0, 0, buckets);
      for (let k = 0; k < n; k++) count[((keys[k]! >>> shift) & mask) + 1]!++;
      for (let d = 1; d < buckets; d++) count[d]! += count[d - 1]!;
      for (let k = 0; k < n; k++) {
        const v = keys[k]!;
        const at = count[(v >>> shift) & mask]!++;
        tmp[at] = perm[k]!;
        tmpKeys[at] = v;
      }
      const swap = perm; perm = tmp; tmp = swap;
      const kswap = keys; keys = tmpKeys; tmpKeys = kswap;
    }
  }
  return perm;
}

/**
 * A run sorted in all four orders, SPOT first and each next order a stable re-sort of the one
 * before on its leading key column (g first): PSOT from SPOT by p, OPST from PSOT by o, POST from
 * OPST by p. Among rows equal in the columns re-sorted, a stable sort keeps the previous order,
 * which is exactly the rest of the next order's key (then t descending, retraction first), so the
 * runs are sortRun's, with one or two digit passes per order instead of a full sort each. Yields
 * between orders (util/steps.ts).
 */
export function* sortAllOrdersSteps(r: Run): Steps<Record<IndexOrder, Run>> {
  // A small run (a single-fact commit) is sorted per order by comparison: radix passes would each
  // allocate and clear their counters for a handful of rows.
  if (r.n < RADIX_MIN_ROWS) return { spot: sortRun(r, 'spot'), psot: sortRun(r, 'psot'), post: sortRun(r, 'post'), opst: sortRun(r, 'opst') };
  const spot = sortRun(r, 'spot');
  yield;
  const psot = resortStable(spot, spot.p);
  yield;
  const opst = resortStable(psot, psot.o);
  yield;
  const post = resortStable(opst, opst.p);
  return { spot, psot, post, opst };
}

/** `r` stably sorted by (g, col), `col` being one of r's columns. */
function resortStable(r: Run, col: Int32Array): Run {
  const perm = radixPermutation(r.n, [col, r.g]);
  const out = allocRun(r.n);
  for (let k = 0; k < r.n; k++) copyRow(out, r, perm[k]!);
  return out;
}

/** Sort a run whose fact keys are unique (bulk loads after dedupe): key columns only. */
export function sortUniqueRun(r: Run, order: IndexOrder): Run {
  const cols = keyCols(r, order);
  const perm = radixPermutation(r.n, [cols[4], cols[3], cols[2], cols[1], cols[0]]);
  const out = allocRun(r.n);
  for (let k = 0; k < r.n; k++) copyRow(out, r, perm[k]!);
  return out;
}

/** Merge two runs sorted in the same order into a new sorted run. */
export function mergeRuns(a: Run, b: Run, order: IndexOrder): Run {
  return runSteps(mergeRunsSteps(a, b, order, Infinity));
}

/**
 * Append rows [from, to) of `src` to `dst` (capacity must suffice): a long block column by column,
 * a short one row by row (in POST a load's rows interleave with the leaf's a few at a time, and a
 * subarray per column costs more than the copy).
 */
export function copyRows(dst: Run, src: Run, from: number, to: number): void {
  if (to - from < 64) {
    for (let i = from; i < to; i++) copyRow(dst, src, i);
    return;
  }
  const at = dst.n;
  dst.g.set(src.g.subarray(from, to), at); dst.s.set(src.s.subarray(from, to), at); dst.p.set(src.p.subarray(from, to), at);
  dst.o.set(src.o.subarray(from, to), at); dst.m.set(src.m.subarray(from, to), at); dst.t.set(src.t.subarray(from, to), at);
  dst.op.set(src.op.subarray(from, to), at);
  dst.n += to - from;
}

/** One side of a merge has supplied this many rows in a row: look for the end of its stretch by galloping. */
const GALLOP_AFTER = 8;

/**
 * mergeRuns in steps, pausing after every `pauseEvery` rows (key, then t descending, then
 * retraction first; `a` first on a tie): merging into a novelty of a million events is tens of ms
 * in one piece. Once one side has supplied GALLOP_AFTER rows in a row, the end of its stretch is
 * found by exponential then binary search and the stretch copied column by column: a commit of new
 * subjects sorts after the whole novelty in SPOT order, so most of a merge is a few block copies.
 */
export function* mergeRunsSteps(a: Run, b: Run, order: IndexOrder, pauseEvery: number): Steps<Run> {
  const ca = keyCols(a, order), cb = keyCols(b, order);
  const out = allocRun(a.n + b.n);
  // a's row i goes before b's row j.
  const aFirst = (i: number, j: number): boolean => (cmpRows(ca, i, cb, j) || (b.t[j]! - a.t[i]!) || (a.op[i]! - b.op[j]!)) <= 0;
  let i = 0, j = 0, since = 0, runA = 0, runB = 0;
  while (i < a.n && j < b.n) {
    const fromA = aFirst(i, j);
    if (fromA && runA >= GALLOP_AFTER) {
      // The first row of a after i that does not go before b[j] (rows i..lo do).
      let lo = i, step = 1;
      while (lo + step < a.n && aFirst(lo + step, j)) { lo += step; step *= 2; }
      let hi = Math.min(a.n, lo + step);
      while (lo + 1 < hi) { const mid = (lo + hi) >>> 1; if (aFirst(mid, j)) lo = mid; else hi = mid; }
      copyRows(out, a, i, hi);
      since += hi - i; i = hi; runA = 0;
    } else if (!fromA && runB >= GALLOP_AFTER) {
      let lo = j, step = 1;
      while (lo + step < b.n && !aFirst(i, lo + step)) { lo += step; step *= 2; }
      let hi = Math.min(b.n, lo + step);
      while (lo + 1 < hi) { const mid = (lo + hi) >>> 1; if (!aFirst(i, mid)) lo = mid; else hi = mid; }
      copyRows(out, b, j, hi);
      since += hi - j; j = hi; runB = 0;
    } else {
      if (fromA) { copyRow(out, a, i++); runA++; runB = 0; } else { copyRow(out, b, j++); runB++; runA = 0; }
      since++;
    }
    if (since >= pauseEvery) { since = 0; yield; }
  }
  if (i < a.n) copyRows(out, a, i, a.n);
  if (j < b.n) copyRows(out, b, j, b.n);
  return out;
}
