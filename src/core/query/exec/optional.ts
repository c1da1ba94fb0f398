/**
 * OPTIONAL (left join with its filter) and MINUS. A left join tags each left row of a batch with
 * its index in a private slot, produces candidate merged rows either by seeding the right side
 * with the batch or by probing the right side's independently computed hash table, keeps the
 * candidates that pass the filter, and then emits the left rows nothing matched.
 */
import { type EvalContext, type ExprFn, type Frame, test } from './expr.js';
import { existsAnswers, type ExistsSpec } from './filter.js';
import { probeJoin } from './join.js';
import { RowBuffer, RowIndex, compatible, materialize, streamOf, sharedBuild } from './rows.js';
import type { Runtime } from './runtime.js';
import { UNBOUND, graphKey, type GraphCtx, type PNode, type Stream } from './types.js';

export interface LeftJoinOptions {
  /** 'seed': run the right side seeded by left batches; 'hash': run it once and probe. */
  mode: 'seed' | 'hash';
  /** Private slot that carries the left row's index. */
  rowSlot: number;
  /** Hash mode: slots both sides always bind. */
  keys: number[];
  /** Hash mode: slots the right side may bind (checked for compatibility and filled). */
  slots: number[];
  cond?: { fn: ExprFn; exists: ExistsSpec[]; text: string };
}

export class LeftJoinNode implements PNode {
  private readonly cache = new Map<string, Promise<RowIndex>>();
  constructor(readonly left: PNode, readonly right: PNode, readonly opts: LeftJoinOptions, readonly fctx: EvalContext) {}

  describe(): string {
    const o = this.opts;
    return `leftjoin[${o.mode}${o.cond ? ' if ' + o.cond.text : ''}](${this.left.describe()} ; ${this.right.describe()})`;
  }

  private candidates(rt: Runtime, tagged: Stream, g: GraphCtx): Stream {
    if (this.opts.mode === 'seed') return this.right.exec(rt, tagged, g);
    const k = graphKey(g);
    let p = this.cache.get(k);
    if (!p) {
      p = sharedBuild(materialize(this.right.exec(rt, null, g), rt.width).then((rel) => new RowIndex(rel, rt.width, Int32Array.from(this.opts.keys))));
      this.cache.set(k, p);
    }
    const slots = Int32Array.from(this.opts.slots);
    return (async function* () { yield* probeJoin(rt, tagged, await p, slots); })();
  }

  async *exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    const rs = this.opts.rowSlot;
    const cond = this.opts.cond;
    for await (const lb of this.left.exec(rt, input, g)) {
      rt.check();
      if (rt.due()) await rt.pause();
      const tagged = lb.rows.slice(0, lb.n * w);
      for (let r = 0; r < lb.n; r++) tagged[r * w + rs] = r;
      const matched = new Uint8Array(lb.n);
      const out = new RowBuffer(w, lb.n);
      for await (const cb of this.candidates(rt, streamOf({ n: lb.n, rows: tagged }), g)) {
        const exists = cond?.exists.length ? await existsAnswers(rt, cond.exists, cb, g) : [];
        const f: Frame = { rows: cb.rows, off: 0, r: 0, exists };
        for (let i = 0; i < cb.n; i++) {
          f.off = i * w;
          f.r = i;
          if (cond) {
            this.fctx.nextSolution();
            if (!test(cond.fn, f)) continue;
          }
          matched[cb.rows[f.off + rs]!] = 1;
          const at = out.push(cb.rows, f.off);
          out.rows[at + rs] = UNBOUND;
          if (out.full) yield out.take();
        }
      }
      for (let r = 0; r < lb.n; r++) if (!matched[r]) out.push(lb.rows, r * w);
      if (out.n > 0) yield out.take();
    }
  }
}

/** MINUS: drop left rows that some right row is compatible with while sharing a bound variable. */
export class MinusNode implements PNode {
  private readonly cache = new Map<string, Promise<RowIndex>>();
  constructor(readonly left: PNode, readonly right: PNode, readonly keys: number[], readonly shared: number[]) {}

  describe(): string { return `minus(${this.left.describe()} ; ${this.right.describe()})`; }

  async *exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    const k = graphKey(g);
    let p = this.cache.get(k);
    if (!p) {
      p = sharedBuild(materialize(this.right.exec(rt, null, g), w).then((rel) => new RowIndex(rel, w, Int32Array.from(this.keys))));
      this.cache.set(k, p);
    }
    const shared = Int32Array.from(this.shared);
    let idx: RowIndex | undefined;
    for await (const b of this.left.exec(rt, input, g)) {
      idx ??= await p;
      rt.check();
      if (rt.due()) await rt.pause();
      const rel = idx.rel.rows;
      const out = new RowBuffer(w, b.n);
      for (let r = 0; r < b.n; r++) {
        const off = r * w;
        let drop = false;
        for (let m = idx.first(b.rows, off); m >= 0 && !drop; m = idx.next(m, b.rows, off)) {
          if (rt.spin()) await rt.pause();
          const mo = m * w;
          if (!compatible(b.rows, off, rel, mo, shared)) continue;
          if (this.keys.length) { drop = true; break; }
          for (let i = 0; i < shared.length; i++) {
            const s = shared[i]!;
            if (b.rows[off + s] !== UNBOUND && rel[mo + s] !== UNBOUND) { drop = true; break; }
          }
        }
        if (!drop) out.push(b.rows, off);
      }
      if (out.n > 0) yield out.take();
    }
  }
}
