/**
 * The UTF-8 bytes of each stored term's SPARQL JSON fragment, for the byte writer
 * (sparql-json-bytes.ts): kept in one ring of bytes rather than one small array per term, so a
 * cached fragment costs its bytes and no object, terms cached together (one query's) lie together,
 * and the oldest fragments are simply overwritten when the ring wraps. A 4-way set-associative
 * table maps (id space, id) to a fragment's place in the ring; an entry whose bytes the ring has
 * since overwritten reads as a miss. One cache for the process, shared by every dictionary: each
 * id space (IdSolutions.space) gets a small tag, so two ledgers' ids never alias.
 */
/** Bytes of the ring: about 90,000 fragments of the BSBM point query's size (≈ 90 bytes). */
export const TERM_BYTES_RING = 8 * 1024 * 1024;
/** Table slots (4 ways per set): 20 bytes each (id, tag, place as two Int32, length). */
export const TERM_BYTES_SLOTS = 131072;
/** Fragments longer than this (in UTF-16 units) are written without being kept. */
const MAX_CHARS = 4096;
const LOG_WAYS = 2;
const UTF8 = new TextEncoder();

/** Int32s of one set in the table: 4 ids, 4 tags, 4 places (high), 4 places (low), 4 lengths. */
const SET_INTS = 20;
/** An absolute place is kept as hi · 2^30 + lo (both Int32). */
const PLACE_LO = 1 << 30;

/**
 * Bytes after the ring, in the same array (`bytes`), where the writer assembles rows: a fragment
 * is copied there with `copyWithin`, with no view object per term (a `subarray` for `set` was the
 * writer's largest allocation and a good part of its time).
 */
export const TERM_BYTES_SCRATCH = 64 * 1024;

export class TermBytes {
  /** The ring: the first `ring.length` bytes of `bytes`. */
  readonly ring: Uint8Array;
  /** The ring, then TERM_BYTES_SCRATCH bytes of scratch from `scratchAt` (one array, for copyWithin). */
  readonly bytes: Uint8Array;
  readonly scratchAt: number;
  /**
   * The table, a set's entries side by side (SET_INTS per set): a lookup reads one or two
   * neighbouring cache lines rather than one line in each of four arrays (the BSBM point query's
   * writer was waiting on those reads).
   */
  private readonly table: Int32Array;
  private readonly setMask: number;
  /** Absolute place where the next fragment goes: bytes before total − ring size are gone. */
  private total = 0;
  private readonly spaceTags = new WeakMap<object, number>();
  private nextTag = 0;

  constructor(ringBytes = TERM_BYTES_RING, slots = TERM_BYTES_SLOTS) {
    // Two sets at least: a shift of 32 would be a shift of 0 in JS.
    if (slots < 8 || (slots & (slots - 1)) !== 0) throw new RangeError('term bytes slots must be a power of two >= 8');
    this.bytes = new Uint8Array(ringBytes + TERM_BYTES_SCRATCH);
    this.ring = this.bytes.subarray(0, ringBytes);
    this.scratchAt = ringBytes;
    this.table = new Int32Array((slots >> LOG_WAYS) * SET_INTS);
    // No id is -1: every way starts empty.
    for (let b = 0; b < this.table.length; b += SET_INTS) this.table.fill(-1, b, b + 4);
    this.setMask = (slots >> LOG_WAYS) - 1;
  }

  /** The tag of an id space (assigned on first sight). */
  tag(space: object): number {
    let t = this.spaceTags.get(space);
    if (t === undefined) {
      t = this.nextTag++;
      this.spaceTags.set(space, t);
    }
    return t;
  }

  /** Lookups answered from the ring and lookups that missed, since the cache was made (bench/point-cpu.js reports the rate). */
  hits = 0;
  misses = 0;

  /** First int of the set of (tag, id). */
  private setOf(tag: number, id: number): number {
    // The id itself picks the set, not a hash of it: a dictionary hands out ids in order, so the
    // terms one query writes (a subject's objects, loaded together) have neighbouring ids and
    // their entries lie side by side in the table instead of one cache miss each. The tag only
    // moves each id space's start.
    return ((id + Math.imul(tag, 0x9e3779b1)) & this.setMask) * SET_INTS;
  }

  /** The ring offset of the fragment of (tag, id), or -1; its length is then `found`. */
  find(tag: number, id: number): number {
    const t = this.table;
    const b = this.setOf(tag, id);
    for (let i = b; i < b + 4; i++) {
      if (t[i] !== id || t[i + 4] !== tag) continue;
      const place = this.placeAt(i);
      // Overwritten since: a miss (the slot is reused by the next put of its set).
      if (place < this.total - this.ring.length) break;
      this.found = t[i + 16]!;
      this.hits++;
      return place % this.ring.length;
    }
    this.misses++;
    return -1;
  }

  /**
   * Read what `find(tag, id)` will read (the table's set and the fragment's first byte) and
   * nothing else: a writer touches a run of rows' terms first, so that the cache misses of those
   * reads overlap in one tight loop instead of each waiting behind the copy of the one before.
   * The result means nothing (it only keeps the reads from being optimised away).
   */
  touch(tag: number, id: number): number {
    const t = this.table;
    const b = this.setOf(tag, id);
    for (let i = b; i < b + 4; i++) {
      if (t[i] === id && t[i + 4] === tag) return this.ring[this.placeAt(i) % this.ring.length]!;
    }
    return 0;
  }

  /** The absolute place of way `i`'s fragment (kept as two Int32s). */
  private placeAt(i: number): number {
    return this.table[i + 8]! * PLACE_LO + this.table[i + 12]!;
  }

  /** The length of the fragment the last successful `find` returned. */
  found = 0;

  /**
   * Keep the UTF-8 bytes of `text` as the fragment of (tag, id) (after a `find` miss) and return
   * its ring offset (its length in `found`), or -1 when it is not kept (too long).
   */
  put(tag: number, id: number, text: string): number {
    if (text.length > MAX_CHARS || text.length * 3 > this.ring.length) return -1;
    const size = this.ring.length;
    let at = this.total % size;
    // A fragment never wraps: one that might not fit before the end starts the next lap.
    if (size - at < text.length * 3) {
      this.total += size - at;
      at = 0;
    }
    const written = UTF8.encodeInto(text, this.ring.subarray(at)).written;
    const t = this.table;
    const b = this.setOf(tag, id);
    // The set's oldest entry makes room (the others move down one way).
    for (let i = b + 3; i > b; i--) {
      t[i] = t[i - 1]!; t[i + 4] = t[i + 3]!; t[i + 8] = t[i + 7]!; t[i + 12] = t[i + 11]!; t[i + 16] = t[i + 15]!;
    }
    t[b] = id; t[b + 4] = tag; t[b + 8] = Math.floor(this.total / PLACE_LO); t[b + 12] = this.total % PLACE_LO; t[b + 16] = written;
    this.total += written;
    this.found = written;
    return at;
  }
}

let shared: TermBytes | null = null;

/** The process's cache (made on first use). */
export function termBytes(): TermBytes {
  return (shared ??= new TermBytes());
}
