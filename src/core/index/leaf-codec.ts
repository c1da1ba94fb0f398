/**
 * Byte format of index leaves and leaf histories (docs/formats.md "Index nodes"). Columns are raw
 * little-endian Int32 arrays at 4-byte aligned offsets so decoding is a zero-copy view.
 *
 *   0  magic "LGL1"          8  u32 n (rows)
 *   4  u8 kind (0 current, 1 history)   12 u32 cid_len (history CID bytes, current leaves only)
 *   5  u8 order (0 spot, 1 psot, 2 post, 3 opst)
 *   6  u16 reserved = 0
 *   16 cid bytes, zero-padded to a multiple of 4
 *   then columns g, s, p, o, m, t (n × i32 LE each); history leaves add op (n × u8)
 */
import { CID } from 'multiformats/cid';
import { ORDERS, type IndexOrder } from '../flake/flake.js';
import { LedgraphError } from '../errors.js';
import type { Run } from './run.js';

const MAGIC = [0x4c, 0x47, 0x4c, 0x31];
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export interface DecodedLeaf { kind: 0 | 1; order: IndexOrder; run: Run; history: CID | null }

/** Encode a leaf (kind 0, with an optional history CID) or a history (kind 1). */
export function encodeLeaf(kind: 0 | 1, order: IndexOrder, run: Run, history: CID | null): Uint8Array {
  const n = run.n;
  const cidBytes = history ? history.bytes : new Uint8Array(0);
  const cidPad = (cidBytes.length + 3) & ~3;
  const colStart = 16 + cidPad;
  const total = colStart + n * 24 + (kind === 1 ? n : 0);
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  out.set(MAGIC, 0);
  out[4] = kind;
  out[5] = ORDERS.indexOf(order);
  dv.setUint32(8, n, true);
  dv.setUint32(12, cidBytes.length, true);
  out.set(cidBytes, 16);
  const cols = [run.g, run.s, run.p, run.o, run.m, run.t];
  for (let c = 0; c < 6; c++) {
    const off = colStart + c * n * 4;
    if (LITTLE_ENDIAN) {
      out.set(new Uint8Array(cols[c]!.buffer, cols[c]!.byteOffset, n * 4), off);
    } else {
      for (let i = 0; i < n; i++) dv.setInt32(off + i * 4, cols[c]![i]!, true);
    }
  }
  if (kind === 1) out.set(run.op.subarray(0, n), colStart + n * 24);
  return out;
}

/** The history CID a current leaf names, read from its header only (null for none or a history blob). */
export function leafHistory(bytes: Uint8Array): CID | null {
  if (bytes.length < 16 || MAGIC.some((b, i) => bytes[i] !== b)) throw bad('bad magic');
  const cidLen = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true);
  if (cidLen === 0) return null;
  if (16 + cidLen > bytes.length) throw bad('length mismatch');
  return CID.decode(bytes.subarray(16, 16 + cidLen));
}

/** Decode a leaf or history blob. */
export function decodeLeaf(bytes: Uint8Array): DecodedLeaf {
  if (bytes.length < 16 || MAGIC.some((b, i) => bytes[i] !== b)) throw bad('bad magic');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kind = bytes[4]!;
  const order = ORDERS[bytes[5]!];
  if ((kind !== 0 && kind !== 1) || !order) throw bad('bad kind or order');
  const n = dv.getUint32(8, true);
  const cidLen = dv.getUint32(12, true);
  const colStart = 16 + ((cidLen + 3) & ~3);
  if (bytes.length !== colStart + n * 24 + (kind === 1 ? n : 0)) throw bad('length mismatch');
  const history = cidLen > 0 ? CID.decode(bytes.subarray(16, 16 + cidLen)) : null;
  // Zero-copy when aligned; otherwise copy once into an aligned buffer.
  let buf = bytes;
  let base = colStart;
  if (!LITTLE_ENDIAN || (bytes.byteOffset + colStart) % 4 !== 0) {
    buf = bytes.slice(colStart);
    base = 0;
  }
  const col = (c: number): Int32Array => {
    if (LITTLE_ENDIAN) return new Int32Array(buf.buffer, buf.byteOffset + base + c * n * 4, n);
    const a = new Int32Array(n);
    const d = new DataView(buf.buffer, buf.byteOffset);
    for (let i = 0; i < n; i++) a[i] = d.getInt32(base + c * n * 4 + i * 4, true);
    return a;
  };
  const op = kind === 1 ? buf.subarray(base + n * 24, base + n * 25) : new Uint8Array(n).fill(1);
  const run: Run = { n, g: col(0), s: col(1), p: col(2), o: col(3), m: col(4), t: col(5), op };
  return { kind, order, run, history };
}

function bad(why: string): LedgraphError {
  return new LedgraphError(422, 'err:db/ConstraintViolation', 'malformed index leaf: ' + why);
}
