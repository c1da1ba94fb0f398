/**
 * `ledgraph-pack-v1` frames (replication.md §8): preamble `FPK1` + version 1, then Header (0x00),
 * Data (0x01), Error (0x02), Manifest (0x03) and End (0xff) frames. Lengths are little-endian u32;
 * a Data frame carries a binary CID (u16 length, at most 128 bytes) and the object's raw bytes.
 * `.flpack` archives (§9) are pack streams with a nameservice Manifest before End.
 */
import type { CID } from 'multiformats/cid';

export const PACK_PROTOCOL = 'ledgraph-pack-v1';
export const PACK_CONTENT_TYPE = 'application/x-ledgraph-pack';
export const PREAMBLE: readonly number[] = [0x46, 0x50, 0x4b, 0x31, 0x01];

export const FRAME_HEADER = 0x00;
export const FRAME_DATA = 0x01;
export const FRAME_ERROR = 0x02;
export const FRAME_MANIFEST = 0x03;
export const FRAME_END = 0xff;

/** Largest CID in a Data frame. */
export const MAX_CID_BYTES = 128;
/** Largest frame a client accepts over the network (§8). */
export const NETWORK_MAX_FRAME_BYTES = 256 * 1024 * 1024;
/** Largest Data frame an archive restore accepts (§9; http-api.md §8). */
export const IMPORT_MAX_FRAME_BYTES = 1024 * 1024 * 1024;
/** Rough bytes per commit for `estimated_total_bytes` (§8). */
export const ESTIMATED_BYTES_PER_COMMIT = 50_000;

/** The Header frame's JSON. */
export interface PackHeader {
  protocol: string;
  capabilities: string[];
  commit_count: number;
  index_artifact_count?: number;
  estimated_total_bytes: number;
  server_max_frame_bytes: number;
}

/** The Manifest introducing index artifacts. */
export interface IndexesManifest { phase: 'indexes'; root_id: string; artifact_count: number }

/** The archive's nameservice Manifest (§9). */
export interface NameserviceManifest {
  phase: 'nameservice';
  ledger_id: string;
  name: string;
  branch: string;
  commit_head_id: string;
  commit_t: number;
  index_head_id: string | null;
  index_t: number;
}

const enc = new TextEncoder();

/** The preamble bytes. */
export function preamble(): Uint8Array {
  return Uint8Array.from(PREAMBLE);
}

function lengthPrefixed(type: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = type;
  new DataView(out.buffer).setUint32(1, payload.length, true);
  out.set(payload, 5);
  return out;
}

/** A Header frame. */
export function headerFrame(h: PackHeader): Uint8Array {
  return lengthPrefixed(FRAME_HEADER, enc.encode(JSON.stringify(h)));
}

/** A Manifest frame. */
export function manifestFrame(m: IndexesManifest | NameserviceManifest): Uint8Array {
  return lengthPrefixed(FRAME_MANIFEST, enc.encode(JSON.stringify(m)));
}

/** An Error frame (always followed by End). */
export function errorFrame(message: string): Uint8Array {
  return lengthPrefixed(FRAME_ERROR, enc.encode(message));
}

/** The End frame. */
export function endFrame(): Uint8Array {
  return Uint8Array.of(FRAME_END);
}

/** The fixed part of a Data frame (type, CID, payload length); the payload follows it. */
export function dataFramePrefix(cid: CID, payloadLength: number): Uint8Array {
  const c = cid.bytes;
  const out = new Uint8Array(1 + 2 + c.length + 4);
  const dv = new DataView(out.buffer);
  out[0] = FRAME_DATA;
  dv.setUint16(1, c.length, true);
  out.set(c, 3);
  dv.setUint32(3 + c.length, payloadLength, true);
  return out;
}

/** A whole Data frame. */
export function dataFrame(cid: CID, bytes: Uint8Array): Uint8Array {
  const prefix = dataFramePrefix(cid, bytes.length);
  const out = new Uint8Array(prefix.length + bytes.length);
  out.set(prefix, 0);
  out.set(bytes, prefix.length);
  return out;
}
