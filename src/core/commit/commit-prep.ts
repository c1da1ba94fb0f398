/**
 * The pieces of a commit's encoding that do not depend on the blob layout: a flake prepared for
 * the canonical sort (`Prep`), that sort's comparison, the envelope's field checks and an
 * object's bytes. Split from commit-codec.ts to keep that file one size.
 */
import { CID } from 'multiformats/cid';
import type { ByteWriter } from './bytes.js';
import type { Sid } from './namespaces.js';
import type { LedgraphError } from '../errors.js';
import {
  HI_DT, HI_O, HI_P, HI_S, compareCodePoints, compareFast, compareObjects, invalid, type PrepObject,
} from './object-tags.js';

/** A flake prepared for the canonical sort, keys as strings. */
export interface Prep {
  /** Bit set per string field holding a unit >= U+D800 (only those need the slow comparison). */
  hi: number;
  g: number;
  s: string;
  p: string;
  o: PrepObject;
  dt: string;
  lang: string;
  i: number;
  op: boolean;
  /** SIDs of s, p, dt and a reference object, assigned after sorting. */
  rs: Ref | null;
  rp: Ref | null;
  rdt: Ref | null;
  ro: Ref | null;
}

/** A SID plus its index in the flake section's name table (-1 until a flake uses it). */
export interface Ref extends Sid { name: number }

/** Writer order: (g, s, p, o, dt), then language and list index, retraction before assertion. */
export function comparePrep(a: Prep, b: Prep): number {
  const hi = a.hi & b.hi;
  return (a.g - b.g)
    || (hi & HI_S ? compareCodePoints(a.s, b.s) : compareFast(a.s, b.s))
    || (hi & HI_P ? compareCodePoints(a.p, b.p) : compareFast(a.p, b.p))
    || compareObjects(a.o, b.o, (hi & HI_O) !== 0)
    || (hi & HI_DT ? compareCodePoints(a.dt, b.dt) : compareFast(a.dt, b.dt))
    || compareCodePoints(a.lang, b.lang)
    || (a.i - b.i)
    || (Number(a.op) - Number(b.op));
}

/** A non-negative safe integer up to max, else a 422. */
export function checkNonNegInt(v: unknown, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > max) throw invalid(`${what} must be an integer in 0..${max}, got ${String(v)}`);
  return v;
}

/** A CIDv1 sha2-256 of the codec, else a 422. */
export function checkCid(c: unknown, codec: number, what: string): CID {
  const cid = CID.asCID(c);
  if (!cid || cid.version !== 1 || cid.multihash.code !== 0x12 || cid.multihash.digest.length !== 32) throw invalid(`${what} is not a CIDv1 with a sha2-256 digest`);
  if (cid.code !== codec) throw invalid(`${what} has codec 0x${cid.code.toString(16)}, expected 0x${codec.toString(16)}`);
  return cid as CID;
}

/** Graph ids from 3, strictly ascending, with non-empty IRIs. */
export function checkGraphDelta(delta: readonly (readonly [number, string])[], fail: (why: string) => LedgraphError): void {
  let prev = -1;
  for (const [g, iri] of delta) {
    if (!Number.isSafeInteger(g) || g < 3) throw fail(`graph id ${g} in graph_delta is below 3`);
    if (g <= prev) throw fail(`graph_delta ids not strictly ascending at ${g}`);
    if (typeof iri !== 'string' || iri === '') throw fail(`empty graph IRI for graph ${g}`);
    prev = g;
  }
}

/** An object's tag and value (a reference's SID through `ref`). */
export function writeObject(w: ByteWriter, o: PrepObject, ref: (() => void) | null): void {
  w.u8(o.tag);
  switch (o.tag) {
    case 0: ref!(); break;
    case 1: w.zigzag(o.v); break;
    case 2: w.f64(o.v); break;
    case 4: w.u8(o.v ? 1 : 0); break;
    default: w.str(o.v);
  }
}
