/**
 * Solution modifiers: ORDER BY (a full sort, or a bounded top-k when a LIMIT sits above it),
 * projection, DISTINCT / REDUCED on the projected slots, and OFFSET / LIMIT, which stops pulling
 * from upstream as soon as it has enough rows.
 */
import type { Term } from '../../rdf/terms.js';
import { type EvalContext, type ExprFn, type Frame, tryEval } from './expr.js';
import { compareForOrder } from './expr-eval.js';
import { existsAnswers, type ExistsSpec } from './filter.js';
import { PagedArray } from './paged.js';
import { RowBuffer, RowSet } from './rows.js';
import type { Runtime } from './runtime.js';
import { BATCH_ROWS, UNBOUND, type GraphCtx, type PNode, type Stream } from './types.js';

export interface SortKey { fn: ExprFn; desc: boolean }

export class OrderByNode implements PNode {
  constructor(readonly input: PNode, readonly keys: SortKey[], readonly exists: ExistsSpec[], readonly fctx: EvalContext, readonly limit?: number) {}

  describe(): string { return `orderby(${this.keys.length} keys${this.limit !== undefined ? ', top ' + this.limit : ''}; ${this.input.describe()})`; }

  async *exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    const nk = this.keys.length;
    const limit = this.limit ?? Infinity;
    if (limit <= 0) return;
    // Entry i: row i of `rows`, its keys at keys[i*nk..], its arrival number seq[i] (ties keep input order).
    // Paged, so the heap grows evenly and the memory guard sees a huge sort coming (paged.ts).
    const rows = new RowBuffer(w, 256);
    const keys = new PagedArray<Term>();
    const seq = new PagedArray<number>();
    const cmp = (a: number, b: number): number => {
      for (let k = 0; k < nk; k++) {
        const c = compareForOrder(keys.get(a * nk + k), keys.get(b * nk + k));
        if (c !== 0) return this.keys[k]!.desc ? -c : c;
      }
      return seq.get(a)! - seq.get(b)!;
    };
    // With a LIMIT, entries form a max-heap of the best `limit` so far (worst on top).
    const heap: number[] = [];
    const up = (i: number) => {
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (cmp(heap[i]!, heap[p]!) <= 0) break;
        [heap[i], heap[p]] = [heap[p]!, heap[i]!];
        i = p;
      }
    };
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < heap.length && cmp(heap[l]!, heap[m]!) > 0) m = l;
        if (r < heap.length && cmp(heap[r]!, heap[m]!) > 0) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    };
    let arrived = 0;
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
        if (limit === Infinity || heap.length < limit) {
          const i = rows.n;
          rows.push(b.rows, f.off);
          for (let k = 0; k < nk; k++) keys.set(i * nk + k, tryEval(this.keys[k]!.fn, f));
          seq.set(i, arrived++);
          if (limit !== Infinity) { heap.push(i); up(heap.length - 1); }
          continue;
        }
        // Compare the candidate with the current worst; replace it only when better.
        const top = heap[0]!;
        const c = rows.n; // scratch entry just past the stored ones
        for (let k = 0; k < nk; k++) keys.set(c * nk + k, tryEval(this.keys[k]!.fn, f));
        seq.set(c, arrived++);
        if (cmp(c, top) >= 0) continue;
        rows.rows.set(b.rows.subarray(f.off, f.off + w), top * w);
        for (let k = 0; k < nk; k++) keys.set(top * nk + k, keys.get(c * nk + k));
        seq.set(top, seq.get(c));
        down(0);
      }
    }
    // The index and V8's sort work arrays (≈ 24 bytes a row) come at once: ask before allocating.
    if (rows.n > 65536) rt.heapCheck(rows.n * 24);
    const idx = Array.from({ length: rows.n }, (_, i) => i).sort(cmp);
    const out = new RowBuffer(w, Math.min(idx.length, BATCH_ROWS) || 1);
    for (const i of idx) {
      out.push(rows.rows, i * w);
      if (out.full) {
        if (rt.due()) await rt.pause();
        yield out.take();
      }
    }
    if (out.n > 0) yield out.take();
  }
}

/** Keep only the projected slots bound. */
export class ProjectNode implements PNode {
  constructor(readonly input: PNode, readonly keep: number[]) {}
  describe(): string { return `project(${this.keep.join(',')}; ${this.input.describe()})`; }
  exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    const mask = new Uint8Array(w);
    for (const s of this.keep) mask[s] = 1;
    const clear: number[] = [];
    for (let s = 0; s < w; s++) if (!mask[s]) clear.push(s);
    // Every slot projected (a point query's `SELECT ?p ?o`): the input's batches are the answer as
    // they are, without a copy or another generator between (a batch is valid until the next pull either way).
    if (clear.length === 0) return this.input.exec(rt, input, g);
    return this.cleared(rt, input, g, clear);
  }

  private async *cleared(rt: Runtime, input: Stream | null, g: GraphCtx, clear: number[]): Stream {
    const w = rt.width;
    for await (const b of this.input.exec(rt, input, g)) {
      const rows = b.rows.slice(0, b.n * w);
      for (let r = 0; r < b.n; r++) for (const s of clear) rows[r * w + s] = UNBOUND;
      yield { n: b.n, rows };
    }
  }
}

/** DISTINCT (and REDUCED, which may but need not drop duplicates) on the given slots. */
export class DistinctNode implements PNode {
  constructor(readonly input: PNode, readonly slots: number[]) {}
  describe(): string { return `distinct(${this.slots.join(',')}; ${this.input.describe()})`; }
  async *exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    const set = new RowSet(Int32Array.from(this.slots));
    for await (const b of this.input.exec(rt, input, g)) {
      rt.check();
      if (rt.due()) await rt.pause();
      const out = new RowBuffer(w, b.n);
      for (let r = 0; r < b.n; r++) if (set.add(b.rows, r * w)) out.push(b.rows, r * w);
      if (out.n > 0) yield out.take();
    }
  }
}

/** OFFSET / LIMIT: stops pulling upstream once the limit is reached. */
export class SliceNode implements PNode {
  constructor(readonly input: PNode, readonly offset: number, readonly limit?: number) {}
  describe(): string { return `slice(${this.offset}, ${this.limit ?? '-'}; ${this.input.describe()})`; }
  async *exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    let skip = this.offset;
    let left = this.limit ?? Infinity;
    if (left <= 0) return;
    for await (const b of this.input.exec(rt, input, g)) {
      let from = 0;
      if (skip > 0) {
        from = Math.min(skip, b.n);
        skip -= from;
      }
      const take = Math.min(b.n - from, left);
      if (take > 0) {
        yield { n: take, rows: b.rows.slice(from * w, (from + take) * w) };
        left -= take;
      }
      if (left <= 0) return;
    }
  }
}
