/**
 * `construct` (jsonld-query.md §11): the template (node objects with variables, or `true` for the
 * where clause's own node patterns) -> algebra template triples, and the constructed quads -> a
 * JSON-LD document `{"@context", "@graph"}` with one node per subject, sorted by `@id`, every
 * property value an array.
 */
import { badRequest } from '../../errors.js';
import { compareForOrder } from '../../rdf/compare.js';
import type { ActiveContext } from '../../rdf/jsonld-context.js';
import { type Quad, type Term, blankNode, namedNode, termKey, variable } from '../../rdf/terms.js';
import { rdf } from '../../rdf/vocab.js';
import type { TemplateTriple, TermOrVar } from '../algebra/algebra.js';
import { coercedTerm, iriOrBlank, isVariableString, jsonScalarLiteral, valueObjectTerm, varName } from './expr.js';
import type { Formatter } from './format.js';
import { isObject } from './util.js';
import { quote } from '../../excerpt.js';

/** Compile a construct template; `true` reuses the node objects of `where`. */
export function compileTemplate(template: unknown, where: unknown, ctx: ActiveContext): TemplateTriple[] {
  let nodes: unknown[];
  if (template === true) {
    const items = Array.isArray(where) ? (typeof where[0] === 'string' ? [] : where) : [where];
    nodes = items.filter(isObject);
    if (nodes.length === 0) throw badRequest('construct: true needs node patterns in where to reuse as the template');
  } else nodes = Array.isArray(template) ? template : [template];
  const out: TemplateTriple[] = [];
  const c = new TemplateCompiler(ctx, out);
  for (const n of nodes) {
    if (!isObject(n)) throw badRequest(`construct template items must be node objects, got ${quote(n)}`);
    c.node(n);
  }
  return out;
}

class TemplateCompiler {
  private blank = 0;
  constructor(private readonly ctx: ActiveContext, private readonly out: TemplateTriple[]) {}

  node(o: Record<string, unknown>): TermOrVar {
    let s: TermOrVar | undefined;
    for (const [k, v] of Object.entries(o)) if (this.ctx.keyword(k) === '@id') {
      if (typeof v !== 'string') throw badRequest(`construct: @id must be a string, got ${quote(v)}`);
      s = isVariableString(v) ? variable(varName(v)) : iriOrBlank(v, this.ctx);
    }
    // A node without @id is a fresh blank node per solution.
    const subject = s ?? blankNode(`t${this.blank++}`);
    for (const [k, v] of Object.entries(o)) {
      const kw = this.ctx.keyword(k);
      if (kw === '@id') continue;
      if (kw === '@type') {
        for (const t of Array.isArray(v) ? v : [v]) {
          if (typeof t !== 'string') throw badRequest(`construct: @type must be an IRI or a variable, got ${quote(t)}`);
          this.out.push({ s: subject, p: namedNode(rdf.type), o: isVariableString(t) ? variable(varName(t)) : namedNode(this.ctx.expandIri(t, true)) });
        }
        continue;
      }
      if (kw !== undefined || k.startsWith('@')) throw badRequest(`construct: ${k} is not allowed in a template node`);
      const def = this.ctx.termDefinition(k);
      if (def?.path !== undefined || def?.reverse) throw badRequest(`construct: ${k} (a path or reverse term) cannot be used in a template`);
      const p: TermOrVar = isVariableString(k) ? variable(varName(k)) : namedNode(this.ctx.expandIri(k, true));
      for (const val of Array.isArray(v) ? v : [v]) this.out.push({ s: subject, p, o: this.object(val, def?.type, def?.language) });
    }
    return subject;
  }

  private object(v: unknown, type: string | undefined, language: string | null | undefined): TermOrVar {
    if (typeof v === 'string') {
      if (isVariableString(v)) return variable(varName(v));
      return coercedTerm(v, type, language !== undefined ? language : this.ctx.language, this.ctx);
    }
    if (typeof v === 'number' || typeof v === 'boolean') return type ? coercedTerm(v, type, null, this.ctx) : jsonScalarLiteral(v);
    if (!isObject(v)) throw badRequest(`construct: invalid template value ${quote(v)}`);
    const keys = Object.keys(v);
    const kw = (k: string) => this.ctx.keyword(k) ?? k;
    if (keys.some((k) => kw(k) === '@value')) {
      const val = v[keys.find((k) => kw(k) === '@value')!];
      if (isVariableString(val)) return variable(varName(val));
      return valueObjectTerm(v, this.ctx);
    }
    if (keys.length === 1 && kw(keys[0]!) === '@id') {
      const id = v[keys[0]!];
      if (typeof id !== 'string') throw badRequest('construct: @id must be a string');
      return isVariableString(id) ? variable(varName(id)) : iriOrBlank(id, this.ctx);
    }
    return this.node(v);
  }
}

/** Group constructed quads into the JSON-LD document of §11. */
export async function constructDocument(quads: AsyncIterable<Quad>, fmt: Formatter, contextJson: unknown): Promise<Record<string, unknown>> {
  const subjects = new Map<string, { s: Term; props: Map<string, Term[]> }>();
  for await (const q of quads) {
    const sk = termKey(q.subject);
    let n = subjects.get(sk);
    if (!n) subjects.set(sk, n = { s: q.subject, props: new Map() });
    let vals = n.props.get(q.predicate.value);
    if (!vals) n.props.set(q.predicate.value, vals = []);
    vals.push(q.object);
  }
  const nodes = [...subjects.values()].map((n) => {
    const node: Record<string, unknown> = { '@id': fmt.id(n.s) };
    const types = n.props.get(rdf.type);
    if (types) node['@type'] = types.sort(compareForOrder).map((t) => (t.termType === 'Literal' ? t.value : fmt.vocab(t.value)));
    const entries = [...n.props].filter(([p]) => p !== rdf.type).map(([p, vals]) => [fmt.vocab(p), vals.sort(compareForOrder).map((t) => fmt.nodeValue(t))] as const);
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [k, v] of entries) node[k] = v;
    return node;
  });
  nodes.sort((a, b) => ((a['@id'] as string) < (b['@id'] as string) ? -1 : (a['@id'] as string) > (b['@id'] as string) ? 1 : 0));
  return { '@context': contextJson ?? {}, '@graph': nodes };
}
