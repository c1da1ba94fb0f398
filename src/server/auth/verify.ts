/**
 * Bearer token verification (auth.md §2–§5) through jose's `jwtVerify`: dispatch on the header
 * (embedded Ed25519 JWK or RS256 `kid`), algorithm allow-lists, the claim checks with the spec's
 * stable messages, and the principal a verified token yields: issuer, identity and the normalised
 * ledger scopes.
 */
import { errors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import {
  AuthError, didKeyFromPublicKey, ed25519KeyOfJwk, EDDSA_ONLY, embeddedEd25519Key, joseFailure, jsonPayload, parseCompactJws, publicKeyFromDidKey, refuseCrit,
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

/**
 * jose's claim checks with auth.md's 60 s skew. jose fails `exp <= now - tolerance` and
 * `nbf > now + tolerance`; auth.md fails `exp + 60 < now` and `nbf > now + 60`. For integer seconds
 * a tolerance of 60.5 gives exactly auth.md's boundaries on both sides.
 */
function claimRules(now: number, audience: string | null, issuer: string): JWTVerifyOptions {
  return {
    issuer, requiredClaims: ['exp'], clockTolerance: SKEW_SECONDS + 0.5, currentDate: new Date(now * 1000),
    ...(audience === null ? {} : { audience }),
  };
}

/** §3 step 5, `iat`: jose checks it only against a maximum token age, auth.md only for the future. */
function checkIssuedAt(claims: JWTPayload, now: number): void {
  const iat = num(claims.iat);
  if (iat !== undefined && iat > now + SKEW_SECONDS) throw new AuthError('token not yet valid (issued in the future)');
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
  if ('jwk' in jws.header) return verifyEmbedded(token, jws, rules, now);
  if (typeof jws.header['kid'] === 'string') return verifyOidc(token, jws, rules, jwks, now);
  throw new AuthError('Token has neither embedded JWK nor kid');
}

/** §3: EdDSA over the embedded Ed25519 key, whose did:key must be the issuer. */
async function verifyEmbedded(token: string, jws: CompactJws, rules: GroupSettings, now: number): Promise<Principal> {
  refuseCrit(jws.header);
  const key = ed25519KeyOfJwk(jws.header['jwk']);
  const did = key ? didKeyFromPublicKey(key) : '';
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, embeddedEd25519Key, { ...EDDSA_ONLY, ...claimRules(now, rules.audience, did) }));
  } catch (e) {
    if (e instanceof errors.JWTClaimValidationFailed && e.claim === 'iss') {
      throw new AuthError(typeof e.payload.iss === 'string' && publicKeyFromDidKey(e.payload.iss) ? 'issuer mismatch' : 'invalid issuer format');
    }
    throw joseFailure(e, 'EdDSA');
  }
  checkIssuedAt(claims, now);
  if (!rules.acceptAnyIssuer && !rules.trustedIssuers.includes(did)) throw new AuthError('Untrusted issuer');
  const p = principalOf('embedded_jwk', claims);
  if (!grantsFor(rules.group, p.scopes)) throw new AuthError('token authorizes no resources');
  return p;
}

/** §4: RS256 against the configured issuer's JWKS. */
async function verifyOidc(token: string, jws: CompactJws, rules: GroupSettings, jwks: JwksCache | null, now: number): Promise<Principal> {
  const iss = jsonPayload(jws)['iss'];
  if (typeof iss !== 'string' || !jwks || !jwks.has(iss)) throw new AuthError('OIDC issuer not configured');
  refuseCrit(jws.header);
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, jwks.resolver(iss), { algorithms: ['RS256'], ...claimRules(now, rules.audience, iss) }));
  } catch (e) {
    throw joseFailure(e, 'RS256');
  }
  checkIssuedAt(claims, now);
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
