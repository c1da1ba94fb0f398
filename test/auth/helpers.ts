/** Keys, tokens and a small server for the auth tests (not a test file itself). */
import type { Hono } from 'hono';
import { expect } from 'vitest';
import type { AppEnv, RouteContext } from '../../src/server/app.js';
import { defaultServerConfig, type ServerConfig } from '../../src/server/config.js';
import { silentLogger } from '../../src/server/log.js';
import { startServer, type RunningServer } from '../../src/server/main.js';
import { authRoutes, createAuth, authenticate, credentialIdentity, policyInputsFor, requireScope } from '../../src/server/auth/index.js';
import { ed25519FromSeed, hexBytes, mintToken, type Ed25519Signer } from '../../src/server/auth/jws.js';
import type { AuthConfigExtras } from '../../src/server/auth/settings.js';
import type { JwksCache } from '../../src/server/auth/jwks.js';

export const SEED_A = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
export const SEED_B = '1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100';
export const DID_A = 'did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd';

export const signerA = () => ed25519FromSeed(hexBytes(SEED_A)!);
export const signerB = () => ed25519FromSeed(hexBytes(SEED_B)!);

const now = () => Math.floor(Date.now() / 1000);

/** A token signed by `s` valid for an hour (`exp` overridable), issuer = its did:key. */
export async function token(s: Ed25519Signer, claims: Record<string, unknown>, at = now()): Promise<string> {
  return mintToken(s, { iss: s.did, iat: at, exp: at + 3600, ...claims });
}

/** Stub routes behind the auth middleware: each echoes what authentication established. */
export function echoRoutes(api: Hono<AppEnv>): void {
  const echo = async (c: Parameters<Parameters<Hono<AppEnv>['get']>[1]>[0]) => {
    const st = authenticate(c);
    const body = c.req.raw.body ? await c.req.text() : null;
    return c.json({ ok: true, bearer: !!st.bearer, signer: st.signer?.identity ?? null, identity: credentialIdentity(st) ?? null,
      contentType: c.req.header('Content-Type') ?? null, body });
  };
  for (const p of ['/query/*', '/query', '/stream/query/*', '/multi-query', '/update/*', '/update', '/insert/*', '/info/*', '/log/*', '/show/*', '/push/*']) {
    api.post(p, echo);
    api.get(p, echo);
  }
  for (const p of ['/create', '/drop', '/events', '/storage/ns/*', '/storage/block', '/commits/*', '/pack/*']) {
    api.post(p, echo);
    api.get(p, echo);
  }
  // Routes under /multi-query/ (a data read route without ledgers of its own) that resolve policy
  // inputs and check scopes the way query routes do.
  api.post('/multi-query/policy-echo', async (c) => {
    const body = (await c.req.json()) as { client?: Record<string, unknown> };
    return c.json({ inputs: policyInputsFor(c, body.client) ?? null });
  });
  api.post('/multi-query/scope-echo', async (c) => {
    const body = (await c.req.json()) as { ledgers: string[]; kind: 'read' | 'write' };
    requireScope(c, body.ledgers, body.kind);
    return c.json({ ok: true });
  });
}

export interface AuthServer { url: string; api: string; close(): Promise<void> }

/** A real HTTP server with the auth registrar first and the echo routes after it. */
export async function startAuthServer(over: Partial<ServerConfig> & AuthConfigExtras, opts: { fetch?: typeof fetch; now?: () => number; jwks?: JwksCache } = {}): Promise<AuthServer> {
  const config = { ...defaultServerConfig(), host: '127.0.0.1', port: 0, memory: true, ...over };
  const auth = createAuth(config, opts);
  const running: RunningServer = await startServer(config, {
    version: 'test', log: silentLogger,
    routes: [authRoutes(auth) as (api: Hono<AppEnv>, ctx: RouteContext) => void, (api) => echoRoutes(api)],
  });
  return { url: running.url, api: running.url + config.apiBaseUrl, close: () => running.close(0) };
}

/** Status and `@type` of a response (`@type` null for success bodies). */
export async function outcome(r: Response): Promise<[number, string | null]> {
  const text = await r.text();
  let type: string | null = null;
  try { type = (JSON.parse(text) as Record<string, unknown>)['@type'] as string ?? null; } catch { /* not JSON */ }
  return [r.status, type];
}

/** Assert an error body exactly. */
export async function expectErrorBody(r: Response, status: number, type: string, error: string): Promise<void> {
  const text = await r.text();
  expect(r.status, text).toBe(status);
  expect(JSON.parse(text)).toEqual({ error, status, '@type': type });
}
