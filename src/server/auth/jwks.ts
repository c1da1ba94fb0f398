/**
 * JWKS keys of the configured OIDC issuers (auth.md §4): keys cached by `kid` for 5 minutes; an
 * unknown `kid` or an expired cache refetches, at most once per 10 s per issuer, with a 10 s fetch
 * timeout. A fetch failure keeps the previous keys (a flaky issuer does not lock everyone out).
 */

/** Timing of the cache; the defaults are the spec's. */
export interface JwksTiming {
  cacheMs: number;
  minRefetchMs: number;
  timeoutMs: number;
}

export const JWKS_TIMING: JwksTiming = { cacheMs: 5 * 60_000, minRefetchMs: 10_000, timeoutMs: 10_000 };

interface IssuerState {
  url: string;
  keys: Map<string, JsonWebKey>;
  fetchedAt: number;
  lastAttempt: number;
  inflight: Promise<void> | null;
}

export class JwksCache {
  private readonly issuers = new Map<string, IssuerState>();

  constructor(
    issuers: readonly { issuer: string; url: string }[],
    private readonly timing: JwksTiming = JWKS_TIMING,
    private readonly fetchFn: typeof fetch = (input, init) => fetch(input, init),
    private readonly now: () => number = Date.now,
  ) {
    for (const i of issuers) this.issuers.set(i.issuer, { url: i.url, keys: new Map(), fetchedAt: -Infinity, lastAttempt: -Infinity, inflight: null });
  }

  /** True when `iss` is a configured OIDC issuer. */
  has(iss: string): boolean { return this.issuers.has(iss); }

  /** Number of configured issuers. */
  get size(): number { return this.issuers.size; }

  /** The key with this `kid`, refetching the JWKS when allowed; undefined when still unknown. */
  async key(iss: string, kid: string): Promise<JsonWebKey | undefined> {
    const st = this.issuers.get(iss);
    if (!st) return undefined;
    const now = this.now();
    const fresh = now - st.fetchedAt < this.timing.cacheMs;
    if (fresh && st.keys.has(kid)) return st.keys.get(kid);
    if (st.inflight) await st.inflight;
    else if (now - st.lastAttempt >= this.timing.minRefetchMs) {
      st.lastAttempt = now;
      st.inflight = this.refetch(st).finally(() => { st.inflight = null; });
      await st.inflight;
    }
    return st.keys.get(kid);
  }

  private async refetch(st: IssuerState): Promise<void> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), this.timing.timeoutMs);
    try {
      const res = await this.fetchFn(st.url, { signal: ac.signal, headers: { Accept: 'application/json' } });
      if (!res.ok) return;
      const body = (await res.json()) as { keys?: unknown };
      if (!Array.isArray(body.keys)) return;
      const keys = new Map<string, JsonWebKey>();
      for (const k of body.keys as (JsonWebKey & { kid?: unknown })[]) {
        if (typeof k === 'object' && k !== null && typeof k.kid === 'string') keys.set(k.kid, k);
      }
      st.keys = keys;
      st.fetchedAt = this.now();
    } catch {
      // Network error or timeout: keep what we had; the next attempt is rate-limited.
    } finally {
      clearTimeout(timer);
    }
  }
}
