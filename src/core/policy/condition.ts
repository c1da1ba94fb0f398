/**
 * `f:query` conditions (policy.md §2 rule 3): the JSON `where` (or `ask`) compiled once with the
 * shared JSON-LD compiler, then run as an existence check against the unrestricted snapshot with
 * `?$this`, `?$identity` and the policy values substituted as constants.
 */
import type { DbView } from '../index/view.js';
import type { Expr, Op, PathExpr, TermOrVar } from '../query/algebra/algebra.js';
import { compileWhere } from '../query/jsonld/where.js';
import { ActiveContext } from '../rdf/jsonld-context.js';
import type { Term } from '../rdf/terms.js';

/** Compile an `f:query` JSON; null when it cannot be used (the policy then denies, rule 1). */
export function compileCondition(json: unknown): Op | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const q = json as Record<string, unknown>;
  const where = q['where'] ?? q['ask'];
  if (where === undefined) return null;
  try {
    const ctx = ActiveContext.create(q['@context'] ?? null);
    return compileWhere(where, ctx);
  } catch {
    return null;
  }
}

/** Replace bound variables by constants throughout an operator (patterns, paths, expressions). */
export function substitute(op: Op, b: ReadonlyMap<string, Term>): Op {
  const tv = (t: TermOrVar): TermOrVar => (t.termType === 'Variable' ? b.get(t.value) ?? t : t);
  const ex = (e: Expr): Expr => substituteExpr(e, b);
  switch (op.type) {
    case 'bgp': return { type: 'bgp', patterns: op.patterns.map((p) => ({ s: tv(p.s), p: tv(p.p), o: tv(p.o) })) };
    case 'path': return { type: 'path', s: tv(op.s), path: op.path as PathExpr, o: tv(op.o) };
    case 'join': return { type: 'join', inputs: op.inputs.map((x) => substitute(x, b)) };
    case 'union': return { type: 'union', inputs: op.inputs.map((x) => substitute(x, b)) };
    case 'leftjoin': {
      const out: Op = { type: 'leftjoin', left: substitute(op.left, b), right: substitute(op.right, b) };
      if (op.expr) out.expr = ex(op.expr);
      return out;
    }
    case 'minus': return { type: 'minus', left: substitute(op.left, b), right: substitute(op.right, b) };
    case 'filter': return { type: 'filter', expr: ex(op.expr), input: substitute(op.input, b) };
    case 'extend': return { type: 'extend', input: substitute(op.input, b), variable: op.variable, expr: ex(op.expr) };
    case 'graph': {
      const name = op.name.termType === 'Variable' ? b.get(op.name.value) ?? op.name : op.name;
      return { type: 'graph', name: name.termType === 'NamedNode' || name.termType === 'Variable' ? name : op.name, input: substitute(op.input, b) };
    }
    case 'group': return {
      type: 'group', input: substitute(op.input, b),
      keys: op.keys.map((k) => ({ ...k, expr: ex(k.expr) })),
      aggregates: op.aggregates.map((a) => ({ variable: a.variable, agg: a.agg.expr ? { ...a.agg, expr: ex(a.agg.expr) } : a.agg })),
    };
    case 'orderby': return { type: 'orderby', input: substitute(op.input, b), keys: op.keys.map((k) => ({ expr: ex(k.expr), desc: k.desc })) };
    case 'project': return { type: 'project', input: substitute(op.input, b), variables: op.variables };
    case 'distinct': return { type: 'distinct', input: substitute(op.input, b) };
    case 'reduced': return { type: 'reduced', input: substitute(op.input, b) };
    case 'slice': return { ...op, input: substitute(op.input, b) };
    case 'values': case 'unit': case 'service': return op;
  }
}

function substituteExpr(e: Expr, b: ReadonlyMap<string, Term>): Expr {
  switch (e.type) {
    case 'var': { const t = b.get(e.name); return t ? { type: 'term', term: t } : e; }
    case 'term': return e;
    case 'call': return { type: 'call', fn: e.fn, args: e.args.map((a) => substituteExpr(a, b)) };
    case 'exists': return { type: 'exists', not: e.not, op: substitute(e.op, b) };
    case 'aggregate': return e.agg.expr ? { type: 'aggregate', agg: { ...e.agg, expr: substituteExpr(e.agg.expr, b) } } : e;
  }
}

/** Does the condition have a solution with these bindings? Runs unrestricted on `snapshot`. */
export async function conditionHolds(op: Op, bindings: ReadonlyMap<string, Term>, snapshot: DbView): Promise<boolean> {
  const { executeQuery } = await import('../query/engine.js');
  const res = await executeQuery({ form: 'ask', op: substitute(op, bindings) }, { view: snapshot });
  return res.type === 'boolean' && res.value;
}
