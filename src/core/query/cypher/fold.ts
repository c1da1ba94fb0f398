/**
 * Algebra clean-ups for compiled Cypher reads (compile.ts): filters moved down to the join they
 * filter, and an OPTIONAL MATCH's references to constant nodes of the MATCH written as those
 * constants — SPARQL's own shape for the same query, which the planner estimates and seeds well.
 */
import type { Expr as AExpr, Op, TriplePattern } from '../algebra/algebra.js';
import { exprVars, varInfo } from '../algebra/vars.js';
import type { Term } from '../../rdf/terms.js';

const call = (fn: string, ...args: AExpr[]): AExpr => ({ type: 'call', fn, args });
const and = (xs: AExpr[]): AExpr => xs.reduce((a, b) => call('&&', a, b));

export const hasExists = (e: AExpr): boolean => e.type === 'exists' || (e.type === 'call' && e.args.some(hasExists));
const subst = (e: AExpr, c: Map<string, AExpr>): AExpr => (e.type === 'var' ? c.get(e.name) ?? e : e.type === 'call' ? { ...e, args: e.args.map((a) => subst(a, c)) } : e);

/**
 * Filters moved down to the join under them, through the constant binds (relationship types,
 * constant nodes) matchOp puts after it: the planner places a filter inside a join as soon as its
 * variables are bound, as for SPARQL's group filters, but runs one above a BIND after the whole join.
 * Filters whose EXISTS reads a bound constant stay above.
 */
export function fold(op: Op): Op {
  const filters: AExpr[] = [];
  const binds: Extract<Op, { type: 'extend' }>[] = [];
  let core = op;
  for (;;) {
    if (core.type === 'filter') filters.push(...conjuncts(core.expr));
    else if (core.type === 'extend' && core.expr.type === 'term') binds.push(core);
    else break;
    core = core.input;
  }
  if (!filters.length) return op;
  const consts = new Map(binds.map((b) => [b.variable, b.expr]));
  // conditions the pattern itself guarantees would only mislead the planner's filter estimates
  const subjects = new Set<string>();
  const walk = (o: Op): void => {
    if (o.type === 'join') o.inputs.forEach(walk);
    else if (o.type === 'bgp') for (const tp of o.patterns) if (tp.s.termType === 'Variable') subjects.add(tp.s.value);
  };
  walk(core);
  const certain = varInfo(core).certain;
  const redundant = (e: AExpr): boolean => {
    if (e.type !== 'call') return false;
    const [a] = e.args;
    if (e.fn === 'bound' && a?.type === 'var') return certain.has(a.name);
    if (e.fn !== '!' || a?.type !== 'call' || a.fn !== 'isliteral') return false;
    const x = a.args[0]!;
    return (x.type === 'term' && x.term.termType === 'NamedNode') || (x.type === 'var' && subjects.has(x.name));
  };
  const down: AExpr[] = [], up: AExpr[] = [];
  const seen = new Set<string>();
  for (const f of filters.reverse()) {
    const g = hasExists(f) ? f : subst(f, consts);
    if (redundant(g)) continue;
    const key = keyOf(g);
    if (seen.has(key)) continue;
    seen.add(key);
    if (hasExists(f) && [...exprVars(f)].some((v) => consts.has(v))) up.push(f);
    else down.push(g);
  }
  let out: Op = down.length ? { type: 'filter', expr: and(down), input: core } : core;
  for (const b of binds.reverse()) out = { ...b, input: out };
  return up.length ? { type: 'filter', expr: and(up), input: out } : out;
}

/** A structural key of an expression without EXISTS (equal keys: the same condition). */
function keyOf(e: AExpr): string {
  switch (e.type) {
    case 'var': return '?' + e.name;
    case 'term': return e.term.termType === 'Literal' ? JSON.stringify([e.term.value, e.term.datatype.value, e.term.language]) : e.term.termType[0] + '<' + e.term.value + '>';
    case 'call': return e.fn + '(' + e.args.map(keyOf).join(',') + ')';
    default: return JSON.stringify(e);
  }
}

function conjuncts(e: AExpr): AExpr[] {
  return e.type === 'call' && e.fn === '&&' ? e.args.flatMap(conjuncts) : [e];
}

/** Thrown for an operator withConsts does not rewrite (the caller runs clause by clause). */
export class NoSubst extends Error {}

/**
 * `op` with the variables of `consts` replaced by their terms: the right side of an OPTIONAL MATCH
 * never binds a node of the MATCH itself, so naming the constant is the same as joining on it.
 */
export function withConsts(op: Op, consts: ReadonlyMap<string, Term>): Op {
  if (!consts.size) return op;
  const t = <T extends { termType: string; value: string }>(x: T): T => (x.termType === 'Variable' && consts.has(x.value) ? consts.get(x.value)! as unknown as T : x);
  const ex = (e: AExpr): AExpr => {
    switch (e.type) {
      case 'var': { const c = consts.get(e.name); return c ? { type: 'term', term: c } : e; }
      case 'call': return { ...e, args: e.args.map(ex) };
      case 'exists': return { ...e, op: withConsts(e.op, consts) };
      default: return e;
    }
  };
  switch (op.type) {
    case 'bgp': return { ...op, patterns: op.patterns.map((p) => ({ ...p, s: t(p.s), p: t(p.p), o: t(p.o) } as typeof p)) };
    case 'path': return { ...op, s: t(op.s), o: t(op.o) } as Op;
    case 'join': case 'union': return { ...op, inputs: op.inputs.map((i) => withConsts(i, consts)) } as Op;
    case 'filter': return { ...op, expr: ex(op.expr), input: withConsts(op.input, consts) };
    case 'extend': if (consts.has(op.variable)) throw new NoSubst(); return { ...op, expr: ex(op.expr), input: withConsts(op.input, consts) };
    case 'leftjoin': return { ...op, left: withConsts(op.left, consts), right: withConsts(op.right, consts), ...(op.expr ? { expr: ex(op.expr) } : {}) };
    case 'distinct': return { ...op, input: withConsts(op.input, consts) };
    case 'project': return { ...op, variables: op.variables.filter((v) => !consts.has(v)), input: withConsts(op.input, consts) };
    case 'unit': return op;
    case 'values': if (op.variables.some((v) => consts.has(v))) throw new NoSubst(); return op;
    default: throw new NoSubst();
  }
}

/**
 * A translated MATCH (matchOp's shape: filters and binds over a join led by its BGP) with more
 * triple patterns in that BGP, constant nodes substituted as matchOp does its own.
 */
export function withPatterns(op: Op, extra: TriplePattern[], consts: ReadonlyMap<string, Term>): Op {
  if (!extra.length) return op;
  const t = <T extends { termType: string; value: string }>(x: T): T => (x.termType === 'Variable' && consts.has(x.value) ? consts.get(x.value)! as unknown as T : x);
  const pats = extra.map((p) => ({ ...p, s: t(p.s), o: t(p.o) }));
  switch (op.type) {
    case 'filter': case 'extend': return { ...op, input: withPatterns(op.input, extra, consts) };
    case 'join': {
      const [first, ...rest] = op.inputs;
      if (first?.type === 'bgp') return { ...op, inputs: [{ ...first, patterns: [...pats, ...first.patterns] }, ...rest] };
      return { ...op, inputs: [{ type: 'bgp', patterns: pats }, ...op.inputs] };
    }
    case 'unit': return { type: 'bgp', patterns: pats };
    default: return { type: 'join', inputs: [{ type: 'bgp', patterns: pats }, op] };
  }
}
