/**
 * History queries and `@t`/`@op` (jsonld-query.md §4.1, §9) on the shared engine, without a new
 * operator: an EventView presents every assertion and retraction event as a fact in an *event
 * graph* named `urn:ledgraph:event:<t>:<assert|retract>:<n>`, and the where compiler (event mode)
 * matches each triple pattern in a hidden graph variable. `@t`/`@op` then read the transaction
 * and the operation off that graph's IRI with ordinary string functions.
 *
 * Two modes: 'history' ranges over every event between `from` and `to`; 'current' (a normal
 * query that uses `@t`/`@op`) shows only the facts current at the snapshot, each in the graph of
 * the transaction that asserted it.
 */
import { badRequest } from '../../errors.js';
import type { DbView, FactBatch, HistoryEvent, ScanPattern } from '../../index/view.js';
import { literal } from '../../rdf/terms.js';
import { F, XSD } from '../../rdf/vocab.js';
import type { Expr, Op } from '../algebra/algebra.js';
import { call, term, varExpr } from './util.js';

export const EVENT_IRI = 'urn:ledgraph:event:';
/** First event graph id; far above any graph id a ledger or union view hands out. */
const EVENT_BASE = 1 << 28;
const BATCH = 1024;

/** A DbView whose event graphs hold the events of `base`'s graphs `baseGraphs` in [fromT, toT]. */
export class EventView implements DbView {
  readonly t: number;
  readonly dict;
  readonly stats;
  private readonly span: number;

  constructor(
    private readonly base: DbView,
    private readonly baseGraphs: readonly number[],
    private readonly fromT: number,
    private readonly toT: number,
    private readonly mode: 'history' | 'current',
  ) {
    this.t = base.t;
    this.dict = base.dict;
    this.stats = base.stats;
    this.span = toT - fromT + 1;
  }

  /** Every event graph id (the named graphs an event-mode query ranges over). */
  eventGraphs(): number[] {
    const out: number[] = [];
    const n = this.span * 2 * this.baseGraphs.length;
    for (let i = 0; i < n; i++) out.push(EVENT_BASE + i);
    return out;
  }

  private gid(t: number, assert: boolean, b: number): number {
    return EVENT_BASE + ((t - this.fromT) * 2 + (assert ? 0 : 1)) * this.baseGraphs.length + b;
  }

  private decode(g: number): { t: number; assert: boolean; b: number } | undefined {
    const i = g - EVENT_BASE;
    if (i < 0) return undefined;
    const nb = this.baseGraphs.length;
    const b = i % nb;
    const k = (i - b) / nb;
    const t = this.fromT + (k >> 1);
    if (t > this.toT) return undefined;
    return { t, assert: (k & 1) === 0, b };
  }

  graphId(iri: string): number | undefined {
    if (!iri.startsWith(EVENT_IRI)) return this.base.graphId(iri);
    const m = /^(\d+):(assert|retract):(\d+)$/.exec(iri.slice(EVENT_IRI.length));
    if (!m) return undefined;
    const t = Number(m[1]), b = Number(m[3]);
    if (t < this.fromT || t > this.toT || b >= this.baseGraphs.length) return undefined;
    return this.gid(t, m[2] === 'assert', b);
  }

  graphIri(g: number): string | undefined {
    const e = this.decode(g);
    if (!e) return this.base.graphIri(g);
    return `${EVENT_IRI}${e.t}:${e.assert ? 'assert' : 'retract'}:${e.b}`;
  }

  namedGraphs(): number[] { return this.base.namedGraphs(); }

  async *scan(pattern: ScanPattern, opts?: { signal?: AbortSignal }): AsyncIterable<FactBatch> {
    const e = pattern.g === undefined ? undefined : this.decode(pattern.g);
    if (pattern.g !== undefined && !e) {
      yield* this.base.scan(pattern, opts);
      return;
    }
    const out: FactBatch = { n: 0, g: new Int32Array(BATCH), s: new Int32Array(BATCH), p: new Int32Array(BATCH), o: new Int32Array(BATCH), m: new Int32Array(BATCH) };
    const bs = e ? [e.b] : this.baseGraphs.map((_, i) => i);
    for (const b of bs) {
      const sub: ScanPattern = { ...pattern, g: this.baseGraphs[b]! };
      for await (const ev of this.events(sub, e?.t)) {
        if (opts?.signal?.aborted) return;
        if (e && ev.op !== e.assert) continue;
        const k = out.n++;
        out.g[k] = this.gid(ev.t, ev.op, b); out.s[k] = ev.s; out.p[k] = ev.p; out.o[k] = ev.o; out.m[k] = ev.m;
        if (out.n === BATCH) { yield out; out.n = 0; }
      }
    }
    if (out.n > 0) yield out;
  }

  /** The events a scan shows: all in range (history), or the assertion behind each current fact. */
  private async *events(p: ScanPattern, at: number | undefined): AsyncIterable<HistoryEvent> {
    if (this.mode === 'history') {
      yield* this.base.history(p, at ?? this.fromT, at ?? this.toT);
      return;
    }
    // Current facts: the last event of each fact up to the snapshot decides, and must be an assertion.
    const last = new Map<string, HistoryEvent>();
    for await (const ev of this.base.history(p, at ?? 0, this.toT)) last.set(`${ev.s} ${ev.p} ${ev.o} ${ev.m}`, ev);
    for (const ev of last.values()) if (ev.op && (at === undefined || ev.t === at)) yield ev;
  }

  estimate(pattern: ScanPattern): number {
    const e = pattern.g === undefined ? undefined : this.decode(pattern.g);
    if (pattern.g !== undefined && !e) return this.base.estimate(pattern);
    let n = 0;
    for (const [i, g] of this.baseGraphs.entries()) if (!e || e.b === i) n += this.base.estimate({ ...pattern, g });
    // History holds at least the current facts; a retraction per assertion is the usual worst case.
    return this.mode === 'history' ? n * 2 + 1 : n;
  }

  history(pattern: ScanPattern, fromT: number, toT: number): AsyncIterable<HistoryEvent> {
    return this.base.history(pattern, fromT, toT);
  }
}

/** True when `op` calls the ledger functions `t`/`op` (so the query must run in event mode). */
export function usesEventFunctions(op: Op): boolean {
  let found = false;
  walkOp(op, (e) => { if (e.type === 'call' && (e.fn === F + 't' || e.fn === F + 'op')) found = true; return e; });
  return found;
}

/**
 * Rewrite `t(?x)` / `op(?x)` into reads of the event graph of the pattern that bound `?x`
 * (`eventOf`: object variable -> event-graph variable).
 */
export function bindEventFunctions(op: Op, eventOf: ReadonlyMap<string, string>): Op {
  return walkOp(op, (e) => {
    if (e.type !== 'call' || (e.fn !== F + 't' && e.fn !== F + 'op')) return e;
    const arg = e.args[0];
    const fn = e.fn === F + 't' ? 't' : 'op';
    if (arg?.type !== 'var') throw badRequest(`(${fn} ...) takes a variable bound by a where pattern`);
    const ev = eventOf.get(arg.name);
    if (!ev) throw badRequest(`(${fn} ?${arg.name}): ?${arg.name} must be the object of a where node pattern`);
    // str(?ev) = "urn:ledgraph:event:<t>:<op>:<n>"
    const rest = call('strafter', [call('str', [varExpr(ev)]), term(literal(EVENT_IRI))]);
    if (fn === 't') return call(XSD + 'integer', [call('strbefore', [rest, term(literal(':'))])]);
    return call('strbefore', [call('strafter', [rest, term(literal(':'))]), term(literal(':'))]);
  });
}

/** Map every expression of an operator tree (bottom-up), rebuilding only what changes. */
export function walkOp(op: Op, f: (e: Expr) => Expr): Op {
  const ex = (e: Expr): Expr => {
    let next: Expr = e;
    if (e.type === 'call') next = { ...e, args: e.args.map(ex) };
    else if (e.type === 'exists') next = { ...e, op: walkOp(e.op, f) };
    else if (e.type === 'aggregate' && e.agg.expr) next = { ...e, agg: { ...e.agg, expr: ex(e.agg.expr) } };
    return f(next);
  };
  switch (op.type) {
    case 'join': case 'union': return { ...op, inputs: op.inputs.map((i) => walkOp(i, f)) };
    case 'leftjoin': return { ...op, left: walkOp(op.left, f), right: walkOp(op.right, f), ...(op.expr ? { expr: ex(op.expr) } : {}) };
    case 'minus': return { ...op, left: walkOp(op.left, f), right: walkOp(op.right, f) };
    case 'filter': return { ...op, expr: ex(op.expr), input: walkOp(op.input, f) };
    case 'extend': return { ...op, expr: ex(op.expr), input: walkOp(op.input, f) };
    case 'graph': case 'orderby': case 'project': case 'distinct': case 'reduced': case 'slice': {
      const input = walkOp(op.input, f);
      if (op.type === 'orderby') return { ...op, input, keys: op.keys.map((k) => ({ ...k, expr: ex(k.expr) })) };
      return { ...op, input } as Op;
    }
    case 'group': return {
      ...op, input: walkOp(op.input, f),
      keys: op.keys.map((k) => ({ ...k, expr: ex(k.expr) })),
      aggregates: op.aggregates.map((a) => ({ ...a, agg: a.agg.expr ? { ...a.agg, expr: ex(a.agg.expr) } : a.agg })),
    };
    default: return op;
  }
}
