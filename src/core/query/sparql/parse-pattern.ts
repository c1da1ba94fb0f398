/**
 * sparqljs graph patterns -> algebra (SPARQL 1.1 §18.2.2): group graph patterns with their
 * filter scope, OPTIONAL (a trailing filter becomes the left join's expression), MINUS, UNION,
 * GRAPH, BIND (with its scope check), inline VALUES, subqueries, and property paths
 * (§18.2.2.4: links and inverse links become triple patterns, sequences join through fresh
 * hidden variables, the rest stay path operators).
 */
import sparqljs from 'sparqljs';
import type * as S from 'sparqljs';
import { badRequest } from '../../errors.js';
import { fromRdfJs, namedNode, variable, type NamedNode, type Term, type Variable } from '../../rdf/terms.js';
import type { Expr, Op, PathExpr, TermOrVar, TriplePattern } from '../algebra/algebra.js';
import { HIDDEN_PREFIX, varInfo } from '../algebra/vars.js';
import { translateExpr } from './parse-expr.js';
import { drain, type Steps } from './steps.js';

/** Per-query translation state shared by patterns, expressions and subqueries. */
export interface PatternEnv {
  /** Translate a nested SELECT (subquery) into its projected operator. */
  subquery(q: S.SelectQuery): Op;
  /** Fresh hidden variable names. */
  fresh(kind: string): string;
}

/** Join two operators, dropping the unit. */
export function join(a: Op, b: Op): Op {
  if (a.type === 'unit') return b;
  if (b.type === 'unit') return a;
  if (a.type === 'bgp' && b.type === 'bgp') return { type: 'bgp', patterns: [...a.patterns, ...b.patterns] };
  const inputs = a.type === 'join' ? [...a.inputs] : [a];
  if (b.type === 'join') inputs.push(...b.inputs); else inputs.push(b);
  return { type: 'join', inputs };
}

/** Conjunction of filter expressions. */
export function conj(exprs: Expr[]): Expr {
  return exprs.reduce((a, b) => ({ type: 'call', fn: '&&', args: [a, b] }));
}

/** Translate a group graph pattern. */
export function translateGroup(patterns: S.Pattern[], env: PatternEnv): Op {
  return drain(translateGroupSteps(patterns, env));
}

/** Patterns and VALUES rows translated between two steps of translateGroupSteps. */
const STEP_WORK = 64;
let work = 0;
/** True every STEP_WORK calls: time for a step (the count is shared; only the rhythm matters). */
function due(n = 1): boolean {
  work += n;
  if (work < STEP_WORK) return false;
  work = 0;
  return true;
}

/** translateGroup in steps (a yield every few dozen patterns or rows), for large queries on a server. */
export function* translateGroupSteps(patterns: S.Pattern[], env: PatternEnv): Steps<Op> {
  const { op, filters } = yield* groupParts(patterns, env);
  const out: Op = filters.length ? { type: 'filter', expr: conj(filters), input: op } : op;
  // Computed (and cached) now, a step at a time: the scope checks above this group need it, and
  // for a group of 40,000 UNION branches it would otherwise be one long piece of work.
  varInfo(out);
  return out;
}

/** A group's pattern and, apart, the FILTERs that scope over the whole group (§18.2.2.5). */
function* groupParts(patterns: S.Pattern[], env: PatternEnv): Steps<{ op: Op; filters: Expr[] }> {
  let g: Op = { type: 'unit' };
  const filters: Expr[] = [];
  const exprEnv = { group: (ps: S.Pattern[]) => translateGroup(ps, env) };
  for (const p of patterns) {
    if (due()) yield;
    switch (p.type) {
      case 'bgp': g = join(g, translateTriples(p.triples, env)); break;
      case 'filter': filters.push(translateExpr(p.expression, exprEnv)); break;
      case 'optional': {
        // Only the OPTIONAL group's own filters become the left join condition, not nested groups'.
        const inner = yield* groupParts(p.patterns, env);
        g = inner.filters.length
          ? { type: 'leftjoin', left: g, right: inner.op, expr: conj(inner.filters) }
          : { type: 'leftjoin', left: g, right: inner.op };
        break;
      }
      case 'minus': g = { type: 'minus', left: g, right: yield* translateGroupSteps(p.patterns, env) }; break;
      case 'union': {
        const inputs: Op[] = [];
        for (const x of p.patterns) inputs.push(yield* translateGroupSteps(x.type === 'group' ? x.patterns : [x], env));
        g = join(g, inputs.length === 1 ? inputs[0]! : { type: 'union', inputs });
        break;
      }
      case 'group': g = join(g, yield* translateGroupSteps(p.patterns, env)); break;
      case 'graph': {
        const name = fromRdfJs(p.name) as NamedNode | Variable;
        g = join(g, { type: 'graph', name, input: yield* translateGroupSteps(p.patterns, env) });
        break;
      }
      case 'bind': {
        const v = p.variable.value;
        if (varInfo(g).maybe.has(v)) throw badRequest(`Invalid SPARQL query: BIND to variable ?${v} which is already in scope`);
        g = { type: 'extend', input: g, variable: v, expr: translateExpr(p.expression, exprEnv) };
        break;
      }
      case 'values': g = join(g, yield* translateValuesSteps(p.values)); break;
      case 'query': g = join(g, env.subquery(p as S.SelectQuery)); break;
      case 'service': g = join(g, translateService(p, env)); break;
      default: throw badRequest(`Invalid SPARQL query: unsupported pattern ${(p as { type: string }).type}`);
    }
  }
  return { op: g, filters };
}

/** VALUES rows (sparqljs keys are `?name`; an absent or undefined value is UNDEF). */
export function translateValues(rows: S.ValuePatternRow[]): Op {
  return drain(translateValuesSteps(rows));
}

/** translateValues in steps. */
export function* translateValuesSteps(rows: S.ValuePatternRow[]): Steps<Op> {
  const vars: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!vars.includes(k)) vars.push(k);
  const out: (Term | undefined)[][] = [];
  for (const r of rows) {
    if (due(1 / 16)) yield;
    out.push(vars.map((k) => (r[k] ? (fromRdfJs(r[k]!) as Term) : undefined)));
  }
  return { type: 'values', variables: vars.map((k) => k.replace(/^[?$]/, '')), rows: out };
}

/** Pattern position: blank nodes become hidden variables (scoped to the query). */
function node(t: S.Term): TermOrVar {
  if (t.termType === 'BlankNode') return variable(`${HIDDEN_PREFIX}b:${t.value}`);
  if (t.termType === 'Quad') throw badRequest('Invalid SPARQL query: quoted triples are not supported');
  return fromRdfJs(t) as TermOrVar;
}

function translateTriples(triples: S.Triple[], env: PatternEnv): Op {
  const bgp: TriplePattern[] = [];
  const parts: Op[] = [];
  const emit = (s: TermOrVar, path: PathExpr, o: TermOrVar) => addPath(s, path, o, bgp, parts, env);
  for (const t of triples) {
    const s = node(t.subject as S.Term);
    const o = node(t.object);
    const pred = t.predicate as S.IriTerm | S.VariableTerm | S.PropertyPath;
    if ('termType' in pred) bgp.push({ s, p: fromRdfJs(pred) as TermOrVar, o });
    else emit(s, toPath(pred), o);
  }
  let op: Op = bgp.length ? { type: 'bgp', patterns: bgp } : { type: 'unit' };
  for (const p of parts) op = join(op, p);
  return op;
}

/** Expand a path per §18.2.2.4 into triple patterns where possible. */
function addPath(s: TermOrVar, path: PathExpr, o: TermOrVar, bgp: TriplePattern[], parts: Op[], env: PatternEnv): void {
  switch (path.type) {
    case 'link': bgp.push({ s, p: path.iri, o }); return;
    case 'inv':
      if (path.path.type === 'link') { bgp.push({ s: o, p: path.path.iri, o: s }); return; }
      break;
    case 'seq': {
      let cur = s;
      path.items.forEach((item, i) => {
        const next = i === path.items.length - 1 ? o : variable(env.fresh('p'));
        addPath(cur, item, next, bgp, parts, env);
        cur = next;
      });
      return;
    }
    default: break;
  }
  parts.push({ type: 'path', s, path, o });
}

/** sparqljs path -> PathExpr, with inverses pushed down to links where the algebra allows. */
function toPath(p: S.IriTerm | S.PropertyPath): PathExpr {
  if ('termType' in p) return { type: 'link', iri: namedNode(p.value) };
  const items = p.items as (S.IriTerm | S.PropertyPath)[];
  switch (p.pathType) {
    case '|': return { type: 'alt', items: items.map(toPath) };
    case '/': return { type: 'seq', items: items.map(toPath) };
    case '^': return invert(toPath(items[0]!));
    case '*': return { type: 'zeroOrMore', path: toPath(items[0]!) };
    case '+': return { type: 'oneOrMore', path: toPath(items[0]!) };
    case '?': return { type: 'zeroOrOne', path: toPath(items[0]!) };
    case '!': {
      const iris: NamedNode[] = [];
      const inverse: NamedNode[] = [];
      const visit = (x: S.IriTerm | S.PropertyPath) => {
        if ('termType' in x) iris.push(namedNode(x.value));
        else if (x.pathType === '|') for (const y of x.items) visit(y as S.IriTerm | S.PropertyPath);
        else if (x.pathType === '^') inverse.push(namedNode((x.items[0] as S.IriTerm).value));
        else throw badRequest('Invalid SPARQL query: bad negated property set');
      };
      for (const x of items) visit(x);
      return { type: 'nps', iris, inverse };
    }
  }
}

/** The inverse of a path, pushed inside sequences and alternatives (^(a/b) = ^b/^a). */
function invert(p: PathExpr): PathExpr {
  switch (p.type) {
    case 'inv': return p.path;
    case 'seq': return { type: 'seq', items: p.items.map(invert).reverse() };
    case 'alt': return { type: 'alt', items: p.items.map(invert) };
    case 'zeroOrMore': case 'oneOrMore': case 'zeroOrOne': return { type: p.type, path: invert(p.path) };
    case 'nps': return { type: 'nps', iris: p.inverse, inverse: p.iris };
    case 'link': return { type: 'inv', path: p };
  }
}

/**
 * SERVICE <iri> { P }: P as the text of a SELECT * for the remote endpoint (sparqljs's generator
 * writes it with full IRIs; blank nodes get labels any parser accepts), with the variables P can
 * bind locally as its columns. A variable endpoint is not supported (400).
 */
function translateService(p: S.ServicePattern, env: PatternEnv): Op {
  if (p.name.termType !== 'NamedNode') throw badRequest('Invalid SPARQL query: SERVICE with a variable endpoint is not supported; name the endpoint IRI');
  const inner = translateGroup(p.patterns, env);
  const variables = [...varInfo(inner).maybe].filter((v) => !v.startsWith(HIDDEN_PREFIX));
  const labels = new Map<string, string>();
  const relabel = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(relabel);
    if (!x || typeof x !== 'object') return x;
    const o = x as Record<string, unknown>;
    if (o.termType === 'BlankNode') {
      let l = labels.get(o.value as string);
      if (l === undefined) labels.set(o.value as string, l = `b${labels.size}`);
      return { termType: 'BlankNode', value: l };
    }
    // Keep class instances (sparqljs's Wildcard) as they are.
    if (Object.getPrototypeOf(o) !== Object.prototype) return o;
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, relabel(v)]));
  };
  const where = relabel(p.patterns) as S.Pattern[];
  const query = new sparqljs.Generator({ prefixes: {} }).stringify({
    type: 'query', queryType: 'SELECT', prefixes: {}, variables: [new sparqljs.Wildcard()], where,
  } as S.SelectQuery);
  return { type: 'service', endpoint: namedNode(p.name.value), silent: !!p.silent, query, variables };
}
