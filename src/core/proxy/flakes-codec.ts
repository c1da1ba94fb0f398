/**
 * The storage proxy's flake formats (replication.md §11, docs/formats.md "Storage-proxy flakes"):
 * `application/x-ledgraph-flakes` = `FLKB`, version 1, three zero bytes, then a CBOR (RFC 8949)
 * array of flake maps; `application/x-ledgraph-flakes+json` = the same array as JSON. CBOR through
 * `cborg` (pure JavaScript, so the same code runs in browsers and needs no native build).
 */
import { decode as cborDecode, encode as cborEncode } from 'cborg';
import { LedgraphError } from '../errors.js';

/** A SID on the wire: namespace code and the rest of the IRI. */
export interface WireSid { ns: number; name: string }

/** Object types of the wire format. */
export type WireObjectType = 'string' | 'long' | 'double' | 'bool' | 'ref' | 'bigint' | 'bigdec' | 'datetime' | 'date' | 'time' | 'vector' | 'json' | 'null';

/** An object on the wire; `ref` values are SIDs, `long`/`double` numbers, `bool` booleans, the rest strings. */
export interface WireObject { type: WireObjectType; value: string | number | boolean | WireSid | number[] | null }

/** One flake of a leaf: current rows carry `op: true`; history events their own op. */
export interface WireFlake {
  s: WireSid;
  p: WireSid;
  o: WireObject;
  dt: WireSid;
  t: number;
  op: boolean;
  lang?: string;
  i?: number;
  /** Named graph (absent for the default graph); Ledgraph addition, leaves span graphs. */
  g?: WireSid;
}

export const FLAKES_MEDIA_TYPE = 'application/x-ledgraph-flakes';
export const FLAKES_JSON_MEDIA_TYPE = 'application/x-ledgraph-flakes+json';

const MAGIC = [0x46, 0x4c, 0x4b, 0x42]; // FLKB
const VERSION = 1;
const HEADER = 8;

/** The binary flake format of a list of flakes. */
export function encodeFlakes(flakes: readonly WireFlake[]): Uint8Array {
  const body = cborEncode(flakes);
  const out = new Uint8Array(HEADER + body.length);
  out.set(MAGIC, 0);
  out[4] = VERSION;
  out.set(body, HEADER);
  return out;
}

/** Decode the binary flake format (header checked; the CBOR must be an array). */
export function decodeFlakes(bytes: Uint8Array): WireFlake[] {
  if (bytes.length < HEADER || MAGIC.some((b, i) => bytes[i] !== b)) throw bad('bad magic');
  if (bytes[4] !== VERSION) throw bad(`unknown version ${bytes[4]}`);
  if (bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) throw bad('reserved bytes must be zero');
  let v: unknown;
  try {
    v = cborDecode(bytes.subarray(HEADER));
  } catch (e) {
    throw bad(`invalid CBOR: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!Array.isArray(v)) throw bad('expected a CBOR array');
  return v as WireFlake[];
}

function bad(why: string): LedgraphError {
  return new LedgraphError(422, 'err:db/ConstraintViolation', `malformed flakes block: ${why}`);
}
