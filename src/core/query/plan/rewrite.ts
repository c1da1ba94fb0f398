/**
 * Algebra rewrites that give the join orderer more room, each applied only where it provably
 * keeps the result: joins are flattened; a pattern joined with an OPTIONAL moves into the
 * optional's left side when every variable they share with the optional part is always bound on
 * the left (so `{ A OPTIONAL {B} C }` runs as LeftJoin(A ⋈ C, B)); and filter conjuncts that only
 * read always-bound variables of a left join's left side are pushed into it.
 */
import type { Expr, Op } from '../algebra/algebra.js';
import { exprVars, varInfo } from '../algebra/vars.js';

/** Split a filter into its && conjuncts. */
export function conjuncts(e: Expr, out: Expr[] = []): Expr[] {
  if (e.type === 'call' && e.fn === '&&' && e.args.length === 2) {
    conjuncts(e.args[0]!, out);
    conjuncts(e.args[1]!, out);
  } else out.push(e);
  return out;
}

/** Rebuild a conjunction. */
export function conjoin(es: Expr[]): Expr {
  return es.reduce((a, b) => ({ type: 'call', fn: '&&', args: [a, b] }));
}

/** Rewritten algebra by its input: a query parsed once (the parse caches) is rewritten once, and its ops' variable analysis (vars.ts, cached per op) is kept with them. */
const rewritten = new WeakMap<Op, Op>();

/** Apply the rewrites bottom-up (the algebra is immutable, so the result is kept per input op). */
export function rewrite(op: Op): Op {
  let r = rewritten.get(op);
  if (r === undefined) {
    r = rewriteOnce(op);
    rewritten.set(op, r);
  }
  return r;
}

function rewriteOnce(op: Op): Op {
  switch (op.type) {
    case 'join': return rewriteJoin(op.inputs.map(rewrite));
    case 'union': return { ...op, inputs: op.inputs.map(rewrite) };
    case 'leftjoin': return { ...op, left: rewrite(op.left), right: rewrite(op.right) };
    case 'minus': return { ...op, left: rewrite(op.left), right: rewrite(op.right) };
    case 'filter': return pushFilter(op.expr, rewrite(op.input));
    case 'extend': case 'graph': case 'group': case 'orderby': case 'project': case 'distinct': case 'reduced': case 'slice':
      return { ...op, input: rewrite(op.input) } as Op;
    default: return op;
  }
}

function flatten(inputs: Op[]): Op[] {
  const out: Op[] = [];
  for (const i of inputs) {
    if (i.type === 'join') out.push(...flatten(i.inputs));
    else if (i.type !== 'unit') out.push(i);
  }
  return out;
}

/** Can `c` join into the left side of `lj` without changing the result? */
function canHoist(lj: Extract<Op, { type: 'leftjoin' }>, c: Op): boolean {
  const certain = varInfo(lj.left).certain;
  const optional = new Set(varInfo(lj.right).maybe);
  if (lj.expr) exprVars(lj.expr, optional);
  for (const v of varInfo(c).maybe) if (optional.has(v) && !certain.has(v)) return false;
  return true;
}

function rewriteJoin(inputs: Op[]): Op {
  let items = flatten(inputs);
  for (let i = 0; i < items.length; i++) {
    const lj = items[i]!;
    if (lj.type !== 'leftjoin') continue;
    const others = items.filter((_, k) => k !== i);
    const movable = others.filter((c) => c.type !== 'leftjoin' && canHoist(lj, c));
    if (!movable.length) continue;
    const left = rewriteJoin([lj.left, ...movable]);
    const moved: Op = lj.expr ? { type: 'leftjoin', left, right: lj.right, expr: lj.expr } : { type: 'leftjoin', left, right: lj.right };
    items = [moved, ...others.filter((c) => !movable.includes(c))];
    i = -1;
  }
  // Basic graph patterns joined together are one basic graph pattern.
  const patterns = items.flatMap((i) => (i.type === 'bgp' ? i.patterns : []));
  const rest: Op[] = items.filter((i) => i.type !== 'bgp');
  if (patterns.length) rest.unshift({ type: 'bgp', patterns });
  if (rest.length === 0) return { type: 'unit' };
  if (rest.length === 1) return rest[0]!;
  return { type: 'join', inputs: rest };
}

function pushFilter(e: Expr, input: Op): Op {
  if (input.type !== 'leftjoin') return { type: 'filter', expr: e, input };
  const l = varInfo(input.left);
  const all = varInfo(input);
  const down: Expr[] = [];
  const keep: Expr[] = [];
  for (const c of conjuncts(e)) {
    let ok = true;
    for (const v of exprVars(c)) if (all.maybe.has(v) && !l.certain.has(v)) { ok = false; break; }
    // Conjuncts with EXISTS stay put: their pattern may read the optional side's bindings.
    if (ok && !hasExists(c)) down.push(c); else keep.push(c);
  }
  if (!down.length) return { type: 'filter', expr: e, input };
  const left = pushFilter(conjoin(down), input.left);
  const lj: Op = input.expr ? { type: 'leftjoin', left, right: input.right, expr: input.expr } : { type: 'leftjoin', left, right: input.right };
  return keep.length ? { type: 'filter', expr: conjoin(keep), input: lj } : lj;
}

function hasExists(e: Expr): boolean {
  if (e.type === 'exists') return true;
  if (e.type === 'call') return e.args.some(hasExists);
  return false;
}
