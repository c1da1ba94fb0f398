/**
 * Join ordering and filter placement for one group of joined patterns. Greedy by estimated
 * output: at each step take the pattern that yields the fewest rows given what is already bound
 * (a pattern sharing a bound variable is a probe per row; one sharing none is a cross product, so
 * its full size counts). A filter goes in right after the step that makes its result final:
 * every variable it reads is either always bound by then or bound by no later step.
 */
import type { ScanPattern } from '../../index/view.js';
import type { Expr, Op, TriplePattern } from '../algebra/algebra.js';
import { exprVars, varInfo } from '../algebra/vars.js';
import { test } from '../exec/expr.js';
import { memoVar } from '../exec/expr-memo.js';
import { FilterNode, IdentityNode } from '../exec/filter.js';
import { SeqJoinNode } from '../exec/join.js';
import { NO_MATCH, TriplePatternNode } from '../exec/scan.js';
import type { PNode } from '../exec/types.js';
import { opCard, tpFanout } from './estimate.js';
import type { JoinPlanner as Planner, PlanCtx } from './plan-ctx.js';
import { conjuncts } from './rewrite.js';

interface Item {
  op: Op;
  tp?: TriplePattern;
  maybe: Set<string>;
  certain: Set<string>;
  /** Standalone size (constants only); asked lazily: a lone last step never needs it. */
  card: () => number;
}

/**
 * Hash-join a triple pattern instead of probing it per row when its full scan is cheaper: an
 * index probe costs about as much as reading a few dozen facts sequentially (columnar leaves).
 */
const PROBE_COST = 40;
const MAX_HASH_BUILD = 2_000_000;

function tpVars(tp: TriplePattern): Set<string> {
  const s = new Set<string>();
  for (const t of [tp.s, tp.p, tp.o]) if (t.termType === 'Variable') s.add(t.value);
  return s;
}

/** Plan join(ops...) with filter expressions over it. */
export function planJoin(P: Planner, ops: Op[], filters: Expr[], c: PlanCtx): PNode {
  // One triple pattern, no filter, nothing bound before it (a point query): nothing to order or
  // place, and the step the general path below would build (an index scan of the pattern).
  const only = ops.length === 1 && filters.length === 0 && c.seedMaybe.size === 0 && c.seedCertain.size === 0 ? ops[0]! : undefined;
  if (only?.type === 'bgp' && only.patterns.length === 1) {
    const tp = only.patterns[0]!;
    return new TriplePatternNode(P.pos(tp.s, c.scope), P.pos(tp.p, c.scope), P.pos(tp.o, c.scope));
  }
  const items: Item[] = [];
  const add = (op: Op): void => {
    if (op.type === 'join') { op.inputs.forEach(add); return; }
    if (op.type === 'unit') return;
    if (op.type === 'bgp') {
      for (const tp of op.patterns) {
        const v = tpVars(tp);
        items.push({ op: { type: 'bgp', patterns: [tp] }, tp, maybe: v, certain: v, card: once(() => tpCard(P, tp, c)) });
      }
      return;
    }
    const v = varInfo(op);
    items.push({ op, maybe: new Set(v.maybe), certain: new Set(v.certain), card: once(() => opCard(op, (i, b) => tpCard(P, b.patterns[i]!, c))) });
  };
  ops.forEach(add);

  const pending = filters.flatMap((f) => conjuncts(f)).map((e) => ({ e, vars: exprVars(e) }));
  const boundMaybe = new Set(c.seedMaybe);
  const boundCertain = new Set(c.seedCertain);
  const steps: PNode[] = [];
  let rows = c.inputRows;
  const remaining = [...items];

  const placeFilters = (final: boolean) => {
    const later = new Set<string>();
    for (const it of remaining) for (const v of it.maybe) later.add(v);
    for (let i = 0; i < pending.length; i++) {
      const f = pending[i]!;
      if (!final && [...f.vars].some((v) => later.has(v) && !boundCertain.has(v))) continue;
      const node = P.filterNode(new IdentityNode(), f.e, { ...c, seedMaybe: boundMaybe, seedCertain: boundCertain }, []) as FilterNode;
      if (!fuse(P, steps[steps.length - 1], node, f.e, c)) steps.push(node);
      pending.splice(i--, 1);
      rows = Math.max(1, rows / 2);
    }
  };

  const filterGain = (it: Item): number => {
    let g = 1;
    for (const f of pending) {
      let before = true, after = true;
      for (const v of f.vars) {
        if (!boundCertain.has(v)) { before = false; if (!it.certain.has(v)) { after = false; break; } }
      }
      if (!before && after) g *= 0.5;
    }
    return g;
  };

  placeFilters(false);
  while (remaining.length) {
    if (remaining.length === 1) {
      // No choice left, and the row estimate is not read after the last step: the pattern's size
      // (an index probe) is asked only if its hash-or-probe decision needs it.
      const it = remaining.pop()!;
      const sc: PlanCtx = { ...c, seedMaybe: new Set(boundMaybe), seedCertain: new Set(boundCertain), inputRows: rows };
      steps.push(it.tp ? tpNode(P, it, sc, rows, () => fanout(P, it, boundCertain, rows)) : it.op.type === 'path' ? P.pathNode(it.op, c.scope) : P.plan(it.op, sc));
      for (const v of it.maybe) boundMaybe.add(v);
      for (const v of it.certain) boundCertain.add(v);
      placeFilters(false);
      break;
    }
    let best = 0;
    let bestScore = Infinity;
    let bestConnected = false;
    let bestFan = Infinity;
    // No cross product while a step joins on what is bound: a disconnected step multiplies every
    // row so far by its size, and the fan-out estimates it is compared with are averages over the
    // whole predicate (rdf:type per class: hundreds), so the product looked cheap when it was not
    // (BI-Q1: 151 product types × the 2,872 reviews by DE reviewers, 434,000 rows). A step
    // matching at most one fact still goes wherever it is cheapest.
    const anyConnected = steps.length > 0 && remaining.some((it) => [...it.maybe].some((v) => boundMaybe.has(v)));
    remaining.forEach((it, i) => {
      const connected = [...it.maybe].some((v) => boundMaybe.has(v));
      if (anyConnected && !connected && it.card() > 1) return;
      const fan = fanout(P, it, boundCertain, rows);
      // A step that lets a pending filter run shrinks everything after it: count each such filter
      // at the same 1/2 the row estimate applies once the filter is placed.
      const score = fan * filterGain(it);
      if (score < bestScore || (score === bestScore && connected && !bestConnected)) {
        best = i;
        bestScore = score;
        bestFan = fan;
        bestConnected = connected;
      }
    });
    const it = remaining.splice(best, 1)[0]!;
    const sc: PlanCtx = { ...c, seedMaybe: new Set(boundMaybe), seedCertain: new Set(boundCertain), inputRows: rows };
    steps.push(it.tp ? tpNode(P, it, sc, rows, () => bestFan) : it.op.type === 'path' ? P.pathNode(it.op, c.scope) : P.plan(it.op, sc));
    for (const v of it.maybe) boundMaybe.add(v);
    for (const v of it.certain) boundCertain.add(v);
    rows = Math.max(1, rows * bestFan);
    placeFilters(false);
  }
  placeFilters(true);
  if (steps.length === 0) return new IdentityNode();
  return steps.length === 1 ? steps[0]! : new SeqJoinNode(steps);
}

/**
 * Fuse a filter over one variable into the triple pattern step just before it, which binds that
 * variable: the filter then runs per distinct id on the facts, before they become rows (scan.ts
 * FactCheck). Deterministic single-variable filters only (expr-memo.ts), without EXISTS.
 */
function fuse(P: Planner, prev: PNode | undefined, node: FilterNode, e: Expr, c: PlanCtx): boolean {
  if (!(prev instanceof TriplePatternNode) || node.exists.length) return false;
  const v = memoVar(e);
  if (v === undefined) return false;
  const cond = node.cond;
  return prev.addCheck({ slot: c.scope.slot(v), fn: (f) => test(cond, f), text: node.text });
}

function constPattern(P: Planner, tp: TriplePattern): ScanPattern | undefined {
  const pt: ScanPattern = {};
  for (const [k, t] of [['s', tp.s], ['p', tp.p], ['o', tp.o]] as const) {
    if (t.termType === 'Variable') continue;
    const id = P.rt.ids.stored(t);
    if (id === undefined) return undefined;
    pt[k] = id;
  }
  return pt;
}

/** Estimates already asked of the view, per planner (opCard of nested left joins asks for the same patterns again). */
const cards = new WeakMap<Planner, Map<TriplePattern, { graphs: PlanCtx['graphs']; n: number }>>();

/** Facts matching a triple pattern's constants in the planning context's graphs. */
export function tpCard(P: Planner, tp: TriplePattern, c: PlanCtx): number {
  let memo = cards.get(P);
  if (!memo) cards.set(P, memo = new Map());
  const hit = memo.get(tp);
  if (hit && hit.graphs === c.graphs) return hit.n;
  const pt = constPattern(P, tp);
  const n = !pt || (c.graphs !== null && c.graphs.length === 0) ? 0 : P.rt.estimate(pt, c.graphs);
  memo.set(tp, { graphs: c.graphs, n });
  return n;
}

/** Expected output rows per input row if `it` came next, fed `rows` rows. */
function fanout(P: Planner, it: Item, bound: ReadonlySet<string>, rows: number): number {
  if (it.tp) {
    const b = (t: TriplePattern['s']) => t.termType === 'Variable' && bound.has(t.value);
    const sB = b(it.tp.s), pB = b(it.tp.p), oB = b(it.tp.o);
    // A star or chain join through a constant predicate, one end bound by earlier steps: the
    // containment assumption (the smaller key set is contained in the larger) gives
    // |in ⋈ pattern| = rows * card / max(rows, keys), with `keys` the pattern's distinct values at
    // the bound end: card / (sampled facts per key), or card itself when the other end is a constant.
    const { p, s, o } = it.tp;
    if (p.termType === 'NamedNode' && sB !== oB && !pB) {
      const other = sB ? o : s;
      let per: number | undefined = 1;
      if (other.termType === 'Variable') {
        const pid = P.rt.ids.stored(p);
        per = pid === undefined ? undefined : P.rt.view.valuesPerKey?.(pid, sB ? 's' : 'o');
      }
      if (per !== undefined) {
        const card = Math.max(it.card(), 1e-6);
        return card / Math.max(rows, card / per, 1);
      }
    }
    return tpFanout(it.card(), sB, pB, oB, P.rt.view.stats);
  }
  const shares = [...it.certain].some((v) => bound.has(v));
  if (it.op.type === 'path') return shares ? 5 : it.card();
  return shares ? Math.max(it.card() / 10, 0.5) : it.card();
}

/** A function computing `f()` on its first call only. */
function once(f: () => number): () => number {
  let n: number | undefined;
  return () => (n ??= f());
}

function tpNode(P: Planner, it: Item, c: PlanCtx, rows: number, fan: () => number): PNode {
  const tp = it.tp!;
  const s = P.pos(tp.s, c.scope), p = P.pos(tp.p, c.scope), o = P.pos(tp.o, c.scope);
  const keys = [...it.maybe].filter((v) => c.seedCertain.has(v));
  const never = [s, p, o].some((x) => 'const' in x && x.const === NO_MATCH);
  if (!never && keys.length && rows > 1 && it.card() < MAX_HASH_BUILD && it.card() < rows * (PROBE_COST + fan())) {
    return new TriplePatternNode(s, p, o, { mode: 'hash', keys: P.slots(keys, c.scope) });
  }
  return new TriplePatternNode(s, p, o);
}
