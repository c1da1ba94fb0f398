/**
 * Row plumbing shared by the operators: a growable row buffer that hands out batches, fully
 * materialised relations, compatibility checks and merges on slot lists, and an open hash index
 * over a relation's key slots (chained through typed arrays, so probing allocates nothing).
 */
import { BATCH_ROWS, UNBOUND, type Batch, type Stream } from './types.js';

const EMPTY = new Int32Array(0);

/** A growable run of rows; `take()` hands the rows out as a batch and starts a new buffer. */
export class RowBuffer {
  rows: Int32Array;
  n = 0;
  /**
   * Rows to make room for when the first row arrives. Buffers are allocated lazily and start
   * small (most probes yield a handful of rows); after a take() the size of that batch is the hint.
   */
  private initial: number;
  constructor(readonly width: number, capacity = 16) {
    this.initial = Math.max(1, Math.min(capacity, 16));
    this.rows = EMPTY;
  }

  /** Make room for one more row and return its offset (contents undefined). */
  alloc(): number {
    const off = this.n * this.width;
    if (off + this.width > this.rows.length) {
      const next = new Int32Array(Math.max(this.rows.length * 2, this.initial * this.width, off + this.width));
      next.set(this.rows);
      this.rows = next;
    }
    this.n++;
    return off;
  }

  /** Make room for `k` more rows at once (a caller that knows how many may come: one buffer of the right size, not a few doublings). */
  reserve(k: number): void {
    const need = (this.n + k) * this.width;
    if (need <= this.rows.length) return;
    // Still at least doubling: many small reservations (a probe per input row) stay linear.
    const next = new Int32Array(Math.max(need, this.rows.length * 2, this.initial * this.width));
    next.set(this.rows.subarray(0, this.n * this.width));
    this.rows = next;
  }

  /** Append a copy of the row at `off` in `src`; returns the new row's offset. */
  push(src: Int32Array, off: number): number {
    const at = this.alloc();
    const rows = this.rows;
    for (let i = 0; i < this.width; i++) rows[at + i] = src[off + i]!;
    return at;
  }

  /** Append an all-unbound row; returns its offset. */
  pushEmpty(): number {
    const at = this.alloc();
    this.rows.fill(UNBOUND, at, at + this.width);
    return at;
  }

  /** Drop the last row (a candidate that failed a check). */
  pop(): void { this.n--; }

  /** True when a batch's worth of rows is waiting. */
  get full(): boolean { return this.n >= BATCH_ROWS; }

  /** The buffered rows as a batch; the buffer starts over empty. */
  take(): Batch {
    const b = { n: this.n, rows: this.rows.subarray(0, this.n * this.width) };
    this.initial = Math.max(16, Math.min(this.n, BATCH_ROWS));
    this.rows = EMPTY;
    this.n = 0;
    return b;
  }
}

/** A fully materialised set of rows. */
export interface Rel { n: number; rows: Int32Array }

/**
 * A build side shared through a per-node cache: the promise may be created by one consumer and
 * never awaited by another that was abandoned (timeout, cancellation, an EXISTS that stopped
 * early), so its rejection is marked as observed here; every awaiting consumer still gets it.
 */
export function sharedBuild<T>(p: Promise<T>): Promise<T> {
  p.catch(() => { /* observed: awaiting consumers see the rejection themselves */ });
  return p;
}

/** Collect a stream into one relation. */
export async function materialize(s: Stream, width: number): Promise<Rel> {
  const buf = new RowBuffer(width, 256);
  for await (const b of s) {
    const need = (buf.n + b.n) * width;
    if (need > buf.rows.length) {
      const next = new Int32Array(Math.max(need, buf.rows.length * 2));
      next.set(buf.rows.subarray(0, buf.n * width));
      buf.rows = next;
    }
    buf.rows.set(b.rows.subarray(0, b.n * width), buf.n * width);
    buf.n += b.n;
  }
  return { n: buf.n, rows: buf.rows };
}

/** A stream of the given batches. */
export async function* streamOf(...batches: Batch[]): Stream {
  for (const b of batches) yield b;
}

/** One all-unbound row: the identity of join. */
export function unitBatch(width: number): Batch {
  return { n: 1, rows: new Int32Array(width).fill(UNBOUND) };
}

/** True when no slot in `slots` holds different bound ids in the two rows. */
export function compatible(a: Int32Array, ao: number, b: Int32Array, bo: number, slots: Int32Array): boolean {
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i]!;
    const x = a[ao + s]!, y = b[bo + s]!;
    if (x !== y && x !== UNBOUND && y !== UNBOUND) return false;
  }
  return true;
}

/** Copy into row `to` every slot of `slots` that `from` binds and `to` does not. */
export function fillFrom(to: Int32Array, to0: number, from: Int32Array, from0: number, slots: Int32Array): void {
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i]!;
    const v = from[from0 + s]!;
    if (v !== UNBOUND && to[to0 + s] === UNBOUND) to[to0 + s] = v;
  }
}

/** One step of the row hash (shared by every hash structure over ids). */
export function mix(h: number, v: number): number {
  h = Math.imul(h ^ v, 0x9e3779b1);
  return (h ^ (h >>> 15)) | 0;
}

/** Bind a slot to an id, or check it against the id already there. */
export function bindSlot(r: Int32Array, at: number, v: number): boolean {
  const cur = r[at]!;
  if (cur === UNBOUND) { r[at] = v; return true; }
  return cur === v;
}

/** Hash of a row's key slots. */
export function hashSlots(rows: Int32Array, off: number, slots: Int32Array): number {
  let h = 0x12345;
  for (let i = 0; i < slots.length; i++) h = mix(h, rows[off + slots[i]!]!);
  return h;
}

/** Hash index of a relation on key slots: `first`/`next` walk the rows whose keys equal a probe row's. */
export class RowIndex {
  private readonly head: Int32Array;
  private readonly nextRow: Int32Array;
  private readonly mask: number;

  constructor(readonly rel: Rel, readonly width: number, readonly keys: Int32Array) {
    let size = 16;
    while (size < rel.n * 2) size *= 2;
    this.mask = size - 1;
    this.head = new Int32Array(size).fill(-1);
    this.nextRow = new Int32Array(Math.max(1, rel.n));
    for (let r = rel.n - 1; r >= 0; r--) {
      const h = hashSlots(rel.rows, r * width, keys) & this.mask;
      this.nextRow[r] = this.head[h]!;
      this.head[h] = r;
    }
  }

  private keyEq(r: number, src: Int32Array, off: number): boolean {
    const ro = r * this.width;
    const rows = this.rel.rows;
    for (let i = 0; i < this.keys.length; i++) {
      const s = this.keys[i]!;
      if (rows[ro + s] !== src[off + s]) return false;
    }
    return true;
  }

  /** First row whose key slots equal those of the probe row, or -1. */
  first(src: Int32Array, off: number): number {
    let r = this.head[hashSlots(src, off, this.keys) & this.mask]!;
    while (r >= 0 && !this.keyEq(r, src, off)) r = this.nextRow[r]!;
    return r;
  }

  /** The next row after `r` with the same key as the probe row, or -1. */
  next(r: number, src: Int32Array, off: number): number {
    r = this.nextRow[r]!;
    while (r >= 0 && !this.keyEq(r, src, off)) r = this.nextRow[r]!;
    return r;
  }
}

/** A set of rows keyed on some slots (DISTINCT); rows are copied in. */
export class RowSet {
  private rows: Int32Array;
  private head: Int32Array;
  private nextRow: Int32Array;
  private n = 0;
  private readonly k: number;

  constructor(readonly slots: Int32Array) {
    this.k = slots.length;
    this.rows = new Int32Array(64 * Math.max(1, this.k));
    this.head = new Int32Array(64).fill(-1);
    this.nextRow = new Int32Array(64);
  }

  /** Add the projection of a row; false when an equal one was already present. */
  add(src: Int32Array, off: number): boolean {
    const h = hashSlots(src, off, this.slots);
    let r = this.head[h & (this.head.length - 1)]!;
    while (r >= 0) {
      let eq = true;
      for (let i = 0; i < this.k; i++) if (this.rows[r * this.k + i] !== src[off + this.slots[i]!]) { eq = false; break; }
      if (eq) return false;
      r = this.nextRow[r]!;
    }
    if ((this.n + 1) * this.k > this.rows.length || this.n + 1 > this.nextRow.length) this.grow();
    for (let i = 0; i < this.k; i++) this.rows[this.n * this.k + i] = src[off + this.slots[i]!]!;
    if (this.n * 2 >= this.head.length) this.rehash();
    const b = hashSlots(src, off, this.slots) & (this.head.length - 1);
    this.nextRow[this.n] = this.head[b]!;
    this.head[b] = this.n;
    this.n++;
    return true;
  }

  private grow(): void {
    const rows = new Int32Array(Math.max(this.rows.length * 2, this.k * 2));
    rows.set(this.rows);
    this.rows = rows;
    const next = new Int32Array(this.nextRow.length * 2);
    next.set(this.nextRow);
    this.nextRow = next;
  }

  private rehash(): void {
    this.head = new Int32Array(this.head.length * 2).fill(-1);
    const ident = new Int32Array(this.k).map((_, i) => i);
    for (let r = 0; r < this.n; r++) {
      const b = hashSlots(this.rows, r * this.k, ident) & (this.head.length - 1);
      this.nextRow[r] = this.head[b]!;
      this.head[b] = r;
    }
  }
}
