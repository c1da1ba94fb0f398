/**
 * What a paged term dictionary keeps in memory besides its filters (docs/dictionary.md, "In
 * memory"): the pages it holds for its grace window, bounded in bytes, and a 32-bit fingerprint
 * per persisted key.
 *
 * Fingerprints exist because the Bloom filters' false positives grow with the dictionary: at
 * ≈ 0.05 % per page, a key absent from a dictionary of 1,700 pages has about one false-positive
 * candidate page, so interning new terms read (and, before, held) every page over and over. A
 * page's fingerprints (4 bytes per key, in id order) are taken from hash bits the filter does not
 * use, so a candidate page whose fingerprints lack the key's is rejected without the page
 * (≈ 2.4·10⁻⁷ false positives per page), and a match gives the key's position in the page.
 */
import { FILTER_BITS, FILTER_WORDS, filterAdd, keyHashes } from './dict-page.js';

/** A decoded page as the dictionary holds it. */
export interface Page {
  keys: string[];
  /** The dictionary clock at its last use (grace window). */
  used: number;
  cid: string;
  /** Estimated bytes (pageBytes). */
  bytes: number;
}

/**
 * The bound on the pages every dictionary of one shared cache holds for its grace window (outside
 * the cache's own budget). Dictionaries register weakly: a discarded dictionary's pages stop
 * counting once it is collected, as they stop taking memory.
 */
export class HoldBound {
  private readonly members = new Set<WeakRef<HeldPages>>();
  constructor(readonly max: number) {}
  /** Count a dictionary's held pages against this bound. */
  register(h: HeldPages): void { this.members.add(new WeakRef(h)); }
  /** Bytes held by the registered dictionaries now. */
  bytes(): number {
    let n = 0;
    for (const r of this.members) {
      const h = r.deref();
      if (h) n += h.bytes; else this.members.delete(r);
    }
    return n;
  }
}

/** Estimated bytes of a decoded page (key characters, string headers, array slots). */
export function pageBytes(keys: readonly string[]): number {
  let n = 256;
  for (const k of keys) n += k.length + 80;
  return n;
}

const FILTER_LOW = FILTER_BITS - 1;
/**
 * The fingerprint of a key's hashes: the bits of both hashes the Bloom probes never read. Signed
 * 32-bit, so it is a small integer to V8 (Int32Array.indexOf is ≈ 6× faster than Uint32Array's).
 */
export function fingerprint(h: Uint32Array): number {
  return (h[0]! >>> 14) ^ (h[1]! & ~FILTER_LOW);
}
if (FILTER_BITS !== 1 << 14) throw new Error('dictionary fingerprints assume 2^14-bit page filters');

/** Fingerprints of a page's keys, in id order. */
export function pageFingerprints(keys: readonly string[]): Int32Array {
  const h = new Uint32Array(2), out = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    keyHashes(keys[i]!, h);
    out[i] = fingerprint(h);
  }
  return out;
}

/** A page's filter (dict-page.ts `pageFilter`) and fingerprints from one hashing of each key. */
export function pageFilterAndFingerprints(keys: readonly string[]): { filter: Uint32Array; fps: Int32Array } {
  const h = new Uint32Array(2), filter = new Uint32Array(FILTER_WORDS), fps = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    keyHashes(keys[i]!, h);
    filterAdd(filter, 0, h);
    fps[i] = fingerprint(h);
  }
  return { filter, fps };
}

/**
 * Pages held by one dictionary (by page number: an array, since id → key looks its page up for
 * every id), counted against a byte bound shared with the other dictionaries of the cache.
 */
export class HeldPages {
  private readonly a: (Page | undefined)[] = [];
  /** Bytes of the pages held here. */
  bytes = 0;
  constructor(private bound: HoldBound) { bound.register(this); }

  /** Count against another bound (the shared cache's, once the dictionary has one). */
  useBound(b: HoldBound): void {
    if (b === this.bound) return;
    this.bound = b;
    b.register(this);
  }

  get(k: number): Page | undefined { return this.a[k]; }
  set(k: number, p: Page): void {
    this.delete(k);
    this.a[k] = p;
    this.bytes += p.bytes;
  }
  delete(k: number): void {
    const p = this.a[k];
    if (!p) return;
    this.a[k] = undefined;
    this.bytes -= p.bytes;
  }
  *values(): IterableIterator<Page> { for (const p of this.a) if (p) yield p; }

  /**
   * Drop pages not used since `old`; then, while the shared bound is exceeded, the least recently
   * used down to 3/4 of it, sparing those used since `busy` (a lookup between its load and its
   * synchronous use: the bound may be exceeded by them).
   */
  sweep(old: number, busy: number): void {
    for (let k = 0; k < this.a.length; k++) if (this.a[k] && this.a[k]!.used < old) this.delete(k);
    let total = this.bound.bytes();
    if (total <= this.bound.max) return;
    const order: number[] = [];
    for (let k = 0; k < this.a.length; k++) if (this.a[k] && this.a[k]!.used < busy) order.push(k);
    order.sort((x, y) => this.a[x]!.used - this.a[y]!.used);
    const target = Math.floor(this.bound.max * 0.75);
    for (const k of order) {
      if (total <= target) break;
      total -= this.a[k]!.bytes;
      this.delete(k);
    }
  }
}
