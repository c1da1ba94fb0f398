/**
 * A large N-Triples body read as pieces on several threads (body-thread.ts): the main thread cuts
 * the body after a line feed into pieces and hands each to one of the reading threads. A thread
 * reads its pieces of a body with one reader (`PieceReader`: its spelling table and keys carry over
 * from one of its pieces to the next, since no line crosses a piece's edge) and posts per piece the
 * keys new to it and the piece's statements as its own numbers, and the piece escaped for the
 * transaction blob. The main thread merges the pieces in body order (`PieceMerge`) as they arrive:
 * each key once, numbered in the order it first appears in the body, so the statements, the order
 * dictionary ids are given out in and every commit byte are those of reading the body whole.
 */
import { escapeJsonUtf8 } from '../core/commit/txn-blob.js';
import type { KeyRows } from '../core/transact/txn-request.js';
import { NTriplesBody } from './ntriples-body.js';

/** One piece as its reader posts it: keys new to the reader (in the order it met them), the statements as the reader's key numbers, and the piece escaped. */
export interface PieceRows {
  readonly keys: readonly string[];
  readonly n: number;
  readonly s: Int32Array;
  readonly p: Int32Array;
  readonly o: Int32Array;
  readonly escaped: Uint8Array;
}

/** One thread's reading of its pieces of one body (in body order; each piece ends after a line feed, but the last). */
export class PieceReader {
  private body: NTriplesBody | null = null;
  private keysSent = 0;
  private rowsSent = 0;

  /**
   * The next piece: piece `first` is the body's first (its byte-order mark is dropped), `last` its
   * last (a line without a line feed ends it). Null: not plain N-Triples.
   */
  read(chunk: Uint8Array, first: boolean, last: boolean): PieceRows | null {
    // The bytes were checked to be UTF-8 on the main thread.
    const body = (this.body ??= new NTriplesBody(false, first));
    if (!body.feed(chunk) || (last && !body.end())) return null;
    const all = body.rows();
    const keys = all.keys.slice(this.keysSent);
    const from = this.rowsSent;
    this.keysSent = all.keys.length;
    this.rowsSent = all.n;
    // Copies of the piece's rows (the sink's columns grow on), each in a buffer of its own that can move.
    const bom = first && chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
    return { keys, n: all.n - from, s: all.s.slice(from), p: all.p.slice(from), o: all.o.slice(from), escaped: escapeJsonUtf8(chunk, bom ? 3 : 0, chunk.length) };
  }
}

/** A body's pieces merged in body order, whatever order they arrive in. */
export class PieceMerge {
  /** Pieces merged so far (the next one merged is this one). */
  merged = 0;
  private readonly ids = new Map<string, number>();
  private readonly keys: string[] = [];
  private n = 0;
  private s = new Int32Array(1 << 12);
  private p = new Int32Array(1 << 12);
  private o = new Int32Array(1 << 12);
  /** The pieces' escaped text, joined once at the end (one copy, no regrowing). */
  private readonly text: Uint8Array[] = [];
  private textLen = 0;
  /** Per reader: its key numbers → merged key numbers. */
  private readonly locals = new Map<number, { map: Int32Array; n: number }>();
  private readonly waiting = new Map<number, { reader: number; piece: PieceRows }>();

  /** Piece `seq` of the body, read by reader `reader` (a reader's pieces must arrive in body order). */
  add(seq: number, reader: number, piece: PieceRows): void {
    this.waiting.set(seq, { reader, piece });
    for (let w = this.waiting.get(this.merged); w; w = this.waiting.get(this.merged)) {
      this.waiting.delete(this.merged++);
      this.take(w.reader, w.piece);
    }
  }

  /** The statements and escaped text of the pieces merged. */
  result(): { rows: KeyRows; escaped: Uint8Array } {
    return {
      rows: { n: this.n, keys: this.keys, s: this.s.subarray(0, this.n), p: this.p.subarray(0, this.n), o: this.o.subarray(0, this.n) },
      escaped: this.joinedText(),
    };
  }

  private joinedText(): Uint8Array {
    if (this.text.length === 1) return this.text[0]!;
    const out = new Uint8Array(this.textLen);
    let at = 0;
    for (const t of this.text) { out.set(t, at); at += t.length; }
    this.text.length = 0;
    this.text.push(out);
    return out;
  }

  private take(reader: number, piece: PieceRows): void {
    let local = this.locals.get(reader);
    if (!local) this.locals.set(reader, (local = { map: new Int32Array(1 << 12), n: 0 }));
    if (local.n + piece.keys.length > local.map.length) local.map = grown(local.map, local.n, local.n + piece.keys.length);
    // Keys new to the reader, in the order it met them: a key new to the body is numbered next.
    for (const key of piece.keys) {
      let id = this.ids.get(key);
      if (id === undefined) this.ids.set(key, (id = this.keys.push(key) - 1));
      local.map[local.n++] = id;
    }
    const n = this.n, m = local.map;
    if (n + piece.n > this.s.length) {
      this.s = grown(this.s, n, n + piece.n); this.p = grown(this.p, n, n + piece.n); this.o = grown(this.o, n, n + piece.n);
    }
    const s = this.s, p = this.p, o = this.o;
    for (let i = 0; i < piece.n; i++) {
      s[n + i] = m[piece.s[i]!]!; p[n + i] = m[piece.p[i]!]!; o[n + i] = m[piece.o[i]!]!;
    }
    this.n = n + piece.n;
    this.text.push(piece.escaped);
    this.textLen += piece.escaped.length;
  }
}

/** `a`'s first `used` items in a larger array of the same kind holding at least `need`. */
function grown(a: Int32Array, used: number, need: number): Int32Array<ArrayBuffer> {
  const x = new Int32Array(Math.max(a.length * 2, need));
  x.set(a.subarray(0, used));
  return x;
}
