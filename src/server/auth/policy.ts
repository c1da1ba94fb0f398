/**
 * Policy selection of an HTTP request (policy.md §3.1, auth.md §7): with a verified credential the
 * server selects the policy and the client may only repeat or narrow it; without one, client
 * inputs (body opts > headers > pragmas, merged by the caller) are taken as given. The server's
 * `default_policy_class` joins where the spec applies it.
 */
import type { Context } from 'hono';
import { badRequest, forbidden } from '../../core/errors.js';
import type { DbView } from '../../core/index/view.js';
import type { Connection } from '../../core/ledger/connection.js';
import { isRootPolicy, policyInputsFromJson, type PolicyInputs } from '../../core/policy/inputs.js';
import { policyView, termFilter, type PolicyStats, type TermFilter } from '../../core/policy/index.js';
import type { Db } from '../../core/ledger/db.js';
import { ledgerIdOf } from './refs.js';
import { authenticate, authOf, credentialIdentity, type AuthState } from './middleware.js';

/** The refusal of §3.1. */
export const POLICY_CONFLICT = 'policy selection conflicts with credential';

function given(v: unknown): boolean { return v !== undefined; }

/**
 * The policy inputs a request runs under. `client` holds what the request itself says;
 * `applyDefaultClass` is false where the spec leaves `default_policy_class` out (SPARQL streaming).
 */
export function resolvePolicyInputs(state: AuthState, client: PolicyInputs | undefined, defaultPolicyClass: string | null, applyDefaultClass = true): PolicyInputs | undefined {
  const dflt = applyDefaultClass && defaultPolicyClass ? [defaultPolicyClass] : [];
  const credential = state.signer ?? state.bearer;
  if (!credential) {
    if (!dflt.length) return client;
    const out: PolicyInputs = { ...(client ?? {}) };
    out.policyClass = [...new Set([...(client?.policyClass ?? []), ...dflt])];
    return out;
  }
  const identity = credentialIdentity(state);
  const c = client ?? {};
  const narrowingOnly = c.defaultAllow === undefined || c.defaultAllow === false;
  const otherSelections = given(c.policy) || given(c.policyClass) || given(c.policyValues);
  if (identity !== undefined) {
    if ((c.identity !== undefined && c.identity !== identity) || otherSelections || !narrowingOnly) throw forbidden(POLICY_CONFLICT);
    const out: PolicyInputs = { identity, defaultAllow: false };
    if (dflt.length) out.policyClass = dflt;
    return out;
  }
  // A scope-only token: root within its scopes, unless the server names a default class.
  if (c.identity !== undefined || otherSelections || !narrowingOnly) throw forbidden(POLICY_CONFLICT);
  // `default-allow: false` is accepted and changes nothing: the view stays root.
  return dflt.length ? { policyClass: dflt, defaultAllow: false } : undefined;
}

/** `resolvePolicyInputs` for the request of a Hono context (uses the server's default policy class). */
export function policyInputsFor(c: Context, client: PolicyInputs | undefined, applyDefaultClass = true): PolicyInputs | undefined {
  const auth = authOf(c);
  return resolvePolicyInputs(authenticate(c), client, auth?.settings.defaultPolicyClass ?? null, applyDefaultClass);
}

/** `/show` ignores client inputs: the caller's credential identity and the server default class only. */
export function showPolicyInputs(c: Context): PolicyInputs | undefined {
  return policyInputsFor(c, undefined, true);
}

/** Client policy inputs of a JSON-LD query: `opts` keys plus per-source `from` policies. */
export type JsonLdClientPolicy = PolicyInputs & { sources?: { ledger: string; policy: unknown }[] };

/** A query's policy hook and its tracking, for the JSON-LD service's `wrapView`. */
export interface PolicyHook {
  wrapView: (view: DbView, ledgers: Record<string, number>) => Promise<DbView>;
  stats: () => PolicyStats;
}

/**
 * The `wrapView` hook of a JSON-LD query (or a SPARQL one, with no sources): the request's inputs
 * resolved against its credential, a `from` source's own `policy` replacing `opts` for that ledger.
 */
export function policyHook(c: Context, conn: Connection, client: JsonLdClientPolicy | undefined, applyDefaultClass = true): PolicyHook {
  let stats: () => PolicyStats = () => ({ executed: 0, allowed: 0 });
  return {
    stats: () => stats(),
    wrapView: async (view, ledgers) => {
      const ids = Object.keys(ledgers);
      const effective = ids.map((id) => {
        const src = client?.sources?.find((s) => ledgerIdOf(s.ledger) === id);
        const own: PolicyInputs | undefined = src ? policyInputsFromJson(src.policy) : stripSources(client);
        return policyInputsFor(c, own, applyDefaultClass);
      });
      if (effective.every((e) => isRootPolicy(e))) return view;
      if (ids.length !== 1) throw badRequest('a query under a policy (identity, policy-class, policy or default-allow) must read exactly one ledger');
      const r = await policyView(conn, view, effective[0], { ledgerId: ids[0]! });
      stats = r.stats;
      return r.view;
    },
  };
}

function stripSources(client: JsonLdClientPolicy | undefined): PolicyInputs | undefined {
  if (!client) return undefined;
  const { sources: _sources, ...rest } = client;
  return rest;
}

/**
 * The policy keys of a write's opts, resolved against its credential (policy.md §3.1, §6): the
 * credential's identity replaces a client's, and a conflicting selection is a 403.
 */
export function writePolicyOpts<T extends PolicyInputs>(c: Context, opts: T): T {
  const client: PolicyInputs = {};
  if (opts.identity !== undefined) client.identity = opts.identity;
  if (opts.policyClass !== undefined) client.policyClass = opts.policyClass;
  if (opts.policy !== undefined) client.policy = opts.policy;
  if (opts.policyValues !== undefined) client.policyValues = opts.policyValues;
  if (opts.defaultAllow !== undefined) client.defaultAllow = opts.defaultAllow;
  const resolved = policyInputsFor(c, client, true) ?? {};
  const { identity: _i, policyClass: _c, policy: _p, policyValues: _v, defaultAllow: _d, ...rest } = opts;
  return { ...rest, ...resolved } as T;
}

/** A snapshot restricted to what the request may see (graph store GET), with its client inputs. */
export async function requestView(c: Context, conn: Connection, db: DbView, client: PolicyInputs | undefined): Promise<DbView> {
  return (await policyView(conn, db, policyInputsFor(c, client, true))).view;
}

/** The `/show` flake filter: credential identity and server default class only; null = every flake. */
export async function showFilter(c: Context, conn: Connection, db: Db): Promise<TermFilter | null> {
  return termFilter(conn, db, showPolicyInputs(c));
}
