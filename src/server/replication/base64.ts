/**
 * Base64 for the JSON bodies of replication (commit pages, push requests). A room of its own so the
 * command-line client can use it without loading the server's push route and the engine behind it.
 */
import { badRequest } from '../../core/errors.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 to bytes (400 on anything else). */
export function fromBase64(s: unknown, what: string): Uint8Array {
  if (typeof s !== 'string' || !BASE64.test(s)) throw badRequest(`${what} must be a base64 string`);
  return new Uint8Array(Buffer.from(s, 'base64'));
}

/** Bytes as base64. */
export function toBase64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}
