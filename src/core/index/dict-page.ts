/**
 * Persisted dictionary pages (docs/dictionary.md). Ids are dense and append-only, so page k holds
 * the keys of ids [k·PAGE_IDS, (k+1)·PAGE_IDS): id → key is one page fetch. Key → id goes through
 * a Bloom filter per page (FILTER_BITS bits), grouped FILTERS_PER_GROUP to a blob, so a lookup
 * fetches only the page(s) whose filter matches. Both blobs are binary under Codec.dict; the
 * first byte tells them from the JSON chunks of the old format.
 *
 * Page: 0xD1, varint from, varint count, then per key varint shared (UTF-16 units in common with
 * the previous key) and varint suffix length (UTF-16 units), then the UTF-8 of all suffixes.
 * Filter group: 0xF1, varint first page, varint count, padding to 4 bytes, count × FILTER_WORDS
 * little-endian uint32 words.
 */
import { constraintViolation } from '../errors.js';

/** log2 of the ids per page. */
export const PAGE_SHIFT = 10;
/** Ids per page. */
export const PAGE_IDS = 1 << PAGE_SHIFT;
/** Bits of one page's Bloom filter (16 per key of a full page: ≈ 0.05 % false positives with 8 probes). */
export const FILTER_BITS = PAGE_IDS * 16;
/** 32-bit words of one page's filter. */
export const FILTER_WORDS = FILTER_BITS >>> 5;
const FILTER_MASK = FILTER_BITS - 1;
/** Probes per key (double hashing). */
export const FILTER_K = 8;
/** Page filters per filter-group blob. */
export const FILTERS_PER_GROUP = 32;

const PAGE_MAGIC = 0xd1;
const FILTER_MAGIC = 0xf1;

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Two independent 32-bit hashes of a key (FNV-1a and a multiplicative mix), for double hashing. */
export function keyHashes(key: string, out: Uint32Array): void {
  let h1 = 0x811c9dc5, h2 = 0x9747b28c ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h2 = Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35);
  out[0] = h1 ^ (h1 >>> 16);
  out[1] = (h2 ^ (h2 >>> 16)) | 1;
}

/** Add a key (by its hashes) to the filter at word offset `at`. */
export function filterAdd(words: Uint32Array, at: number, h: Uint32Array): void {
  const h1 = h[0]!, h2 = h[1]!;
  for (let i = 0; i < FILTER_K; i++) {
    const bit = (h1 + Math.imul(i, h2)) & FILTER_MASK;
    words[at + (bit >>> 5)] |= 1 << (bit & 31);
  }
}

/** False when the key is certainly not in the filter at word offset `at`. */
export function filterHas(words: Uint32Array, at: number, h: Uint32Array): boolean {
  const h1 = h[0]!, h2 = h[1]!;
  for (let i = 0; i < FILTER_K; i++) {
    const bit = (h1 + Math.imul(i, h2)) & FILTER_MASK;
    if ((words[at + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
  }
  return true;
}

class Writer {
  buf = new Uint8Array(1 << 16);
  n = 0;
  need(k: number): void {
    if (this.n + k <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.n + k) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }
  byte(b: number): void { this.need(1); this.buf[this.n++] = b; }
  varint(v: number): void {
    this.need(5);
    while (v >= 0x80) { this.buf[this.n++] = (v & 0x7f) | 0x80; v >>>= 7; }
    this.buf[this.n++] = v;
  }
  bytes(b: Uint8Array): void { this.need(b.length); this.buf.set(b, this.n); this.n += b.length; }
  done(): Uint8Array { return this.buf.slice(0, this.n); }
}

class Reader {
  i = 0;
  constructor(readonly b: Uint8Array, readonly what: string) {}
  varint(): number {
    let v = 0, shift = 0;
    for (;;) {
      if (this.i >= this.b.length) throw constraintViolation(`malformed ${this.what}: truncated`);
      const x = this.b[this.i++]!;
      v += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) return v;
      shift += 7;
      if (shift > 35) throw constraintViolation(`malformed ${this.what}: bad varint`);
    }
  }
}

/** Encode the keys of ids [from, from + keys.length) as a page (front-coded). */
export function encodeDictPage(from: number, keys: readonly string[]): Uint8Array {
  const w = new Writer();
  w.byte(PAGE_MAGIC);
  w.varint(from);
  w.varint(keys.length);
  const suffixes: string[] = [];
  let prev = '';
  for (const k of keys) {
    const max = Math.min(prev.length, k.length);
    let shared = 0;
    while (shared < max && prev.charCodeAt(shared) === k.charCodeAt(shared)) shared++;
    // Never split a surrogate pair: the suffix must be valid UTF-16 on its own.
    if (shared > 0 && shared < k.length && (k.charCodeAt(shared) & 0xfc00) === 0xdc00) shared--;
    w.varint(shared);
    w.varint(k.length - shared);
    suffixes.push(k.slice(shared));
    prev = k;
  }
  w.bytes(enc.encode(suffixes.join('')));
  return w.done();
}

/** True when a Codec.dict blob is a page of this format (not an old JSON chunk or a filter group). */
export function isDictPage(bytes: Uint8Array): boolean { return bytes[0] === PAGE_MAGIC; }

/** Decode a page: its first id and its keys (flat strings). */
export function decodeDictPage(bytes: Uint8Array): { from: number; keys: string[] } {
  if (bytes[0] !== PAGE_MAGIC) throw constraintViolation('malformed dictionary page: unknown format');
  const r = new Reader(bytes, 'dictionary page');
  r.i = 1;
  const from = r.varint(), count = r.varint();
  if (count > PAGE_IDS) throw constraintViolation('malformed dictionary page: too many keys');
  const shared = new Uint32Array(count), lens = new Uint32Array(count);
  for (let i = 0; i < count; i++) { shared[i] = r.varint(); lens[i] = r.varint(); }
  const text = dec.decode(bytes.subarray(r.i));
  const keys = new Array<string>(count);
  let prev = '', at = 0;
  for (let i = 0; i < count; i++) {
    if (shared[i]! > prev.length || at + lens[i]! > text.length) throw constraintViolation('malformed dictionary page: bad key lengths');
    prev = prev.slice(0, shared[i]) + text.slice(at, at + lens[i]!);
    at += lens[i]!;
    keys[i] = prev;
  }
  // Sliced and concatenated strings hold their parents alive; pages stay cached, so flatten once.
  return { from, keys: JSON.parse(JSON.stringify(keys)) as string[] };
}

/** The filter of one page's keys. */
export function pageFilter(keys: readonly string[]): Uint32Array {
  const words = new Uint32Array(FILTER_WORDS);
  const h = new Uint32Array(2);
  for (const k of keys) { keyHashes(k, h); filterAdd(words, 0, h); }
  return words;
}

/** Encode the filters of pages [firstPage, firstPage + filters.length) as one blob. */
export function encodeFilterGroup(firstPage: number, filters: readonly Uint32Array[]): Uint8Array {
  const w = new Writer();
  w.byte(FILTER_MAGIC);
  w.varint(firstPage);
  w.varint(filters.length);
  while (w.n % 4 !== 0) w.byte(0);
  const words = new Uint32Array(filters.length * FILTER_WORDS);
  filters.forEach((f, i) => words.set(f, i * FILTER_WORDS));
  const le = new Uint8Array(words.length * 4);
  const view = new DataView(le.buffer);
  for (let i = 0; i < words.length; i++) view.setUint32(i * 4, words[i]!, true);
  w.bytes(le);
  return w.done();
}

/** Decode a filter group: its first page and count × FILTER_WORDS words. */
export function decodeFilterGroup(bytes: Uint8Array): { firstPage: number; count: number; words: Uint32Array } {
  if (bytes[0] !== FILTER_MAGIC) throw constraintViolation('malformed dictionary filter: unknown format');
  const r = new Reader(bytes, 'dictionary filter');
  r.i = 1;
  const firstPage = r.varint(), count = r.varint();
  while (r.i % 4 !== 0) r.i++;
  if (count > FILTERS_PER_GROUP || bytes.length - r.i !== count * FILTER_WORDS * 4) throw constraintViolation('malformed dictionary filter: bad length');
  const words = new Uint32Array(count * FILTER_WORDS);
  const view = new DataView(bytes.buffer, bytes.byteOffset + r.i, count * FILTER_WORDS * 4);
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, true);
  return { firstPage, count, words };
}
