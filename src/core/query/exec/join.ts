/**
 * Join composition. A join sequence feeds each step the rows of the steps before it (so triple
 * patterns become index nested loops); a step that cannot take seeds (a subquery, a group, a
 * slice) runs once on its own and is hash-joined on the slots both sides always bind. UNION
 * hands every input batch to each branch; VALUES is a small relation joined by hash or scan.
 */
import { RowBuffer, RowIndex, compatible, fillFrom, materialize, streamOf, unitBatch, type Rel, sharedBuild } from './rows.js';
import type { Runtime } from './runtime.js';
import { graphKey, type GraphCtx, type PNode, type Stream } from './types.js';

/** Join of steps evaluated left to right, each seeded by the rows so far. */
export class SeqJoinNode implements PNode {
  constructor(readonly steps: PNode[]) {}
  describe(): string { return `seq[${this.steps.map((s) => s.describe()).join(' ; ')}]`; }
  exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    let s = input;
    for (const step of this.steps) s = step.exec(rt, s, g);
    return s ?? streamOf(unitBatch(rt.width));
  }
}

/** Rows of `input` joined with an indexed relation: probe on the index keys, check and fill `slots`. */
export async function* probeJoin(rt: Runtime, input: Stream, idx: RowIndex, slots: Int32Array): Stream {
  const w = rt.width;
  const rel = idx.rel.rows;
  const out = new RowBuffer(w, 256);
  for await (const b of input) {
    rt.check();
    if (rt.due()) await rt.pause();
    for (let r = 0; r < b.n; r++) {
      const off = r * w;
      for (let m = idx.first(b.rows, off); m >= 0; m = idx.next(m, b.rows, off)) {
        if (rt.spin()) await rt.pause();
        const mo = m * w;
        if (!compatible(b.rows, off, rel, mo, slots)) continue;
        const at = out.push(b.rows, off);
        fillFrom(out.rows, at, rel, mo, slots);
        if (out.full) {
          if (rt.due()) await rt.pause();
          yield out.take();
        }
      }
    }
  }
  if (out.n > 0) yield out.take();
}

/** A step that runs independently of its input and is hash-joined with it. */
export class HashJoinNode implements PNode {
  private readonly cache = new Map<string, Promise<RowIndex>>();
  constructor(readonly inner: PNode, readonly keys: number[], readonly slots: number[]) {}

  describe(): string { return `hash(keys=${this.keys.join(',')}; ${this.inner.describe()})`; }

  exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    if (input === null) return this.inner.exec(rt, null, g);
    return this.join(rt, input, g);
  }

  private async *join(rt: Runtime, input: Stream, g: GraphCtx): Stream {
    const k = graphKey(g);
    let p = this.cache.get(k);
    if (!p) {
      p = sharedBuild(materialize(this.inner.exec(rt, null, g), rt.width).then((rel) => new RowIndex(rel, rt.width, Int32Array.from(this.keys))));
      this.cache.set(k, p);
    }
    yield* probeJoin(rt, input, await p, Int32Array.from(this.slots));
  }
}

/** UNION: every input batch goes to each branch in turn. */
export class UnionNode implements PNode {
  constructor(readonly branches: PNode[]) {}
  describe(): string { return `union(${this.branches.map((b) => b.describe()).join(' | ')})`; }
  async *exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    if (input === null) {
      for (const br of this.branches) yield* br.exec(rt, null, g);
      return;
    }
    for await (const b of input) for (const br of this.branches) yield* br.exec(rt, streamOf(b), g);
  }
}

/** Inline data (VALUES): rows of full width, UNDEF as unbound. */
export class ValuesNode implements PNode {
  private idx: RowIndex | undefined;
  constructor(readonly rel: Rel, readonly width: number, readonly keys: number[], readonly slots: number[]) {}
  describe(): string { return `values(${this.rel.n} rows, keys=${this.keys.join(',')})`; }
  exec(rt: Runtime, input: Stream | null): Stream {
    if (input === null) return streamOf({ n: this.rel.n, rows: this.rel.rows.slice(0, this.rel.n * this.width) });
    this.idx ??= new RowIndex(this.rel, this.width, Int32Array.from(this.keys));
    return probeJoin(rt, input, this.idx, Int32Array.from(this.slots));
  }
}
