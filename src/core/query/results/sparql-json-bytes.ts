/**
 * SPARQL JSON of a SELECT result that has term ids, written straight into UTF-8 bytes: the same
 * document as writeSparqlJsonChunked, byte for byte, but each stored term's fragment is copied
 * from its cached bytes (term-bytes.ts) instead of being concatenated into a string that the HTTP
 * layer must then measure (Content-Length) and encode again.
 */
import { directKeys, termJson } from './sparql-json.js';
import { termBytes, type TermBytes } from './term-bytes.js';
import type { IdSolutions, QueryResult } from './types.js';

/** One batch of id rows as IdSolutions.batches yields it. */
type Batch = { n: number; rows: Int32Array };

const UTF8 = new TextEncoder();
const OPEN = 0x7b, CLOSE = 0x7d, COMMA = 0x2c, NL = 0x0a;
const ROWS_END = UTF8.encode('\n]}}\n');
const EMPTY_END = UTF8.encode(']}}\n');

/**
 * The SPARQL JSON document of `result` as byte chunks of about `chunkBytes` (a small result is one
 * chunk; each chunk is the caller's, to keep or to hand back with releaseSparqlJsonBytes), or null when the result has no term ids or its
 * variables need the object route (then writeSparqlJsonChunked writes it).
 */
export function sparqlJsonBytes(result: QueryResult, chunkBytes = 64 * 1024, cache: TermBytes = termBytes()): SparqlJsonByteChunks | null {
  if (result.type !== 'bindings' || !result.ids) return null;
  const fixed = fixedParts(result.variables);
  if (!fixed) return null;
  return new SparqlJsonByteChunks(result.ids, fixed.keys, fixed.head, chunkBytes, cache);
}

/** The bytes of a document's head and of its `"name":` keys, by variable list (null: the object route). */
interface FixedParts { head: Uint8Array; keys: Uint8Array[] }
const fixedByVars = new Map<string, FixedParts | null>();
const FIXED_MAX = 512;

/**
 * By the variable list itself: a parsed query's list is shared by every result of that parse (and
 * of its shape's other texts), so the usual look-up builds no key string. Lists are never changed.
 */
const fixedByList = new WeakMap<readonly string[], FixedParts | null>();

function fixedParts(vars: string[]): FixedParts | null {
  let f = fixedByList.get(vars);
  if (f !== undefined) return f;
  f = fixedByKey(vars);
  fixedByList.set(vars, f);
  return f;
}

function fixedByKey(vars: string[]): FixedParts | null {
  const k = vars.join('\u0000') + '\u0000' + vars.length;
  let f = fixedByVars.get(k);
  if (f !== undefined) return f;
  const keys = directKeys(vars);
  f = keys ? { keys: keys.map((x) => UTF8.encode(x)), head: UTF8.encode(`{"head":{"vars":${JSON.stringify(vars)}},"results":{"bindings":[`) } : null;
  if (fixedByVars.size >= FIXED_MAX) fixedByVars.clear();
  fixedByVars.set(k, f);
  return f;
}

/** Size of a pooled buffer: a typical point query's document fits. */
const POOLED = 16 * 1024;
/**
 * Buffers for the next writers. A fresh ArrayBuffer per response is not only an allocation: V8
 * counts its memory as external, and every 64 MB of that starts a full GC of the server's heap.
 */
const pool: Uint8Array[] = [];
const POOL_MAX = 64;
const NONE = new Uint8Array(0);

/**
 * Hand a chunk of sparqlJsonBytes back once nothing reads it any more (e.g. the socket has taken
 * it): its buffer serves a later response. Optional: a chunk never handed back is garbage as usual.
 */
export function releaseSparqlJsonBytes(chunk: Uint8Array): void {
  recycle(new Uint8Array(chunk.buffer as ArrayBuffer));
}

/** Keep a whole pooled-size buffer for a later writer (others are left to the GC). */
function recycle(buf: Uint8Array): void {
  if (buf.length === POOLED && pool.length < POOL_MAX) pool.push(buf);
}

/** A growable byte buffer whose filled part is handed out as a chunk. */
class Bytes {
  buf: Uint8Array = pool.pop() ?? new Uint8Array(POOLED);
  n = 0;

  /** Room for `k` more bytes. */
  room(k: number): Uint8Array {
    if (this.n + k > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + k));
      next.set(this.buf.subarray(0, this.n));
      recycle(this.buf);
      this.buf = next;
    }
    return this.buf;
  }

  /** The bytes written so far (a view of the buffer, which goes with them), starting over in another buffer unless `last`. */
  take(last: boolean): Uint8Array {
    const b = this.buf, n = this.n;
    this.n = 0;
    this.buf = last ? NONE : pool.pop() ?? new Uint8Array(POOLED);
    return b.subarray(0, n);
  }

  /** Give an unused buffer back (a writer abandoned mid-way). */
  release(): void {
    recycle(this.buf);
    this.buf = NONE;
  }
}

/**
 * The document written a chunk at a time by `next()`: a plain object, not a generator, so a
 * caller that wants a small result whole (chunksBody) takes it in one call, with no generator or
 * promise layers between the engine's batches and the bytes; iterating it yields the same chunks.
 */
export class SparqlJsonByteChunks implements AsyncIterable<Uint8Array> {
  /** True once `next()` has returned the last chunk (or the writer was closed). */
  done = false;
  private readonly it: AsyncIterator<Batch>;
  private readonly w: RowWriter;
  private readonly out = new Bytes();
  /** The batch being written (its rows stay valid until the next is pulled) and its next row. */
  private batch: Batch | null = null;
  private r = 0;

  constructor(ids: IdSolutions, keys: Uint8Array[], head: Uint8Array, private readonly chunkBytes: number, cache: TermBytes) {
    this.it = ids.batches[Symbol.asyncIterator]();
    this.w = { ids, keys, cache, tag: cache.tag(ids.space), out: this.out, first: true };
    this.out.room(head.length).set(head, 0);
    this.out.n = head.length;
  }

  /**
   * The next chunk (about `chunkBytes`, the last one ends the document), or null after the last.
   * A failure closes the writer (its buffer back to the pool, the batches' iterator returned).
   */
  async next(): Promise<Uint8Array | null> {
    if (this.done) return null;
    const { out, w, chunkBytes } = this;
    try {
      for (;;) {
        let b = this.batch;
        if (b === null) {
          const x = await this.it.next();
          if (x.done) break;
          b = this.batch = x.value;
          this.r = 0;
        }
        // Within the batch too: one batch can be a whole sorted result, and a chunk must not grow with it.
        this.r = writeRows(w, b.rows, b.n, this.r, chunkBytes);
        if (this.r >= b.n) this.batch = null;
        if (out.n >= chunkBytes) return out.take(false);
      }
    } catch (e) {
      await this.close();
      throw e;
    }
    const end = w.first ? EMPTY_END : ROWS_END;
    out.room(end.length).set(end, out.n);
    out.n += end.length;
    this.done = true;
    return out.take(true);
  }

  /** Stop early: the unused buffer back to the pool and the batches' iterator returned (the plan's end). */
  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.batch = null;
    this.out.release();
    await this.it.return?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    try {
      for (let c = await this.next(); c !== null; c = await this.next()) yield c;
    } finally {
      await this.close();
    }
  }
}

/** What writeRows needs besides the batch. */
interface RowWriter { ids: IdSolutions; keys: Uint8Array[]; cache: TermBytes; tag: number; out: Bytes; first: boolean }

/**
 * Write rows `from`.. of a batch until it ends or the output reaches `chunkBytes`; the next row to
 * write. Rows are assembled in the term cache's scratch bytes, which follow its ring in one array,
 * so a cached fragment is one `copyWithin` (no view object per term); the scratch is moved to the
 * output when full and before returning (it is shared: nothing stays there across an await). A
 * fragment that is not in the ring (computed, or too long to keep) is written to the output directly.
 */
function writeRows(w: RowWriter, rows: Int32Array, count: number, from: number, chunkBytes: number): number {
  const { ids, keys, cache, tag, out } = w;
  const { width, slots, unbound, computed } = ids;
  const s = cache.bytes;
  const base = cache.scratchAt, limit = s.length;
  let m = base;
  let r = from;
  let touched = from;
  for (let at = r * width; r < count; r++, at += width) {
    if (r === touched) {
      touched = Math.min(count, r + TOUCH_ROWS);
      touchRows(w, rows, at, touched - r);
    }
    // Room for `,\n{` and the closing `}` of a row that binds nothing.
    if (m + 4 > limit) m = flush(out, s, base, m);
    if (!w.first) s[m++] = COMMA;
    s[m++] = NL;
    s[m++] = OPEN;
    w.first = false;
    let sep = false;
    for (let i = 0; i < slots.length; i++) {
      const sl = slots[i]!;
      if (sl < 0) continue;
      const id = rows[at + sl]!;
      if (id === unbound) continue;
      const key = keys[i]!;
      // Terms the query computed have no lasting id: written, never kept.
      let place = id < computed ? cache.find(tag, id) : -1;
      let text = '';
      if (place < 0) {
        text = ids.text(id, termJson);
        if (id < computed) place = cache.put(tag, id, text);
      }
      if (place < 0) {
        // Straight into the output, after what the scratch holds (the row's `}` still goes to the scratch).
        m = flush(out, s, base, m);
        let n = out.n;
        const buf = out.room(1 + key.length + text.length * 3);
        if (sep) buf[n++] = COMMA;
        for (let k = 0; k < key.length; k++) buf[n++] = key[k]!;
        out.n = n + UTF8.encodeInto(text, buf.subarray(n)).written;
      } else {
        const len = cache.found;
        // The separator, the key, the fragment and the row's closing `}` (a kept fragment is far smaller than the scratch).
        if (m + 2 + key.length + len > limit) m = flush(out, s, base, m);
        if (sep) s[m++] = COMMA;
        // A key (`"name":`) is a few bytes: copied in a loop.
        for (let k = 0; k < key.length; k++) s[m++] = key[k]!;
        s.copyWithin(m, place, place + len);
        m += len;
      }
      sep = true;
    }
    s[m++] = CLOSE;
    if (out.n + (m - base) >= chunkBytes) {
      flush(out, s, base, m);
      return r + 1;
    }
  }
  flush(out, s, base, m);
  return r;
}

/** Rows whose terms' table entries and fragments are touched ahead of writing them. */
const TOUCH_ROWS = 32;
/** Where touchRows leaves its reads' meaningless sum. */
let touchSink = 0;

/** Touch the table entries and fragments of `k` rows from `at` (TermBytes.touch: their cache misses overlap). */
function touchRows(w: RowWriter, rows: Int32Array, at: number, k: number): void {
  const { ids, cache, tag } = w;
  const { width, slots, unbound, computed } = ids;
  let sum = 0;
  for (let end = at + k * width; at < end; at += width) {
    for (let i = 0; i < slots.length; i++) {
      const sl = slots[i]!;
      if (sl < 0) continue;
      const id = rows[at + sl]!;
      if (id !== unbound && id < computed) sum += cache.touch(tag, id);
    }
  }
  touchSink ^= sum;
}

/** Move the scratch's bytes `base`..`m` to the end of the output; the scratch's start. */
function flush(out: Bytes, s: Uint8Array, base: number, m: number): number {
  const k = m - base;
  if (k > 0) {
    out.room(k).set(s.subarray(base, m), out.n);
    out.n += k;
  }
  return base;
}
