/**
 * The page filters of a dictionary held bit-sliced (docs/dictionary.md): for each run of 32 pages,
 * word `b` holds bit `b` of the 32 pages' Bloom filters, one page per bit. A key → id lookup ANDs
 * the 8 words its probes name and reads the candidate pages off the result, so it costs a few word
 * reads per 32 pages (most runs are ruled out by the first two probes) instead of a filter test per
 * page. Same bits, same memory (2 bytes per term) as one filter per page; filter groups are still
 * persisted per page (dict-page.ts) and transposed when loaded.
 */
import { FILTER_BITS, FILTER_K, FILTER_WORDS } from './dict-page.js';

const MASK = FILTER_BITS - 1;

export class SlicedFilters {
  private words = new Uint32Array(0);
  /** Runs of 32 pages allocated. */
  private runs = 0;
  /** Pages covered (a run's bits past it are zero). */
  private pages = 0;

  /** Bytes held. */
  get byteLength(): number { return this.words.byteLength; }

  /** Make room for `pages` pages; existing bits are kept, new ones are zero. */
  resize(pages: number): void {
    const runs = (pages + 31) >>> 5;
    if (runs > this.runs) {
      const next = new Uint32Array(runs * FILTER_BITS);
      next.set(this.words);
      this.words = next;
      this.runs = runs;
    }
    this.pages = Math.max(this.pages, pages);
  }

  /** OR a page's filter (FILTER_WORDS words of `src` from `at`) into its slice. */
  setPage(k: number, src: Uint32Array, at: number): void {
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

  /** Add a key (by its hashes, keyHashes) to page k's filter. */
  add(k: number, h: Uint32Array): void {
    const base = (k >>> 5) * FILTER_BITS, bit = 1 << (k & 31);
    const h1 = h[0]!, h2 = h[1]!;
    for (let i = 0; i < FILTER_K; i++) this.words[base + ((h1 + Math.imul(i, h2)) & MASK)] |= bit;
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
  }

  /** Page k's filter as FILTER_WORDS words (to write its filter group again). */
  pageWords(k: number): Uint32Array {
    const out = new Uint32Array(FILTER_WORDS);
    const base = (k >>> 5) * FILTER_BITS, bit = 1 << (k & 31);
    for (let b = 0; b < FILTER_BITS; b++) if (this.words[base + b]! & bit) out[b >>> 5] |= 1 << (b & 31);
    return out;
  }
}
