/**
 * A DbView that drops the facts an identity may not view (policy.md §5). Filtering happens in
 * `scan` and `history`, the only ways facts leave a view, so every operator of every language —
 * patterns, OPTIONAL, FILTER EXISTS, paths, aggregates, graph crawls, history ranges — sees the
 * restricted data as if the hidden facts had never been asserted.
 *
 * Planner inputs (`estimate`, `valuesPerKey`, `stats`) still describe the unrestricted data: they only choose join
 * orders, never appear in results, and recomputing them per identity would cost a full scan.
 */
import { acquireBatch, BATCH_SIZE, newBatch, releaseBatch } from '../index/scan.js';
import type { DbView, FactBatch, HistoryEvent, ScanPattern, ViewStats } from '../index/view.js';
import type { PolicyEvaluator, SubjectTable } from './evaluator.js';

/** Copy row `i` of `from` to row `k` of `to`. */
function copyRow(from: FactBatch, i: number, to: FactBatch, k: number): void {
  to.g[k] = from.g[i]!; to.s[k] = from.s[i]!; to.p[k] = from.p[i]!; to.o[k] = from.o[i]!; to.m[k] = from.m[i]!;
}

/** Copy the first `k` rows of `from` to `to` (the rows kept before the first hidden one). */
function copyPrefix(from: FactBatch, to: FactBatch, k: number): void {
  to.g.set(from.g.subarray(0, k)); to.s.set(from.s.subarray(0, k)); to.p.set(from.p.subarray(0, k));
  to.o.set(from.o.subarray(0, k)); to.m.set(from.m.subarray(0, k));
}

/** A scan with no visible fact. */
const NOTHING: AsyncIterable<FactBatch> = { async *[Symbol.asyncIterator]() { /* empty */ } };

/** Hand a scan's output batch back to the shared pool (only pool-sized ones). */
function release(b: FactBatch): void {
  if (b.g.length === BATCH_SIZE) releaseBatch(b);
}

/** Maps ids of the wrapped view to ids of the ledger the evaluator decides in. */
export type IdMap = (id: number) => number;

export class PolicyView implements DbView {
  readonly t: number;
  readonly dict: DbView['dict'];
  private visibleGraphs: number[] | null = null;
  /** Policy tracking of the request (query `opts.meta`); set by `policyView`. */
  policyStats?: () => { executed: number; allowed: number };

  constructor(
    private readonly inner: DbView,
    private readonly ev: PolicyEvaluator,
    /** Null when the view shares the evaluator's dictionary (a Db of the ledger). */
    private readonly map: IdMap | null,
  ) {
    this.t = inner.t;
    this.dict = inner.dict;
  }

  graphId(iri: string): number | undefined { return this.inner.graphId(iri); }
  graphIri(g: number): string | undefined { return this.inner.graphIri(g); }

  /** Named graphs holding at least one visible fact (after `prepare`; else the inner list). */
  namedGraphs(): number[] { return this.visibleGraphs ?? this.inner.namedGraphs(); }

  /**
   * Work out which named graphs stay visible, so a fully hidden graph does not show up in GRAPH ?g.
   * `known`: the answer worked out before for the same inner view and evaluator.
   */
  async prepare(known?: number[]): Promise<number[]> {
    if (known) return (this.visibleGraphs = known);
    const out: number[] = [];
    for (const g of this.inner.namedGraphs()) {
      for await (const b of this.scan({ g })) {
        if (b.n > 0) { out.push(g); break; }
      }
    }
    this.visibleGraphs = out;
    return out;
  }

  /** True when a fact of the inner view is visible. */
  async visible(s: number, p: number, o: number): Promise<boolean> {
    const m = this.map;
    const ms = m ? m(s) : s, mp = m ? m(p) : p, mo = m ? m(o) : o;
    const d = this.ev.decideSync(ms, mp, mo);
    return d === 1 || (d === -1 && (await this.ev.decide(ms, mp, mo)));
  }

  scan(pattern: ScanPattern, opts?: { signal?: AbortSignal }): AsyncIterable<FactBatch> {
    // A decision known for the whole scan costs nothing per fact (not even a generator layer); a
    // subject table costs a lookup per fact.
    const dec = this.map ? null : this.ev.scanDecision(pattern);
    if (dec === 1) return this.inner.scan(pattern, opts);
    if (dec === 0) return NOTHING;
    return this.filtered(pattern, opts, dec as SubjectTable | null);
  }

  private async *filtered(pattern: ScanPattern, opts: { signal?: AbortSignal } | undefined, table: SubjectTable | null): AsyncIterable<FactBatch> {
    const ev = this.ev;
    const m = this.map;
    let out: FactBatch | null = null;
    try {
      for await (const b of this.inner.scan(pattern, opts)) {
        const n = b.n;
        let k = 0;
        // Until the first hidden fact the batch passes through untouched (no copy).
        let copying = false;
        for (let i = 0; i < n; i++) {
          const s = b.s[i]!;
          let d: number;
          if (table !== null) {
            d = table.decide(s);
          } else {
            const p = b.p[i]!, o = b.o[i]!;
            d = m ? ev.decideSync(m(s), m(p), m(o)) : ev.decideSync(s, p, o);
            if (d === -1) d = (m ? await ev.decide(m(s), m(p), m(o)) : await ev.decide(s, p, o)) ? 1 : 0;
          }
          if (d === 1) {
            if (copying) copyRow(b, i, out!, k);
            k++;
          } else if (!copying) {
            copying = true;
            if (!out || out.g.length < n) {
              if (out) release(out);
              out = n <= BATCH_SIZE ? acquireBatch() : newBatch(n);
            }
            copyPrefix(b, out, k);
          }
        }
        if (!copying) {
          if (n > 0) yield b;
        } else if (k > 0) {
          out!.n = k;
          yield out!;
        }
      }
    } finally {
      if (out) release(out);
    }
  }

  /**
   * The inner view's synchronous fast path, filtered. Null (use `scan`) when the inner view has
   * none or a decision still needs an async step (class lookup, `f:query`): `scan` resolves those.
   */
  scanSync(pattern: ScanPattern): FactBatch | null {
    const ev = this.ev, m = this.map;
    const dec = m ? null : ev.scanDecision(pattern);
    if (dec === 0) {
      // Nothing is visible; an empty batch says so without reading the inner view.
      const out = this.syncOut ??= newBatch(64);
      out.n = 0;
      return out;
    }
    const b = this.inner.scanSync?.(pattern);
    if (!b || dec === 1) return b ?? null;
    const table = dec as SubjectTable | null;
    const n = b.n;
    let k = 0;
    let copying = false;
    for (let i = 0; i < n; i++) {
      const s = b.s[i]!;
      let d: number;
      if (table !== null) {
        d = table.decide(s);
      } else {
        const p = b.p[i]!, o = b.o[i]!;
        d = m ? ev.decideSync(m(s), m(p), m(o)) : ev.decideSync(s, p, o);
        if (d === -1) return null;
      }
      if (d === 1) {
        if (copying) copyRow(b, i, this.syncOut!, k);
        k++;
      } else if (!copying) {
        copying = true;
        if (!this.syncOut || this.syncOut.g.length < n) this.syncOut = newBatch(Math.max(n, 64));
        copyPrefix(b, this.syncOut, k);
      }
    }
    if (!copying) return b;
    this.syncOut!.n = k;
    return this.syncOut!;
  }

  /** Reused output of `scanSync` (its batches are reused by the next call, like the inner view's). */
  private syncOut: FactBatch | null = null;

  estimate(pattern: ScanPattern): number { return this.inner.estimate(pattern); }

  /** The inner view's planner hint (unrestricted, like `estimate`): the same data plans the same joins. */
  valuesPerKey(p: number, key: 's' | 'o'): number | undefined { return this.inner.valuesPerKey?.(p, key); }

  async *history(pattern: ScanPattern, fromT: number, toT: number): AsyncIterable<HistoryEvent> {
    for await (const e of this.inner.history(pattern, fromT, toT)) {
      if (await this.visible(e.s, e.p, e.o)) yield e;
    }
  }

  get stats(): ViewStats { return this.inner.stats; }
}
