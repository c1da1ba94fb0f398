/** Content identifiers: CIDv1, sha2-256, Ledgraph kind codecs (replication.md §1). */
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import { base32 } from 'multiformats/bases/base32';
import { badRequest } from '../errors.js';
import { sha256Bytes } from './digest-async.js';

export const Codec = {
  commit: 0x300001,
  txn: 0x300002,
  indexRoot: 0x300003,
  indexBranch: 0x300004,
  indexLeaf: 0x300005,
  dict: 0x300006,
  ledgerConfig: 0x300007,
  defaultContext: 0x300008,
  gcRecord: 0x300009,
  indexSummary: 0x30000a,
} as const;

export { CID };

/** The CID of bytes under a kind codec. */
export async function cidOf(codec: number, bytes: Uint8Array): Promise<CID> {
  return CID.create(1, codec, await sha256.digest(bytes));
}

/** True when bytes hash to the CID's digest (sha2-256 only); large bytes are hashed off the event loop. */
export async function verifyCid(cid: CID, bytes: Uint8Array): Promise<boolean> {
  if (cid.multihash.code !== sha256.code) return false;
  const a = await sha256Bytes(bytes), b = cid.multihash.digest;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Parse a CID string; only base32 (prefix `b`) is accepted. Throws 400 otherwise. */
export function parseCid(s: string): CID {
  if (typeof s !== 'string' || !s.startsWith('b')) throw badRequest(`invalid CID "${s}": only base32 CIDs are accepted`);
  try {
    return CID.parse(s, base32);
  } catch {
    throw badRequest(`invalid CID "${s}"`);
  }
}

/** Lower-case hex of a CID's digest (the abbreviable part). */
export function digestHex(cid: CID): string {
  let out = '';
  for (const b of cid.multihash.digest) out += b.toString(16).padStart(2, '0');
  return out;
}
