/**
 * The policy model (policy.md §2): a policy as read from ledger facts or from an inline JSON-LD
 * node, with IRIs still as strings. The evaluator resolves them to ids against a snapshot.
 */
import { badRequest } from '../errors.js';
import type { DbView } from '../index/view.js';
import { ActiveContext } from '../rdf/jsonld-context.js';
import { F, OWL, RDF, RDFS, xsd } from '../rdf/vocab.js';
import type { Term } from '../rdf/terms.js';
import { quote } from '../excerpt.js';

/** Policy vocabulary (prefix `f:`). */
export const pol = {
  AccessPolicy: F + 'AccessPolicy',
  action: F + 'action',
  view: F + 'view',
  modify: F + 'modify',
  allow: F + 'allow',
  query: F + 'query',
  onProperty: F + 'onProperty',
  onClass: F + 'onClass',
  onSubject: F + 'onSubject',
  required: F + 'required',
  exMessage: F + 'exMessage',
  policyClass: F + 'policyClass',
} as const;

export const rdfs = {
  subClassOf: RDFS + 'subClassOf',
  subPropertyOf: RDFS + 'subPropertyOf',
  domain: RDFS + 'domain',
  range: RDFS + 'range',
  Class: RDFS + 'Class',
} as const;

export type Action = 'view' | 'modify';

/** One policy, IRIs unresolved. */
export interface Policy {
  /** `@id` (IRI, or `_:label` for blank and inline nodes without one). */
  id: string;
  actions: ReadonlySet<Action>;
  /** Static decision; wins over `query`. */
  allow?: boolean;
  /** Parsed `f:query` JSON; null when present but unparseable (counts as a deny). */
  query?: unknown;
  onProperty: string[];
  onClass: string[];
  onSubject: string[];
  required: boolean;
  exMessage?: string;
}

/** True when the policy has at least one target predicate (otherwise it is a default policy). */
export function hasTargets(p: Policy): boolean {
  return p.onProperty.length > 0 || p.onClass.length > 0 || p.onSubject.length > 0;
}

function actionOf(v: string): Action | null {
  if (v === pol.view || v === 'f:view' || v === 'view') return 'view';
  if (v === pol.modify || v === 'f:modify' || v === 'modify') return 'modify';
  return null;
}

function boolOf(t: Term): boolean | undefined {
  if (t.termType !== 'Literal') return undefined;
  if (t.value === 'true' || (t.value === '1' && t.datatype.value === xsd.boolean)) return true;
  if (t.value === 'false' || (t.value === '0' && t.datatype.value === xsd.boolean)) return false;
  return undefined;
}

function parseQueryJson(v: unknown): unknown {
  if (typeof v === 'string') {
    try { return JSON.parse(v) as unknown; } catch { return null; }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : null;
}

/** Accumulates a policy's properties from (predicate IRI, term) pairs. */
class PolicyBuilder {
  private readonly actions = new Set<Action>();
  private sawAction = false;
  private allow?: boolean;
  private query?: unknown;
  private required = false;
  private exMessage?: string;
  readonly onProperty: string[] = [];
  readonly onClass: string[] = [];
  readonly onSubject: string[] = [];

  constructor(private readonly id: string) {}

  add(p: string, o: Term): void {
    switch (p) {
      case pol.action: {
        this.sawAction = true;
        const a = actionOf(o.value);
        if (a) this.actions.add(a);
        break;
      }
      case pol.allow: { const b = boolOf(o); if (b !== undefined) this.allow = this.allow === false ? false : b; break; }
      case pol.required: { const b = boolOf(o); if (b) this.required = true; break; }
      case pol.query:
        // A second query value is ambiguous; keep the first parseable one.
        if (this.query === undefined || this.query === null) this.query = o.termType === 'Literal' ? parseQueryJson(o.value) : null;
        break;
      case pol.onProperty: if (o.termType !== 'BlankNode') this.onProperty.push(o.value); break;
      case pol.onClass: if (o.termType !== 'BlankNode') this.onClass.push(o.value); break;
      case pol.onSubject: this.onSubject.push(o.termType === 'BlankNode' ? '_:' + o.value : o.value); break;
      case pol.exMessage: if (o.termType === 'Literal' && this.exMessage === undefined) this.exMessage = o.value; break;
      default: break;
    }
  }

  setQueryJson(v: unknown): void { if (this.query === undefined || this.query === null) this.query = parseQueryJson(v); }

  build(): Policy {
    const p: Policy = {
      id: this.id,
      // No f:action means both; an f:action with only unknown values means neither.
      actions: this.sawAction ? this.actions : new Set<Action>(['view', 'modify']),
      onProperty: [...new Set(this.onProperty)],
      onClass: [...new Set(this.onClass)],
      onSubject: [...new Set(this.onSubject)],
      required: this.required,
    };
    if (this.allow !== undefined) p.allow = this.allow;
    if (this.query !== undefined) p.query = this.query;
    if (this.exMessage !== undefined) p.exMessage = this.exMessage;
    return p;
  }
}

/** Read the policy node with subject id `sid` from a view (every graph). */
export async function readPolicyNode(view: DbView, sid: number): Promise<Policy> {
  const dict = view.dict;
  const key = dict.key(sid);
  const b = new PolicyBuilder(key);
  for await (const batch of view.scan({ s: sid })) {
    for (let i = 0; i < batch.n; i++) b.add(dict.key(batch.p[i]!), dict.term(batch.o[i]!));
  }
  return b.build();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

let inlineSeq = 0;

/**
 * Parse inline policies (the `policy` input): one node or an array, each with full IRIs or its own
 * `@context`. Inline nodes are policies whether or not they repeat `@type f:AccessPolicy`: the
 * request names them as policies explicitly.
 */
export function parseInlinePolicies(raw: unknown): Policy[] {
  const nodes = Array.isArray(raw) ? raw : [raw];
  const out: Policy[] = [];
  for (const node of nodes) {
    if (!isObject(node)) throw badRequest(`policy must be a JSON-LD node object or an array of them, got ${quote(node)}`);
    let ctx: ActiveContext;
    try {
      ctx = ActiveContext.create(node['@context'] ?? null);
    } catch (e) {
      throw badRequest(`policy @context is invalid: ${e instanceof Error ? e.message : String(e)}`);
    }
    const idRaw = node['@id'];
    const id = typeof idRaw === 'string' ? ctx.expandIri(idRaw, false) : `_:inline-policy-${++inlineSeq}`;
    const b = new PolicyBuilder(id);
    for (const [k, v] of Object.entries(node)) {
      if (k === '@context' || k === '@id' || k === '@type') continue;
      const p = ctx.expandIri(k, true);
      const values = Array.isArray(v) ? v : [v];
      for (const x of values) {
        if (p === pol.query) {
          // {"@type": "@json", "@value": {...}}, {"@value": "json text"}, a JSON string, or the query object itself.
          b.setQueryJson(isObject(x) && '@value' in x ? x['@value'] : x);
          continue;
        }
        const t = inlineTerm(x, ctx, p === pol.exMessage);
        if (t) b.add(p, t);
      }
    }
    out.push(b.build());
  }
  return out;
}

/** One inline value as a term: `{"@id"}` and plain strings are IRIs (strings literals for messages). */
function inlineTerm(x: unknown, ctx: ActiveContext, stringIsLiteral: boolean): Term | null {
  if (typeof x === 'boolean') return { termType: 'Literal', value: String(x), language: '', datatype: { termType: 'NamedNode', value: xsd.boolean } };
  if (typeof x === 'string') {
    if (stringIsLiteral) return { termType: 'Literal', value: x, language: '', datatype: { termType: 'NamedNode', value: xsd.string } };
    return { termType: 'NamedNode', value: ctx.expandIri(x, true) };
  }
  if (isObject(x)) {
    if (typeof x['@id'] === 'string') return { termType: 'NamedNode', value: ctx.expandIri(x['@id'], false) };
    if ('@value' in x) return inlineTerm(x['@value'], ctx, true);
  }
  return null;
}

/** IRIs of the schema predicates whose flakes every view shows (policy.md §4 rule 2). */
export const SCHEMA_PREDICATES = [rdfs.subClassOf, rdfs.subPropertyOf, rdfs.domain, rdfs.range] as const;
/** Classes whose `rdf:type` flakes count as schema. */
export const SCHEMA_CLASSES = [
  rdfs.Class, OWL + 'Class', RDF + 'Property', OWL + 'ObjectProperty', OWL + 'DatatypeProperty',
] as const;
