/**
 * SHA-256 of large byte arrays off the event loop: Web Crypto's digest runs in Node's thread pool
 * (and a browser's crypto thread), so hashing a 12 MB request body or a 2 MB commit does not hold
 * every other request for tens of ms. Small inputs, and runtimes without `crypto.subtle` (a browser
 * page on a non-secure origin), hash synchronously as before. Same digests, same CIDs.
 */
import { CID } from 'multiformats/cid';
import { create as createDigest } from 'multiformats/hashes/digest';
import { sha256 } from 'multiformats/hashes/sha2';

/** Below this many bytes a synchronous hash is cheaper than a trip to another thread. */
const OFF_THREAD_BYTES = 256 * 1024;

interface Subtle { digest(alg: string, data: Uint8Array): Promise<ArrayBuffer> }

function subtle(): Subtle | undefined {
  return (globalThis as { crypto?: { subtle?: Subtle } }).crypto?.subtle;
}

/** The SHA-256 digest of `bytes`, computed off the event loop when large. */
export async function sha256Bytes(bytes: Uint8Array): Promise<Uint8Array> {
  const s = bytes.length >= OFF_THREAD_BYTES ? subtle() : undefined;
  if (s) return new Uint8Array(await s.digest('SHA-256', bytes));
  return (await sha256.digest(bytes)).digest;
}

/** cidOf (cid.ts) for possibly large bytes: the same CID, hashed off the event loop when large. */
export async function cidOfLarge(codec: number, bytes: Uint8Array): Promise<CID> {
  return CID.create(1, codec, createDigest(sha256.code, await sha256Bytes(bytes)));
}
