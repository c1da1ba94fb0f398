/**
 * The transaction blob (replication.md §4): the request as received, stored before the commit
 * that references it, as UTF-8 JSON with the keys in the fixed order `type`, `body`, `identity`,
 * `jws`, so the same request always hashes to the same CID.
 */
import { LedgraphError } from '../errors.js';
import { Codec, cidOf, type CID } from './cid.js';
import type { TimeSlice } from '../util/next-turn.js';
import { runSteps, runStepsSliced, type Steps } from '../util/steps.js';

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

/**
 * A text body held as its UTF-8 bytes (already checked to be valid UTF-8), never as a string:
 * JSON.stringify sees the text (as TextDecoder gives it: a leading byte-order mark dropped); the
 * blob encoders escape the bytes directly into the blob, the same bytes without the text.
 */
export class Utf8Text {
  /** `escaped`: the body as escapeJsonUtf8 gives it (its BOM dropped), when made already (on another thread). */
  constructor(readonly utf8: Uint8Array, readonly escaped: Uint8Array | null = null) {}
  toJSON(): string { return new TextDecoder('utf-8').decode(this.utf8); }
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
  if (blob.body instanceof Utf8Text) return runSteps(utf8BlobSteps(blob, blob.body));
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
  if (body instanceof Utf8Text) return runStepsSliced(utf8BlobSteps(blob, body), slice);
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

/** Body bytes escaped between two possible pauses. */
const SLICE_BYTES = 1 << 20;

/** Bytes JSON.stringify escapes in text: controls below U+0020, `"` and `\\` (1: escaped). */
const ESCAPED = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) ESCAPED[c] = 1;
ESCAPED[0x22] = 1;
ESCAPED[0x5c] = 1;
/** JSON.stringify's two-character escapes (`\\b`, `\\t`, `\\n`, `\\f`, `\\r`, `\\"`, `\\\\`); other controls are `\\u00xx`. */
const SHORT_ESCAPE = new Uint8Array(256);
for (const [c, e] of [[8, 'b'], [9, 't'], [10, 'n'], [12, 'f'], [13, 'r'], [0x22, '"'], [0x5c, '\\']] as const) SHORT_ESCAPE[c] = e.charCodeAt(0);
const HEX = '0123456789abcdef';

/**
 * `JSON.stringify(text)` without its quotes, as UTF-8, for the valid UTF-8 bytes `b[from, to)` of
 * `text`: JSON escapes only `"`, `\\` and controls below U+0020, all ASCII, and a valid text has
 * no lone surrogates, so every other byte is copied as it is (in runs), without decoding the text.
 */
export function escapeJsonUtf8(b: Uint8Array, from: number, to: number): Uint8Array {
  let out: Uint8Array = new Uint8Array(to - from + ((to - from) >> 4) + 16);
  let o = 0, run = from;
  for (let i = from; i < to; i++) {
    const x = b[i]!;
    if (ESCAPED[x] === 0) continue;
    if (o + (i - run) + 6 > out.length) out = grown(out, o, o + (i - run) + 6);
    out.set(b.subarray(run, i), o);
    o += i - run;
    run = i + 1;
    out[o++] = 0x5c;
    const e = SHORT_ESCAPE[x]!;
    if (e !== 0) out[o++] = e;
    else { out[o++] = 0x75; out[o++] = 0x30; out[o++] = 0x30; out[o++] = HEX.charCodeAt(x >> 4); out[o++] = HEX.charCodeAt(x & 15); }
  }
  if (o + (to - run) > out.length) out = grown(out, o, o + (to - run));
  out.set(b.subarray(run, to), o);
  o += to - run;
  return out.subarray(0, o);
}

function grown(a: Uint8Array, used: number, need: number): Uint8Array {
  const g = new Uint8Array(Math.max(a.length * 2, need));
  g.set(a.subarray(0, used));
  return g;
}

/**
 * The blob of a UTF-8 text body, escaped from its bytes a slice at a time (escapeJsonUtf8, never
 * the text): the same bytes as JSON.stringify of the whole decoded text. A leading byte-order mark
 * is dropped, as decoding the whole body drops it.
 */
function* utf8BlobSteps(blob: TxnBlob, text: Utf8Text): Steps<Uint8Array> {
  const body = text.utf8;
  const head = encodeTxnBlob({ ...blob, body: '' });
  // `{"type":…,"body":""` + `,"identity":…}`: the body's escaped text goes between the quotes.
  const at = encoder.encode(JSON.stringify({ type: blob.type, body: '' })).length - 2;
  const parts: Uint8Array[] = [head.subarray(0, at)];
  let total = head.length;
  let i = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  if (text.escaped) {
    parts.push(text.escaped);
    total += text.escaped.length;
    i = body.length;
  }
  while (i < body.length) {
    let end = Math.min(body.length, i + SLICE_BYTES);
    while (end < body.length && (body[end]! & 0xc0) === 0x80) end--; // not inside a character
    const piece = escapeJsonUtf8(body, i, end);
    parts.push(piece);
    total += piece.length;
    i = end;
    if (i < body.length) yield;
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
