/**
 * The page filters of a dictionary held bit-sliced (docs/dictionary.md): for each complete run of
 * 32 pages, word `b` holds bit `b` of the 32 pages' Bloom filters, one page per bit. A key → id
 * lookup ANDs the 8 words its probes name and reads the candidate pages off the result, so it costs
 * a few word reads per 32 pages (most runs are ruled out by the first two probes) instead of a
 * filter test per page. The pages after the last complete run (fewer than 32) keep one filter each
 * and are tested one by one: a sliced run takes 64 KB whatever its page count, so a small
 * dictionary stays at 2 bytes per term. Filter groups are still persisted per page (dict-page.ts).
 */
import { filterHas, FILTER_BITS, FILTER_K, FILTER_WORDS } from './dict-page.js';

const MASK = FILTER_BITS - 1;

export class SlicedFilters {
  /** Complete runs, sliced: run r's word b at r·FILTER_BITS + b. */
  private words = new Uint32Array(0);
  private runs = 0;
  /** Filters of pages runs·32 … pages-1, FILTER_WORDS each. */
  private tail = new Uint32Array(0);
  private pages = 0;

  /** Bytes held. */
  get byteLength(): number { return this.words.byteLength + this.tail.byteLength; }

  /** Make room for `pages` pages (never fewer); bits set so far are kept, new ones are zero. */
  resize(pages: number): void {
    if (pages <= this.pages) return;
    const runs = pages >>> 5;
    const tailFrom = this.runs << 5;
    const oldTail = this.tail;
    if (runs > this.runs) {
      const next = new Uint32Array(runs * FILTER_BITS);
      next.set(this.words);
      this.words = next;
      const prevRuns = this.runs;
      this.runs = runs;
      // Tail pages now in complete runs are transposed into them.
      for (let k = prevRuns << 5; k < Math.min(runs << 5, this.pages); k++) this.slice(k, oldTail, (k - tailFrom) * FILTER_WORDS);
    }
    const tail = new Uint32Array((pages - (runs << 5)) * FILTER_WORDS);
    for (let k = Math.max(runs << 5, tailFrom); k < this.pages; k++) {
      tail.set(oldTail.subarray((k - tailFrom) * FILTER_WORDS, (k - tailFrom + 1) * FILTER_WORDS), (k - (runs << 5)) * FILTER_WORDS);
    }
    this.tail = tail;
    this.pages = pages;
  }

  private slice(k: number, src: Uint32Array, at: number): void {
    const base = (k >>> 5) * FILTER_BITS, bit = 1 << (k & 31);
    const words = this.words;
    for (let w = 0; w < FILTER_WORDS; w++) {
      let x = src[at + w]!;
      const off = base + (w << 5);
      while (x !== 0) {
        const low = x & -x;
        words[off + 31 - Math.clz32(low)] |= bit;
        x ^= low;
      }
    }
  }

  /** OR a page's filter (FILTER_WORDS words of `src` from `at`) into it. */
  setPage(k: number, src: Uint32Array, at: number): void {
    if (k < this.runs << 5) { this.slice(k, src, at); return; }
    const off = (k - (this.runs << 5)) * FILTER_WORDS;
    for (let w = 0; w < FILTER_WORDS; w++) this.tail[off + w] |= src[at + w]!;
  }

  /** Add a key (by its hashes, keyHashes) to page k's filter. */
  add(k: number, h: Uint32Array): void {
    const h1 = h[0]!, h2 = h[1]!;
    if (k < this.runs << 5) {
      const base = (k >>> 5) * FILTER_BITS, bit = 1 << (k & 31);
      for (let i = 0; i < FILTER_K; i++) this.words[base + ((h1 + Math.imul(i, h2)) & MASK)] |= bit;
      return;
    }
    const off = (k - (this.runs << 5)) * FILTER_WORDS;
    for (let i = 0; i < FILTER_K; i++) {
      const b = (h1 + Math.imul(i, h2)) & MASK;
      this.tail[off + (b >>> 5)] |= 1 << (b & 31);
    }
  }

  /**
   * Pages whose filter may hold the key (by its hashes), ascending, among pages [0, limit): each is
   * passed to `fn`; a true return stops the walk.
   */
  candidates(h: Uint32Array, limit: number, fn: (k: number) => boolean): void {
    const h1 = h[0]!, h2 = h[1]!;
    const words = this.words;
    const runs = Math.min(this.runs, (limit + 31) >>> 5);
    for (let r = 0; r < runs; r++) {
      const base = r * FILTER_BITS;
      let m = words[base + (h1 & MASK)]!;
      for (let i = 1; i < FILTER_K && m !== 0; i++) m &= words[base + ((h1 + Math.imul(i, h2)) & MASK)]!;
      while (m !== 0) {
        const low = m & -m;
        const k = (r << 5) + 31 - Math.clz32(low);
        if (k >= limit) return;
        if (fn(k)) return;
        m ^= low;
      }
    }
    const end = Math.min(limit, this.pages);
    for (let k = this.runs << 5; k < end; k++) {
      if (filterHas(this.tail, (k - (this.runs << 5)) * FILTER_WORDS, h) && fn(k)) return;
    }
  }

  /** Page k's filter as FILTER_WORDS words (to write its filter group again). */
  pageWords(k: number): Uint32Array {
    if (k >= this.runs << 5) {
      const off = (k - (this.runs << 5)) * FILTER_WORDS;
      return this.tail.slice(off, off + FILTER_WORDS);
    }
    const out = new Uint32Array(FILTER_WORDS);
    const base = (k >>> 5) * FILTER_BITS, bit = 1 << (k & 31);
    for (let b = 0; b < FILTER_BITS; b++) if (this.words[base + b]! & bit) out[b >>> 5] |= 1 << (b & 31);
    return out;
  }
}
