/**
 * Algebra -> physical operators. Assigns every variable a slot (a subquery's unprojected
 * variables get slots of their own, so scopes never collide), orders joins by the view's
 * estimates (plan/join-order.ts), decides for every step whether it takes the preceding rows as
 * seeds or runs alone and is hash-joined, places filters as early as their variables allow, and
 * compiles expressions.
 */
import { badRequest } from '../../errors.js';
import type { Term } from '../../rdf/terms.js';
import type { Expr, Op, TermOrVar } from '../algebra/algebra.js';
import { isHidden, varInfo } from '../algebra/vars.js';
import { compileExpr, EvalContext, type ExprFn } from '../exec/expr.js';
import { memoVar } from '../exec/expr-memo.js';
import { compileNum } from '../exec/expr-num.js';
import { ExtendNode, FilterNode, IdentityNode, type ExistsSpec } from '../exec/filter.js';
import { ConstGraphNode, EachGraphNode, QuadGraphNode } from '../exec/graph.js';
import { GroupNode } from '../exec/group.js';
import { HashJoinNode, UnionNode, ValuesNode } from '../exec/join.js';
import { DistinctNode, OrderByNode, ProjectNode, SliceNode } from '../exec/modifiers.js';
import { LeftJoinNode, MinusNode } from '../exec/optional.js';
import { PathNode, type CPath } from '../exec/path.js';
import { ServiceNode } from '../exec/service.js';
import type { Runtime } from '../exec/runtime.js';
import { NO_MATCH, type Pos } from '../exec/scan.js';
import type { PNode } from '../exec/types.js';
import { opCard } from './estimate.js';
import { planJoin, tpCard } from './join-order.js';
import { Scope, type JoinPlanner, type PlanCtx } from './plan-ctx.js';
import { rewrite } from './rewrite.js';
import { quadSafe, seedable } from './seed.js';

/** Operators that close a scope or depend on their whole input: never fed rows. */
const OPAQUE = new Set<Op['type']>(['group', 'project', 'orderby', 'distinct', 'reduced', 'slice', 'service']);

export { Scope, type PlanCtx } from './plan-ctx.js';

export class Planner implements JoinPlanner {
  private next = 0;
  readonly fctx: EvalContext;
  readonly top: Scope;

  constructor(readonly rt: Runtime) {
    this.fctx = new EvalContext(rt);
    this.top = this.newScope();
  }

  /** A fresh slot. */
  alloc(): number { return this.next++; }
  /** Slots allocated so far (the row width). */
  get width(): number { return this.next; }
  /** A new empty scope. */
  newScope(): Scope { return new Scope(() => this.alloc()); }

  /** Plan a whole query pattern in the top scope. */
  planRoot(op: Op): PNode {
    const r = rewrite(op), c = this.rootCtx();
    // The root runs without input rows, where plan()'s hash join around an opaque operator (a
    // SELECT's projection) would only hand its inner stream on: planned without it.
    const node = OPAQUE.has(r.type) ? this.planInner(r, c) : this.plan(r, c);
    this.rt.width = this.width;
    return node;
  }

  private rootCtx(): PlanCtx {
    return { scope: this.top, seedMaybe: new Set(), seedCertain: new Set(), inputRows: 1, force: false, graphs: this.rt.defaultGraphs, gslot: -1 };
  }

  /** Slots of variable names in a scope. */
  slots(names: Iterable<string>, scope: Scope): number[] {
    return [...names].map((n) => scope.slot(n));
  }

  /** Plan `op` to compute join(input, op) for inputs described by `c`. */
  plan(op: Op, c: PlanCtx): PNode {
    // Scope-closing operators and operators that must not see the input's bindings run alone
    // and are hash-joined with the input (with no input they run as they are).
    if (OPAQUE.has(op.type) || (c.seedMaybe.size > 0 && !seedable(op, c.seedMaybe, c.force))) {
      const v = varInfo(op);
      const keys = [...v.certain].filter((x) => c.seedCertain.has(x));
      const slots = this.slots(v.maybe, c.scope);
      if (c.gslot >= 0) slots.push(c.gslot);
      return new HashJoinNode(this.planInner(op, this.independent(c)), this.slots(keys, c.scope), slots);
    }
    return this.planInner(op, c);
  }

  private planInner(op: Op, c: PlanCtx): PNode {
    switch (op.type) {
      case 'bgp': case 'join': case 'path': return planJoin(this, [op], [], c);
      case 'filter': {
        if (op.input.type === 'bgp' || op.input.type === 'join' || op.input.type === 'path' || op.input.type === 'unit') return planJoin(this, [op.input], [op.expr], c);
        const input = this.plan(op.input, c);
        return this.filterNode(input, op.expr, c, varInfo(op.input).maybe);
      }
      case 'unit': return new IdentityNode();
      case 'union': return new UnionNode(op.inputs.map((i) => this.plan(i, c)));
      case 'extend': {
        // Fuse a chain of extends whose later expressions have no EXISTS (answered per input batch).
        const chain: Extract<Op, { type: 'extend' }>[] = [op];
        let base = op.input;
        while (base.type === 'extend' && !hasExists(chain[0]!.expr)) {
          chain.unshift(base);
          base = base.input;
        }
        const input = this.plan(base, c);
        const seen = new Set([...c.seedMaybe, ...varInfo(base).maybe]);
        const exists: ExistsSpec[] = [];
        const binds = chain.map((x) => {
          const r = this.compile(x.expr, c, seen);
          exists.push(...r.exists);
          seen.add(x.variable);
          const src = x.expr.type === 'var' ? c.scope.slot(x.expr.name) : -1;
          return { slot: c.scope.slot(x.variable), fn: r.fn, text: exprText(x.expr), src };
        });
        return new ExtendNode(input, binds, exists, this.fctx);
      }
      case 'leftjoin': return this.leftJoin(op, c);
      case 'minus': {
        const left = this.plan(op.left, c);
        const lv = varInfo(op.left), rv = varInfo(op.right);
        const shared = [...rv.maybe].filter((v) => lv.maybe.has(v) || c.seedMaybe.has(v));
        if (!shared.length) return left;
        const right = this.plan(op.right, this.independent(c));
        const keys = shared.filter((v) => rv.certain.has(v) && (lv.certain.has(v) || c.seedCertain.has(v)));
        const sharedSlots = this.slots(shared, c.scope);
        if (c.gslot >= 0) sharedSlots.push(c.gslot);
        return new MinusNode(left, right, this.slots(keys, c.scope), sharedSlots);
      }
      case 'graph': {
        if (op.name.termType === 'NamedNode') {
          const gid = this.rt.graphOfIri(op.name.value);
          return new ConstGraphNode(this.plan(op.input, { ...c, graphs: gid < 0 ? [] : [gid], gslot: -1 }), op.name.value);
        }
        const slot = c.scope.slot(op.name.value);
        if (quadSafe(op.input, op.name.value)) {
          return new QuadGraphNode(this.plan(op.input, { ...c, graphs: null, gslot: slot }), slot);
        }
        return new EachGraphNode(this.plan(op.input, { ...c, graphs: null, gslot: -1 }), slot);
      }
      case 'group': return this.group(op, c);
      case 'orderby': return this.orderBy(op, c);
      case 'project': {
        // A new scope: only the projected names are shared with the outside.
        const inner = this.newScope();
        for (const v of op.variables) inner.map.set(v, c.scope.slot(v));
        const ic: PlanCtx = { ...c, scope: inner, seedMaybe: new Set(), seedCertain: new Set(), inputRows: 1 };
        return new ProjectNode(this.plan(op.input, ic), this.slots(op.variables, c.scope));
      }
      case 'distinct': case 'reduced': {
        const vars = [...varInfo(op.input).maybe];
        return new DistinctNode(this.plan(op.input, c), this.slots(vars, c.scope));
      }
      case 'slice': {
        const limit = op.limit === undefined ? undefined : op.offset + op.limit;
        return new SliceNode(this.planWithLimit(op.input, c, limit), op.offset, op.limit);
      }
      case 'service':
        return new ServiceNode(op.endpoint.value, op.query, op.silent, op.variables.map((v) => [v, c.scope.slot(v)]));
      case 'values': {
        const slots = this.slots(op.variables, c.scope);
        const data = op.rows.map((r) => r.map((t) => (t === undefined ? -1 : this.rt.ids.intern(t))));
        const certain = varInfo(op).certain;
        const keys = op.variables.filter((v) => certain.has(v) && c.seedCertain.has(v));
        return new LazyValues(data, slots, this.slots(keys, c.scope));
      }
    }
  }

  /** An ORDER BY directly under a slice only needs the first offset+limit rows. */
  private planWithLimit(op: Op, c: PlanCtx, limit: number | undefined): PNode {
    if (limit === undefined) return this.plan(op, c);
    if (op.type === 'orderby') return this.orderBy(op, c, limit);
    if (op.type === 'project') {
      // The projection is planned here (not through plan()) so the limit reaches the sort.
      const inner = this.newScope();
      for (const v of op.variables) inner.map.set(v, c.scope.slot(v));
      const ic: PlanCtx = { ...c, scope: inner, seedMaybe: new Set(), seedCertain: new Set(), inputRows: 1 };
      return new ProjectNode(this.planWithLimit(op.input, ic, limit), this.slots(op.variables, c.scope));
    }
    return this.plan(op, c);
  }

  /** Context for an operator evaluated on its own (no input rows). */
  independent(c: PlanCtx): PlanCtx {
    return { ...c, seedMaybe: new Set(), seedCertain: new Set(), inputRows: 1, force: false };
  }

  private leftJoin(op: Extract<Op, { type: 'leftjoin' }>, c: PlanCtx): PNode {
    const left = this.plan(op.left, c);
    const lv = varInfo(op.left), rv = varInfo(op.right);
    const afterLeft = new Set([...c.seedMaybe, ...lv.maybe]);
    const certainLeft = new Set([...c.seedCertain, ...lv.certain]);
    const seedMode = seedable(op.right, afterLeft, c.force);
    // The right side sees one left batch at a time: at most a batch of rows per run.
    const leftRows = Math.min(1024, Math.max(1, c.inputRows * opCard(op.left, (i, b) => tpCard(this, b.patterns[i]!, c))));
    const right = seedMode
      ? this.plan(op.right, { ...c, seedMaybe: afterLeft, seedCertain: certainLeft, inputRows: leftRows })
      : this.plan(op.right, this.independent(c));
    const keys = [...rv.certain].filter((v) => certainLeft.has(v));
    const slots = this.slots(rv.maybe, c.scope);
    if (c.gslot >= 0) slots.push(c.gslot);
    let cond: { fn: ExprFn; exists: ExistsSpec[]; text: string } | undefined;
    if (op.expr) {
      const { fn, exists } = this.compile(op.expr, c, new Set([...afterLeft, ...rv.maybe]));
      cond = { fn, exists, text: exprText(op.expr) };
    }
    const opts = { mode: seedMode ? 'seed' as const : 'hash' as const, rowSlot: this.alloc(), keys: this.slots(keys, c.scope), slots, ...(cond ? { cond } : {}) };
    return new LeftJoinNode(left, right, opts, this.fctx);
  }

  private group(op: Extract<Op, { type: 'group' }>, c: PlanCtx): PNode {
    const ic = this.independent(c);
    const input = this.plan(op.input, ic);
    const seen = varInfo(op.input).maybe;
    const exists: ExistsSpec[] = [];
    const comp = (e: Expr) => {
      const r = this.compile(e, ic, seen);
      exists.push(...r.exists);
      return r.fn;
    };
    const src = (e: Expr | undefined) => (e?.type === 'var' ? ic.scope.slot(e.name) : -1);
    // SUM/AVG of a float/double cast read its number without building the literal (expr-num.ts).
    const numForm = (name: string, e: Expr) => {
      const n = name === 'sum' || name === 'avg' ? compileNum(e, this.rt.ids, (v) => ic.scope.slot(v)) : undefined;
      return n && n.kind !== 'any' ? { fn: n.fn, kind: n.kind } : undefined;
    };
    const argSlot = (e: Expr) => { const v = memoVar(e); return v === undefined ? -1 : ic.scope.slot(v); };
    const keys = op.keys.map((k) => ({ fn: comp(k.expr), slot: k.variable !== undefined ? c.scope.slot(k.variable) : -1, src: src(k.expr) }));
    const aggs = op.aggregates.map((a) => {
      if (a.agg.expr && hasAggregate(a.agg.expr)) throw badRequest('Invalid query: aggregates cannot be nested');
      return {
        slot: c.scope.slot(a.variable),
        src: src(a.agg.expr),
        name: a.agg.name,
        distinct: a.agg.distinct,
        separator: a.agg.separator ?? ' ',
        ...(a.agg.expr ? { fn: comp(a.agg.expr), arg: argSlot(a.agg.expr), num: numForm(a.agg.name, a.agg.expr) } : {}),
      };
    });
    const star = this.slots([...seen].filter((v) => !isHidden(v)), c.scope);
    return new GroupNode(input, keys, aggs, exists, star, this.fctx);
  }

  private orderBy(op: Extract<Op, { type: 'orderby' }>, c: PlanCtx, limit?: number): PNode {
    const input = this.plan(op.input, c);
    const seen = new Set([...c.seedMaybe, ...varInfo(op.input).maybe]);
    const exists: ExistsSpec[] = [];
    const keys = op.keys.map((k) => {
      const r = this.compile(k.expr, c, seen);
      exists.push(...r.exists);
      return { fn: r.fn, desc: k.desc };
    });
    return new OrderByNode(input, keys, exists, this.fctx, limit);
  }

  /** A FILTER over an already planned input whose solutions bind `inputVars`. */
  filterNode(input: PNode, e: Expr, c: PlanCtx, inputVars: Iterable<string>): PNode {
    const { fn, exists } = this.compile(e, c, new Set([...c.seedMaybe, ...inputVars]));
    return new FilterNode(input, fn, exists, this.fctx, exprText(e));
  }

  /** Compile an expression; EXISTS patterns are planned to run seeded by rows binding `seen`. */
  compile(e: Expr, c: PlanCtx, seen: ReadonlySet<string>): { fn: ExprFn; exists: ExistsSpec[] } {
    const exists: ExistsSpec[] = [];
    const fn = compileExpr(e, {
      rt: this.rt,
      slot: (name) => c.scope.slot(name),
      exists: (op) => {
        const rowSlot = this.alloc();
        const node = this.plan(rewrite(op), { ...c, seedMaybe: seen, seedCertain: new Set(), inputRows: 1024, force: true });
        exists.push({ node, rowSlot });
        return exists.length - 1;
      },
    }, this.fctx);
    return { fn, exists };
  }

  /** A pattern position for scans: stored id, NO_MATCH, or a slot. */
  pos(t: TermOrVar, scope: Scope): Pos {
    if (t.termType === 'Variable') return { slot: scope.slot(t.value) };
    return { const: this.rt.ids.stored(t) ?? NO_MATCH };
  }

  /** A path end: constants keep an id even when not stored (zero-length paths return them). */
  pathPos(t: TermOrVar, scope: Scope): Pos {
    if (t.termType === 'Variable') return { slot: scope.slot(t.value) };
    return { const: this.rt.ids.intern(t as Term) };
  }

  /** Resolve a path's IRIs to stored ids. */
  cpath(p: Extract<Op, { type: 'path' }>['path']): CPath {
    const id = (iri: { value: string; termType: 'NamedNode' }) => this.rt.ids.stored(iri) ?? NO_MATCH;
    switch (p.type) {
      case 'link': return { type: 'link', p: id(p.iri) };
      case 'inv': return { type: 'inv', path: this.cpath(p.path) };
      case 'seq': case 'alt': return { type: p.type, items: p.items.map((x) => this.cpath(x)) };
      case 'zeroOrMore': case 'oneOrMore': case 'zeroOrOne': return { type: p.type, path: this.cpath(p.path) };
      case 'nps': return {
        type: 'nps',
        fwd: p.iris.length || !p.inverse.length ? new Set(p.iris.map(id)) : null,
        inv: p.inverse.length ? new Set(p.inverse.map(id)) : null,
      };
    }
  }

  /** A path operator. */
  pathNode(op: Extract<Op, { type: 'path' }>, scope: Scope): PNode {
    return new PathNode(this.pathPos(op.s, scope), this.cpath(op.path), this.pathPos(op.o, scope));
  }
}

/** VALUES rows are laid out at execution time, when the final row width is known. */
class LazyValues implements PNode {
  private node: ValuesNode | undefined;
  constructor(readonly data: number[][], readonly slots: number[], readonly keys: number[]) {}
  describe(): string { return `values(${this.data.length} rows)`; }
  exec(rt: Runtime, input: Parameters<PNode['exec']>[1], g: Parameters<PNode['exec']>[2]) {
    if (!this.node) {
      const w = rt.width;
      const rows = new Int32Array(Math.max(1, this.data.length * w)).fill(-1);
      this.data.forEach((r, i) => r.forEach((id, k) => { rows[i * w + this.slots[k]!] = id; }));
      this.node = new ValuesNode({ n: this.data.length, rows }, w, this.keys, this.slots);
    }
    return this.node.exec(rt, input);
  }
}

function hasExists(e: Expr): boolean {
  if (e.type === 'exists') return true;
  if (e.type === 'call') return e.args.some(hasExists);
  return false;
}

function hasAggregate(e: Expr): boolean {
  if (e.type === 'aggregate') return true;
  if (e.type === 'call') return e.args.some(hasAggregate);
  return false;
}

/** A short rendering of an expression for plan descriptions. */
export function exprText(e: Expr): string {
  switch (e.type) {
    case 'term': return e.term.termType === 'Literal' ? JSON.stringify(e.term.value) : `<${e.term.value}>`;
    case 'var': return '?' + e.name;
    case 'call': return `${e.fn}(${e.args.map(exprText).join(', ')})`;
    case 'exists': return (e.not ? 'NOT ' : '') + 'EXISTS{...}';
    case 'aggregate': return e.agg.name + '(...)';
  }
}

