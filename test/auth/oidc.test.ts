/** auth.md §4: RS256 tokens against a JWKS served by a loopback HTTP server; caching and refetch limits. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JwksCache } from '../../src/server/auth/jwks.js';
import { b64uEncode, b64uJson } from '../../src/server/auth/jws.js';
import { expectErrorBody, startAuthServer, type AuthServer } from './helpers.js';

const ISS = 'https://issuer.test';

async function rsaKey(kid: string): Promise<{ kid: string; privateKey: CryptoKey; jwk: JsonWebKey & { kid: string } }> {
  const pair = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
  const pub = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { kid, privateKey: pair.privateKey, jwk: { kty: 'RSA', n: pub.n, e: pub.e, alg: 'RS256', use: 'sig', kid } };
}

async function rs256(key: { kid: string; privateKey: CryptoKey }, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const h = b64uJson({ alg: 'RS256', typ: 'JWT', kid: key.kid, ...header });
  const p = b64uJson(claims);
  const sig = new Uint8Array(await crypto.subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, key.privateKey, new TextEncoder().encode(`${h}.${p}`)));
  return `${h}.${p}.${b64uEncode(sig)}`;
}

describe('OIDC / JWKS', () => {
  let jwksServer: Server;
  let jwksUrl: string;
  let fetches = 0;
  let published: (JsonWebKey & { kid: string })[] = [];
  let failNext = false;
  // jose's JWKS cache reads Date.now(): the clock is moved by mocking Date.
  const tick = (ms: number) => vi.setSystemTime(Date.now() + ms);
  let srv: AuthServer;
  let k1: Awaited<ReturnType<typeof rsaKey>>, k2: Awaited<ReturnType<typeof rsaKey>>;
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: ISS, sub: 'user-1', exp: now + 600, 'ledgraph.identity': 'urn:id:u1', 'ledgraph.ledger.read.all': true };

  beforeAll(async () => {
    [k1, k2] = await Promise.all([rsaKey('k1'), rsaKey('k2')]);
    published = [k1.jwk];
    jwksServer = createServer((req, res) => {
      fetches++;
      if (failNext) { failNext = false; res.writeHead(500).end(); return; }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: published }));
    });
    await new Promise<void>((ok) => jwksServer.listen(0, '127.0.0.1', ok));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    const jwks = new JwksCache([{ issuer: ISS, url: jwksUrl }], { cacheMs: 300_000, minRefetchMs: 10_000, timeoutMs: 10_000 });
    srv = await startAuthServer({ dataAuthMode: 'required', jwksIssuers: [{ issuer: ISS, url: jwksUrl }] }, { jwks });
  });
  afterAll(async () => { vi.useRealTimers(); await srv.close(); await new Promise((ok) => jwksServer.close(ok)); });

  const query = (t: string) => fetch(`${srv.api}/query/hr`, { method: 'POST', headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' }, body: '{}' });

  it('a valid RS256 token verifies against the JWKS (one fetch, then cached)', async () => {
    const t = await rs256(k1, claims);
    expect((await query(t)).status).toBe(200);
    expect((await query(t)).status).toBe(200);
    expect(fetches).toBe(1);
    const who = await (await fetch(`${srv.api}/whoami`, { headers: { Authorization: `Bearer ${t}` } })).json();
    expect(who).toMatchObject({ token_present: true, verified: true, auth_method: 'oidc', issuer: ISS, subject: 'user-1', identity: 'urn:id:u1' });
  });

  it('an unknown kid refetches, at most once per 10 s per issuer', async () => {
    published = [k1.jwk, k2.jwk];
    tick(11_000);
    const t2 = await rs256(k2, claims);
    expect((await query(t2)).status).toBe(200);
    expect(fetches).toBe(2);
    const t3 = await rs256({ ...k2, kid: 'k3' }, claims);
    await expectErrorBody(await query(t3), 401, 'err:db/Unauthorized', 'Invalid token: unknown key id');
    expect(fetches).toBe(2);
    tick(10_000);
    await expectErrorBody(await query(t3), 401, 'err:db/Unauthorized', 'Invalid token: unknown key id');
    expect(fetches).toBe(3);
  });

  it('keys expire after 5 minutes; a failed refetch keeps the old keys', async () => {
    tick(301_000);
    failNext = true;
    expect((await query(await rs256(k1, claims))).status).toBe(200);
    expect(fetches).toBe(4);
    tick(10_001);
    expect((await query(await rs256(k1, claims))).status).toBe(200);
    expect(fetches).toBe(5);
  });

  it('failures: unconfigured issuer, wrong alg, bad signature, expiry, no grants', async () => {
    vi.useRealTimers(); // token times below are checked against the real clock
    await expectErrorBody(await query(await rs256(k1, { ...claims, iss: 'https://other' })), 401, 'err:db/Unauthorized', 'OIDC issuer not configured');
    await expectErrorBody(await query(await rs256(k1, claims, { alg: 'RS512' })), 401, 'err:db/Unauthorized', 'Invalid token: alg must be RS256');
    await expectErrorBody(await query(await rs256({ ...k2, kid: 'k1' }, claims)), 401, 'err:db/Unauthorized', 'Invalid token: bad signature');
    await expectErrorBody(await query(await rs256(k1, { ...claims, exp: now - 61 })), 401, 'err:db/Unauthorized', 'Token expired');
    await expectErrorBody(await query(await rs256(k1, { iss: ISS, exp: now + 60 })), 401, 'err:db/Unauthorized', 'token authorizes no resources');
  });

  it('a JWKS endpoint that never answers times out', async () => {
    const hang = createServer(() => { /* never answers */ });
    await new Promise<void>((ok) => hang.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/jwks`;
    const cache = new JwksCache([{ issuer: ISS, url }], { cacheMs: 300_000, minRefetchMs: 10_000, timeoutMs: 150 });
    const started = Date.now();
    expect(await cache.key(ISS, 'k1')).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2000);
    hang.closeAllConnections();
    await new Promise((ok) => hang.close(ok));
  });
});
