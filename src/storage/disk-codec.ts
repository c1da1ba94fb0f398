/**
 * How an object's bytes sit in a file of the file store (docs/formats.md §9): as they are, or
 * deflated (node:zlib, raw deflate at level 1, in the libuv thread pool) behind a 4-byte marker
 * when that saves at least an eighth (which kinds: COMPRESS_MODES). Only the file changes: the
 * CID, every format, and every byte a reader, pack or replica sees are the object's own bytes, so
 * the choice is local to one store (a clone compresses or not for itself).
 */
import { deflateRaw, inflateRaw } from 'node:zlib';
import { promisify } from 'node:util';
import { Codec } from '../core/commit/cid.js';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/**
 * Which objects a file store deflates: `fast` (default) the kinds that shrink most for their CPU —
 * index leaves, branches, roots and summaries (raw Int32 columns and repeated ids: about an eighth,
 * at ~100 MB/s) and transaction blobs (request text: about a tenth); `all` commits and dictionary
 * pages too (already dictionary- and varint-coded text: about a third, at ~50 MB/s, ≈2 s of
 * thread-pool CPU per million BSBM triples); `none` nothing.
 */
export const COMPRESS_MODES = ['fast', 'all', 'none'] as const;
export type CompressMode = (typeof COMPRESS_MODES)[number];

/** Codecs `fast` leaves raw. */
const DENSE_CODECS: ReadonlySet<number> = new Set([Codec.commit, Codec.dict]);

/** True when an object of this codec is deflated under the mode. */
export function compresses(mode: CompressMode, codec: number): boolean {
  return mode === 'all' || (mode === 'fast' && !DENSE_CODECS.has(codec));
}

/** `LGZ` + format byte 1: the rest of the file is raw deflate of the object's bytes. */
const MARKER = [0x4c, 0x47, 0x5a, 0x01] as const;
/** Below this an object is stored as it is (a file takes a disk block anyway). */
const MIN_BYTES = 512;

/**
 * Deflates running at once. Each holds a zlib stream (~400 KB of state plus output) on a thread-pool
 * thread; an index write puts hundreds of leaves at once, and letting them all deflate together
 * only raised the peak memory (which malloc then keeps) without finishing sooner on 2 cores.
 */
const MAX_DEFLATES = 2;
/**
 * zlib's output buffer: each one filled is a callback on the event loop (node:zlib's default is
 * 16 KiB, so a 13 MB transaction blob or a 460 KB index leaf took dozens); 128 KiB takes a few.
 */
const ZLIB_CHUNK = 128 * 1024;
let running = 0;
const waiting: (() => void)[] = [];

async function deflateLimited(bytes: Uint8Array): Promise<Uint8Array> {
  while (running >= MAX_DEFLATES) await new Promise<void>((ok) => waiting.push(ok));
  running++;
  try {
    return await deflate(bytes, { level: 1, chunkSize: ZLIB_CHUNK });
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** The file contents for an object: deflated behind the marker when that pays, else the bytes. */
export async function encodeForDisk(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.length < MIN_BYTES) return bytes;
  const z = await deflateLimited(bytes);
  if (z.length + MARKER.length > bytes.length - (bytes.length >>> 3)) return bytes;
  const out = new Uint8Array(MARKER.length + z.length);
  out.set(MARKER, 0);
  out.set(z, MARKER.length);
  return out;
}

/**
 * The object's bytes from a file's contents, or null when the file does not hold the deflated
 * form. A raw object that happens to start with the marker is told apart by its CID: the caller
 * verifies the inflated bytes and falls back to the raw file when they do not match.
 */
export async function decodeFromDisk(file: Uint8Array): Promise<Uint8Array | null> {
  if (file.length <= MARKER.length) return null;
  for (let k = 0; k < MARKER.length; k++) if (file[k] !== MARKER[k]) return null;
  try {
    const b = await inflate(file.subarray(MARKER.length), { chunkSize: ZLIB_CHUNK });
    // A small result may sit in Node's shared pool: give readers a buffer of their own.
    return b.byteOffset === 0 && b.buffer.byteLength === b.byteLength ? new Uint8Array(b.buffer, 0, b.byteLength) : new Uint8Array(b);
  } catch {
    return null;
  }
}
