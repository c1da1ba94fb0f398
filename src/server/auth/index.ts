/**
 * The server's auth layer in one registrar: mount it first under api_base_url and every later route
 * runs behind authentication and ledger-scope checks; `/whoami` is registered here too.
 */
import type { Hono } from 'hono';
import type { AppEnv, RouteContext } from '../app.js';
import type { ServerConfig } from '../config.js';
import { route } from '../swagger.js';
import type { JwksCache } from './jwks.js';
import { Auth } from './middleware.js';
import { authSettingsFromConfig, validateAuthSettings, type AuthConfigExtras } from './settings.js';
import { whoami } from './whoami.js';

export { Auth, authenticate, canReadLedger, credentialIdentity, requireScope, unauthorized, classifyRoute, type AuthState, type ScopeKind } from './middleware.js';
export { policyInputsFor, resolvePolicyInputs, showPolicyInputs, POLICY_CONFLICT, policyHook, writePolicyOpts, requestView, showFilter } from './policy.js';
export { authSettingsFromConfig, validateAuthSettings, anyAuthMode, type AuthSettings, type AuthGroup, type GroupSettings } from './settings.js';
export type { Principal, Scopes } from './verify.js';
export { narrowEvents, type EventsSubscription } from './events.js';

/** The Auth of a server configuration; throws (refusing to start) when a required group can trust no issuer. */
export function createAuth(config: ServerConfig & AuthConfigExtras, opts: { fetch?: typeof fetch; now?: () => number; jwks?: JwksCache } = {}): Auth {
  const settings = authSettingsFromConfig(config);
  validateAuthSettings(settings);
  return new Auth(settings, { apiBaseUrl: config.apiBaseUrl, ...opts });
}

/**
 * A route registrar installing the auth middleware and `GET /whoami`. It must come first in the
 * registrar list: Hono runs middleware registered before a route's handler.
 */
export function authRoutes(auth?: Auth): (api: Hono<AppEnv>, ctx: RouteContext) => void {
  return (api, ctx) => {
    const a = auth ?? createAuth(ctx.config);
    api.use('*', a.middleware());
    route(api, ctx.table, {
      method: 'GET', path: '/whoami', tag: 'auth', summary: 'Who the bearer token says you are',
      description: 'Never gated. Verifies an optional bearer token with the data group rules (auth.md §9).',
      headers: [{ name: 'Authorization', description: 'Bearer <token>' }],
      responses: { 200: 'Whoami object: token_present, verified, auth_method, issuer, identity, scopes or error' },
    }, async (c) => c.json(await whoami(a, c.req.header('Authorization'))));
  };
}
