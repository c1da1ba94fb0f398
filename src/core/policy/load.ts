/**
 * Selecting the policy set of a request (policy.md §3): the identity's `f:policyClass` classes,
 * explicit policy classes and inline policies, union, duplicates by `@id` removed. Read from the
 * branch head, so revoking access hides history too.
 */
import type { DbView } from '../index/view.js';
import { rdf } from '../rdf/vocab.js';
import { isRootPolicy, parsePolicyValues, type PolicyInputs } from './inputs.js';
import { parseInlinePolicies, pol, readPolicyNode, type Policy } from './model.js';

/** The policy set a request runs under. */
export interface PolicySet {
  /** root: no policy; denyAll: unknown identity (fail closed); policies: decide per flake (§4). */
  kind: 'root' | 'denyAll' | 'policies';
  /** Loaded policies, sorted by `@id` (decisions never depend on load order). */
  policies: Policy[];
  /** IRI bound to `?$identity`: the identity, else `policy-values["?$identity"]`, else one that matches nothing. */
  identity: string;
  /** Pre-bound `f:query` variables (name without `?`, e.g. `$dept`) -> IRI. */
  values: Map<string, string>;
  defaultAllow: boolean;
}

/** An IRI no ledger holds: `?$identity` for requests without an identity (rule 4). */
function anonymousIri(): string {
  return `urn:ledgraph:anonymous:${crypto.randomUUID()}`;
}

async function any(view: DbView, pattern: { s?: number; p?: number; o?: number }): Promise<boolean> {
  for await (const b of view.scan(pattern)) if (b.n > 0) return true;
  return false;
}

async function objectIds(view: DbView, s: number, p: number): Promise<number[]> {
  const out: number[] = [];
  for await (const b of view.scan({ s, p })) for (let i = 0; i < b.n; i++) out.push(b.o[i]!);
  return out;
}

async function subjectIds(view: DbView, p: number, o: number): Promise<number[]> {
  const out: number[] = [];
  for await (const b of view.scan({ p, o })) for (let i = 0; i < b.n; i++) out.push(b.s[i]!);
  return out;
}

/**
 * Recently built policy sets by head snapshot: a set depends only on the head's facts and the
 * inputs, and requests of one identity repeat, so queries do not re-read policy nodes each time.
 * A set binding a fresh anonymous `?$identity` is never shared (each request gets its own IRI).
 */
const setCache = new WeakMap<DbView['dict'], Map<string, PolicySet>>();
const SET_CACHE_SIZE = 64;

/**
 * `loadPolicySet`, memoised per head (ledger, t, commit) and inputs. `head` may be a function
 * making the head snapshot: it is only called on a miss.
 */
export async function cachedPolicySet(headKey: string, dict: DbView['dict'], head: DbView | (() => Promise<DbView>), inputs: PolicyInputs | undefined): Promise<PolicySet> {
  const headView = async () => (typeof head === 'function' ? head() : head);
  let key: string;
  try { key = headKey + '\u0000' + JSON.stringify(inputs ?? null); } catch { return loadPolicySet(await headView(), inputs); }
  let m = setCache.get(dict);
  if (!m) setCache.set(dict, (m = new Map()));
  const hit = m.get(key);
  if (hit) return hit;
  const set = await loadPolicySet(await headView(), inputs);
  if (set.identity.startsWith('urn:ledgraph:anonymous:')) return set;
  if (m.size >= SET_CACHE_SIZE) m.delete(m.keys().next().value!);
  m.set(key, set);
  return set;
}

/** Build the policy set of `inputs` from the branch head `head`. */
export async function loadPolicySet(head: DbView, inputs: PolicyInputs | undefined): Promise<PolicySet> {
  const values = parsePolicyValues(inputs?.policyValues);
  const base = { values, defaultAllow: inputs?.defaultAllow ?? false, policies: [] as Policy[] };
  if (!inputs || isRootPolicy(inputs)) return { ...base, kind: 'root', identity: anonymousIri() };
  const identity = inputs.identity ?? values.get('$identity') ?? anonymousIri();
  const dict = head.dict;
  const classes = new Set(inputs.policyClass ?? []);

  if (inputs.identity !== undefined) {
    const id = await dict.lookupKey(inputs.identity);
    // An identity with no node in the ledger sees nothing and may write nothing (fail closed).
    if (id === undefined || !(await any(head, { s: id }))) return { ...base, kind: 'denyAll', identity, defaultAllow: false };
    const pc = await dict.lookupKey(pol.policyClass);
    if (pc !== undefined) {
      for (const c of await objectIds(head, id, pc)) if (dict.kind(c) === 0) classes.add(dict.key(c));
    }
  }

  const byId = new Map<string, Policy>();
  const typeId = await dict.lookupKey(rdf.type);
  const apId = await dict.lookupKey(pol.AccessPolicy);
  if (typeId !== undefined && apId !== undefined) {
    for (const cls of classes) {
      const cid = await dict.lookupKey(cls);
      if (cid === undefined) continue;
      for (const sid of await subjectIds(head, typeId, cid)) {
        const key = dict.key(sid);
        if (byId.has(key)) continue;
        // Only nodes typed f:AccessPolicy are policies, whatever else they carry.
        if (cid !== apId && !(await any(head, { s: sid, p: typeId, o: apId }))) continue;
        byId.set(key, await readPolicyNode(head, sid));
      }
    }
  }
  if (inputs.policy !== undefined) {
    for (const p of parseInlinePolicies(inputs.policy)) if (!byId.has(p.id)) byId.set(p.id, p);
  }
  const policies = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { ...base, kind: 'policies', identity, policies };
}
