/**
 * The transaction blob (replication.md §4): the request as received, stored before the commit
 * that references it, as UTF-8 JSON with the keys in the fixed order `type`, `body`, `identity`,
 * `jws`, so the same request always hashes to the same CID.
 */
import { LedgraphError } from '../errors.js';
import { Codec, cidOf, type CID } from './cid.js';

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
