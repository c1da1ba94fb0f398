/**
 * The JOSE pieces of auth.md, over `jose`: decoding a compact JWS without verifying it (to dispatch
 * on its header, §2), verifying one signed by the Ed25519 key it embeds (§3, §8), the did:key
 * derivation (§3, multiformats), Ed25519 keys from a seed and token minting (§10), and the mapping
 * of jose's errors to the spec's stable 401 messages. WebCrypto only, so it runs in a browser too.
 */
import {
  base64url, compactVerify, EmbeddedJWK, errors, exportJWK, SignJWT,
  type CompactJWSHeaderParameters, type CryptoKey as JoseKey, type FlattenedJWSInput,
} from 'jose';
import { base58btc } from 'multiformats/bases/base58';

/** An authentication failure: 401 err:db/Unauthorized with a stable message (auth.md §6). */
export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthError';
  }
}

const B64URL_RE = /^[A-Za-z0-9_-]*$/;

/** Encode bytes as base64url without padding. */
export function b64uEncode(bytes: Uint8Array): string {
  return base64url.encode(bytes);
}

/** Decode base64url without padding; null on any character outside the alphabet or a bad length. */
export function b64uDecode(s: string): Uint8Array | null {
  // jose's decoder is forgiving (padding, whitespace); compact JWS parts may hold neither.
  if (!B64URL_RE.test(s) || s.length % 4 === 1) return null;
  try { return base64url.decode(s); } catch { return null; }
}

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

/** Encode a JSON value as base64url of its UTF-8 `JSON.stringify` (no spaces). */
export function b64uJson(v: unknown): string {
  return b64uEncode(enc.encode(JSON.stringify(v)));
}

/** A compact JWS split into its parts (nothing verified). */
export interface CompactJws {
  header: Record<string, unknown>;
  /** Payload bytes (UTF-8 JSON for tokens, the request body for signed requests). */
  payload: Uint8Array;
  signature: Uint8Array;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Split and decode a compact JWS without verifying it, to dispatch on its header and report
 * unverified claims; AuthError "Invalid token" when it is not one (§3 step 1).
 */
export function parseCompactJws(token: string): CompactJws {
  const parts = token.split('.');
  if (parts.length !== 3) throw new AuthError('Invalid token: expected three dot-separated parts');
  const [h, p, s] = parts as [string, string, string];
  const hb = b64uDecode(h), pb = b64uDecode(p), sb = b64uDecode(s);
  if (!hb || !pb || !sb) throw new AuthError('Invalid token: parts must be base64url');
  let header: unknown;
  try { header = JSON.parse(dec.decode(hb)); } catch { throw new AuthError('Invalid token: header is not JSON'); }
  if (!isObject(header)) throw new AuthError('Invalid token: header is not a JSON object');
  return { header, payload: pb, signature: sb };
}

/** The payload as a JSON object (token claims); AuthError "Invalid token" otherwise. */
export function jsonPayload(jws: Pick<CompactJws, 'payload'>): Record<string, unknown> {
  let v: unknown;
  try { v = JSON.parse(dec.decode(jws.payload)); } catch { throw new AuthError('Invalid token: payload is not JSON'); }
  if (!isObject(v)) throw new AuthError('Invalid token: payload is not a JSON object');
  return v;
}

/** Decode a JWS payload as UTF-8 text (signed request bodies). */
export function payloadText(jws: Pick<CompactJws, 'payload'>): string {
  try { return dec.decode(jws.payload); } catch { throw new AuthError('Invalid token: payload is not UTF-8'); }
}

// ------------------------------------------------------------------------------------------------
// did:key (auth.md §3)

const ED25519_PUB = [0xed, 0x01];

/** did:key of a 32-byte Ed25519 public key: `did:key:z` + base58btc(0xED 0x01 || key). */
export function didKeyFromPublicKey(key: Uint8Array): string {
  if (key.length !== 32) throw new AuthError('Invalid token: an Ed25519 public key has 32 bytes');
  const bytes = new Uint8Array(34);
  bytes.set(ED25519_PUB, 0);
  bytes.set(key, 2);
  return 'did:key:' + base58btc.encode(bytes);
}

/** The Ed25519 public key of a did:key, or null when it is not a valid Ed25519 did:key. */
export function publicKeyFromDidKey(did: string): Uint8Array | null {
  if (typeof did !== 'string' || !did.startsWith('did:key:z')) return null;
  let bytes: Uint8Array;
  try { bytes = base58btc.decode(did.slice('did:key:'.length)); } catch { return null; }
  if (bytes.length !== 34 || bytes[0] !== ED25519_PUB[0] || bytes[1] !== ED25519_PUB[1]) return null;
  return bytes.slice(2);
}

/** The 32 public key bytes of an Ed25519 OKP JWK, or null when the JWK is not one. */
export function ed25519KeyOfJwk(jwk: unknown): Uint8Array | null {
  if (!isObject(jwk) || jwk['kty'] !== 'OKP' || jwk['crv'] !== 'Ed25519' || typeof jwk['x'] !== 'string') return null;
  const x = b64uDecode(jwk['x']);
  return x && x.length === 32 ? x : null;
}

// ------------------------------------------------------------------------------------------------
// Verification through jose

/** The only algorithm of embedded-JWK tokens and signed requests (§3, §8). */
export const EDDSA_ONLY = { algorithms: ['EdDSA'] };

/** §3: any `crit` header is refused (jose would accept a recognised one such as `b64`). */
export function refuseCrit(header: Record<string, unknown>): void {
  if ('crit' in header) throw new AuthError('Invalid token: crit is not supported');
}

/**
 * jose key resolver for a JWS that embeds its Ed25519 key (§3 step 2): the key must be an OKP
 * Ed25519 JWK with a 32-byte `x`; jose's EmbeddedJWK imports it and refuses a private key.
 */
export async function embeddedEd25519Key(header: CompactJWSHeaderParameters, token: FlattenedJWSInput): Promise<JoseKey> {
  if (!ed25519KeyOfJwk(header.jwk)) throw new AuthError('Invalid token: jwk must be an Ed25519 OKP key');
  return EmbeddedJWK(header, token);
}

/**
 * Verify a compact JWS signed by the Ed25519 key in its `jwk` header (alg EdDSA only, no `crit`):
 * its header, payload bytes and the signer's did:key. AuthError on any failure.
 */
export async function verifyEmbeddedJws(token: string): Promise<{ header: Record<string, unknown>; payload: Uint8Array; did: string }> {
  const { header } = parseCompactJws(token);
  refuseCrit(header);
  try {
    const r = await compactVerify(token, embeddedEd25519Key, EDDSA_ONLY);
    return { header, payload: r.payload, did: didKeyFromPublicKey(ed25519KeyOfJwk(header['jwk'])!) };
  } catch (e) {
    throw joseFailure(e, 'EdDSA');
  }
}

/** The spec's 401 message for an error jose (or a key resolver) threw while verifying. */
export function joseFailure(e: unknown, alg: string): AuthError {
  if (e instanceof AuthError) return e;
  if (e instanceof errors.JOSEAlgNotAllowed) return new AuthError(`Invalid token: alg must be ${alg}`);
  if (e instanceof errors.JWSSignatureVerificationFailed) return new AuthError('Invalid token: bad signature');
  if (e instanceof errors.JWTExpired) return new AuthError('Token expired');
  if (e instanceof errors.JWKSNoMatchingKey) return new AuthError('Invalid token: unknown key id');
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'exp' && e.reason === 'missing') return new AuthError('Invalid token: exp is required');
    if (e.claim === 'nbf' && e.reason === 'check_failed') return new AuthError('token not yet valid');
    if (e.claim === 'aud') return new AuthError('Invalid token: audience mismatch');
  }
  if (e instanceof errors.JOSEError) return new AuthError(`Invalid token: ${e.message}`);
  // A JWKS that cannot be fetched, or a key WebCrypto refuses: nothing to verify with.
  return new AuthError('Invalid token: unknown key id');
}

// ------------------------------------------------------------------------------------------------
// Ed25519 keys and signing (token minting, signed requests, tests)

const PKCS8_ED25519_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];

/** An Ed25519 signing key with its public half. */
export interface Ed25519Signer {
  privateKey: CryptoKey;
  publicKey: Uint8Array;
  did: string;
  /** The public JWK to embed in a JWS header. */
  jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
}

/** Import a 32-byte Ed25519 seed (PKCS#8 = fixed prefix || seed) and derive its public key. */
export async function ed25519FromSeed(seed: Uint8Array): Promise<Ed25519Signer> {
  if (seed.length !== 32) throw new Error('an Ed25519 seed has 32 bytes');
  const pkcs8 = new Uint8Array(48);
  pkcs8.set(PKCS8_ED25519_PREFIX, 0);
  pkcs8.set(seed, 16);
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, true, ['sign']);
  const { x } = await exportJWK(privateKey);
  const publicKey = b64uDecode(x ?? '');
  if (!publicKey || publicKey.length !== 32) throw new Error('could not derive the Ed25519 public key');
  return { privateKey, publicKey, did: didKeyFromPublicKey(publicKey), jwk: { kty: 'OKP', crv: 'Ed25519', x: x! } };
}

/** A fresh random Ed25519 seed. */
export function randomSeed(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

/**
 * Sign `payload` as a compact JWS with header `{"alg":"EdDSA","jwk":...}` plus `header`, taken as
 * given: tests forge `alg` and `crit` with it, which jose's signers refuse to produce, so this signs
 * the encoded parts with WebCrypto Ed25519 directly. Tokens are minted by jose (`mintToken`).
 */
export async function signCompact(signer: Ed25519Signer, payload: Uint8Array, header: Record<string, unknown> = {}): Promise<string> {
  const input = `${b64uJson({ alg: 'EdDSA', jwk: signer.jwk, ...header })}.${b64uEncode(payload)}`;
  const sig = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, signer.privateKey, enc.encode(input)));
  return `${input}.${b64uEncode(sig)}`;
}

/** Mint a bearer token with jose: header `{"alg":"EdDSA","jwk":...}` over the JSON claims (auth.md §10). */
export async function mintToken(signer: Ed25519Signer, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', jwk: signer.jwk }).sign(signer.privateKey);
}

/** Hex to bytes (seeds on the command line). */
export function hexBytes(hex: string): Uint8Array | null {
  const h = hex.trim().toLowerCase();
  if (!/^([0-9a-f]{2})*$/.test(h)) return null;
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Bytes to lower-case hex. */
export function bytesHex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}
