/**
 * Signed requests (auth.md §8): a compact JWS body (`application/jose`, `application/jwt`, or a body
 * that looks like one) whose payload is the request itself, and the verifiable-credential profile
 * (a JSON body carrying the request in `credentialSubject` with a JsonWebSignature2020 proof). The
 * signer's did:key becomes the request identity.
 */
import { badRequest, forbidden } from '../../core/errors.js';
import { checkJsonTextDepth } from '../../core/json-depth.js';
import { AuthError, b64uEncode, payloadText, verifyEmbeddedJws } from './jws.js';
import { SKEW_SECONDS } from './verify.js';
import { quote } from '../../core/excerpt.js';

/** What a signed body unwraps to. */
export interface SignedBody {
  /** The signer's did:key. */
  did: string;
  /** The request body the signature covers. */
  body: string;
  /** Its media type (`application/json`, `application/sparql-query` or `application/sparql-update`). */
  contentType: string;
}

/** Which SPARQL kind a route expects of an unlabelled non-JSON payload; null = none (JSON only). */
export type SparqlKind = 'application/sparql-query' | 'application/sparql-update' | null;

const SIGNABLE_TYPES = new Set(['application/json', 'application/sparql-query', 'application/sparql-update']);

/** Does a body look like a compact JWS (`eyJ...` with exactly two dots)? */
export function looksLikeJws(text: string): boolean {
  const t = text.trim();
  if (!t.startsWith('eyJ')) return false;
  let dots = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 46) dots++;
    else if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95)) return false;
  }
  return dots === 2;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A payload's `opts.identity` (or its alias `did`) anywhere in the request (envelope, sub-queries)
 * must be the signer: a signature cannot vouch for someone else (auth.md §8).
 */
export function checkOptsIdentity(json: unknown, did: string, depth = 0): void {
  if (depth > 6) return;
  if (Array.isArray(json)) { for (const x of json) checkOptsIdentity(x, did, depth + 1); return; }
  if (!isObject(json)) return;
  for (const [k, v] of Object.entries(json)) {
    if (k === 'opts' && isObject(v)) {
      for (const key of ['identity', 'did']) {
        if (v[key] !== undefined && v[key] !== did) throw forbidden('opts.identity of a signed request must be the signer\'s DID');
      }
    }
    if (typeof v === 'object' && v !== null) checkOptsIdentity(v, did, depth + 1);
  }
}

/** Verify a compact JWS request body and unwrap it (401 on a bad signature or an expired envelope). */
export async function unwrapJws(token: string, sparqlKind: SparqlKind, now = Math.floor(Date.now() / 1000)): Promise<SignedBody> {
  const { header: h, payload, did } = await verifyEmbeddedJws(token.trim());
  const exp = h['exp'];
  if (exp !== undefined && (typeof exp !== 'number' || exp + SKEW_SECONDS < now)) throw new AuthError('Token expired');
  const iat = h['iat'];
  if (iat !== undefined && (typeof iat !== 'number' || iat > now + SKEW_SECONDS)) throw new AuthError('token not yet valid (issued in the future)');
  const body = payloadText({ payload });
  const cty = h['cty'];
  let contentType: string;
  if (cty !== undefined) {
    if (typeof cty !== 'string' || !SIGNABLE_TYPES.has(cty.toLowerCase())) {
      throw badRequest(`signed request: cty ${quote(cty)} cannot be signed; use application/json, application/sparql-query or application/sparql-update`);
    }
    contentType = cty.toLowerCase();
  } else {
    let json: unknown;
    try { json = JSON.parse(body); } catch { json = undefined; }
    if (isObject(json)) contentType = 'application/json';
    else if (sparqlKind) contentType = sparqlKind;
    else throw badRequest('signed request: the payload must be a JSON object on this route (Turtle and TriG cannot be signed)');
  }
  if (contentType === 'application/json') {
    let json: unknown;
    checkJsonTextDepth(body, 'the signed payload');
    try { json = JSON.parse(body); } catch { throw badRequest('signed request: the payload is not valid JSON'); }
    checkOptsIdentity(json, did);
  }
  return { did, body, contentType };
}

/** RFC 8785 (JCS) canonical JSON: sorted keys, no whitespace, ECMAScript number and string forms. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') {
    if (typeof v === 'number' && !Number.isFinite(v)) throw badRequest('canonical JSON cannot hold a non-finite number');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return '[' + v.map(canonicalJson).join(',') + ']';
  if (isObject(v)) {
    // JCS sorts by UTF-16 code units, which is what the default string comparison does.
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(v[k])).join(',') + '}';
  }
  throw badRequest('canonical JSON: unsupported value');
}

/** Is this parsed JSON body a verifiable credential? */
export function isCredential(json: unknown): json is Record<string, unknown> {
  if (!isObject(json)) return false;
  const t = json['type'];
  return t === 'VerifiableCredential' || (Array.isArray(t) && t.includes('VerifiableCredential'));
}

/**
 * Verify a verifiable credential (decided profile of auth.md §8) and unwrap its
 * `credentialSubject` as a JSON request signed by `issuer`.
 */
export async function unwrapCredential(vc: Record<string, unknown>): Promise<SignedBody> {
  const proof = vc['proof'];
  if (!isObject(proof) || proof['type'] !== 'JsonWebSignature2020') throw badRequest('verifiable credential: only JsonWebSignature2020 proofs are accepted');
  const issuerRaw = vc['issuer'];
  const issuer = typeof issuerRaw === 'string' ? issuerRaw : isObject(issuerRaw) && typeof issuerRaw['id'] === 'string' ? issuerRaw['id'] : undefined;
  if (!issuer) throw badRequest('verifiable credential: issuer must be a did:key');
  if (typeof proof['jws'] !== 'string') throw badRequest('verifiable credential: proof.jws must be a compact JWS');
  const { proof: _omit, ...unsigned } = vc;
  const canonical = canonicalJson(unsigned);
  const parts = proof['jws'].split('.');
  // A detached JWS (empty payload part) signs the canonical form directly.
  const token = parts.length === 3 && parts[1] === '' ? `${parts[0]}.${b64uEncode(new TextEncoder().encode(canonical))}.${parts[2]}` : proof['jws'];
  const { payload, did } = await verifyEmbeddedJws(token);
  if (payloadText({ payload }) !== canonical) throw new AuthError('Invalid token: the credential proof does not cover this credential');
  if (did !== issuer) throw new AuthError('issuer mismatch');
  const vm = proof['verificationMethod'];
  if (vm !== undefined && vm !== `${did}#${did.slice('did:key:'.length)}`) throw new AuthError('Invalid token: verificationMethod does not name the issuer key');
  const subject = vc['credentialSubject'];
  if (!isObject(subject)) throw badRequest('verifiable credential: credentialSubject must be the request object');
  checkOptsIdentity(subject, did);
  return { did, body: JSON.stringify(subject), contentType: 'application/json' };
}
