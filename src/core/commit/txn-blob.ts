/**
 * The transaction blob (replication.md §4): the request as received, stored before the commit
 * that references it, as UTF-8 JSON with the keys in the fixed order `type`, `body`, `identity`,
 * `jws`, so the same request always hashes to the same CID.
 */
import { LedgraphError } from '../errors.js';
import { Codec, cidOf, type CID } from './cid.js';
import type { TimeSlice } from '../util/next-turn.js';

/** The decoded transaction blob. */
export interface TxnBlob {
  /** The request's content type. */
  type: string;
  /** Parsed JSON for JSON bodies, else the body text. */
  body: unknown;
  /** The credential identity, or null. */
  identity: string | null;
  /** The full compact JWS of a signed request (proof of authorship), or null. */
  jws: string | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function malformed(why: string): LedgraphError {
  return new LedgraphError(422, 'err:db/ConstraintViolation', `malformed transaction blob: ${why}`);
}

/** The blob bytes: compact JSON, keys in §4 order, body keys in their own insertion order. */
export function encodeTxnBlob(blob: TxnBlob): Uint8Array {
  if (typeof blob.type !== 'string' || blob.type === '') throw malformed('type must be a non-empty string');
  if (blob.identity !== null && typeof blob.identity !== 'string') throw malformed('identity must be a string or null');
  if (blob.jws !== null && typeof blob.jws !== 'string') throw malformed('jws must be a string or null');
  if (blob.body === undefined) throw malformed('body is missing');
  const json = JSON.stringify({ type: blob.type, body: blob.body, identity: blob.identity, jws: blob.jws });
  return encoder.encode(json);
}

/** Characters of a text body escaped and encoded between two possible pauses. */
const SLICE_CHARS = 256 * 1024;

/**
 * encodeTxnBlob giving the event loop a turn whenever `slice` is used up: a text body (N-Triples,
 * Turtle, SPARQL) of megabytes is escaped and encoded piece by piece. The same bytes: JSON escapes
 * each UTF-16 unit on its own except a surrogate pair, and no piece ends inside one.
 */
export async function encodeTxnBlobSliced(blob: TxnBlob, slice: TimeSlice): Promise<Uint8Array> {
  const body = blob.body;
  if (typeof body !== 'string' || body.length <= SLICE_CHARS) return encodeTxnBlob(blob);
  const head = encodeTxnBlob({ ...blob, body: '' });
  // `{"type":…,"body":""` + `,"identity":…}`: the body's escaped text goes between the quotes.
  const at = encoder.encode(JSON.stringify({ type: blob.type, body: '' })).length - 2;
  const parts: Uint8Array[] = [head.subarray(0, at)];
  let total = head.length;
  for (let i = 0; i < body.length;) {
    let end = Math.min(body.length, i + SLICE_CHARS);
    const last = body.charCodeAt(end - 1);
    if (end < body.length && last >= 0xd800 && last <= 0xdbff) end++; // keep a surrogate pair together
    const piece = encoder.encode(JSON.stringify(body.slice(i, end)).slice(1, -1));
    parts.push(piece);
    total += piece.length;
    i = end;
    if (slice.due()) await slice.pause();
  }
  parts.push(head.subarray(at));
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/** Parse and check a blob; unknown extra keys are ignored (forward compatibility). */
export function decodeTxnBlob(bytes: Uint8Array): TxnBlob {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw malformed('invalid UTF-8');
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw malformed('not JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw malformed('not a JSON object');
  const o = v as Record<string, unknown>;
  if (typeof o.type !== 'string' || o.type === '') throw malformed('type must be a non-empty string');
  if (!('body' in o)) throw malformed('body is missing');
  if (o.identity !== null && typeof o.identity !== 'string') throw malformed('identity must be a string or null');
  if (o.jws !== null && typeof o.jws !== 'string') throw malformed('jws must be a string or null');
  return { type: o.type, body: o.body, identity: o.identity, jws: o.jws };
}

/** Encode a blob and compute its CID (codec `txn`, 0x300002). */
export async function txnBlobWithCid(blob: TxnBlob): Promise<{ bytes: Uint8Array; cid: CID }> {
  const bytes = encodeTxnBlob(blob);
  return { bytes, cid: await cidOf(Codec.txn, bytes) };
}
