/**
 * What a request says about policy (policy.md §3): identity, policy classes, inline policies,
 * pre-bound values and default-allow — from JSON `opts`, from SPARQL `# PRAGMA` comments, and the
 * checks every source shares (a malformed value is a 400).
 */
import { badRequest } from '../errors.js';

/** Policy inputs of one request; every field absent = the root (unrestricted) view. */
export interface PolicyInputs {
  /** Identity IRI: loads the policies of its `f:policyClass` classes and binds `?$identity`. */
  identity?: string;
  /** Policy class IRIs whose `f:AccessPolicy` nodes are loaded (server default class included). */
  policyClass?: string[];
  /** Inline policy node or array of nodes (JSON-LD, full IRIs or their own `@context`). */
  policy?: unknown;
  /** `{"?$var": iri | {"@id": iri}}`, pre-bound in every `f:query`. */
  policyValues?: unknown;
  /** Decision for flakes no loaded policy targets (default false). */
  defaultAllow?: boolean;
}

/**
 * True when the inputs select no policy at all, so the request sees the root view. Only
 * `default-allow: true` with nothing else is root as well: every flake would be allowed anyway.
 */
export function isRootPolicy(inputs: PolicyInputs | undefined): boolean {
  if (!inputs) return true;
  const selects = inputs.identity !== undefined || (inputs.policyClass?.length ?? 0) > 0 || inputs.policy !== undefined;
  if (selects) return false;
  return inputs.defaultAllow === undefined || inputs.defaultAllow === true;
}

/** `policy-values` as variable name (without `?`) -> IRI; 400 on any other shape. */
export function parsePolicyValues(raw: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('policy-values must be a JSON object {"?$var": iri}');
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!/^\?[^\s?()[\]{}"',]+$/u.test(k)) throw badRequest(`policy-values: "${k}" is not a variable (write "?$name")`);
    let iri: unknown = v;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) iri = (v as Record<string, unknown>)['@id'];
    if (typeof iri !== 'string' || iri === '') throw badRequest(`policy-values: the value of "${k}" must be an IRI string or {"@id": iri}`);
    out.set(k.slice(1), iri);
  }
  return out;
}

/** Strip `<...>` around an IRI written in a pragma or header. */
function unwrapIri(s: string, what: string): string {
  const v = s.trim();
  const m = /^<([^<>\s]*)>$/.exec(v);
  const iri = m ? m[1]! : v;
  if (!iri || /[\s<>"]/.test(iri)) throw badRequest(`${what}: "${s}" is not an IRI`);
  return iri;
}

/** Parse a `true`/`false` policy flag (header or pragma); anything else is a 400. */
export function parseBoolFlag(raw: string, what: string): boolean {
  const v = raw.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw badRequest(`${what} must be true or false, got "${raw}"`);
}

/**
 * Policy inputs from the `# PRAGMA` comment lines before the first non-comment line of SPARQL text
 * (policy.md §3): identity, policy-class (repeatable), policy-values, default-allow.
 */
export function policyInputsFromPragmas(text: string): PolicyInputs {
  const out: PolicyInputs = {};
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (t === '') continue;
    if (!t.startsWith('#')) break;
    const m = /^#\s*PRAGMA\s+([A-Za-z][\w:.-]*)\s*(.*?)\s*$/i.exec(t);
    if (!m) continue;
    const name = m[1]!.toLowerCase();
    const value = m[2]!;
    switch (name) {
      case 'identity': out.identity = unwrapIri(value, 'PRAGMA identity'); break;
      case 'policy-class':
        for (const part of value.split(/[\s,]+/).filter(Boolean)) (out.policyClass ??= []).push(unwrapIri(part, 'PRAGMA policy-class'));
        break;
      case 'policy-values': {
        let json: unknown;
        try { json = JSON.parse(value); } catch { throw badRequest(`PRAGMA policy-values must be a JSON object, got ${value}`); }
        parsePolicyValues(json);
        out.policyValues = json;
        break;
      }
      case 'default-allow': out.defaultAllow = parseBoolFlag(value, 'PRAGMA default-allow'); break;
      default: break;
    }
  }
  return out;
}

/** Do any policy inputs carry a value? (Used to spot explicit client policy signals.) */
export function hasPolicyInputs(inputs: PolicyInputs | undefined): boolean {
  if (!inputs) return false;
  return inputs.identity !== undefined || inputs.policyClass !== undefined || inputs.policy !== undefined
    || inputs.policyValues !== undefined || inputs.defaultAllow !== undefined;
}

/** Merge layers of inputs: later layers win key by key (body opts > header > pragma, §3). */
export function mergePolicyInputs(...layers: (PolicyInputs | undefined)[]): PolicyInputs {
  const out: PolicyInputs = {};
  for (const l of layers) {
    if (!l) continue;
    if (l.identity !== undefined) out.identity = l.identity;
    if (l.policyClass !== undefined) out.policyClass = l.policyClass;
    if (l.policy !== undefined) out.policy = l.policy;
    if (l.policyValues !== undefined) out.policyValues = l.policyValues;
    if (l.defaultAllow !== undefined) out.defaultAllow = l.defaultAllow;
  }
  return out;
}

/**
 * Policy inputs written as a JSON object with the `opts` keys and their aliases (a JSON-LD `from`
 * source's `policy`, multi-query layers): identity, policy-class, policy, policy-values,
 * default-allow. IRIs are taken as written; wrong types are a 400.
 */
export function policyInputsFromJson(raw: unknown): PolicyInputs {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest('a source policy must be a JSON object of policy options');
  const o = raw as Record<string, unknown>;
  const get = (...names: string[]): unknown => { for (const n of names) if (o[n] !== undefined) return o[n]; return undefined; };
  const out: PolicyInputs = {};
  const identity = get('identity', 'did');
  if (identity !== undefined) {
    if (typeof identity !== 'string' || identity === '') throw badRequest('policy identity must be an IRI string');
    out.identity = identity;
  }
  const pc = get('policy-class', 'policyClass', 'policy_class');
  if (pc !== undefined) {
    const list = Array.isArray(pc) ? pc : [pc];
    if (!list.every((x) => typeof x === 'string' && x !== '')) throw badRequest('policy-class must be an IRI or an array of IRIs');
    out.policyClass = list as string[];
  }
  const policy = get('policy');
  if (policy !== undefined) out.policy = policy;
  const pv = get('policy-values', 'policyValues', 'policy_values');
  if (pv !== undefined) { parsePolicyValues(pv); out.policyValues = pv; }
  const da = get('default-allow', 'defaultAllow', 'default_allow');
  if (da !== undefined) {
    if (typeof da !== 'boolean') throw badRequest('default-allow must be a boolean');
    out.defaultAllow = da;
  }
  return out;
}
