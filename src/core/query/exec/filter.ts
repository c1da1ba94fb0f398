/**
 * FILTER and BIND (extend) over batches. EXISTS patterns are answered a batch at a time: the
 * pattern runs once seeded with the whole batch, each row tagged with its index in a private
 * slot, and the rows that came back mark which inputs have a match (a batched semi-join).
 */
import { type EvalContext, type ExprFn, type Frame, test, tryEval } from './expr.js';
import { RowBuffer, streamOf } from './rows.js';
import type { Runtime } from './runtime.js';
import { UNBOUND, type Batch, type GraphCtx, type PNode, type Stream } from './types.js';

/** An EXISTS pattern planned to run seeded by the filter's rows; `rowSlot` carries the row index. */
export interface ExistsSpec { node: PNode; rowSlot: number }

/** Which rows of a batch have a solution of each EXISTS pattern. */
export async function existsAnswers(rt: Runtime, specs: ExistsSpec[], b: Batch, g: GraphCtx): Promise<Uint8Array[]> {
  const w = rt.width;
  const out: Uint8Array[] = [];
  for (const spec of specs) {
    const rows = b.rows.slice(0, b.n * w);
    for (let r = 0; r < b.n; r++) rows[r * w + spec.rowSlot] = r;
    const hit = new Uint8Array(b.n);
    for await (const o of spec.node.exec(rt, streamOf({ n: b.n, rows }), g)) {
      for (let i = 0; i < o.n; i++) hit[o.rows[i * w + spec.rowSlot]!] = 1;
    }
    out.push(hit);
  }
  return out;
}

/** The identity of join: passes its input through (the unit solution when there is none). */
export class IdentityNode implements PNode {
  describe(): string { return 'unit'; }
  exec(rt: Runtime, input: Stream | null): Stream {
    return input ?? streamOf({ n: 1, rows: new Int32Array(rt.width).fill(UNBOUND) });
  }
}

export class FilterNode implements PNode {
  constructor(readonly input: PNode, readonly cond: ExprFn, readonly exists: ExistsSpec[], readonly fctx: EvalContext, readonly text: string) {}

  describe(): string {
    // A filter placed inside a join sequence has no input of its own (identity): nothing to show.
    return this.input instanceof IdentityNode ? `filter(${this.text})` : `filter(${this.text}; ${this.input.describe()})`;
  }

  async *exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    for await (const b of this.input.exec(rt, input, g)) {
      rt.check();
      if (rt.due()) await rt.pause();
      const exists = this.exists.length ? await existsAnswers(rt, this.exists, b, g) : [];
      const out = new RowBuffer(w, b.n);
      const f: Frame = { rows: b.rows, off: 0, r: 0, exists };
      for (let r = 0; r < b.n; r++) {
        // Expressions can be costly per row (long strings, regexes): the slice is checked within the batch too.
        if ((r & 63) === 63 && rt.due()) await rt.pause();
        f.off = r * w;
        f.r = r;
        this.fctx.nextSolution();
        if (test(this.cond, f)) out.push(b.rows, f.off);
      }
      if (out.n > 0) yield out.take();
    }
  }
}

/** One BIND of an extend chain. */
/** One bound expression; `src` is the slot of the variable when the expression is a plain variable (else -1). */
export interface Bind { slot: number; fn: ExprFn; text: string; src: number }

/**
 * BIND / select expressions. A chain of them runs as one node so that every expression of a
 * solution sees the same BNODE(label) scope and the values bound before it.
 */
export class ExtendNode implements PNode {
  constructor(readonly input: PNode, readonly binds: Bind[], readonly exists: ExistsSpec[], readonly fctx: EvalContext) {}

  describe(): string { return `extend(${this.binds.map((b) => `?${b.slot} := ${b.text}`).join(', ')}; ${this.input.describe()})`; }

  async *exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    for await (const b of this.input.exec(rt, input, g)) {
      rt.check();
      if (rt.due()) await rt.pause();
      const exists = this.exists.length ? await existsAnswers(rt, this.exists, b, g) : [];
      const out = new RowBuffer(w, b.n);
      const f: Frame = { rows: out.rows, off: 0, r: 0, exists };
      rows: for (let r = 0; r < b.n; r++) {
        if ((r & 63) === 63 && rt.due()) await rt.pause();
        const at = out.push(b.rows, r * w);
        f.rows = out.rows;
        f.off = at;
        f.r = r;
        this.fctx.nextSolution();
        for (const bind of this.binds) {
          let id: number;
          if (bind.src >= 0) {
            // `(?x AS ?y)`: the id is the term's id already; decoding and re-interning it (a key
            // string per row) was most of what a select expression over an aggregate allocated.
            id = out.rows[at + bind.src]!;
            if (id === UNBOUND) continue;
          } else {
            const t = tryEval(bind.fn, f);
            if (t === undefined) continue;
            try { id = rt.ids.intern(t); } catch (e) { id = await rt.ids.internMissed(t, e); }
          }
          const cur = out.rows[at + bind.slot]!;
          // A seeded row may already bind the variable: join semantics keep it only when equal.
          if (cur !== UNBOUND && cur !== id) { out.pop(); continue rows; }
          out.rows[at + bind.slot] = id;
        }
      }
      if (out.n > 0) yield out.take();
    }
  }
}
