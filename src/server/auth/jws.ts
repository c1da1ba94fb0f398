/**
 * The primitives of auth.md: base64url without padding, compact JWS parsing, Ed25519 did:key
 * derivation (§3), and Ed25519 / RS256 signature checks with WebCrypto only, so the same code runs
 * in Node and in a browser.
 */
import { base58btc } from 'multiformats/bases/base58';

/** An authentication failure: 401 err:db/Unauthorized with a stable message (auth.md §6). */
export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthError';
  }
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < B64URL.length; i++) DECODE[B64URL.charCodeAt(i)] = i;

/** Encode bytes as base64url without padding. */
export function b64uEncode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]! + B64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]!;
  }
  return out;
}

/** Decode base64url without padding; null on any character outside the alphabet or a bad length. */
export function b64uDecode(s: string): Uint8Array | null {
  if (s.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let acc = 0, bits = 0, k = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? DECODE[c]! : -1;
    if (v < 0) return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[k++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, k);
}

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

/** Encode a JSON value as base64url of its UTF-8 `JSON.stringify` (no spaces). */
export function b64uJson(v: unknown): string {
  return b64uEncode(enc.encode(JSON.stringify(v)));
}

/** A compact JWS split into its parts (nothing verified yet). */
export interface CompactJws {
  header: Record<string, unknown>;
  /** Payload bytes (UTF-8 JSON for tokens, the request body for signed requests). */
  payload: Uint8Array;
  /** ASCII bytes of `part1 "." part2`: what the signature covers. */
  signingInput: Uint8Array;
  signature: Uint8Array;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Split and decode a compact JWS; AuthError "Invalid token" when it is not one (§3 step 1). */
export function parseCompactJws(token: string): CompactJws {
  const parts = token.split('.');
  if (parts.length !== 3) throw new AuthError('Invalid token: expected three dot-separated parts');
  const [h, p, s] = parts as [string, string, string];
  const hb = b64uDecode(h), pb = b64uDecode(p), sb = b64uDecode(s);
  if (!hb || !pb || !sb) throw new AuthError('Invalid token: parts must be base64url');
  let header: unknown;
  try { header = JSON.parse(dec.decode(hb)); } catch { throw new AuthError('Invalid token: header is not JSON'); }
  if (!isObject(header)) throw new AuthError('Invalid token: header is not a JSON object');
  return { header, payload: pb, signingInput: enc.encode(`${h}.${p}`), signature: sb };
}

/** The payload as a JSON object (token claims); AuthError "Invalid token" otherwise. */
export function jsonPayload(jws: CompactJws): Record<string, unknown> {
  let v: unknown;
  try { v = JSON.parse(dec.decode(jws.payload)); } catch { throw new AuthError('Invalid token: payload is not JSON'); }
  if (!isObject(v)) throw new AuthError('Invalid token: payload is not a JSON object');
  return v;
}

/** Decode a JWS payload as UTF-8 text (signed request bodies). */
export function payloadText(jws: CompactJws): string {
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

/** Copy into a fresh ArrayBuffer-backed array (WebCrypto wants BufferSource over ArrayBuffer). */
function buf(b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(b.length));
  out.set(b);
  return out;
}

/** Verify an Ed25519 signature with a raw 32-byte public key. */
export async function verifyEd25519(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): Promise<boolean> {
  if (signature.length !== 64) return false;
  try {
    const key = await crypto.subtle.importKey('raw', buf(publicKey), { name: 'Ed25519' }, false, ['verify']);
    return await crypto.subtle.verify({ name: 'Ed25519' }, key, buf(signature), buf(data));
  } catch {
    return false;
  }
}

/** Verify an RS256 (RSASSA-PKCS1-v1_5 / SHA-256) signature with an RSA JWK. */
export async function verifyRs256(jwk: JsonWebKey, data: Uint8Array, signature: Uint8Array): Promise<boolean> {
  try {
    const key = await crypto.subtle.importKey('jwk', { kty: 'RSA', n: jwk.n, e: jwk.e }, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
    return await crypto.subtle.verify({ name: 'RSASSA-PKCS1-v1_5' }, key, buf(signature), buf(data));
  } catch {
    return false;
  }
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
  const privateKey = await crypto.subtle.importKey('pkcs8', buf(pkcs8), { name: 'Ed25519' }, true, ['sign']);
  const jwk = await crypto.subtle.exportKey('jwk', privateKey);
  const publicKey = b64uDecode(jwk.x ?? '');
  if (!publicKey || publicKey.length !== 32) throw new Error('could not derive the Ed25519 public key');
  return { privateKey, publicKey, did: didKeyFromPublicKey(publicKey), jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x! } };
}

/** A fresh random Ed25519 seed. */
export function randomSeed(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

/** Sign `payload` as a compact JWS with header `header` (its `alg`/`jwk` are set here). */
export async function signCompact(signer: Ed25519Signer, payload: Uint8Array, header: Record<string, unknown> = {}): Promise<string> {
  const h = b64uJson({ alg: 'EdDSA', jwk: signer.jwk, ...header });
  const p = b64uEncode(payload);
  const sig = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, signer.privateKey, buf(enc.encode(`${h}.${p}`))));
  return `${h}.${p}.${b64uEncode(sig)}`;
}

/** Mint a bearer token: header `{"alg":"EdDSA","jwk":...}` over the JSON claims (auth.md §10). */
export async function mintToken(signer: Ed25519Signer, claims: Record<string, unknown>): Promise<string> {
  return signCompact(signer, enc.encode(JSON.stringify(claims)));
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
