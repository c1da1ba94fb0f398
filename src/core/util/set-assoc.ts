/**
 * The lookup shared by the 4-way set-associative id caches (the term cache, JSON-LD's result
 * cells): a multiply-shift hash of the id picks the set, and the id is probed in its four ways.
 * Each cache keeps its own value arrays, so these helpers see only the Int32Array of ids.
 */

/** First slot of `id`'s set in a table of 2^(32 − shift) sets of 4 ways. */
export function setBase(id: number, shift: number): number {
  return (Math.imul(id, 0x9e3779b1) >>> shift) << 2;
}

/** The slot of `id` in the set starting at `b`, or -1. */
export function wayOf(ids: Int32Array, b: number, id: number): number {
  if (ids[b] === id) return b;
  if (ids[b + 1] === id) return b + 1;
  if (ids[b + 2] === id) return b + 2;
  if (ids[b + 3] === id) return b + 3;
  return -1;
}
