/**
 * Shape limits of a compiled query (docs/limits.md), checked before planning whatever language it
 * came from: the number of triple patterns (each one a scan and a join to plan) and the depth of
 * the operator and expression tree, which the planner, the explainer and expression evaluation walk
 * recursively. Text nesting is bounded by the parsers already; this catches the depth that flat
 * text builds, such as a long run of OPTIONALs or `?x = 1 || ?x = 2 || ...` (left-deep chains).
 * The walk itself is iterative.
 */
import { inputLimits, MAX_SAFE_DEPTH, shapeLimitError } from '../../limits.js';
import { badRequest } from '../../errors.js';
import type { Expr, Op, PathExpr } from './algebra.js';

type Node = { op: Op } | { expr: Expr } | { path: PathExpr };

/** Deepest operator/expression tree accepted: what the recursive planner and executor are proven to run (1,000-way chains of OPTIONAL, MINUS, || or +). */
export const MAX_ALGEBRA_DEPTH = 1000;

/** Triple patterns (and property path patterns) in `op`, its operators, and its tree depth, stopping once `maxDepth` is passed. */
export function algebraShape(op: Op, maxDepth = Infinity): { patterns: number; operators: number; depth: number } {
  let patterns = 0, operators = 0, depth = 0;
  const stack: [Node, number][] = [[{ op }, 1]];
  const push = (n: Node, d: number) => { stack.push([n, d]); };
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (d > depth && (depth = d) > maxDepth) break;
    const c = d + 1;
    if ('op' in n) {
      const o = n.op;
      operators++;
      switch (o.type) {
        case 'bgp': patterns += o.patterns.length; break;
        case 'path': patterns++; push({ path: o.path }, c); break;
        case 'join': case 'union': for (const i of o.inputs) push({ op: i }, c); break;
        case 'leftjoin': push({ op: o.left }, c); push({ op: o.right }, c); if (o.expr) push({ expr: o.expr }, c); break;
        case 'minus': push({ op: o.left }, c); push({ op: o.right }, c); break;
        case 'filter': case 'extend': push({ op: o.input }, c); push({ expr: o.expr }, c); break;
        case 'group':
          push({ op: o.input }, c);
          for (const k of o.keys) push({ expr: k.expr }, c);
          for (const a of o.aggregates) if (a.agg.expr) push({ expr: a.agg.expr }, c);
          break;
        case 'orderby': push({ op: o.input }, c); for (const k of o.keys) push({ expr: k.expr }, c); break;
        case 'graph': case 'project': case 'distinct': case 'reduced': case 'slice': push({ op: o.input }, c); break;
        default: break; // values, unit, service: leaves
      }
    } else if ('expr' in n) {
      const e = n.expr;
      if (e.type === 'call') for (const a of e.args) push({ expr: a }, c);
      else if (e.type === 'exists') push({ op: e.op }, c);
      else if (e.type === 'aggregate' && e.agg.expr) push({ expr: e.agg.expr }, c);
    } else {
      const p = n.path;
      if (p.type === 'seq' || p.type === 'alt') for (const i of p.items) push({ path: i }, c);
      else if (p.type !== 'link' && p.type !== 'nps') push({ path: p.path }, c);
    }
  }
  return { patterns, operators, depth };
}

/** Refuse a compiled query with too many triple patterns or operators, or too deep a tree (400). */
/**
 * The shape of each algebra root checked so far: the algebra is immutable and the parse caches
 * hand the same Query to every run of a text, so a repeated query is measured once (the limits are
 * still compared every time: they may change).
 */
const shapes = new WeakMap<Op, { patterns: number; operators: number; depth: number }>();

export function checkAlgebraShape(op: Op): void {
  let shape = shapes.get(op);
  if (shape === undefined) shapes.set(op, shape = algebraShape(op, MAX_ALGEBRA_DEPTH));
  const { patterns, operators, depth } = shape;
  if (depth > MAX_ALGEBRA_DEPTH) {
    throw badRequest(`the query is nested too deeply: its operator and expression tree is more than ${MAX_ALGEBRA_DEPTH} levels deep (long chains of OPTIONAL, UNION, MINUS or || count one level each)`);
  }
  const max = inputLimits().maxTriplePatterns;
  if (patterns > max) throw shapeLimitError('maxTriplePatterns', `the query has ${patterns} triple patterns, more than allowed`);
  // Planning and variable analysis run in one piece over the whole tree: a query of 40,000 UNION
  // branches of BINDs (no triple pattern) held the event loop ≈ 300 ms before this limit.
  if (operators > inputLimits().maxQueryOperators) {
    throw shapeLimitError('maxQueryOperators', `the query has ${operators} operators, more than allowed`);
  }
}
