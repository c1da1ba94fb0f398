/**
 * SPARQL JSON of a SELECT result that has term ids, written straight into UTF-8 bytes: the same
 * document as writeSparqlJsonChunked, byte for byte, but each stored term's fragment is copied
 * from its cached bytes (term-bytes.ts) instead of being concatenated into a string that the HTTP
 * layer must then measure (Content-Length) and encode again.
 */
import { directKeys, termJson } from './sparql-json.js';
import { termBytes, type TermBytes } from './term-bytes.js';
import type { IdSolutions, QueryResult } from './types.js';

const UTF8 = new TextEncoder();
const OPEN = 0x7b, CLOSE = 0x7d, COMMA = 0x2c, NL = 0x0a;
const ROWS_END = UTF8.encode('\n]}}\n');
const EMPTY_END = UTF8.encode(']}}\n');
/** Fragments up to this many bytes are copied in a loop rather than through a subarray view (measured: the view costs more below it). */
const COPY_LOOP_MAX = 24;

/**
 * The SPARQL JSON document of `result` as byte chunks of about `chunkBytes` (a small result is one
 * chunk; each chunk is the caller's, to keep or to hand back with releaseSparqlJsonBytes), or null when the result has no term ids or its
 * variables need the object route (then writeSparqlJsonChunked writes it).
 */
export function sparqlJsonBytes(result: QueryResult, chunkBytes = 64 * 1024, cache: TermBytes = termBytes()): AsyncIterable<Uint8Array> | null {
  if (result.type !== 'bindings' || !result.ids) return null;
  const fixed = fixedParts(result.variables);
  if (!fixed) return null;
  return idBatchBytes(result.ids, fixed.keys, fixed.head, chunkBytes, cache);
}

/** The bytes of a document's head and of its `"name":` keys, by variable list (null: the object route). */
interface FixedParts { head: Uint8Array; keys: Uint8Array[] }
const fixedByVars = new Map<string, FixedParts | null>();
const FIXED_MAX = 512;

function fixedParts(vars: string[]): FixedParts | null {
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

async function* idBatchBytes(ids: IdSolutions, keys: Uint8Array[], head: Uint8Array, chunkBytes: number, cache: TermBytes): AsyncIterable<Uint8Array> {
  const out = new Bytes();
  try {
    yield* rowBytes(ids, keys, head, chunkBytes, cache, out);
  } finally {
    out.release();
  }
}

async function* rowBytes(ids: IdSolutions, keys: Uint8Array[], head: Uint8Array, chunkBytes: number, cache: TermBytes, out: Bytes): AsyncIterable<Uint8Array> {
  const { width, slots, unbound, computed } = ids;
  const ring = cache.ring;
  const tag = cache.tag(ids.space);
  out.room(head.length).set(head, 0);
  out.n = head.length;
  let first = true;
  for await (const b of ids.batches) {
    const rows = b.rows;
    for (let r = 0, at = 0; r < b.n; r++, at += width) {
      let buf = out.room(3);
      let n = out.n;
      if (!first) buf[n++] = COMMA;
      buf[n++] = NL;
      buf[n++] = OPEN;
      first = false;
      let sep = false;
      for (let i = 0; i < slots.length; i++) {
        const s = slots[i]!;
        if (s < 0) continue;
        const id = rows[at + s]!;
        if (id === unbound) continue;
        const key = keys[i]!;
        // Terms the query computed have no lasting id: written, never kept.
        let from = id < computed ? cache.find(tag, id) : -1;
        let text = '';
        if (from < 0) {
          text = ids.text(id, termJson);
          if (id < computed) from = cache.put(tag, id, text);
        }
        const len = from < 0 ? text.length * 3 : cache.found;
        out.n = n;
        buf = out.room(1 + key.length + len);
        if (sep) buf[n++] = COMMA;
        sep = true;
        // Short copies byte by byte: a subarray view per fragment costs more than its bytes.
        for (let k = 0; k < key.length; k++) buf[n++] = key[k]!;
        if (from < 0) {
          n += UTF8.encodeInto(text, buf.subarray(n)).written;
        } else if (len <= COPY_LOOP_MAX) {
          for (let k = from, end = from + len; k < end; k++) buf[n++] = ring[k]!;
        } else {
          buf.set(ring.subarray(from, from + len), n);
          n += len;
        }
      }
      out.n = n;
      out.room(1)[out.n++] = CLOSE;
      // Within the batch too (its rows stay valid until the next is pulled): one batch can be a
      // whole sorted result, and a chunk must not grow with it.
      if (out.n >= chunkBytes) yield out.take(false);
    }
  }
  const end = first ? EMPTY_END : ROWS_END;
  out.room(end.length).set(end, out.n);
  out.n += end.length;
  yield out.take(true);
}
