/**
 * The `opts` object of a JSON-LD query (jsonld-query.md §12): tracking (`meta`), `max-fuel`, output
 * options, `objectVarParsing`, `min-t`, and the policy inputs, which are parsed here and handed to
 * the policy layer unchanged in meaning.
 */
import { badRequest } from '../../errors.js';
import type { ActiveContext } from '../../rdf/jsonld-context.js';
import type { OutputFormat } from './format.js';
import { isObject, pick } from './util.js';
import { quote } from '../../excerpt.js';

/** Which tracking members the response carries. */
export interface Tracking { time: boolean; fuel: boolean; policy: boolean }

/** Policy inputs of a query (the policy engineer applies them; see policy.md). */
export interface PolicyInputs {
  /** Expanded identity IRI / DID whose policies apply. */
  identity?: string;
  /** Expanded policy class IRIs. */
  policyClass?: string[];
  /** Inline policy node(s), as written. */
  policy?: unknown;
  /** Values for policy variables, `{"?var": value}`. */
  policyValues?: Record<string, unknown>;
  /** Access when no policy matches (forced false for unknown identities by the policy layer). */
  defaultAllow?: boolean;
  /** Per-source policies from object-form `from` entries (override `policy` for that ledger). */
  sources?: { ledger: string; policy: unknown }[];
}

export interface QueryOpts {
  /** Tracking requested by `meta` (and fuel by `max-fuel`), else undefined. */
  tracking?: Tracking;
  maxFuel?: number;
  format?: OutputFormat;
  normalizeArrays?: boolean;
  objectVarParsing: boolean;
  minT?: number;
  policy: PolicyInputs;
}

/** Parse `opts` (absent -> defaults). */
export function parseQueryOpts(raw: unknown, ctx: ActiveContext): QueryOpts {
  const out: QueryOpts = { objectVarParsing: true, policy: {} };
  if (raw === undefined || raw === null) return out;
  if (!isObject(raw)) throw badRequest('opts must be an object');
  const meta = raw['meta'];
  if (meta !== undefined) {
    if (meta === true) out.tracking = { time: true, fuel: true, policy: true };
    else if (meta === false) { /* no tracking */ }
    else if (isObject(meta) && Object.entries(meta).every(([k, v]) => ['time', 'fuel', 'policy'].includes(k) && typeof v === 'boolean')) {
      out.tracking = { time: meta['time'] === true, fuel: meta['fuel'] === true, policy: meta['policy'] === true };
    } else throw badRequest('opts.meta must be true/false or {"time": bool, "fuel": bool, "policy": bool}');
  }
  const fuel = pick(raw, 'max-fuel', 'maxFuel', 'max_fuel');
  if (fuel !== undefined) {
    const n = typeof fuel === 'string' && /^\d+$/.test(fuel) ? Number(fuel) : fuel;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw badRequest(`opts.max-fuel must be a non-negative integer, got ${quote(fuel)}`);
    out.maxFuel = n;
    // A fuel limit implies fuel tracking (§12).
    out.tracking = { time: out.tracking?.time ?? false, fuel: true, policy: out.tracking?.policy ?? false };
  }
  const format = raw['format'];
  if (format !== undefined) {
    if (format !== 'json' && format !== 'typed-json') throw badRequest(`opts.format must be "json" or "typed-json", got ${quote(format)}`);
    out.format = format;
  }
  const na = pick(raw, 'normalizeArrays', 'normalize-arrays');
  if (na !== undefined) {
    if (typeof na !== 'boolean') throw badRequest('opts.normalizeArrays must be a boolean');
    out.normalizeArrays = na;
  }
  const ovp = pick(raw, 'objectVarParsing', 'object-var-parsing');
  if (ovp !== undefined) {
    if (typeof ovp !== 'boolean') throw badRequest('opts.objectVarParsing must be a boolean');
    out.objectVarParsing = ovp;
  }
  const minT = pick(raw, 'min-t', 'minT', 'min_t');
  if (minT !== undefined) {
    if (typeof minT !== 'number' || !Number.isSafeInteger(minT) || minT < 0) throw badRequest('opts.min-t must be a non-negative integer');
    out.minT = minT;
  }
  if (raw['t'] !== undefined) throw badRequest('opts.t is not supported; pin the time in from (ledger@t:N)');
  out.policy = parsePolicyOpts(raw, ctx);
  return out;
}

function parsePolicyOpts(raw: Record<string, unknown>, ctx: ActiveContext): PolicyInputs {
  const p: PolicyInputs = {};
  const identity = pick(raw, 'identity', 'did');
  if (identity !== undefined) {
    if (typeof identity !== 'string' || identity === '') throw badRequest('opts.identity must be an IRI or DID string');
    p.identity = ctx.expandIri(identity, false);
  }
  const pc = pick(raw, 'policy-class', 'policyClass', 'policy_class');
  if (pc !== undefined) {
    const list = Array.isArray(pc) ? pc : [pc];
    if (!list.every((c) => typeof c === 'string')) throw badRequest('opts.policy-class must be an IRI or an array of IRIs');
    p.policyClass = (list as string[]).map((c) => ctx.expandIri(c, true));
  }
  const policy = raw['policy'];
  if (policy !== undefined) {
    if (!isObject(policy) && !Array.isArray(policy)) throw badRequest('opts.policy must be a policy node or an array of policy nodes');
    p.policy = policy;
  }
  const pv = pick(raw, 'policy-values', 'policyValues', 'policy_values');
  if (pv !== undefined) {
    if (!isObject(pv)) throw badRequest('opts.policy-values must be an object {"?var": value}');
    for (const k of Object.keys(pv)) if (!k.startsWith('?')) throw badRequest(`opts.policy-values: ${k} is not a variable (variables must start with '?')`);
    p.policyValues = pv;
  }
  const da = pick(raw, 'default-allow', 'defaultAllow', 'default_allow');
  if (da !== undefined) {
    if (typeof da !== 'boolean') throw badRequest('opts.default-allow must be a boolean');
    p.defaultAllow = da;
  }
  return p;
}
