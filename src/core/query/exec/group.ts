/**
 * GROUP BY and aggregates (SPARQL 1.1 §11, §18.5). Rows are grouped on the ids of their key
 * values; each group keeps one accumulator per aggregate. An aggregate whose inputs hit an
 * evaluation error (a non-number in SUM, say) leaves its variable unbound in that group; COUNT
 * counts the values that evaluate. Without GROUP BY, an empty input still forms one group.
 * SUM and AVG compute with the arithmetic operators (XSD 1.0 canonical results); MIN, MAX and
 * SAMPLE return the selected input term as written (docs/sparql.md "Numeric results").
 */
import type { Term } from '../../rdf/terms.js';
import { type NumericValue, integerLiteral, numericLiteral, numericValue, stringLiteral } from '../../rdf/values.js';
import type { AggregateName } from '../algebra/algebra.js';
import { type EvalContext, type ExprFn, type Frame, tryEval } from './expr.js';
import { callFunction, compareForOrder, isExprError } from './expr-eval.js';
import type { NumFn } from './expr-num.js';
import { existsAnswers, type ExistsSpec } from './filter.js';
import { numArg } from './functions-common.js';
import { arithmetic } from './functions-numeric.js';
import { RowBuffer, hashSlots } from './rows.js';
import type { Runtime } from './runtime.js';
import { UNBOUND, type GraphCtx, type PNode, type Stream } from './types.js';

/** A grouping key: its expression, output slot (-1 none) and, for a plain variable, its slot (read as an id). */
export interface GroupKey { fn: ExprFn; slot: number; src: number }
export interface GroupAgg {
  slot: number;
  /** Slot of the argument when it is a plain variable (no decoding needed), else -1. */
  src: number;
  name: AggregateName;
  distinct: boolean;
  /** Undefined for COUNT(*). */
  fn?: ExprFn;
  /**
   * Slot of the one variable `fn` reads when it is deterministic (expr-memo.ts), else -1: the
   * argument's term and number are then computed once per id of that variable.
   */
  arg?: number;
  /** SUM/AVG: the argument's float/double number without its literal (expr-num.ts), when it has that form. */
  num?: { fn: NumFn; kind: 'float' | 'double' };
  separator: string;
}

const ZERO = integerLiteral(0);
const ZERO_NUM: NumericValue = { kind: 'integer', big: 0n };

/** One aggregate's running state in one group. */
class Acc {
  count = 0;
  value: Term | undefined;
  /**
   * SUM/AVG's running total as a number value, not a literal: building and re-parsing a literal
   * per input row cost most of a large aggregation (the `+` operator's own arithmetic, so the same
   * promotion and rounding).
   */
  sum: NumericValue | undefined;
  /**
   * While every input so far was a float or double: the running sum as a plain number, and 1
   * (all float: rounded to float after each step, as the `+` operator does) or 2 (double).
   */
  fast = 0;
  fnum = 0;
  error = false;
  /** GROUP_CONCAT's parts, made on its first input (one array less per group of the other aggregates). */
  parts: string[] | undefined;
  seen: Set<number | string> | undefined;
  /** MIN/MAX/SAMPLE over a plain variable: the id of `value`, so the result needs no re-interning. */
  valueId: number | undefined;
  constructor(readonly agg: GroupAgg) { if (agg.distinct) this.seen = new Set(); }

  /** Add an input whose term and numeric value (undefined: not a number) are known. */
  addValue(t: Term | undefined, n: NumericValue | undefined, id: number | string, fctx: EvalContext): void {
    if (this.error) return;
    const name = this.agg.name;
    if (t !== undefined && !this.seen && (name === 'sum' || name === 'avg')) {
      if (n === undefined) { this.error = true; return; }
      this.count++;
      if (this.sum === undefined && (n.kind === 'double' || n.kind === 'float')) {
        if (n.kind === 'double' || this.fast === 2) { this.fnum += n.num; this.fast = 2; }
        else { this.fnum = Math.fround(this.fnum + n.num); this.fast = 1; }
        return;
      }
      this.settle();
      this.sum = arithmetic('+', this.sum ?? ZERO_NUM, n);
      return;
    }
    this.add(t, id, fctx);
  }

  /** Fold the fast float/double sum into `sum` (a non-float input arrived, or the result is due). */
  private settle(): void {
    if (this.fast === 0) return;
    this.sum = { kind: this.fast === 1 ? 'float' : 'double', num: this.fnum };
    this.fast = 0;
  }

  add(t: Term | undefined, id: number | string, fctx: EvalContext): void {
    if (this.error) return;
    if (t === undefined) {
      // COUNT skips errors/unbound; SAMPLE ignores them; the others become errors.
      if (this.agg.name !== 'count' && this.agg.name !== 'sample') this.error = true;
      return;
    }
    if (this.seen) {
      if (this.seen.has(id)) return;
      this.seen.add(id);
    }
    try {
      switch (this.agg.name) {
        case 'count': this.count++; break;
        case 'sum': case 'avg':
          this.settle();
          this.sum = arithmetic('+', this.sum ?? ZERO_NUM, numArg(t, '+'));
          this.count++;
          break;
        case 'min': if (this.value === undefined || compareForOrder(t, this.value) < 0) this.value = t; break;
        case 'max': if (this.value === undefined || compareForOrder(t, this.value) > 0) this.value = t; break;
        case 'sample': this.value ??= t; break;
        case 'group_concat':
          if (t.termType === 'BlankNode') { this.error = true; return; }
          (this.parts ??= []).push(t.value);
          break;
      }
    } catch (e) {
      if (!isExprError(e)) throw e;
      this.error = true;
    }
  }

  result(fctx: EvalContext): Term | undefined {
    if (this.error) return undefined;
    this.settle();
    switch (this.agg.name) {
      case 'count': return integerLiteral(this.count);
      case 'sum': return this.sum === undefined ? ZERO : numericLiteral(this.sum);
      case 'avg':
        if (this.count === 0 || this.sum === undefined) return ZERO;
        try { return numericLiteral(arithmetic('/', this.sum, { kind: 'integer', big: BigInt(this.count) })); } catch (e) { if (isExprError(e)) return undefined; throw e; }
      case 'min': case 'max': case 'sample': return this.value;
      case 'group_concat': return stringLiteral(this.parts?.join(this.agg.separator) ?? '');
    }
  }
}

interface Group { keyIds: number[]; accs: Acc[] }

/**
 * An aggregate argument computed once per id: its term (undefined: an error; any defined term
 * when only the number is used, SUM/AVG) and its numeric value.
 */
interface ArgValue { t: Term | undefined; n: NumericValue | undefined }
/** Argument values kept per aggregate before the cache starts over. */
const MAX_ARG_VALUES = 1 << 16;

export class GroupNode implements PNode {
  constructor(
    readonly input: PNode,
    readonly keys: GroupKey[],
    readonly aggs: GroupAgg[],
    readonly exists: ExistsSpec[],
    /** The input's visible slots (COUNT(DISTINCT *) compares them). */
    readonly starSlots: number[],
    readonly fctx: EvalContext,
  ) {}

  describe(): string {
    return `group(keys=${this.keys.map((k) => k.slot).join(',')}; aggs=${this.aggs.map((a) => a.name + '->' + a.slot).join(',')}; ${this.input.describe()})`;
  }

  async *exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    const groups = new Map<number | string, Group>();
    const order: Group[] = [];
    const star = Int32Array.from(this.starSlots);
    const keyIds: number[] = new Array<number>(this.keys.length);
    // Per aggregate over one variable: that variable's id -> the argument's term and number.
    const vals = this.aggs.map((a) => (a.arg !== undefined && a.arg >= 0 && !a.distinct ? new Map<number, ArgValue>() : undefined));
    for await (const b of this.input.exec(rt, input, g)) {
      rt.check();
      if (rt.due()) await rt.pause();
      const exists = this.exists.length ? await existsAnswers(rt, this.exists, b, g) : [];
      const f: Frame = { rows: b.rows, off: 0, r: 0, exists };
      for (let r = 0; r < b.n; r++) {
        if ((r & 63) === 63 && rt.due()) await rt.pause();
        f.off = r * w;
        f.r = r;
        this.fctx.nextSolution();
        for (let k = 0; k < this.keys.length; k++) {
          const key = this.keys[k]!;
          if (key.src >= 0) { keyIds[k] = b.rows[f.off + key.src]!; continue; }
          const t = tryEval(key.fn, f);
          if (t === undefined) { keyIds[k] = UNBOUND; continue; }
          try { keyIds[k] = rt.ids.intern(t); } catch (e) { keyIds[k] = await rt.ids.internMissed(t, e); }
        }
        const gk = keyIds.length === 1 ? keyIds[0]! : keyIds.join(',');
        let grp = groups.get(gk);
        if (!grp) {
          grp = { keyIds: keyIds.slice(), accs: this.aggs.map((a) => new Acc(a)) };
          groups.set(gk, grp);
          order.push(grp);
        }
        for (let a = 0; a < grp.accs.length; a++) {
          const acc = grp.accs[a]!;
          const fn = acc.agg.fn;
          const cache = vals[a];
          if (cache && fn) {
            const id = b.rows[f.off + acc.agg.arg!]!;
            let v = cache.get(id);
            if (v === undefined) {
              const x = acc.agg.num?.fn(f);
              if (x !== undefined) v = { t: ZERO, n: { kind: acc.agg.num!.kind, num: x } };
              else {
                const t = tryEval(fn, f);
                v = { t, n: t === undefined ? undefined : numericValue(t) };
              }
              if (cache.size >= MAX_ARG_VALUES) cache.clear();
              cache.set(id, v);
            }
            acc.addValue(v.t, v.n, 0, this.fctx);
            continue;
          }
          if (!fn) {
            // COUNT(*): with DISTINCT, distinct solutions over the visible variables.
            acc.add(ZERO, acc.seen ? rowKey(b.rows, f.off, star) : 0, this.fctx);
            continue;
          }
          if (acc.agg.src >= 0) {
            // A plain variable: its id is the distinctness key; COUNT never needs the term.
            const id = b.rows[f.off + acc.agg.src]!;
            const t = id === UNBOUND ? undefined : acc.agg.name === 'count' ? ZERO : rt.ids.term(id);
            acc.add(t, id, this.fctx);
            if (t !== undefined && acc.value === t) acc.valueId = id;
            continue;
          }
          const t = tryEval(fn, f);
          let id = t === undefined ? UNBOUND : 0;
          if (t !== undefined && acc.seen) { try { id = rt.ids.intern(t); } catch (e) { id = await rt.ids.internMissed(t, e); } }
          acc.add(t, id, this.fctx);
        }
      }
    }
    const countIds = new Map<number, number>();
    if (order.length === 0 && this.keys.length === 0) order.push({ keyIds: [], accs: this.aggs.map((a) => new Acc(a)) });
    const out = new RowBuffer(w, Math.min(order.length, 1024));
    for (const grp of order) {
      const at = out.pushEmpty();
      this.keys.forEach((k, i) => { if (k.slot >= 0) out.rows[at + k.slot] = grp.keyIds[i]!; });
      for (const acc of grp.accs) {
        // Counts repeat across groups: the id of an already interned count needs no new literal.
        const counted = acc.agg.name === 'count' && !acc.error ? countIds.get(acc.count) : undefined;
        if (counted !== undefined) { out.rows[at + acc.agg.slot] = counted; continue; }
        const t = acc.result(this.fctx);
        if (t === undefined) continue;
        // a selected input keeps its id; counts repeat, so each is interned once
        if (acc.valueId !== undefined && t === acc.value) { out.rows[at + acc.agg.slot] = acc.valueId; continue; }
        let id: number;
        try { id = rt.ids.intern(t); } catch (e) { id = await rt.ids.internMissed(t, e); }
        if (acc.agg.name === 'count') countIds.set(acc.count, id);
        out.rows[at + acc.agg.slot] = id;
      }
      if (out.full) {
        if (rt.due()) await rt.pause();
        yield out.take();
      }
    }
    if (out.n > 0) yield out.take();
  }
}

function rowKey(rows: Int32Array, off: number, slots: Int32Array): string {
  let s = String(hashSlots(rows, off, slots));
  for (let i = 0; i < slots.length; i++) s += ',' + rows[off + slots[i]!];
  return s;
}
