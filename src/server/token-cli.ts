/**
 * `ledgraph token`: make Ed25519 keys and bearer tokens (auth.md §10) and look inside tokens.
 *   keygen   a fresh Ed25519 key: its did:key (the issuer to trust) and the private seed
 *   create   mint a token signed by a seed (through jose), with the chosen claims and expiry
 *   inspect  decode a token, check its signature (jose) and say whether it is expired
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { badRequest } from '../core/errors.js';
import {
  AuthError, bytesHex, didKeyFromPublicKey, ed25519FromSeed, ed25519KeyOfJwk, hexBytes, jsonPayload, mintToken, parseCompactJws, randomSeed, verifyEmbeddedJws,
} from './auth/jws.js';
import { normalizeLedgerList } from './auth/verify.js';

/** Where the command writes (injectable for tests). */
export interface TokenIo { out(text: string): void; err(text: string): void }

export const TOKEN_USAGE = `Usage: ledgraph token <command> [flags]

Commands:
  keygen [--out <file>]
      Make an Ed25519 key. Prints {"did", "public_key", "private_key"} (hex seed) as JSON; with
      --out the seed goes to <file> (mode 600) and only the DID and public key are printed.
  create --key <hex-seed|@file> [flags]
      Mint a bearer token (EdDSA, embedded JWK; the issuer is the key's did:key). Flags:
        --expires-in <dur>    validity: seconds or 30s, 15m, 1h, 7d (default 1h)
        --sub <name>          subject (informational)
        --aud <aud>           audience (repeatable)
        --identity <iri>      ledgraph.identity: the identity policies see
        --read <ledger>       read scope (repeatable);   --read-all
        --write <ledger>      write scope (repeatable);  --write-all
        --storage <ledger>    replication scope (repeatable); --storage-all (operators only)
        --events <ledger>     events scope (repeatable); --events-all
        --claims <json>       extra claims merged last
  inspect <token>
      Decode the token; for an embedded-JWK token, verify its signature and derive its did:key.
`;

/** Seconds of a duration: `3600`, `30s`, `15m`, `1h`, `7d`. */
export function parseDuration(raw: string): number {
  const m = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
  if (!m) throw badRequest(`invalid duration "${raw}" (use seconds or 30s, 15m, 1h, 7d)`);
  const n = Number(m[1]);
  return n * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd']);
}

function seedFrom(raw: string): Uint8Array {
  const text = raw.startsWith('@') ? readFileSync(raw.slice(1), 'utf8') : raw;
  const seed = hexBytes(text.trim());
  if (!seed || seed.length !== 32) throw badRequest('--key must be a 32-byte Ed25519 seed in hex (64 characters), or @file holding one');
  return seed;
}

/** Claims of `token create` from its flags. */
export function claimsFromFlags(v: Record<string, string | boolean | string[] | undefined>, iss: string, now: number): Record<string, unknown> {
  const list = (k: string) => normalizeLedgerList((v[k] as string[] | undefined) ?? []);
  const claims: Record<string, unknown> = { iss };
  if (typeof v['sub'] === 'string') claims['sub'] = v['sub'];
  const aud = (v['aud'] as string[] | undefined) ?? [];
  if (aud.length === 1) claims['aud'] = aud[0];
  else if (aud.length > 1) claims['aud'] = aud;
  claims['iat'] = now;
  claims['exp'] = now + parseDuration(typeof v['expires-in'] === 'string' ? v['expires-in'] : '1h');
  if (typeof v['identity'] === 'string') claims['ledgraph.identity'] = v['identity'];
  if (v['read-all']) claims['ledgraph.ledger.read.all'] = true;
  if (list('read').length) claims['ledgraph.ledger.read.ledgers'] = list('read');
  if (v['write-all']) claims['ledgraph.ledger.write.all'] = true;
  if (list('write').length) claims['ledgraph.ledger.write.ledgers'] = list('write');
  if (v['storage-all']) claims['ledgraph.storage.all'] = true;
  if (list('storage').length) claims['ledgraph.storage.ledgers'] = list('storage');
  if (v['events-all']) claims['ledgraph.events.all'] = true;
  if (list('events').length) claims['ledgraph.events.ledgers'] = list('events');
  if (typeof v['claims'] === 'string') {
    let extra: unknown;
    try { extra = JSON.parse(v['claims']); } catch { throw badRequest('--claims must be a JSON object'); }
    if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) throw badRequest('--claims must be a JSON object');
    Object.assign(claims, extra);
  }
  return claims;
}

/** Decode and (when it embeds a JWK) verify a token, for `inspect`. */
export async function inspectToken(token: string, now = Math.floor(Date.now() / 1000)): Promise<Record<string, unknown>> {
  const jws = parseCompactJws(token.trim());
  const claims = jsonPayload(jws);
  const out: Record<string, unknown> = { header: jws.header, claims };
  const key = ed25519KeyOfJwk(jws.header['jwk']);
  if (key) {
    const did = didKeyFromPublicKey(key);
    out['did'] = did;
    out['signature_valid'] = await verifyEmbeddedJws(token.trim()).then(() => true, (e: unknown) => {
      if (e instanceof AuthError) return false;
      throw e;
    });
    out['issuer_matches_key'] = claims['iss'] === did;
  } else {
    out['signature_valid'] = null;
  }
  if (typeof claims['exp'] === 'number') {
    out['expires_at'] = new Date(claims['exp'] * 1000).toISOString();
    out['expired'] = claims['exp'] + 60 < now;
  }
  return out;
}

/** Run `ledgraph token ...`; resolves to the exit code. */
export async function tokenMain(argv: readonly string[], io: TokenIo, now = () => Math.floor(Date.now() / 1000)): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case undefined: case '-h': case '--help': case 'help':
      (cmd === undefined ? io.err : io.out)(TOKEN_USAGE);
      return cmd === undefined ? 2 : 0;
    case 'keygen': {
      const { values } = parseArgs({ args: [...rest], options: { out: { type: 'string' } }, strict: true });
      const seed = randomSeed();
      const signer = await ed25519FromSeed(seed);
      const doc: Record<string, string> = { did: signer.did, public_key: bytesHex(signer.publicKey) };
      if (values.out) writeFileSync(values.out, bytesHex(seed) + '\n', { mode: 0o600 });
      else doc['private_key'] = bytesHex(seed);
      io.out(JSON.stringify(doc, null, 2) + '\n');
      return 0;
    }
    case 'create': {
      const { values } = parseArgs({
        args: [...rest], strict: true,
        options: {
          key: { type: 'string' }, 'expires-in': { type: 'string' }, sub: { type: 'string' }, aud: { type: 'string', multiple: true },
          identity: { type: 'string' }, read: { type: 'string', multiple: true }, 'read-all': { type: 'boolean' },
          write: { type: 'string', multiple: true }, 'write-all': { type: 'boolean' }, storage: { type: 'string', multiple: true },
          'storage-all': { type: 'boolean' }, events: { type: 'string', multiple: true }, 'events-all': { type: 'boolean' }, claims: { type: 'string' },
        },
      });
      if (!values.key) throw badRequest('token create needs --key <hex-seed|@file> (make one with ledgraph token keygen)');
      const signer = await ed25519FromSeed(seedFrom(values.key));
      io.out(await mintToken(signer, claimsFromFlags(values, signer.did, now())) + '\n');
      return 0;
    }
    case 'inspect': {
      const token = rest[0];
      if (!token || rest.length !== 1) throw badRequest('token inspect takes exactly one token');
      io.out(JSON.stringify(await inspectToken(token, now()), null, 2) + '\n');
      return 0;
    }
    default:
      io.err(`ledgraph token: unknown command "${cmd}"\n\n${TOKEN_USAGE}`);
      return 2;
  }
}
