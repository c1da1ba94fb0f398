/**
 * An indexed array kept in pages of 1,024 slots, for operators that accumulate millions of
 * entries (ORDER BY's sort keys). One JS array that size grows by half again each time it fills:
 * a single allocation of tens of MB beside the old copy, which can take the heap from well below
 * the memory guard's threshold to V8's fatal limit between two of the executor's pauses. Pages
 * grow the heap 8 KB at a time, so the guard sees it coming (docs/memory.md); 64 KB pages left a
 * quarter of V8's 256 KB heap pages unused, and V8's limit counts pages, not objects.
 */
const SHIFT = 10;
const SIZE = 1 << SHIFT;
const MASK = SIZE - 1;

export class PagedArray<T> {
  private readonly pages: (T | undefined)[][] = [];

  /** The entry at `i` (undefined when never set). */
  get(i: number): T | undefined {
    return this.pages[i >>> SHIFT]?.[i & MASK];
  }

  /** Set the entry at `i`, adding pages up to it. */
  set(i: number, v: T | undefined): void {
    const p = i >>> SHIFT;
    while (this.pages.length <= p) this.pages.push(new Array<T | undefined>(SIZE));
    this.pages[p]![i & MASK] = v;
  }
}
