/**
 * Byte-level building blocks of Ledgraph's binary formats (replication.md notation): u8/u16/u32
 * little-endian, unsigned LEB128 varints, zigzag varints, length-prefixed UTF-8 strings and byte
 * strings, f64 LE and binary CIDs. Plain Uint8Array/DataView so it runs in browsers and Node.
 *
 * Readers are strict because every blob comes from storage or the network: every read is bounds
 * checked, varints must be minimal (one value, one encoding, so equal content hashes equally),
 * strings must be valid UTF-8; any failure is a 422 `err:db/ConstraintViolation`
 * "malformed <what>: <why>".
 */
import { CID } from 'multiformats/cid';
import { LedgraphError, internalError } from '../errors.js';

const SHA2_256 = 0x12;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MAX_SAFE_BIG = BigInt(MAX_SAFE);
const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;
/** Any surrogate: the cheap pre-check before the exact lone-surrogate scan. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** True when a string has an unpaired surrogate, which UTF-8 cannot encode (TextEncoder would write U+FFFD). */
function hasLoneSurrogate(s: string): boolean {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c >= 0xdc00) return true;
    const d = s.charCodeAt(k + 1);
    if (!(d >= 0xdc00 && d <= 0xdfff)) return true;
    k++;
  }
  return false;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Bytes an unsigned varint of a safe integer takes. */
export function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

/** A growable little-endian byte writer. */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
    this.view = new DataView(this.buf.buffer);
  }

  /** Bytes written so far. */
  get length(): number { return this.pos; }

  private ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /** One unsigned byte. */
  u8(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xff) throw internalError(`cannot encode ${v} as u8`);
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  /** Unsigned 16-bit little-endian. */
  u16(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw internalError(`cannot encode ${v} as u16`);
    this.ensure(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
    return this;
  }

  /** Unsigned 32-bit little-endian. */
  u32(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw internalError(`cannot encode ${v} as u32`);
    this.ensure(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
    return this;
  }

  /** Overwrite a u32 at an earlier offset (length fields known only after the body is written). */
  setU32(offset: number, v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw internalError(`cannot encode ${v} as u32`);
    if (!Number.isInteger(offset) || offset < 0 || offset + 4 > this.pos) throw internalError(`u32 offset ${offset} out of range`);
    this.view.setUint32(offset, v, true);
    return this;
  }

  /** Unsigned LEB128 varint of a non-negative integer below 2^64. */
  varint(v: number | bigint): this {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v) || v < 0) {
        if (Number.isInteger(v) && v > 0) return this.varint(BigInt(v));
        throw internalError(`cannot encode ${v} as varint`);
      }
      this.ensure(8);
      while (v >= 0x80) {
        this.buf[this.pos++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
      }
      this.buf[this.pos++] = v;
      return this;
    }
    if (v < 0n || v > U64_MAX) throw internalError(`cannot encode ${v} as varint`);
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
    return this;
  }

  /** Zigzag varint of a signed integer in the 64-bit range. */
  zigzag(v: number | bigint): this {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) throw internalError(`cannot encode ${v} as zigzag`);
      // Small values stay in number arithmetic; 2|v| may leave the safe range above 2^52.
      if (v > -0x10000000000000 && v < 0x10000000000000) return this.varint(v >= 0 ? v * 2 : -v * 2 - 1);
      v = BigInt(v);
    }
    if (v < I64_MIN || v > I64_MAX) throw internalError(`cannot encode ${v} as zigzag (64-bit range)`);
    return this.varint(v >= 0n ? v << 1n : ((-v) << 1n) - 1n);
  }

  /** `str`: varint UTF-8 byte length, then the UTF-8 bytes; lone surrogates are refused, not mangled. */
  str(s: string): this {
    if (SURROGATE.test(s) && hasLoneSurrogate(s)) throw new LedgraphError(422, 'err:db/ConstraintViolation', 'string is not well-formed Unicode (lone surrogate)');
    const n = s.length;
    if (n < 43) {
      // At most 3 UTF-8 bytes per UTF-16 unit, so the length fits one byte: encode in place.
      this.ensure(1 + n * 3);
      let ascii = true;
      for (let k = 0; k < n; k++) {
        const c = s.charCodeAt(k);
        if (c >= 0x80) { ascii = false; break; }
        this.buf[this.pos + 1 + k] = c;
      }
      const written = ascii ? n : encoder.encodeInto(s, this.buf.subarray(this.pos + 1)).written;
      this.buf[this.pos] = written;
      this.pos += 1 + written;
      return this;
    }
    // Reserve room for the largest possible length prefix, encode, then close any gap.
    const max = n * 3;
    const reserve = varintSize(max);
    this.ensure(reserve + max);
    const { written } = encoder.encodeInto(s, this.buf.subarray(this.pos + reserve));
    const size = varintSize(written);
    if (size < reserve) this.buf.copyWithin(this.pos + size, this.pos + reserve, this.pos + reserve + written);
    this.varint(written); // capacity was ensured above, so this cannot reallocate over the moved bytes
    this.pos += written;
    return this;
  }

  /** `bytes`: varint length, then the raw bytes. */
  bytes(b: Uint8Array): this {
    this.varint(b.length);
    return this.raw(b);
  }

  /** Raw bytes without a length prefix. */
  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** IEEE-754 double, little-endian. */
  f64(v: number): this {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
    return this;
  }

  /** `cid`: a `bytes` holding the binary CID. */
  cid(c: CID): this { return this.bytes(c.bytes); }

  /** The bytes written, as an exactly sized copy. */
  finish(): Uint8Array { return this.buf.slice(0, this.pos); }
}

/** A bounds-checked reader over a slice of bytes; every failure is a 422 naming the blob kind. */
export class ByteReader {
  readonly bytes: Uint8Array;
  readonly what: string;
  private readonly view: DataView;
  private p: number;
  private readonly end: number;

  constructor(bytes: Uint8Array, what = 'blob', start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.what = what;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.p = start;
    this.end = end;
  }

  /** Current offset into `bytes`. */
  get pos(): number { return this.p; }
  /** Bytes left before this reader's end. */
  get remaining(): number { return this.end - this.p; }
  /** True when every byte has been consumed. */
  get atEnd(): boolean { return this.p === this.end; }

  /** The 422 error for this blob. */
  fail(why: string): LedgraphError {
    return new LedgraphError(422, 'err:db/ConstraintViolation', `malformed ${this.what}: ${why}`);
  }

  /** Throw unless every byte was consumed (sections must end exactly at their declared length). */
  expectEnd(section: string): void {
    if (this.p !== this.end) throw this.fail(`${this.end - this.p} trailing bytes after ${section}`);
  }

  private need(n: number, what: string): void {
    if (n > this.end - this.p) throw this.fail(`truncated ${what} at offset ${this.p}`);
  }

  /** A reader over the next `n` bytes, which this reader skips. */
  sub(n: number, what: string): ByteReader {
    this.need(n, what);
    const r = new ByteReader(this.bytes, this.what, this.p, this.p + n);
    this.p += n;
    return r;
  }

  /** One unsigned byte. */
  u8(): number {
    this.need(1, 'u8');
    return this.bytes[this.p++]!;
  }

  /** Unsigned 16-bit little-endian. */
  u16(): number {
    this.need(2, 'u16');
    const v = this.view.getUint16(this.p, true);
    this.p += 2;
    return v;
  }

  /** Unsigned 32-bit little-endian. */
  u32(): number {
    this.need(4, 'u32');
    const v = this.view.getUint32(this.p, true);
    this.p += 4;
    return v;
  }

  /** A varint that must fit a safe integer (lengths, counts, codes, t). */
  varint(): number {
    let value = 0;
    let scale = 1;
    const start = this.p;
    for (;;) {
      if (this.p >= this.end) throw this.fail(`truncated varint at offset ${start}`);
      const b = this.bytes[this.p++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (b === 0 && this.p - start > 1) throw this.fail(`non-minimal varint at offset ${start}`);
        if (value > MAX_SAFE) throw this.fail(`varint above 2^53-1 at offset ${start}`);
        return value;
      }
      scale *= 0x80;
      if (this.p - start >= 8) throw this.fail(`varint above 2^53-1 at offset ${start}`);
    }
  }

  /** A varint of up to 64 bits, as a BigInt. */
  varintBig(): bigint {
    let value = 0n;
    let shift = 0n;
    const start = this.p;
    for (;;) {
      if (this.p >= this.end) throw this.fail(`truncated varint at offset ${start}`);
      const b = this.bytes[this.p++]!;
      value |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        if (b === 0 && this.p - start > 1) throw this.fail(`non-minimal varint at offset ${start}`);
        if (value > U64_MAX) throw this.fail(`varint above 2^64-1 at offset ${start}`);
        return value;
      }
      shift += 7n;
      if (this.p - start >= 10) throw this.fail(`varint longer than 10 bytes at offset ${start}`);
    }
  }

  /** A zigzag varint that must fit a safe integer. */
  zigzag(): number {
    const v = this.zigzagAny();
    if (typeof v === 'bigint') throw this.fail(`integer outside the safe range at offset ${this.p}`);
    return v;
  }

  /** A zigzag varint in the signed 64-bit range: a number when safe, else a BigInt. */
  zigzagAny(): number | bigint {
    const start = this.p;
    let value = 0;
    let scale = 1;
    // Up to 7 bytes (49 bits) stay exact in number arithmetic; longer ones take the BigInt path.
    for (let k = 0; k < 7 && this.p < this.end; k++) {
      const b = this.bytes[this.p++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (b === 0 && k > 0) throw this.fail(`non-minimal varint at offset ${start}`);
        return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
      }
      scale *= 0x80;
    }
    this.p = start;
    const v = this.zigzagBig();
    return v >= -MAX_SAFE_BIG && v <= MAX_SAFE_BIG ? Number(v) : v;
  }

  /** A zigzag varint in the signed 64-bit range, as a BigInt. */
  zigzagBig(): bigint {
    const z = this.varintBig();
    return (z & 1n) === 0n ? z >> 1n : -((z + 1n) >> 1n);
  }

  /** `str`: varint length + UTF-8 (invalid UTF-8 is refused). */
  str(): string {
    const n = this.varint();
    this.need(n, 'string');
    const s = this.p;
    this.p += n;
    if (n === 0) return '';
    if (n <= 64) {
      // Short ASCII strings (most names and values): skip TextDecoder's per-call overhead.
      const b = this.bytes;
      let k = s;
      while (k < s + n && b[k]! < 0x80) k++;
      if (k === s + n) return String.fromCharCode.apply(null, b.subarray(s, s + n) as unknown as number[]);
    }
    try {
      return decoder.decode(this.bytes.subarray(s, s + n));
    } catch {
      throw this.fail(`invalid UTF-8 in string at offset ${s}`);
    }
  }

  /** Skip a `str` or `bytes` without decoding it. */
  skipBytes(): void {
    const n = this.varint();
    this.need(n, 'byte string');
    this.p += n;
  }

  /** `bytes`: varint length + raw bytes (a view into the blob, not a copy). */
  bytesField(): Uint8Array {
    const n = this.varint();
    return this.raw(n);
  }

  /** The next `n` raw bytes (a view, not a copy). */
  raw(n: number): Uint8Array {
    this.need(n, 'bytes');
    const out = this.bytes.subarray(this.p, this.p + n);
    this.p += n;
    return out;
  }

  /** IEEE-754 double, little-endian. */
  f64(): number {
    this.need(8, 'f64');
    const v = this.view.getFloat64(this.p, true);
    this.p += 8;
    return v;
  }

  /** `cid`: `bytes` holding a binary CIDv1 with a sha2-256 digest, optionally of a given codec. */
  cid(expectedCodec?: number): CID {
    const at = this.p;
    const raw = this.bytesField();
    return this.decodeCid(raw, at, expectedCodec);
  }

  /** A `cid` field that may be empty `bytes` (absent). */
  cidOrNull(expectedCodec?: number): CID | null {
    const at = this.p;
    const raw = this.bytesField();
    return raw.length === 0 ? null : this.decodeCid(raw, at, expectedCodec);
  }

  private decodeCid(raw: Uint8Array, at: number, expectedCodec?: number): CID {
    let c: CID;
    try {
      // Copy so the CID does not pin the whole blob's buffer in memory.
      c = CID.decode(raw.slice()) as CID;
    } catch {
      throw this.fail(`invalid binary CID at offset ${at}`);
    }
    if (c.version !== 1 || c.multihash.code !== SHA2_256 || c.multihash.digest.length !== 32) {
      throw this.fail(`CID at offset ${at} is not a CIDv1 with a sha2-256 digest`);
    }
    if (expectedCodec !== undefined && c.code !== expectedCodec) {
      throw this.fail(`CID at offset ${at} has codec 0x${c.code.toString(16)}, expected 0x${expectedCodec.toString(16)}`);
    }
    return c;
  }
}
