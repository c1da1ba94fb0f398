/**
 * Variable analysis over the algebra (SPARQL 1.1 §18.2.1): which variables an operator's
 * solutions may bind (in scope), which they always bind, and which an expression mentions.
 * Translators use it for scope errors and SELECT *; the planner for seeding and push-down.
 */
import type { Expr, Op, PathExpr, TermOrVar } from './algebra.js';

/** Hidden variables (blank nodes in patterns, path links, aggregates) start with this character. */
export const HIDDEN_PREFIX = '#';

/** True for a variable the translator invented (never projected by SELECT *). */
export function isHidden(name: string): boolean { return name.startsWith(HIDDEN_PREFIX); }

export interface VarInfo {
  /** Variables some solution may bind, in order of first appearance. */
  maybe: Set<string>;
  /** Variables every solution binds. */
  certain: Set<string>;
}

const cache = new WeakMap<Op, VarInfo>();

function addTov(set: Set<string>, t: TermOrVar): void { if (t.termType === 'Variable') set.add(t.value); }

/** In-scope (maybe) and always-bound (certain) variables of an operator's solutions. */
export function varInfo(op: Op): VarInfo {
  const hit = cache.get(op);
  if (hit) return hit;
  const r = compute(op);
  cache.set(op, r);
  return r;
}

function compute(op: Op): VarInfo {
  switch (op.type) {
    case 'bgp': {
      const s = new Set<string>();
      for (const tp of op.patterns) { addTov(s, tp.s); addTov(s, tp.p); addTov(s, tp.o); }
      return { maybe: s, certain: s };
    }
    case 'path': {
      const s = new Set<string>();
      addTov(s, op.s); addTov(s, op.o);
      return { maybe: s, certain: s };
    }
    case 'join': {
      const maybe = new Set<string>();
      const certain = new Set<string>();
      for (const i of op.inputs) {
        const v = varInfo(i);
        for (const x of v.maybe) maybe.add(x);
        for (const x of v.certain) certain.add(x);
      }
      return { maybe, certain };
    }
    case 'union': {
      const maybe = new Set<string>();
      let certain: Set<string> | undefined;
      for (const i of op.inputs) {
        const v = varInfo(i);
        for (const x of v.maybe) maybe.add(x);
        // Intersected in place: a UNION of 40,000 branches must not build 40,000 sets.
        if (!certain) certain = new Set(v.certain);
        else for (const x of certain) if (!v.certain.has(x)) certain.delete(x);
      }
      return { maybe, certain: certain ?? new Set() };
    }
    case 'leftjoin': {
      const l = varInfo(op.left);
      const r = varInfo(op.right);
      return { maybe: new Set([...l.maybe, ...r.maybe]), certain: l.certain };
    }
    case 'minus': return varInfo(op.left);
    case 'filter': return varInfo(op.input);
    case 'extend': {
      const v = varInfo(op.input);
      // a constant term never fails to evaluate: BIND(<c> AS ?x) binds ?x on every solution
      return { maybe: new Set([...v.maybe, op.variable]), certain: op.expr.type === 'term' ? new Set([...v.certain, op.variable]) : v.certain };
    }
    case 'graph': {
      const v = varInfo(op.input);
      if (op.name.termType !== 'Variable') return v;
      return { maybe: new Set([...v.maybe, op.name.value]), certain: new Set([...v.certain, op.name.value]) };
    }
    case 'group': {
      const inner = varInfo(op.input);
      const maybe = new Set<string>();
      const certain = new Set<string>();
      for (const k of op.keys) {
        const name = k.variable ?? (k.expr.type === 'var' ? k.expr.name : undefined);
        if (name === undefined) continue;
        maybe.add(name);
        if (k.expr.type === 'var' && inner.certain.has(k.expr.name)) certain.add(name);
      }
      for (const a of op.aggregates) {
        maybe.add(a.variable);
        if (a.agg.name === 'count') certain.add(a.variable);
      }
      return { maybe, certain };
    }
    case 'project': {
      const inner = varInfo(op.input);
      return { maybe: new Set(op.variables), certain: new Set(op.variables.filter((v) => inner.certain.has(v))) };
    }
    case 'orderby': case 'distinct': case 'reduced': case 'slice':
      return varInfo(op.input);
    case 'values': {
      const certain = new Set<string>();
      op.variables.forEach((v, i) => { if (op.rows.every((r) => r[i] !== undefined)) certain.add(v); });
      return { maybe: new Set(op.variables), certain };
    }
    case 'unit': return { maybe: new Set(), certain: new Set() };
    case 'service': return { maybe: new Set(op.variables), certain: new Set() };
  }
}

/** Every variable an expression mentions, including inside EXISTS patterns (their in-scope variables). */
export function exprVars(e: Expr, out = new Set<string>()): Set<string> {
  switch (e.type) {
    case 'var': out.add(e.name); break;
    case 'call': for (const a of e.args) exprVars(a, out); break;
    case 'exists': for (const v of mentionedVars(e.op)) out.add(v); break;
    case 'aggregate': if (e.agg.expr) exprVars(e.agg.expr, out); break;
    case 'term': break;
  }
  return out;
}

/** Every variable an operator mentions anywhere (patterns, expressions, nested EXISTS), except inside subquery projections' hidden parts. */
export function mentionedVars(op: Op, out = new Set<string>()): Set<string> {
  const tov = (t: TermOrVar) => { if (t.termType === 'Variable') out.add(t.value); };
  switch (op.type) {
    case 'bgp': for (const tp of op.patterns) { tov(tp.s); tov(tp.p); tov(tp.o); } break;
    case 'path': tov(op.s); tov(op.o); break;
    case 'join': case 'union': for (const i of op.inputs) mentionedVars(i, out); break;
    case 'leftjoin': mentionedVars(op.left, out); mentionedVars(op.right, out); if (op.expr) exprVars(op.expr, out); break;
    case 'minus': mentionedVars(op.left, out); mentionedVars(op.right, out); break;
    case 'filter': exprVars(op.expr, out); mentionedVars(op.input, out); break;
    case 'extend': out.add(op.variable); exprVars(op.expr, out); mentionedVars(op.input, out); break;
    case 'graph': if (op.name.termType === 'Variable') out.add(op.name.value); mentionedVars(op.input, out); break;
    case 'project': for (const v of op.variables) out.add(v); break;
    case 'group': for (const v of varInfo(op).maybe) out.add(v); break;
    case 'orderby': for (const k of op.keys) exprVars(k.expr, out); mentionedVars(op.input, out); break;
    case 'distinct': case 'reduced': case 'slice': mentionedVars(op.input, out); break;
    case 'values': case 'service': for (const v of op.variables) out.add(v); break;
    case 'unit': break;
  }
  return out;
}

/** True when a path expression can match a zero-length path (the subject itself). */
export function pathMayBeEmpty(p: PathExpr): boolean {
  switch (p.type) {
    case 'zeroOrMore': case 'zeroOrOne': return true;
    case 'link': case 'nps': return false;
    case 'inv': case 'oneOrMore': return pathMayBeEmpty(p.path);
    case 'seq': return p.items.every(pathMayBeEmpty);
    case 'alt': return p.items.some(pathMayBeEmpty);
  }
}
