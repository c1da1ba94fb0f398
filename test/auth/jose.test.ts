/**
 * Tokens an attacker would try, through jose's verification (auth.md §3, §4, §8): `alg: none`,
 * algorithm confusion both ways, `crit` headers, an embedded JWK carrying its private part, the
 * exp / nbf boundaries with 60 s skew on both paths, and a JWKS whose keys rotate behind a loopback
 * HTTP server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { b64uEncode, b64uJson, hexBytes, signCompact } from '../../src/server/auth/jws.js';
import { JwksCache } from '../../src/server/auth/jwks.js';
import type { GroupSettings } from '../../src/server/auth/settings.js';
import { verifyBearer } from '../../src/server/auth/verify.js';
import { DID_A, SEED_A, expectErrorBody, signerA, startAuthServer, type AuthServer } from './helpers.js';

const NOW = 1767225600;
const ISS = 'https://issuer.test';
const enc = (s: string) => new TextEncoder().encode(s);
const DATA: GroupSettings = { group: 'data', mode: 'required', trustedIssuers: [DID_A], audience: null, acceptAnyIssuer: false };
const GRANT = { 'ledgraph.ledger.read.all': true };

async function failure(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (e) { return (e as Error).message; }
  return 'verified';
}

type RsaKey = { kid: string; privateKey: CryptoKey; publicKey: CryptoKey; jwk: JsonWebKey & { kid: string } };

async function rsaKey(kid: string): Promise<RsaKey> {
  const pair = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
  const pub = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { kid, privateKey: pair.privateKey, publicKey: pair.publicKey, jwk: { kty: 'RSA', n: pub.n, e: pub.e, alg: 'RS256', use: 'sig', kid } };
}

/** An RS256 compact JWS over `claims` with `header` merged into `{alg, typ, kid}`. */
async function rs256(key: RsaKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const input = `${b64uJson({ alg: 'RS256', typ: 'JWT', kid: key.kid, ...header })}.${b64uJson(claims)}`;
  const sig = new Uint8Array(await crypto.subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, key.privateKey, enc(input)));
  return `${input}.${b64uEncode(sig)}`;
}

/** A loopback JWKS endpoint whose published keys the test changes; counts fetches. */
async function jwksServer(): Promise<{ url: string; keys: JsonWebKey[]; fetches: number; fail: boolean; close(): Promise<void> }> {
  const state = { url: '', keys: [] as JsonWebKey[], fetches: 0, fail: false, close: async () => {} };
  const srv: Server = createServer((_req, res) => {
    state.fetches++;
    if (state.fail) { res.writeHead(503).end(); return; }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
  state.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/jwks.json`;
  state.close = () => new Promise((ok) => srv.close(() => ok()));
  return state;
}

describe('embedded-JWK tokens (§3)', () => {
  const claims = { iss: DID_A, exp: NOW + 3600, ...GRANT };
  const verify = (t: string, rules: Partial<GroupSettings> = {}, now = NOW) => failure(verifyBearer(t, { ...DATA, ...rules }, null, now));

  it('alg none: unsigned, or with a signature, is refused', async () => {
    const s = await signerA();
    const unsigned = `${b64uJson({ alg: 'none', jwk: s.jwk })}.${b64uJson(claims)}.`;
    expect(await verify(unsigned)).toBe('Invalid token: alg must be EdDSA');
    expect(await verify(`${b64uJson({ alg: 'none', typ: 'JWT' })}.${b64uJson(claims)}.`)).toBe('Token has neither embedded JWK nor kid');
    expect(await verify(await signCompact(s, enc(JSON.stringify(claims)), { alg: 'none' }))).toBe('Invalid token: alg must be EdDSA');
    expect(await verify(await signCompact(s, enc(JSON.stringify(claims))))).toBe('verified');
  });

  it('algorithm confusion: an RS256 (or HS256) header over the embedded Ed25519 key', async () => {
    const s = await signerA();
    expect(await verify(await signCompact(s, enc(JSON.stringify(claims)), { alg: 'RS256' }))).toBe('Invalid token: alg must be EdDSA');
    expect(await verify(await signCompact(s, enc(JSON.stringify(claims)), { alg: 'Ed25519' }))).toBe('Invalid token: alg must be EdDSA');
    // HMAC keyed with the public key bytes: the classic confusion where a verifier uses the public key as the secret.
    const input = `${b64uJson({ alg: 'HS256', jwk: s.jwk })}.${b64uJson(claims)}`;
    const hmac = await crypto.subtle.importKey('raw', new Uint8Array(s.publicKey), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', hmac, enc(input)));
    expect(await verify(`${input}.${b64uEncode(mac)}`)).toBe('Invalid token: alg must be EdDSA');
  });

  it('an RSA key embedded as the jwk of an EdDSA token is not an Ed25519 key', async () => {
    const k = await rsaKey('x');
    const input = `${b64uJson({ alg: 'EdDSA', jwk: { kty: 'RSA', n: k.jwk.n, e: k.jwk.e } })}.${b64uJson(claims)}`;
    expect(await verify(`${input}.${b64uEncode(new Uint8Array(64))}`)).toBe('Invalid token: jwk must be an Ed25519 OKP key');
  });

  it('crit headers are refused, including ones jose recognises (b64)', async () => {
    const s = await signerA();
    const body = enc(JSON.stringify(claims));
    expect(await verify(await signCompact(s, body, { crit: ['exp'], exp: NOW + 10 }))).toBe('Invalid token: crit is not supported');
    expect(await verify(await signCompact(s, body, { crit: ['b64'], b64: true }))).toBe('Invalid token: crit is not supported');
    expect(await verify(await signCompact(s, body, { crit: [] }))).toBe('Invalid token: crit is not supported');
  });

  it('an embedded jwk carrying its private part is refused', async () => {
    const s = await signerA();
    const withD = { ...s.jwk, d: b64uEncode(hexBytes(SEED_A)!) };
    const input = `${b64uJson({ alg: 'EdDSA', jwk: withD })}.${b64uJson(claims)}`;
    const sig = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, s.privateKey, enc(input)));
    expect(await verify(`${input}.${b64uEncode(sig)}`)).toBe('Invalid token: "jwk" (JSON Web Key) Header Parameter must be a public key');
    // The same token without `d` is fine: only the private part was wrong.
    expect(await verify(await signCompact(s, enc(JSON.stringify(claims))))).toBe('verified');
  });

  it('expired and not yet valid, with 60 s skew on both sides', async () => {
    const s = await signerA();
    const t = (c: Record<string, unknown>) => signCompact(s, enc(JSON.stringify({ ...claims, ...c })));
    expect(await verify(await t({ exp: NOW - 60 }))).toBe('verified');
    expect(await verify(await t({ exp: NOW - 61 }))).toBe('Token expired');
    expect(await verify(await t({ nbf: NOW + 60 }))).toBe('verified');
    expect(await verify(await t({ nbf: NOW + 61 }))).toBe('token not yet valid');
    expect(await verify(await t({ exp: 'soon' }))).toBe('Invalid token: "exp" claim must be a number');
    expect(await verify(await t({ nbf: NOW + 61, exp: NOW - 61 }))).toBe('token not yet valid');
  });
});

describe('RS256 tokens against a rotating JWKS (§4)', () => {
  let jwks: Awaited<ReturnType<typeof jwksServer>>;
  let srv: AuthServer;
  let a: RsaKey, b: RsaKey;
  const tick = (ms: number) => vi.setSystemTime(Date.now() + ms);
  const claims = () => ({ iss: ISS, exp: Math.floor(Date.now() / 1000) + 600, ...GRANT });
  const query = (t: string) => fetch(`${srv.api}/query/hr`, { method: 'POST', headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' }, body: '{}' });

  beforeAll(async () => {
    [a, b] = await Promise.all([rsaKey('a'), rsaKey('b')]);
    jwks = await jwksServer();
    jwks.keys = [a.jwk];
    vi.setSystemTime(Date.now());
    const cache = new JwksCache([{ issuer: ISS, url: jwks.url }], { cacheMs: 300_000, minRefetchMs: 10_000, timeoutMs: 5_000 });
    srv = await startAuthServer({ dataAuthMode: 'required', jwksIssuers: [{ issuer: ISS, url: jwks.url }] }, { jwks: cache });
  });
  afterAll(async () => { vi.useRealTimers(); await srv.close(); await jwks.close(); });

  it('the issuer rotates from key a to key b: b is fetched after the cooldown, a stops verifying', async () => {
    expect((await query(await rs256(a, claims()))).status).toBe(200);
    expect(jwks.fetches).toBe(1);
    jwks.keys = [b.jwk];
    // Within the 10 s cooldown the new kid is unknown and nothing is fetched; the cached a still works.
    tick(5_000);
    await expectErrorBody(await query(await rs256(b, claims())), 401, 'err:db/Unauthorized', 'Invalid token: unknown key id');
    expect((await query(await rs256(a, claims()))).status).toBe(200);
    expect(jwks.fetches).toBe(1);
    tick(5_000);
    expect((await query(await rs256(b, claims()))).status).toBe(200);
    expect(jwks.fetches).toBe(2);
    await expectErrorBody(await query(await rs256(a, claims())), 401, 'err:db/Unauthorized', 'Invalid token: unknown key id');
    expect(jwks.fetches).toBe(2);
  });

  it('a down issuer keeps the last good keys and is asked at most once per 10 s', async () => {
    jwks.fail = true;
    tick(300_000);
    expect((await query(await rs256(b, claims()))).status).toBe(200);
    expect((await query(await rs256(b, claims()))).status).toBe(200);
    expect(jwks.fetches).toBe(3);
    tick(10_000);
    jwks.fail = false;
    jwks.keys = [a.jwk, b.jwk];
    expect((await query(await rs256(a, claims()))).status).toBe(200);
    expect(jwks.fetches).toBe(4);
  });

  it('algorithm confusion: EdDSA or HS256 under a kid, and an RS256 key from the JWKS used as an HMAC secret', async () => {
    const s = await signerA();
    const ed = await signCompact(s, enc(JSON.stringify(claims())), { kid: 'b', jwk: undefined });
    await expectErrorBody(await query(ed), 401, 'err:db/Unauthorized', 'Invalid token: alg must be RS256');
    const input = `${b64uJson({ alg: 'HS256', kid: 'b' })}.${b64uJson(claims())}`;
    const hmac = await crypto.subtle.importKey('raw', enc(JSON.stringify(b.jwk)), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', hmac, enc(input)));
    await expectErrorBody(await query(`${input}.${b64uEncode(mac)}`), 401, 'err:db/Unauthorized', 'Invalid token: alg must be RS256');
    await expectErrorBody(await query(await rs256(b, claims(), { alg: 'none' })), 401, 'err:db/Unauthorized', 'Invalid token: alg must be RS256');
  });

  it('crit, expiry and nbf on the RS256 path', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectErrorBody(await query(await rs256(b, claims(), { crit: ['b64'], b64: true })), 401, 'err:db/Unauthorized', 'Invalid token: crit is not supported');
    expect((await query(await rs256(b, { ...claims(), exp: now - 60 }))).status).toBe(200);
    await expectErrorBody(await query(await rs256(b, { ...claims(), exp: now - 61 })), 401, 'err:db/Unauthorized', 'Token expired');
    expect((await query(await rs256(b, { ...claims(), nbf: now + 60 }))).status).toBe(200);
    await expectErrorBody(await query(await rs256(b, { ...claims(), nbf: now + 61 })), 401, 'err:db/Unauthorized', 'token not yet valid');
  });
});

describe('signed requests (§8) through jose', () => {
  let srv: AuthServer;
  beforeAll(async () => { srv = await startAuthServer({}); });
  afterAll(() => srv.close());
  const post = (body: string) => fetch(`${srv.api}/query/hr`, { method: 'POST', headers: { 'Content-Type': 'application/jose' }, body });
  const PAYLOAD = enc('{"from":"hr:main","select":["?s"],"where":{"@id":"?s"}}');

  it('alg none, another alg, crit and a private jwk are 401; the plain signature is accepted', async () => {
    const s = await signerA();
    expect((await post(await signCompact(s, PAYLOAD))).status).toBe(200);
    await expectErrorBody(await post(`${b64uJson({ alg: 'none', jwk: s.jwk })}.${b64uEncode(PAYLOAD)}.`), 401, 'err:db/Unauthorized', 'Invalid token: alg must be EdDSA');
    await expectErrorBody(await post(await signCompact(s, PAYLOAD, { alg: 'RS256' })), 401, 'err:db/Unauthorized', 'Invalid token: alg must be EdDSA');
    await expectErrorBody(await post(await signCompact(s, PAYLOAD, { crit: ['b64'], b64: false })), 401, 'err:db/Unauthorized', 'Invalid token: crit is not supported');
    await expectErrorBody(await post(await signCompact(s, PAYLOAD, { jwk: { ...s.jwk, d: b64uEncode(hexBytes(SEED_A)!) } })), 401, 'err:db/Unauthorized',
      'Invalid token: "jwk" (JSON Web Key) Header Parameter must be a public key');
  });
});
