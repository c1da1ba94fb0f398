/**
 * Long synchronous work written once as a generator of steps: `yield` marks a point where it may
 * stop for a turn of the event loop. runSteps() drives it to the end in one go (the old synchronous
 * behaviour, same result); runStepsSliced() gives the event loop a turn whenever the time slice is
 * used up, so a big commit's encoding or its novelty does not hold every other request behind it.
 */
import { TimeSlice } from './next-turn.js';

/** Work that may pause at each `yield`. */
export type Steps<T> = Generator<void, T, void>;

/** Run every step now, synchronously. */
export function runSteps<T>(steps: Steps<T>): T {
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/** Run the steps, giving the event loop a turn whenever `slice` is used up. */
export async function runStepsSliced<T>(steps: Steps<T>, slice: TimeSlice): Promise<T> {
  let r = steps.next();
  while (!r.done) {
    if (slice.due()) await slice.pause();
    r = steps.next();
  }
  return r.value;
}

/** Elements sorted between two yields (a few ms of comparisons of the costliest kind). */
const SORT_CHUNK = 4096;

/**
 * Sort `a` in place by `cmp` in steps: runs of SORT_CHUNK sorted with Array.prototype.sort (about a ms each), then
 * merged pairwise, yielding every SORT_CHUNK elements. For a comparator that is a total order the
 * result is exactly `a.sort(cmp)`'s; short arrays are sorted in one step.
 */
export function* sortSteps<T>(a: T[], cmp: (x: T, y: T) => number): Steps<void> {
  const n = a.length;
  if (n <= SORT_CHUNK) { a.sort(cmp); return; }
  for (let lo = 0; lo < n; lo += SORT_CHUNK) {
    const hi = Math.min(n, lo + SORT_CHUNK);
    const part = a.slice(lo, hi).sort(cmp);
    for (let k = 0; k < part.length; k++) a[lo + k] = part[k]!;
    yield;
  }
  let src = a, dst: T[] = new Array<T>(n);
  for (let width = SORT_CHUNK; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const m: Merge = { i: lo, j: Math.min(n, lo + width), k: lo, mid: Math.min(n, lo + width), hi: Math.min(n, lo + 2 * width) };
      while (!mergeSome(src, dst, m, cmp, SORT_CHUNK)) yield;
    }
    [src, dst] = [dst, src];
    yield;
  }
  if (src !== a) for (let k = 0; k < n; k++) a[k] = src[k]!;
}

/** A merge of src[i..mid) and src[j..hi) into dst from k, resumable. */
interface Merge { i: number; j: number; k: number; mid: number; hi: number }

/**
 * Merge at most `budget` elements (left first on a tie); true when done. A plain function, not
 * the generator's body, so the comparison loop is optimised like any other.
 */
function mergeSome<T>(src: T[], dst: T[], m: Merge, cmp: (x: T, y: T) => number, budget: number): boolean {
  let { i, j, k } = m;
  const { mid, hi } = m;
  // Already in order (input that arrives sorted, as a subject's facts usually do): a copy.
  if (i === m.k && j === mid && mid < hi && cmp(src[mid - 1]!, src[mid]!) <= 0) {
    for (; k < hi; k++) dst[k] = src[k]!;
    return true;
  }
  const end = k + budget;
  // Element by element, until one side wins GALLOP times in a row; then its whole block that
  // precedes the other side's head is found by exponential search and copied (as TimSort does:
  // a commit's flakes come in subject groups, so the runs interleave in blocks).
  let winsL = 0, winsR = 0;
  while (i < mid && j < hi && k < end) {
    if (cmp(src[j]!, src[i]!) < 0) {
      dst[k++] = src[j++]!;
      winsL = 0;
      if (++winsR >= GALLOP && j < hi) {
        // Right elements strictly before the left head (ties go left).
        const to = gallop(j, hi, (y) => cmp(src[y]!, src[i]!) < 0);
        while (j < to) dst[k++] = src[j++]!;
        winsR = 0;
      }
    } else {
      dst[k++] = src[i++]!;
      winsR = 0;
      if (++winsL >= GALLOP && i < mid) {
        // Left elements not after the right head.
        const to = gallop(i, mid, (x) => cmp(src[j]!, src[x]!) >= 0);
        while (i < to) dst[k++] = src[i++]!;
        winsL = 0;
      }
    }
  }
  if (i < mid && j < hi) { m.i = i; m.j = j; m.k = k; return false; }
  while (i < mid) dst[k++] = src[i++]!;
  while (j < hi) dst[k++] = src[j++]!;
  return true;
}

/** Wins in a row after which a merge searches for the winner's whole block. */
const GALLOP = 7;

/** The first index in [lo, hi) where `before` (true on a prefix, then false) is false. */
function gallop(lo: number, hi: number, before: (x: number) => boolean): number {
  let step = 1, from = lo, to = lo;
  while (to < hi && before(to)) { from = to + 1; to = lo + step; step *= 2; }
  if (to > hi) to = hi;
  while (from < to) {
    const mid = (from + to) >>> 1;
    if (before(mid)) from = mid + 1; else to = mid;
  }
  return from;
}
