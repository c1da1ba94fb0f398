/**
 * Sorting of bulk-load rows (bulk-commits.ts, bulk-index.ts): SPOT order from subject groups when
 * the input lists each subject's statements together, and dropping adjacent duplicates.
 */
import { allocRun, cmpRows, copyRow, keyCols, sortRun, type Run } from '../index/run.js';

/**
 * Sort rows in SPOT order. Files list a subject's statements together and subjects get ids as they
 * first appear, so the subject column is usually ascending already: then only each subject's few
 * rows need sorting (by graph, predicate, object). Otherwise a full radix sort.
 */
export function sortSpot(r: Run): Run {
  for (let i = 1; i < r.n; i++) if (r.s[i]! < r.s[i - 1]!) return sortRun(r, 'spot');
  const { g, p, o } = r;
  const idx = new Uint32Array(r.n);
  for (let i = 0; i < r.n; i++) idx[i] = i;
  const before = (a: number, b: number) => (g[a]! - g[b]!) || (p[a]! - p[b]!) || (o[a]! - o[b]!);
  let start = 0;
  while (start < r.n) {
    let end = start + 1;
    while (end < r.n && r.s[end] === r.s[start]) end++;
    if (end - start > 64) {
      idx.set(Array.from(idx.subarray(start, end)).sort(before), start);
      start = end;
      continue;
    }
    // Insertion sort: a subject has a handful of rows, often in order already.
    for (let i = start + 1; i < end; i++) {
      const x = idx[i]!;
      let j = i - 1;
      while (j >= start && before(idx[j]!, x) > 0) { idx[j + 1] = idx[j]!; j--; }
      idx[j + 1] = x;
    }
    start = end;
  }
  // Rows of one subject in several graphs must still come graph first: check, else fall back.
  const out = allocRun(r.n);
  for (let k = 0; k < r.n; k++) copyRow(out, r, idx[k]!);
  for (let i = 1; i < out.n; i++) if (out.g[i]! !== out.g[0]!) return sortRun(r, 'spot');
  return out;
}

/** Drop rows equal to their predecessor (the run is sorted, so duplicates are adjacent). */
export function dedupe(r: Run): Run {
  const cols = keyCols(r, 'spot');
  const out = allocRun(r.n);
  for (let i = 0; i < r.n; i++) if (i === 0 || cmpRows(cols, i, cols, i - 1) !== 0) copyRow(out, r, i);
  return out;
}
