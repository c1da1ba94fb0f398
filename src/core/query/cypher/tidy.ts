/**
 * The last clean-up of a compiled read's algebra (compile.ts), with the property profiles in hand:
 * tests the profile proves always true where their variable is bound (`isLiteral` of a property
 * with literal values only, `isNumeric` of one with numbers only, `datatype(…) = dt` of one with a
 * single datatype), `bound` of an always-bound variable, and `!isLiteral(<iri>)` are dropped; and
 * constant binds no other part of the query reads (relationship types, constant nodes) are
 * removed. The result is the algebra the SPARQL form of the query has, so the planner does the
 * same work for both (docs/cypher.md "Compiled reads").
 */
import type { Expr as AExpr, Op } from '../algebra/algebra.js';
import { varInfo } from '../algebra/vars.js';
import { literal } from '../../rdf/terms.js';
import { XSD } from '../../rdf/vocab.js';
import type { PropProfile } from './profile.js';

const TRUE: AExpr = { type: 'term', term: literal('true', XSD + 'boolean') };
const isTrue = (e: AExpr): boolean => e === TRUE;

/** `e` with the tests that always hold on rows binding every variable of `certain` replaced by true. */
function simplify(e: AExpr, certain: ReadonlySet<string>, prof: ReadonlyMap<string, PropProfile>): AExpr {
  if (e.type !== 'call') return e;
  const args = e.args.map((a) => simplify(a, certain, prof));
  if (e.fn === '&&' && args.length === 2) {
    if (isTrue(args[0]!)) return args[1]!;
    if (isTrue(args[1]!)) return args[0]!;
  }
  const [a, b] = args;
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

/** Tidy a compiled read's operator; `prof` maps property value variables to their profiles. */
export function tidy(op: Op, prof: ReadonlyMap<string, PropProfile>): Op {
  const uses = new Map<string, number>();
  mentions(op, uses);
  const walk = (o: Op): Op => {
    switch (o.type) {
      case 'filter': {
        const input = walk(o.input);
        const expr = simplify(o.expr, varInfo(input).certain, prof);
        return isTrue(expr) ? input : { ...o, input, expr };
      }
      case 'leftjoin': {
        const left = walk(o.left), right = walk(o.right);
        if (!o.expr) return { ...o, left, right };
        const certain = new Set([...varInfo(left).certain, ...varInfo(right).certain]);
        const expr = simplify(o.expr, certain, prof);
        const { expr: _, ...rest } = o;
        return isTrue(expr) ? { ...rest, left, right } : { ...o, left, right, expr };
      }
      case 'extend':
        // a constant no other part reads: its only mention is this bind
        if (o.expr.type === 'term' && uses.get(o.variable) === 1) return walk(o.input);
        return { ...o, input: walk(o.input) };
      case 'join': return { ...o, inputs: o.inputs.map(walk) };
      case 'group': case 'orderby': case 'project': case 'distinct': case 'slice':
        return { ...o, input: walk(o.input) } as Op;
      default: return o;
    }
  };
  return walk(op);
}
