/**
 * Bearer token verification (auth.md §2–§5): dispatch on the header (embedded Ed25519 JWK or RS256
 * `kid`), the checks in the spec's order with its stable messages, and the principal a verified
 * token yields: issuer, identity and the normalised ledger scopes.
 */
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import {
  AuthError, didKeyFromPublicKey, ed25519KeyOfJwk, jsonPayload, parseCompactJws, publicKeyFromDidKey, verifyEd25519, verifyRs256,
  type CompactJws,
} from './jws.js';
import type { JwksCache } from './jwks.js';
import type { GroupSettings } from './settings.js';

/** Clock skew allowed on exp / nbf / iat (seconds). */
export const SKEW_SECONDS = 60;

/** What a token may reach, ledger ids normalised to `name:branch`. */
export interface Scopes {
  readAll: boolean;
  readLedgers: string[];
  writeAll: boolean;
  writeLedgers: string[];
  storageAll: boolean;
  storageLedgers: string[];
  eventsAll: boolean;
  eventsLedgers: string[];
  eventsGraphSources: string[];
}

/** A verified credential. */
export interface Principal {
  /** `bearer` token, or the signer of a signed request (`signed`). */
  kind: 'bearer' | 'signed';
  authMethod: 'embedded_jwk' | 'oidc';
  issuer: string;
  subject?: string;
  /** `ledgraph.identity` (bearer) or the signer's did:key (signed request). */
  identity?: string;
  /** `exp` (seconds since the epoch). */
  expiresAt?: number;
  scopes: Scopes;
}

/** Scopes granting nothing. */
export function noScopes(): Scopes {
  return { readAll: false, readLedgers: [], writeAll: false, writeLedgers: [], storageAll: false, storageLedgers: [], eventsAll: false, eventsLedgers: [], eventsGraphSources: [] };
}

/** Claim ledger lists: bare `x` -> `x:main`; non-strings and invalid ids are dropped. */
export function normalizeLedgerList(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  const out = new Set<string>();
  for (const x of v) {
    if (typeof x !== 'string') continue;
    try { out.add(normalizeLedgerId(x)); } catch { /* not a ledger id: left out */ }
  }
  return [...out];
}

/** Scopes of a claims object (auth.md §5). */
export function scopesOf(claims: Record<string, unknown>): Scopes {
  const list = (k: string) => normalizeLedgerList(claims[k]);
  return {
    readAll: claims['ledgraph.ledger.read.all'] === true,
    readLedgers: list('ledgraph.ledger.read.ledgers'),
    writeAll: claims['ledgraph.ledger.write.all'] === true,
    writeLedgers: list('ledgraph.ledger.write.ledgers'),
    storageAll: claims['ledgraph.storage.all'] === true,
    storageLedgers: list('ledgraph.storage.ledgers'),
    eventsAll: claims['ledgraph.events.all'] === true,
    eventsLedgers: list('ledgraph.events.ledgers'),
    // Graph sources are named like ledgers.
    eventsGraphSources: list('ledgraph.events.graph_sources'),
  };
}

/** Does the token grant anything usable by this group (§3 step 8)? */
export function grantsFor(group: GroupSettings['group'], s: Scopes): boolean {
  switch (group) {
    case 'data': return s.readAll || s.readLedgers.length > 0 || s.writeAll || s.writeLedgers.length > 0 || s.storageAll || s.storageLedgers.length > 0;
    case 'events': return s.eventsAll || s.eventsLedgers.length > 0 || s.eventsGraphSources.length > 0;
    case 'storage': return s.storageAll || s.storageLedgers.length > 0;
    case 'admin': return true;
  }
}

/** May the principal read the ledger (read or storage scope; storage implies read)? */
export function canRead(s: Scopes, ledgerId: string): boolean {
  return s.readAll || s.storageAll || s.readLedgers.includes(ledgerId) || s.storageLedgers.includes(ledgerId);
}
/** May the principal write the ledger? */
export function canWrite(s: Scopes, ledgerId: string): boolean {
  return s.writeAll || s.writeLedgers.includes(ledgerId);
}
/** Replication access (storage proxy, commits export, pack, push)? */
export function canReplicate(s: Scopes, ledgerId: string): boolean {
  return s.storageAll || s.storageLedgers.includes(ledgerId);
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** §3 step 5: exp required, nbf / iat optional, 60 s skew. */
function checkTimes(claims: Record<string, unknown>, now: number): void {
  const exp = num(claims['exp']);
  if (exp === undefined) throw new AuthError('Invalid token: exp is required');
  if (exp + SKEW_SECONDS < now) throw new AuthError('Token expired');
  const nbf = num(claims['nbf']);
  if (nbf !== undefined && nbf > now + SKEW_SECONDS) throw new AuthError('token not yet valid');
  const iat = num(claims['iat']);
  if (iat !== undefined && iat > now + SKEW_SECONDS) throw new AuthError('token not yet valid (issued in the future)');
}

/** §3 step 6: `aud` (string or array) must contain the expected audience. */
function checkAudience(claims: Record<string, unknown>, audience: string | null): void {
  if (audience === null) return;
  const aud = claims['aud'];
  const ok = typeof aud === 'string' ? aud === audience : Array.isArray(aud) && aud.includes(audience);
  if (!ok) throw new AuthError('Invalid token: audience mismatch');
}

function principalOf(authMethod: Principal['authMethod'], claims: Record<string, unknown>): Principal {
  const p: Principal = { kind: 'bearer', authMethod, issuer: String(claims['iss']), scopes: scopesOf(claims) };
  if (typeof claims['sub'] === 'string') p.subject = claims['sub'];
  if (typeof claims['ledgraph.identity'] === 'string' && claims['ledgraph.identity'] !== '') p.identity = claims['ledgraph.identity'];
  const exp = num(claims['exp']);
  if (exp !== undefined) p.expiresAt = exp;
  return p;
}

/** Verify a bearer token for a group; AuthError (401) with the spec's message on any failure. */
export async function verifyBearer(token: string, rules: GroupSettings, jwks: JwksCache | null, now = Math.floor(Date.now() / 1000)): Promise<Principal> {
  const jws = parseCompactJws(token);
  if ('jwk' in jws.header) return verifyEmbedded(jws, rules, now);
  if (typeof jws.header['kid'] === 'string') return verifyOidc(jws, rules, jwks, now);
  throw new AuthError('Token has neither embedded JWK nor kid');
}

async function verifyEmbedded(jws: CompactJws, rules: GroupSettings, now: number): Promise<Principal> {
  const h = jws.header;
  if (h['alg'] !== 'EdDSA') throw new AuthError('Invalid token: alg must be EdDSA');
  if ('crit' in h) throw new AuthError('Invalid token: crit is not supported');
  const key = ed25519KeyOfJwk(h['jwk']);
  if (!key) throw new AuthError('Invalid token: jwk must be an Ed25519 OKP key');
  const claims = jsonPayload(jws);
  if (!(await verifyEd25519(key, jws.signingInput, jws.signature))) throw new AuthError('Invalid token: bad signature');
  const did = didKeyFromPublicKey(key);
  const iss = claims['iss'];
  if (typeof iss !== 'string' || !publicKeyFromDidKey(iss)) throw new AuthError('invalid issuer format');
  if (iss !== did) throw new AuthError('issuer mismatch');
  checkTimes(claims, now);
  checkAudience(claims, rules.audience);
  if (!rules.acceptAnyIssuer && !rules.trustedIssuers.includes(did)) throw new AuthError('Untrusted issuer');
  const p = principalOf('embedded_jwk', claims);
  if (!grantsFor(rules.group, p.scopes)) throw new AuthError('token authorizes no resources');
  return p;
}

async function verifyOidc(jws: CompactJws, rules: GroupSettings, jwks: JwksCache | null, now: number): Promise<Principal> {
  const claims = jsonPayload(jws);
  const iss = claims['iss'];
  if (typeof iss !== 'string' || !jwks || !jwks.has(iss)) throw new AuthError('OIDC issuer not configured');
  if (jws.header['alg'] !== 'RS256') throw new AuthError('Invalid token: alg must be RS256');
  const jwk = await jwks.key(iss, jws.header['kid'] as string);
  if (!jwk || (jwk.kty !== undefined && jwk.kty !== 'RSA')) throw new AuthError('Invalid token: unknown key id');
  if (!(await verifyRs256(jwk, jws.signingInput, jws.signature))) throw new AuthError('Invalid token: bad signature');
  checkTimes(claims, now);
  checkAudience(claims, rules.audience);
  const p = principalOf('oidc', claims);
  if (!grantsFor(rules.group, p.scopes)) throw new AuthError('token authorizes no resources');
  return p;
}

/** Unverified claims of a token, for `/whoami` diagnostics; null when it cannot be decoded. */
export function unverifiedClaims(token: string): Record<string, unknown> | null {
  try { return jsonPayload(parseCompactJws(token)); } catch { return null; }
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), else null. */
export function bearerToken(header: string | undefined | null): string | null {
  if (!header) return null;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}
