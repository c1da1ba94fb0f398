/**
 * JWKS keys of the configured OIDC issuers (auth.md §4), one jose `createRemoteJWKSet` per issuer:
 * jose caches the set for 5 minutes, refetches on an unknown `kid` at most once per 10 s (its
 * cooldown) and times a fetch out after 10 s. On top of it, what jose leaves to its caller: a failed
 * refetch keeps the last good keys (a flaky issuer does not lock everyone out) and is not retried
 * for 10 s (a down issuer is not hammered by every request).
 */
import {
  createLocalJWKSet, createRemoteJWKSet, customFetch, errors,
  type CompactJWSHeaderParameters, type CryptoKey as JoseKey, type FlattenedJWSInput, type JWTVerifyGetKey,
} from 'jose';

/** Timing of the cache; the defaults are the spec's. */
export interface JwksTiming {
  cacheMs: number;
  minRefetchMs: number;
  timeoutMs: number;
}

export const JWKS_TIMING: JwksTiming = { cacheMs: 5 * 60_000, minRefetchMs: 10_000, timeoutMs: 10_000 };

interface IssuerState {
  remote: ReturnType<typeof createRemoteJWKSet>;
  /** When the last fetch failed (ms since the epoch). */
  failedAt: number;
}

/** Errors of picking a key from a fetched set, as opposed to fetching it. */
const KEY_ERRORS = [errors.JWKSNoMatchingKey, errors.JWKSMultipleMatchingKeys, errors.JOSENotSupported, errors.JWKInvalid];

export class JwksCache {
  private readonly issuers = new Map<string, IssuerState>();

  constructor(
    issuers: readonly { issuer: string; url: string }[],
    private readonly timing: JwksTiming = JWKS_TIMING,
    fetchFn?: typeof fetch,
  ) {
    for (const i of issuers) {
      const remote = createRemoteJWKSet(new URL(i.url), {
        cacheMaxAge: timing.cacheMs, cooldownDuration: timing.minRefetchMs, timeoutDuration: timing.timeoutMs,
        ...(fetchFn ? { [customFetch]: fetchFn } : {}),
      });
      this.issuers.set(i.issuer, { remote, failedAt: -Infinity });
    }
  }

  /** True when `iss` is a configured OIDC issuer. */
  has(iss: string): boolean { return this.issuers.has(iss); }

  /** Number of configured issuers. */
  get size(): number { return this.issuers.size; }

  /** jose key resolver for tokens of a configured issuer. */
  resolver(iss: string): JWTVerifyGetKey {
    return (header, token) => this.resolve(iss, header, token);
  }

  /** The RS256 key with this `kid`, refetching when allowed; undefined when there is none. */
  async key(iss: string, kid: string): Promise<JoseKey | undefined> {
    try { return await this.resolve(iss, { alg: 'RS256', kid }, { payload: '', signature: '' }); } catch { return undefined; }
  }

  private async resolve(iss: string, header: CompactJWSHeaderParameters, token: FlattenedJWSInput): Promise<JoseKey> {
    const st = this.issuers.get(iss);
    if (!st) throw new errors.JWKSNoMatchingKey();
    const lastGood = st.remote.jwks();
    if (Date.now() - st.failedAt < this.timing.minRefetchMs) {
      if (!lastGood) throw new errors.JWKSNoMatchingKey();
      return createLocalJWKSet(lastGood)(header, token);
    }
    try {
      return await st.remote(header, token);
    } catch (e) {
      if (KEY_ERRORS.some((E) => e instanceof E)) throw e;
      st.failedAt = Date.now();
      if (!lastGood) throw e;
      return createLocalJWKSet(lastGood)(header, token);
    }
  }
}
