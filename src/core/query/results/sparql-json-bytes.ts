/**
 * SPARQL JSON of a SELECT result that has term ids, written straight into UTF-8 bytes: the same
 * document as writeSparqlJsonChunked, byte for byte, but each term's fragment is copied from the
 * bytes cached beside its text (TermDict.termTextBytes) instead of being concatenated into a
 * string that the HTTP layer must then measure (Content-Length) and encode again.
 */
import { directKeys, termJson } from './sparql-json.js';
import type { IdSolutions, QueryResult } from './types.js';

const UTF8 = new TextEncoder();
const OPEN = 0x7b, CLOSE = 0x7d, COMMA = 0x2c, NL = 0x0a;
const ROWS_END = UTF8.encode('\n]}}\n');
const EMPTY_END = UTF8.encode(']}}\n');

/**
 * The SPARQL JSON document of `result` as byte chunks of about `chunkBytes` (a small result is one
 * chunk; each chunk is the caller's to keep), or null when the result has no term ids or its
 * variables need the object route (then writeSparqlJsonChunked writes it).
 */
export function sparqlJsonBytes(result: QueryResult, chunkBytes = 64 * 1024): AsyncIterable<Uint8Array> | null {
  if (result.type !== 'bindings' || !result.ids) return null;
  const keys = directKeys(result.variables);
  if (!keys) return null;
  return idBatchBytes(result.ids, keys.map((k) => UTF8.encode(k)), UTF8.encode(`{"head":{"vars":${JSON.stringify(result.variables)}},"results":{"bindings":[`), chunkBytes);
}

/** A growable byte buffer whose filled part is handed out as a chunk. */
class Bytes {
  buf: Uint8Array;
  n = 0;
  constructor(size: number) { this.buf = new Uint8Array(size); }

  /** Room for `k` more bytes. */
  room(k: number): Uint8Array {
    if (this.n + k > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + k));
      next.set(this.buf.subarray(0, this.n));
      this.buf = next;
    }
    return this.buf;
  }

  /** The bytes written so far (a view of this buffer, which is then dropped), starting a new one. */
  take(size: number): Uint8Array {
    const out = this.buf.subarray(0, this.n);
    this.buf = new Uint8Array(size);
    this.n = 0;
    return out;
  }
}

async function* idBatchBytes(ids: IdSolutions, keys: Uint8Array[], head: Uint8Array, chunkBytes: number): AsyncIterable<Uint8Array> {
  const { width, slots, unbound } = ids;
  // Most results are small: start at a size that holds a typical point query whole.
  const size = Math.min(chunkBytes + 4096, 16 * 1024);
  const out = new Bytes(Math.max(size, head.length + 64));
  out.room(head.length).set(head, 0);
  out.n = head.length;
  let first = true;
  for await (const b of ids.batches) {
    const rows = b.rows;
    for (let r = 0, at = 0; r < b.n; r++, at += width) {
      let buf = out.room(3);
      if (!first) buf[out.n++] = COMMA;
      buf[out.n++] = NL;
      buf[out.n++] = OPEN;
      first = false;
      let sep = false;
      for (let i = 0; i < slots.length; i++) {
        const s = slots[i]!;
        if (s < 0) continue;
        const id = rows[at + s]!;
        if (id === unbound) continue;
        const key = keys[i]!, term = ids.textBytes(id, termJson);
        buf = out.room(1 + key.length + term.length);
        if (sep) buf[out.n++] = COMMA;
        buf.set(key, out.n); out.n += key.length;
        buf.set(term, out.n); out.n += term.length;
        sep = true;
      }
      out.room(1)[out.n++] = CLOSE;
    }
    if (out.n >= chunkBytes) yield out.take(size);
  }
  const end = first ? EMPTY_END : ROWS_END;
  out.room(end.length).set(end, out.n);
  out.n += end.length;
  yield out.take(0);
}
