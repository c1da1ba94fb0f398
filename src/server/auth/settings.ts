/**
 * Auth settings per endpoint group (auth.md §1), derived from the server configuration: mode,
 * trusted did:key issuers (admin and storage fall back to the events list), expected audience and
 * the development-only accept-any-issuer switch; plus the startup check that a `required` group
 * can accept at least one issuer.
 */
import { badRequest } from '../../core/errors.js';
import type { AuthMode, JwksIssuer, ServerConfig } from '../config.js';

export type AuthGroup = 'data' | 'events' | 'admin' | 'storage';

/** How one endpoint group authenticates. */
export interface GroupSettings {
  group: AuthGroup;
  mode: AuthMode;
  /** did:key issuers whose Ed25519 tokens are trusted. */
  trustedIssuers: readonly string[];
  /** Expected `aud`; null = not checked. */
  audience: string | null;
  /** Development only: any did:key issuer is trusted. */
  acceptAnyIssuer: boolean;
}

/** Everything the auth layer is configured with. */
export interface AuthSettings {
  data: GroupSettings;
  events: GroupSettings;
  admin: GroupSettings;
  storage: GroupSettings;
  jwksIssuers: readonly JwksIssuer[];
  /** Storage proxy routes answer at all (else 404). */
  storageProxyEnabled: boolean;
  /** Server `default_policy_class` (policy.md §3 step 4). */
  defaultPolicyClass: string | null;
  storageProxyDefaultIdentity: string | null;
  storageProxyDefaultPolicyClass: string | null;
}

/**
 * Settings the configuration table may not carry yet (flags of auth.md §1 and http-api.md §5.11);
 * read when present so adding them to config.ts needs no change here.
 */
export interface AuthConfigExtras {
  dataAuthAudience?: string | null;
  dataAuthInsecureAcceptAnyIssuer?: boolean;
  eventsAuthInsecureAcceptAnyIssuer?: boolean;
  adminAuthInsecureAcceptAnyIssuer?: boolean;
  storageProxyEnabled?: boolean;
  storageProxyDefaultIdentity?: string | null;
  storageProxyDefaultPolicyClass?: string | null;
}

/** Auth settings of a server configuration. */
export function authSettingsFromConfig(cfg: ServerConfig & AuthConfigExtras): AuthSettings {
  const events = cfg.eventsAuthTrustedIssuers;
  return {
    data: {
      group: 'data', mode: cfg.dataAuthMode, trustedIssuers: cfg.dataAuthTrustedIssuers,
      audience: cfg.dataAuthAudience ?? null, acceptAnyIssuer: cfg.dataAuthInsecureAcceptAnyIssuer ?? false,
    },
    events: {
      group: 'events', mode: cfg.eventsAuthMode, trustedIssuers: events,
      audience: cfg.eventsAuthAudience ?? null, acceptAnyIssuer: cfg.eventsAuthInsecureAcceptAnyIssuer ?? false,
    },
    admin: {
      group: 'admin', mode: cfg.adminAuthMode,
      trustedIssuers: cfg.adminAuthTrustedIssuers.length ? cfg.adminAuthTrustedIssuers : events,
      audience: null, acceptAnyIssuer: cfg.adminAuthInsecureAcceptAnyIssuer ?? false,
    },
    storage: {
      // The storage proxy is always `required` when enabled (auth.md §1).
      group: 'storage', mode: 'required',
      trustedIssuers: cfg.storageProxyTrustedIssuers.length ? cfg.storageProxyTrustedIssuers : events,
      audience: null, acceptAnyIssuer: false,
    },
    jwksIssuers: cfg.jwksIssuers,
    storageProxyEnabled: cfg.storageProxyEnabled ?? false,
    defaultPolicyClass: cfg.defaultPolicyClass,
    storageProxyDefaultIdentity: cfg.storageProxyDefaultIdentity ?? null,
    storageProxyDefaultPolicyClass: cfg.storageProxyDefaultPolicyClass ?? null,
  };
}

/** True when any group authenticates (discovery then advertises `auth: {type: "token"}`). */
export function anyAuthMode(s: AuthSettings): boolean {
  return s.data.mode !== 'none' || s.events.mode !== 'none' || s.admin.mode !== 'none';
}

/**
 * Refuse to start when a `required` group could never accept a token: no trusted issuer, no JWKS
 * issuer and no accept-any switch (auth.md §1).
 */
export function validateAuthSettings(s: AuthSettings): void {
  const groups = [s.data, s.events, s.admin, ...(s.storageProxyEnabled ? [s.storage] : [])];
  for (const g of groups) {
    if (g.mode !== 'required') continue;
    if (g.trustedIssuers.length === 0 && s.jwksIssuers.length === 0 && !g.acceptAnyIssuer) {
      const flag = g.group === 'storage' ? 'storage-proxy' : `${g.group}-auth`;
      throw badRequest(`${g.group} auth is required but no issuer can be trusted: set --${flag}-trusted-issuer or --jwks-issuer`);
    }
  }
}
