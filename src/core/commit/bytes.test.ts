import { describe, expect, test } from 'vitest';
import { ByteReader, ByteWriter } from './bytes.js';
import { Codec, cidOf } from './cid.js';
import { expect422 } from '../test-support/expect-error.js';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const unhex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));

describe('ByteWriter', () => {
  test('fixed-width little-endian fields', () => {
    const w = new ByteWriter(1);
    w.u8(0xab).u16(0x1234).u32(0xdeadbeef).f64(1.5);
    expect(hex(w.finish())).toBe('ab' + '3412' + 'efbeadde' + '000000000000f83f');
  });

  test('varint vectors', () => {
    const enc = (v: number | bigint) => hex(new ByteWriter().varint(v).finish());
    expect(enc(0)).toBe('00');
    expect(enc(127)).toBe('7f');
    expect(enc(128)).toBe('8001');
    expect(enc(300)).toBe('ac02');
    expect(enc(0x300001)).toBe('8180c001');
    expect(enc(Number.MAX_SAFE_INTEGER)).toBe('ffffffffffffff0f');
    expect(enc((1n << 64n) - 1n)).toBe('ffffffffffffffffff01');
  });

  test('zigzag vectors', () => {
    const enc = (v: number | bigint) => hex(new ByteWriter().zigzag(v).finish());
    expect(enc(0)).toBe('00');
    expect(enc(-1)).toBe('01');
    expect(enc(1)).toBe('02');
    expect(enc(-2)).toBe('03');
    expect(enc(-64)).toBe('7f');
    expect(enc(64)).toBe('8001');
    expect(enc((1n << 63n) - 1n)).toBe('feffffffffffffffff01');
    expect(enc(-(1n << 63n))).toBe('ffffffffffffffffff01');
    expect(enc(Number.MAX_SAFE_INTEGER)).toBe(enc(BigInt(Number.MAX_SAFE_INTEGER)));
    expect(enc(-Number.MAX_SAFE_INTEGER)).toBe(enc(-BigInt(Number.MAX_SAFE_INTEGER)));
  });

  test('out-of-range values are refused', () => {
    expect(() => new ByteWriter().u8(256)).toThrow('cannot encode 256 as u8');
    expect(() => new ByteWriter().varint(-1)).toThrow('cannot encode -1 as varint');
    expect(() => new ByteWriter().varint(1n << 64n)).toThrow('cannot encode 18446744073709551616 as varint');
    expect(() => new ByteWriter().zigzag(1n << 63n)).toThrow('cannot encode 9223372036854775808 as zigzag (64-bit range)');
    expect(() => new ByteWriter().setU32(0, 1)).toThrow('u32 offset 0 out of range');
  });

  test('str: length-prefixed UTF-8, short and long paths agree', () => {
    expect(hex(new ByteWriter().str('').finish())).toBe('00');
    expect(hex(new ByteWriter().str('hé').finish())).toBe('0368c3a9');
    const long = 'ü'.repeat(100);
    const b = new ByteWriter().str(long).finish();
    expect(hex(b.subarray(0, 2))).toBe('c801');
    expect(b.length).toBe(202);
    expect(new ByteReader(b).str()).toBe(long);
    // 42 three-byte characters: the in-place path's largest case (126 bytes).
    const edge = '€'.repeat(42);
    const e = new ByteWriter().str(edge).finish();
    expect([e[0], e.length]).toEqual([126, 127]);
    expect(new ByteReader(e).str()).toBe(edge);
  });

  test('lone surrogates are refused instead of being replaced', () => {
    expect(() => new ByteWriter().str('a\ud800b')).toThrow('string is not well-formed Unicode (lone surrogate)');
    expect(() => new ByteWriter().str('\udc00')).toThrow('string is not well-formed Unicode (lone surrogate)');
    expect(() => new ByteWriter().str('x'.repeat(50) + '\ud83d')).toThrow('string is not well-formed Unicode (lone surrogate)');
    expect(() => new ByteWriter().str('\ud83d\ud83d\ude00')).toThrow('string is not well-formed Unicode (lone surrogate)');
    expect(new ByteReader(new ByteWriter().str('😀').finish()).str()).toBe('😀');
    expect(new ByteReader(new ByteWriter().str('a😀b\uffff').finish()).str()).toBe('a😀b\uffff');
  });

  test('setU32 patches an earlier field; grows past the initial capacity', () => {
    const w = new ByteWriter(16);
    w.u32(0);
    for (let i = 0; i < 1000; i++) w.u8(i & 0xff);
    w.setU32(0, 1000);
    const b = w.finish();
    expect(b.length).toBe(1004);
    expect(new ByteReader(b).u32()).toBe(1000);
    expect(b[1003]).toBe(999 & 0xff);
  });
});

describe('ByteReader', () => {
  test('round trip of every field kind', async () => {
    const cid = await cidOf(Codec.commit, new Uint8Array([1, 2, 3]));
    const w = new ByteWriter();
    w.u8(7).u16(65535).u32(4294967295).varint(12345).varint(1n << 60n).zigzag(-99).zigzag(-(1n << 63n))
      .str('Olá').bytes(new Uint8Array([9, 8])).f64(-0.25).cid(cid).varint(0);
    const r = new ByteReader(w.finish());
    expect(r.u8()).toBe(7);
    expect(r.u16()).toBe(65535);
    expect(r.u32()).toBe(4294967295);
    expect(r.varint()).toBe(12345);
    expect(r.varintBig()).toBe(1n << 60n);
    expect(r.zigzag()).toBe(-99);
    expect(r.zigzagBig()).toBe(-(1n << 63n));
    expect(r.str()).toBe('Olá');
    expect(Array.from(r.bytesField())).toEqual([9, 8]);
    expect(r.f64()).toBe(-0.25);
    expect(r.cid(Codec.commit).toString()).toBe(cid.toString());
    expect(r.cidOrNull(Codec.txn)).toBe(null);
    expect(r.atEnd).toBe(true);
    r.expectEnd('test');
  });

  test('bounds checks', () => {
    expect422(() => new ByteReader(unhex('010203'), 'commit blob').u32(), 'malformed commit blob: truncated u32 at offset 0');
    expect422(() => new ByteReader(unhex('')).u8(), 'malformed blob: truncated u8 at offset 0');
    expect422(() => new ByteReader(unhex('05616263')).str(), 'malformed blob: truncated string at offset 1');
    expect422(() => new ByteReader(unhex('0100')).sub(3, 'envelope'), 'malformed blob: truncated envelope at offset 0');
    const r = new ByteReader(unhex('0102'));
    r.u8();
    expect422(() => r.expectEnd('section'), 'malformed blob: 1 trailing bytes after section');
  });

  test('a sub-reader cannot read past its end', () => {
    const r = new ByteReader(unhex('01020304'));
    const s = r.sub(2, 'part');
    expect(r.pos).toBe(2);
    expect(s.u16()).toBe(0x0201);
    expect422(() => s.u8(), 'malformed blob: truncated u8 at offset 2');
  });

  test('varints must be minimal, terminated and in range', () => {
    expect422(() => new ByteReader(unhex('8000')).varint(), 'malformed blob: non-minimal varint at offset 0');
    expect422(() => new ByteReader(unhex('ff00')).varintBig(), 'malformed blob: non-minimal varint at offset 0');
    expect422(() => new ByteReader(unhex('8080')).varint(), 'malformed blob: truncated varint at offset 0');
    expect422(() => new ByteReader(unhex('8080808080808010')).varint(), 'malformed blob: varint above 2^53-1 at offset 0');
    expect422(() => new ByteReader(unhex('808080808080808001')).varint(), 'malformed blob: varint above 2^53-1 at offset 0');
    expect(new ByteReader(unhex('808080808080808001')).varintBig()).toBe(1n << 56n);
    expect422(() => new ByteReader(unhex('ffffffffffffffffff02')).varintBig(), 'malformed blob: varint above 2^64-1 at offset 0');
    expect422(() => new ByteReader(unhex('ffffffffffffffffff8001')).varintBig(), 'malformed blob: varint longer than 10 bytes at offset 0');
    expect422(() => new ByteReader(unhex('feffffffffffffff01')).zigzag(), 'malformed blob: integer outside the safe range at offset 9');
  });

  test('strings must be valid UTF-8', () => {
    expect422(() => new ByteReader(unhex('02c328')).str(), 'malformed blob: invalid UTF-8 in string at offset 1');
    expect422(() => new ByteReader(unhex('03eda080')).str(), 'malformed blob: invalid UTF-8 in string at offset 1');
  });

  test('CIDs: binary CIDv1 sha2-256 of the expected codec', async () => {
    const txn = await cidOf(Codec.txn, new Uint8Array([1]));
    const bytes = new ByteWriter().cid(txn).finish();
    expect(bytes[0]).toBe(39);
    expect(new ByteReader(bytes).cid(Codec.txn).equals(txn)).toBe(true);
    expect422(() => new ByteReader(bytes).cid(Codec.commit), 'malformed blob: CID at offset 0 has codec 0x300002, expected 0x300001');
    expect422(() => new ByteReader(unhex('03010203')).cid(), 'malformed blob: invalid binary CID at offset 0');
    // CIDv1, raw codec, identity multihash of "abc".
    const identity = unhex('0701550003616263');
    expect422(() => new ByteReader(identity).cid(), 'malformed blob: CID at offset 0 is not a CIDv1 with a sha2-256 digest');
    const trailing = new ByteWriter().bytes(new Uint8Array([...txn.bytes, 0])).finish();
    expect422(() => new ByteReader(trailing).cid(), 'malformed blob: invalid binary CID at offset 0');
  });
});
