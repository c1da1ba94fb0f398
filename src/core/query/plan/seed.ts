/**
 * When may an operator be fed the rows of what precedes it (sideways information passing)
 * instead of being evaluated alone and joined? Feeding rows μ to X computes join({μ}, X) only if
 * nothing inside X reads a variable of μ that X itself might leave unbound: a filter, a BIND, a
 * left join's right side or a MINUS would otherwise see bindings the spec's bottom-up evaluation
 * hides from them. Operators that close a scope (GROUP, projection, slicing) never take rows.
 */
import type { Op } from '../algebra/algebra.js';
import { exprVars, mentionedVars, varInfo } from '../algebra/vars.js';

function subsetOf(xs: Iterable<string>, seed: ReadonlySet<string>, certain: ReadonlySet<string>): boolean {
  for (const x of xs) if (seed.has(x) && !certain.has(x)) return false;
  return true;
}

/**
 * True when `op` evaluated with input rows binding (some of) `seed` yields join(input, op).
 * `force` is EXISTS substitution: outer bindings are meant to be visible everywhere inside.
 */
export function seedable(op: Op, seed: ReadonlySet<string>, force = false): boolean {
  switch (op.type) {
    case 'bgp': case 'path': case 'unit': case 'values': return true;
    case 'join': {
      const all = new Set(seed);
      for (const i of op.inputs) for (const v of varInfo(i).maybe) all.add(v);
      return op.inputs.every((i) => seedable(i, all, force));
    }
    case 'union': return op.inputs.every((i) => seedable(i, seed, force));
    case 'filter':
      return seedable(op.input, seed, force) && (force || subsetOf(exprVars(op.expr), seed, varInfo(op.input).certain));
    case 'extend':
      if (seed.has(op.variable) && !force) return false;
      return seedable(op.input, seed, force) && (force || subsetOf(exprVars(op.expr), seed, varInfo(op.input).certain));
    case 'leftjoin': {
      const l = varInfo(op.left);
      if (!seedable(op.left, seed, force)) return false;
      const rightSeed = new Set([...seed, ...l.maybe]);
      if (!seedable(op.right, rightSeed, force)) return false;
      if (force) return true;
      const reads = new Set(varInfo(op.right).maybe);
      if (op.expr) exprVars(op.expr, reads);
      return subsetOf(reads, seed, l.certain);
    }
    case 'minus':
      return seedable(op.left, seed, force) && (force || subsetOf(mentionedVars(op.right), seed, varInfo(op.left).certain));
    case 'graph': return seedable(op.input, seed, force);
    case 'group': case 'project': case 'orderby': case 'distinct': case 'reduced': case 'slice': case 'service':
      return false;
  }
}

/**
 * True when GRAPH ?g { op } can run in quad mode: every solution of `op` comes from scans (which
 * then bind ?g), and no expression reads ?g before the spec would have bound it.
 */
export function quadSafe(op: Op, g: string): boolean {
  switch (op.type) {
    case 'bgp': return op.patterns.length > 0;
    case 'path': return true;
    case 'join': return op.inputs.length > 0 && op.inputs.every((i) => quadSafe(i, g));
    case 'union': return op.inputs.every((i) => quadSafe(i, g));
    case 'leftjoin': return quadSafe(op.left, g) && quadSafe(op.right, g) && !(op.expr && exprVars(op.expr).has(g));
    case 'filter': return quadSafe(op.input, g) && !exprVars(op.expr).has(g);
    case 'extend': return op.variable !== g && quadSafe(op.input, g) && !exprVars(op.expr).has(g);
    default: return false;
  }
}
