/**
 * The last clean-up of a compiled read's algebra (compile.ts), with the property profiles in hand:
 * tests the profile proves always true where their variable is bound (`isLiteral` of a property
 * with literal values only, `isNumeric` of one with numbers only, `datatype(…) = dt` of one with a
 * single datatype), `bound` of an always-bound variable, and `!isLiteral(<iri>)` are dropped; and
 * constant binds no other part of the query reads (relationship types, constant nodes) are
 * removed. The result is the algebra the SPARQL form of the query has, so the planner does the
 * same work for both (docs/cypher.md "Compiled reads").
 */
import type { Expr as AExpr, Op, TriplePattern } from '../algebra/algebra.js';
import type { DbView } from '../../index/view.js';
import { varInfo } from '../algebra/vars.js';
import { literal, termEquals } from '../../rdf/terms.js';
import { XSD } from '../../rdf/vocab.js';
import { profileOf, type PropProfile } from './profile.js';

const TRUE: AExpr = { type: 'term', term: literal('true', XSD + 'boolean') };
const FALSE: AExpr = { type: 'term', term: literal('false', XSD + 'boolean') };
const isTrue = (e: AExpr): boolean => e === TRUE;

/** What the tidy-up knows: profiles of property value variables, and of the predicates binding relationship ends. */
interface Facts {
  prof: ReadonlyMap<string, PropProfile>;
  /** Variables bound, where the condition is tested, as the object of a predicate that has no literal object in the view. */
  nodeObjects: ReadonlySet<string>;
}

/** `e` with the tests that always hold on rows binding every variable of `certain` replaced by true. */
function simplify(e: AExpr, certain: ReadonlySet<string>, facts: Facts): AExpr {
  if (e.type !== 'call') return e;
  const { prof } = facts;
  const args = e.args.map((a) => simplify(a, certain, facts));
  const [a, b] = args;
  if (e.fn === '&&' && args.length === 2) {
    if (isTrue(a!)) return b!;
    if (isTrue(b!)) return a!;
    // false && x is false whatever x is (an error included)
    if (a === FALSE || b === FALSE) return FALSE;
  }
  if (e.fn === '!' && (a === TRUE || a === FALSE)) return a === TRUE ? FALSE : TRUE;
  // sameTerm of two constants, or of a bound variable with itself (relationship uniqueness between constant hops)
  if (e.fn === 'sameterm' && a?.type === 'term' && b?.type === 'term') return termEquals(a.term, b.term) ? TRUE : FALSE;
  if (e.fn === 'sameterm' && a?.type === 'var' && b?.type === 'var' && a.name === b.name && certain.has(a.name)) return TRUE;
  // a relationship's end bound by a predicate that never has a literal object
  if (e.fn === '!' && a?.type === 'call' && a.fn === 'isliteral' && a.args[0]!.type === 'var' && certain.has(a.args[0]!.name) && facts.nodeObjects.has(a.args[0]!.name)) return TRUE;
  const v = a?.type === 'var' && certain.has(a.name) ? a.name : undefined;
  const p = v === undefined ? undefined : prof.get(v);
  if (e.fn === 'bound' && v !== undefined) return TRUE;
  if (p?.literalsOnly) {
    if (e.fn === 'isliteral') return TRUE;
    if (e.fn === 'isnumeric' && p.kinds.size > 0 && [...p.kinds].every((k) => k === 'int' || k === 'double')) return TRUE;
  }
  // `datatype(?v) = <dt>` where every value of ?v has datatype dt
  if (e.fn === '=' && a?.type === 'call' && a.fn === 'datatype' && b?.type === 'term' && b.term.termType === 'NamedNode') {
    const x = a.args[0]!;
    const q = x.type === 'var' && certain.has(x.name) ? prof.get(x.name) : undefined;
    if (q?.literalsOnly && q.datatypes.size === 1 && q.datatypes.has(b.term.value)) return TRUE;
  }
  if (e.fn === '!' && a?.type === 'call' && a.fn === 'isliteral' && a.args[0]!.type === 'term' && a.args[0]!.term.termType !== 'Literal') return TRUE;
  return args.every((x, i) => x === e.args[i]) ? e : { ...e, args };
}

/** Count every mention of each variable name in an operator tree (patterns, expressions, lists). */
function mentions(x: unknown, out: Map<string, number>): void {
  if (Array.isArray(x)) { for (const y of x) mentions(y, out); return; }
  if (x === null || typeof x !== 'object') return;
  const o = x as Record<string, unknown>;
  const add = (n: unknown) => { if (typeof n === 'string') out.set(n, (out.get(n) ?? 0) + 1); };
  if (o.termType === 'Variable') add(o.value);
  if (o.type === 'var') add(o.name);
  if (typeof o.variable === 'string') add(o.variable);
  if (Array.isArray(o.variables)) for (const n of o.variables) add(n);
  for (const [k, v] of Object.entries(o)) if (k !== 'variables' && v !== null && typeof v === 'object') mentions(v, out);
}

/**
 * Variables that every solution of `op` binds as the object of a triple pattern with a predicate
 * of `noLit` (its required patterns: joins, filters, binds, a left join's left side).
 */
function nodeObjectsOf(op: Op, noLit: ReadonlySet<string>, out = new Set<string>()): Set<string> {
  switch (op.type) {
    case 'bgp':
      for (const tp of op.patterns) if (tp.p.termType === 'NamedNode' && noLit.has(tp.p.value) && tp.o.termType === 'Variable') out.add(tp.o.value);
      break;
    case 'join': for (const i of op.inputs) nodeObjectsOf(i, noLit, out); break;
    case 'filter': case 'extend': nodeObjectsOf(op.input, noLit, out); break;
    case 'leftjoin': nodeObjectsOf(op.left, noLit, out); break;
    default: break;
  }
  return out;
}

/** Whether an `isLiteral` call occurs anywhere in `x`. */
function callsIsLiteral(x: unknown): boolean {
  if (Array.isArray(x)) return x.some(callsIsLiteral);
  if (x === null || typeof x !== 'object') return false;
  const o = x as Record<string, unknown>;
  return (o.type === 'call' && o.fn === 'isliteral') || Object.values(o).some(callsIsLiteral);
}

/** Constant predicates of triple patterns anywhere in `x`. */
function predicates(x: unknown, out: Set<string>): void {
  if (Array.isArray(x)) { for (const y of x) predicates(y, out); return; }
  if (x === null || typeof x !== 'object') return;
  const o = x as Record<string, unknown>;
  if (o.type === 'bgp') { for (const tp of o.patterns as TriplePattern[]) if (tp.p.termType === 'NamedNode' && tp.o.termType === 'Variable') out.add(tp.p.value); return; }
  for (const v of Object.values(o)) if (v !== null && typeof v === 'object') predicates(v, out);
}

/**
 * Tidy a compiled read's operator; `prof` maps property value variables to their profiles. The
 * predicates of the triple patterns whose object a `!isLiteral` test reads are profiled too (once
 * per view, as property reads are).
 */
export async function tidy(op: Op, prof: ReadonlyMap<string, PropProfile>, view: DbView, signal?: AbortSignal): Promise<Op> {
  const uses = new Map<string, number>();
  mentions(op, uses);
  // predicates without literal objects, profiled only when some `!isLiteral` test could use them
  const noLit = new Set<string>();
  if (callsIsLiteral(op)) {
    const preds = new Set<string>();
    predicates(op, preds);
    for (const iri of preds) if ((await profileOf(view, iri, signal)).kinds.size === 0) noLit.add(iri);
  }

  const walk = (o: Op): Op => {
    switch (o.type) {
      case 'filter': {
        const input = walk(o.input);
        const expr = simplify(o.expr, varInfo(input).certain, { prof, nodeObjects: nodeObjectsOf(input, noLit) });
        return isTrue(expr) ? input : { ...o, input, expr };
      }
      case 'leftjoin': {
        const left = walk(o.left), right = walk(o.right);
        if (!o.expr) return { ...o, left, right };
        const certain = new Set([...varInfo(left).certain, ...varInfo(right).certain]);
        const expr = simplify(o.expr, certain, { prof, nodeObjects: new Set([...nodeObjectsOf(left, noLit), ...nodeObjectsOf(right, noLit)]) });
        const { expr: _, ...rest } = o;
        return isTrue(expr) ? { ...rest, left, right } : { ...o, left, right, expr };
      }
      case 'extend':
        // a constant no other part reads: its only mention is this bind
        if (o.expr.type === 'term' && uses.get(o.variable) === 1) return walk(o.input);
        return { ...o, input: walk(o.input) };
      case 'join': return { ...o, inputs: o.inputs.map(walk) };
      case 'orderby': {
        // a key constant on every row (`!bound` of an always-bound value) orders nothing
        const input = walk(o.input);
        const certain = varInfo(input).certain;
        const keys = o.keys.map((k) => ({ ...k, expr: simplify(k.expr, certain, { prof, nodeObjects: new Set() }) })).filter((k) => k.expr !== TRUE && k.expr !== FALSE);
        return keys.length ? { ...o, input, keys } : input;
      }
      case 'group': case 'project': case 'distinct': case 'slice':
        return { ...o, input: walk(o.input) } as Op;
      default: return o;
    }
  };
  return walk(op);
}
