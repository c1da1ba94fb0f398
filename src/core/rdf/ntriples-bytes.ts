/**
 * N-Triples / N-Quads read from bytes for bulk loads (transact/bulk-sources.ts). Most term
 * occurrences in a large file repeat (predicates, classes, shared objects), so each term's bytes are
 * hashed while the line is scanned and looked up in a table of spellings seen before: only the first
 * occurrence of a spelling is decoded and read into a dictionary key (by ntriples.ts, the same code
 * as a line), later ones are ids straight from the bytes, with no JavaScript string per occurrence.
 * A line the byte scanner does not take whole (an error, or a blank-node label outside ASCII) is
 * decoded and read by the line reader, so errors and their line/column are exactly its own. Every
 * byte of a line taken here is checked: spaces and punctuation by the scanner, terms by the line
 * reader the first time their bytes are seen, comments by the UTF-8 decoder.
 */
import { badRequest } from '../errors.js';
import { readNTriplesLine, readNTriplesTerm } from './ntriples.js';

/** Where the byte reader puts statements, as ids the sink gives out. */
export interface IdSink {
  /** A new id for a key (one per distinct spelling of a term: two spellings of one key may get two). */
  fresh(key: string): number;
  /** The id of a key, numbered by its string (for lines read by the line reader). */
  keyId(key: string): number;
  /** The number of a graph name's key. */
  graphId(key: string): number;
  /** One statement: graph number (-1: the default graph), subject, predicate and object ids. */
  row(g: number, s: number, p: number, o: number): void;
}

/** Spellings longer than this are not remembered (long literals seldom repeat). */
const LONG = 512;
const FNV_BASIS = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** Byte spans → ids: open addressing on a 32-bit hash, the spans' bytes kept in one arena. */
class SpanTable {
  private slots: Int32Array; // entry + 1; 0 is empty
  private hashes: Int32Array;
  private bits: number;
  private count = 0;
  private off = new Int32Array(1024);
  private len = new Int32Array(1024);
  private val = new Int32Array(1024);
  private arena = new Uint8Array(1 << 16);
  private arenaView = new DataView(this.arena.buffer);
  private used = 0;
  /** A view of the bytes last looked up (a chunk, or the carried line), for comparing words. */
  private view: DataView | null = null;
  private viewOf: Uint8Array | null = null;
  /** The empty slot where the last missed span would go. */
  private slot = 0;

  constructor(bits: number) {
    this.bits = bits;
    this.slots = new Int32Array(1 << bits);
    this.hashes = new Int32Array(1 << bits);
  }

  /** The id of bytes `b[start, end)` with hash `h`, or -1 (then `put` may remember them). */
  get(b: Uint8Array, start: number, end: number, h: number): number {
    const n = end - start, slots = this.slots, hashes = this.hashes, mask = slots.length - 1;
    let i = Math.imul(h, 0x9e3779b1) >>> (32 - this.bits);
    for (;;) {
      const e = slots[i]!;
      if (e === 0) { this.slot = i; return -1; }
      if (hashes[i] === h && this.len[e - 1] === n) {
        // Four bytes at a time, then the rest.
        if (b !== this.viewOf) { this.viewOf = b; this.view = new DataView(b.buffer, b.byteOffset, b.byteLength); }
        const av = this.arenaView, bv = this.view!, a = this.arena;
        let o = this.off[e - 1]!, k = start;
        while (k + 4 <= end && av.getInt32(o) === bv.getInt32(k)) { o += 4; k += 4; }
        while (k < end && a[o] === b[k]) { o++; k++; }
        if (k === end) return this.val[e - 1]!;
      }
      i = (i + 1) & mask;
    }
  }

  /** Remember the span the last `get` missed. */
  put(b: Uint8Array, start: number, end: number, h: number, v: number): void {
    const n = end - start;
    if (n > LONG) return;
    if (this.count === this.off.length) {
      const grow = (a: Int32Array) => { const x = new Int32Array(a.length * 2); x.set(a); return x; };
      this.off = grow(this.off); this.len = grow(this.len); this.val = grow(this.val);
    }
    if (this.used + n > this.arena.length) {
      const a = new Uint8Array(Math.max(this.arena.length * 2, this.used + n));
      a.set(this.arena.subarray(0, this.used));
      this.arena = a;
      this.arenaView = new DataView(a.buffer);
    }
    this.arena.set(b.subarray(start, end), this.used);
    const e = this.count++;
    this.off[e] = this.used; this.len[e] = n; this.val[e] = v;
    this.used += n;
    this.slots[this.slot] = e + 1;
    this.hashes[this.slot] = h;
    if (this.count * 2 > this.slots.length) this.rehash();
  }

  private rehash(): void {
    const oldSlots = this.slots, oldHashes = this.hashes;
    this.bits++;
    this.slots = new Int32Array(1 << this.bits);
    this.hashes = new Int32Array(1 << this.bits);
    const mask = this.slots.length - 1;
    for (let j = 0; j < oldSlots.length; j++) {
      const e = oldSlots[j]!;
      if (e === 0) continue;
      const h = oldHashes[j]!;
      let i = Math.imul(h, 0x9e3779b1) >>> (32 - this.bits);
      while (this.slots[i] !== 0) i = (i + 1) & mask;
      this.slots[i] = e;
      this.hashes[i] = h;
    }
  }
}

/** A language tag's bytes after `@` (the line reader's `[a-zA-Z0-9-]`). */
function langByte(x: number): boolean {
  return (x >= 97 && x <= 122) || (x >= 65 && x <= 90) || (x >= 48 && x <= 57) || x === 45;
}

/** The 400 for input that is not UTF-8. */
export function utf8Error(): never {
  throw badRequest('the input is not valid UTF-8');
}

/** Subject, predicate, object, graph: what a term may be in each place (ntriples.ts `readNTriplesTerm`). */
type Place = 0 | 1 | 2 | 3;

/** An N-Triples (or, with `quads`, N-Quads) document fed as byte chunks into an IdSink. */
export class NTriplesByteReader {
  private readonly terms = new SpanTable(16);
  private readonly graphs = new SpanTable(4);
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private carry = new Uint8Array(1 << 12);
  private carryLen = 0;
  private lineNo: number;
  /** Where the last term read ends. */
  private pos = 0;

  /** `firstLine`: the number of the first line fed (above 1 for a piece of a document cut at a line feed: no byte-order mark there). */
  constructor(private readonly quads: boolean, private readonly sink: IdSink, firstLine = 1) {
    this.lineNo = firstLine - 1;
  }

  /** The next bytes of the document (lines may continue across chunks). */
  push(chunk: Uint8Array): void {
    let start = 0;
    if (this.carryLen > 0) {
      const nl = chunk.indexOf(10);
      if (nl < 0) { this.keep(chunk, 0); return; }
      this.keep(chunk.subarray(0, nl), 0);
      this.line(this.carry, 0, this.carryLen);
      this.carryLen = 0;
      start = nl + 1;
    }
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      this.line(chunk, start, nl);
      start = nl + 1;
    }
    if (start < chunk.length) this.keep(chunk, start);
  }

  /** The end of the document: its last line, if it has no line break. */
  end(): void {
    this.line(this.carry, 0, this.carryLen);
    this.carryLen = 0;
  }

  private keep(chunk: Uint8Array, from: number): void {
    const n = chunk.length - from;
    if (this.carryLen + n > this.carry.length) {
      const c = new Uint8Array(Math.max(this.carry.length * 2, this.carryLen + n));
      c.set(this.carry.subarray(0, this.carryLen));
      this.carry = c;
    }
    this.carry.set(from === 0 ? chunk : chunk.subarray(from), this.carryLen);
    this.carryLen += n;
  }

  /** One line `b[ls, le)`, without its line break. */
  private line(b: Uint8Array, ls: number, le: number): void {
    this.lineNo++;
    if (le > ls && b[le - 1] === 13) le--;
    // The decoder drops a byte-order mark at the start of the document; so does this.
    if (this.lineNo === 1 && le - ls >= 3 && b[ls] === 0xef && b[ls + 1] === 0xbb && b[ls + 2] === 0xbf) ls += 3;
    let i = ls;
    while (i < le && (b[i] === 32 || b[i] === 9)) i++;
    if (i === le) return;
    if (b[i] === 35) { this.comment(b, i, le); return; }
    const s = this.term(b, i, le, 0);
    if (s < 0) return this.slow(b, ls, le);
    i = this.skip(b, this.pos, le);
    const p = this.term(b, i, le, 1);
    if (p < 0) return this.slow(b, ls, le);
    i = this.skip(b, this.pos, le);
    const o = this.term(b, i, le, 2);
    if (o < 0) return this.slow(b, ls, le);
    i = this.skip(b, this.pos, le);
    let g = -1;
    if (this.quads && i < le && b[i] !== 46) {
      g = this.term(b, i, le, 3);
      if (g < 0) return this.slow(b, ls, le);
      i = this.skip(b, this.pos, le);
    }
    if (i >= le || b[i] !== 46) return this.slow(b, ls, le);
    i = this.skip(b, i + 1, le);
    if (i < le) {
      if (b[i] !== 35) return this.slow(b, ls, le);
      this.comment(b, i, le);
    }
    this.sink.row(g, s, p, o);
  }

  private skip(b: Uint8Array, i: number, le: number): number {
    while (i < le && (b[i] === 32 || b[i] === 9)) i++;
    return i;
  }

  /** A comment is ignored, but must be UTF-8 like the rest of the document. */
  private comment(b: Uint8Array, i: number, le: number): void {
    for (let k = i; k < le; k++) {
      if (b[k]! >= 128) {
        try { this.decoder.decode(b.subarray(i, le)); } catch { utf8Error(); }
        return;
      }
    }
  }

  /**
   * The id of the term at `b[i]` in `place` (its end in `pos`), or -1 when the scanner does not
   * take it (the line then goes to the line reader).
   */
  private term(b: Uint8Array, i: number, le: number, place: Place): number {
    const c = b[i];
    let h = FNV_BASIS, end: number;
    if (c === 60) {
      let j = i;
      for (; j < le; j++) {
        const x = b[j]!;
        h = Math.imul(h ^ x, FNV_PRIME);
        if (x === 62) break;
      }
      if (j >= le) return -1;
      end = j + 1;
    } else {
      if (c === 95 && place !== 1) {
        if (b[i + 1] !== 58) return -1;
        let j = i + 2;
        for (; j < le; j++) {
          const x = b[j]!;
          if (x === 32 || x === 9 || x === 60 || x === 62 || x === 34 || (x >= 10 && x <= 13)) break;
          if (x >= 128) return -1; // the line reader's label and space classes are Unicode's
        }
        while (j > i + 2 && b[j - 1] === 46) j--; // a trailing '.' ends the statement
        end = j;
      } else if (c === 34 && place === 2) {
        let j = i + 1;
        for (;;) {
          while (j < le && b[j] !== 34) j++;
          if (j >= le) return -1;
          let k = j - 1, bs = 0;
          while (k > i && b[k] === 92) { bs++; k--; }
          if ((bs & 1) === 0) break;
          j++;
        }
        j++;
        if (j < le && b[j] === 64) {
          j++;
          while (j < le && langByte(b[j]!)) j++;
        } else if (j + 1 < le && b[j] === 94 && b[j + 1] === 94) {
          if (b[j + 2] !== 60) return -1;
          j += 3;
          while (j < le && b[j] !== 62) j++;
          if (j >= le) return -1;
          j++;
        }
        end = j;
      } else {
        return -1;
      }
      for (let k = i; k < end; k++) h = Math.imul(h ^ b[k]!, FNV_PRIME);
    }
    const table = place === 3 ? this.graphs : this.terms;
    let v = table.get(b, i, end, h);
    if (v < 0) {
      let key: string;
      try {
        key = readNTriplesTerm(this.decoder.decode(b.subarray(i, end)), place, this.lineNo);
      } catch {
        return -1;
      }
      v = place === 3 ? this.sink.graphId(key) : this.sink.fresh(key);
      table.put(b, i, end, h, v);
    }
    this.pos = end;
    return v;
  }

  /** A line the scanner did not take, read by the line reader (which throws its errors). */
  private slow(b: Uint8Array, ls: number, le: number): void {
    let text: string;
    try { text = this.decoder.decode(b.subarray(ls, le)); } catch { utf8Error(); }
    const kq = readNTriplesLine(text, this.lineNo, this.quads);
    if (!kq) return;
    const sink = this.sink;
    sink.row(kq.g === null ? -1 : sink.graphId(kq.g), sink.keyId(kq.s), sink.keyId(kq.p), sink.keyId(kq.o));
  }
}
