/**
 * Triple pattern leaves. Index nested loop: every input row's bound ids go into the scan pattern,
 * so a selective join is a probe per row. Hash: the pattern is scanned once with its constants,
 * indexed on the join slots, and input rows probe it (pays when the input is large and the
 * pattern's bound-position fan-out is poor). Both compare integers only.
 */
import type { FactBatch, ScanPattern } from '../../index/view.js';
import { OVERFLOW_BASE } from './ids.js';
import { FactIndex } from './fact-index.js';
import { RowBuffer, RowIndex, bindSlot as put, compatible, fillFrom, materialize, unitBatch, type Rel, sharedBuild } from './rows.js';
import type { Frame } from './expr.js';
import type { Runtime } from './runtime.js';
import { BATCH_ROWS, UNBOUND, graphKey, type GraphCtx, type PNode, type Stream } from './types.js';

/** A pattern position: a constant id (-2 when the term is not in the store) or a slot. */
export type Pos = { const: number } | { slot: number };

const EMPTY_ROWS = new Int32Array(0);

/** Fused checks on one variable at run time: its fact column, the answers so far per id, the test. */
interface Checker { col: 's' | 'p' | 'o'; known: Map<number, boolean>; test: (rows: Int32Array, at: number) => boolean }

/** Term id -2: a constant that no stored fact can contain. */
export const NO_MATCH = -2;

/**
 * A FILTER over one variable this pattern binds, checked on each fact before it becomes a row
 * (placed by the planner when the filter would otherwise run right after this step): the answer
 * is kept per id, so a date range over 93,000 dc:date facts tests each distinct date once and
 * builds rows only for the facts that pass.
 */
export interface FactCheck { slot: number; fn: (f: Frame) => boolean; text: string }

export interface TPOptions {
  /** 'inl' probes per input row; 'hash' scans once and hash-joins on `keys`. */
  mode: 'inl' | 'hash';
  /** Hash mode: slots bound in every input row, shared with the pattern. */
  keys?: number[];
}

export class TriplePatternNode implements PNode {
  private readonly sSlot: number;
  private readonly pSlot: number;
  private readonly oSlot: number;
  private readonly never: boolean;
  private readonly cache = new Map<string, Promise<RowIndex>>();
  private readonly checks: FactCheck[] = [];

  constructor(readonly s: Pos, readonly p: Pos, readonly o: Pos, readonly opts: TPOptions = { mode: 'inl' }) {
    this.sSlot = 'slot' in s ? s.slot : -1;
    this.pSlot = 'slot' in p ? p.slot : -1;
    this.oSlot = 'slot' in o ? o.slot : -1;
    this.never = [s, p, o].some((x) => 'const' in x && x.const === NO_MATCH);
  }

  describe(): string {
    const f = (x: Pos) => ('slot' in x ? '?' + x.slot : String(x.const));
    const checks = this.checks.map((c) => ` check(${c.text})`).join('');
    return `tp(${f(this.s)} ${f(this.p)} ${f(this.o)}) ${this.opts.mode}${this.opts.keys ? ' keys=' + this.opts.keys.join(',') : ''}${checks}`;
  }

  /** Add a check on a variable this pattern binds in 'inl' mode; false when it cannot take one. */
  addCheck(c: FactCheck): boolean {
    if (this.opts.mode !== 'inl' || ![this.sSlot, this.pSlot, this.oSlot].includes(c.slot)) return false;
    this.checks.push(c);
    return true;
  }

  exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    if (this.never) return empty();
    if (this.opts.mode === 'hash' && input !== null) return this.hashJoin(rt, input, g);
    return this.inl(rt, input, g);
  }

  private async *inl(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    const out = new RowBuffer(w, 256);
    const check = this.checks.length ? this.checker() : null;
    const gSlot = g.kind === 'var' ? g.slot : -1;
    const fixedGraphs = g.kind === 'default' ? rt.defaultGraphs : g.kind === 'graph' ? [g.gid] : null;
    const batches: AsyncIterable<{ n: number; rows: Int32Array }> = input ?? one(unitBatch(w));
    let probes = 0;
    for await (const b of batches) {
      rt.check();
      if (rt.due()) await rt.pause();
      const rows = b.rows;
      for (let r = 0; r < b.n; r++) {
        const off = r * w;
        const pt: ScanPattern = {};
        if (!this.bindPos(this.s, rows, off, pt, 's') || !this.bindPos(this.p, rows, off, pt, 'p') || !this.bindPos(this.o, rows, off, pt, 'o')) continue;
        let graphs = fixedGraphs;
        if (gSlot >= 0 && rows[off + gSlot] !== UNBOUND) {
          const gid = rt.graphOfTerm(rows[off + gSlot]!);
          if (gid < 0) continue;
          graphs = [gid];
        }
        if (graphs !== null && graphs.length === 1) {
          // The common case goes straight to the view: one async iterator per probe, not two.
          if ((++probes & 63) === 0) {
            rt.check();
            if (rt.due()) await rt.pause();
          }
          pt.g = graphs[0]!;
          // Decoded leaves and a small result: no async machinery at all.
          const sync = rt.view.scanSync?.(pt);
          if (sync) {
            rt.charge(sync.n || 1); // a lookup that finds nothing still costs one
            this.emit(rt, sync, rows, off, out, -1, check);
            if (out.full) yield out.take();
            continue;
          }
          let found = 0;
          for await (const fb of rt.view.scan(pt, { signal: rt.signal })) {
            rt.charge(fb.n);
            found += fb.n;
            if (rt.due()) await rt.pause();
            this.emit(rt, fb, rows, off, out, -1, check);
            if (out.full) yield out.take();
          }
          if (found === 0) rt.charge(1);
          continue;
        }
        for await (const fb of rt.scan(pt, graphs)) {
          this.emit(rt, fb, rows, off, out, graphs === null ? gSlot : -1, check);
          if (out.full) yield out.take();
        }
      }
      if (out.full) yield out.take();
    }
    if (out.n > 0) yield out.take();
  }

  /** Put a position's id (constant or bound slot) into the scan pattern; false when it can never match. */
  private bindPos(pos: Pos, rows: Int32Array, off: number, pt: ScanPattern, key: 's' | 'p' | 'o'): boolean {
    let id: number;
    if ('const' in pos) id = pos.const;
    else {
      id = rows[off + pos.slot]!;
      if (id === UNBOUND) return true;
      if (id >= OVERFLOW_BASE) return false;
    }
    pt[key] = id;
    return true;
  }

  /** The checks grouped by the variable they read, each answered once per id of it. */
  private checker(): Checker[] {
    const bySlot = new Map<number, FactCheck['fn'][]>();
    for (const c of this.checks) {
      const fns = bySlot.get(c.slot);
      if (fns) fns.push(c.fn); else bySlot.set(c.slot, [c.fn]);
    }
    return [...bySlot].map(([slot, fns]) => {
      const col: 's' | 'p' | 'o' = slot === this.sSlot ? 's' : slot === this.pSlot ? 'p' : 'o';
      const known = new Map<number, boolean>();
      const f: Frame = { rows: EMPTY_ROWS, off: 0, r: 0, exists: [] };
      const test = (rows: Int32Array, at: number): boolean => {
        const id = rows[at + slot]!;
        let ok = known.get(id);
        if (ok === undefined) {
          f.rows = rows;
          f.off = at;
          ok = fns.every((fn) => fn(f));
          if (known.size >= 1 << 16) known.clear();
          known.set(id, ok);
        }
        return ok;
      };
      return { col, known, test };
    });
  }

  private emit(rt: Runtime, fb: FactBatch, src: Int32Array, off: number, out: RowBuffer, gSlot: number, checks: Checker[] | null): void {
    const { sSlot, pSlot, oSlot } = this;
    // Up to a batch's worth: every fact may become a row (a point query's 30 facts: one buffer).
    if (out.n + fb.n <= BATCH_ROWS) out.reserve(fb.n);
    facts: for (let i = 0; i < fb.n; i++) {
      // A fact whose checked id already failed never becomes a row.
      if (checks !== null) for (const c of checks) if (c.known.get(fb[c.col][i]!) === false) continue facts;
      const at = out.push(src, off);
      const r = out.rows;
      if (sSlot >= 0 && !put(r, at + sSlot, fb.s[i]!)) { out.pop(); continue; }
      if (pSlot >= 0 && !put(r, at + pSlot, fb.p[i]!)) { out.pop(); continue; }
      if (oSlot >= 0 && !put(r, at + oSlot, fb.o[i]!)) { out.pop(); continue; }
      if (gSlot >= 0 && !put(r, at + gSlot, rt.graphTerm(fb.g[i]!))) { out.pop(); continue; }
      if (checks !== null) for (const c of checks) if (!c.test(r, at)) { out.pop(); continue facts; }
    }
  }

  private hashJoin(rt: Runtime, input: Stream, g: GraphCtx): Stream {
    return g.kind === 'var' ? this.rowHashJoin(rt, input, g) : this.factHashJoin(rt, input, g);
  }

  /** Hash join against the pattern's facts kept as columns (fact-index.ts); one build per graph. */
  private async *factHashJoin(rt: Runtime, input: Stream, g: Exclude<GraphCtx, { kind: 'var' }>): Stream {
    const slots = [this.sSlot, this.pSlot, this.oSlot];
    const keySlots = Int32Array.from(this.opts.keys ?? []);
    const keyCols = Int32Array.from(keySlots, (k) => slots.indexOf(k));
    // The facts depend only on the constants, the key columns and the graph: shared per execution.
    const f = (x: Pos) => ('const' in x ? String(x.const) : '?');
    const key = `tp|${graphKey(g)}|${f(this.s)}|${f(this.p)}|${f(this.o)}|${keyCols.join(',')}`;
    let p = rt.builds.get(key) as Promise<FactIndex> | undefined;
    if (!p) {
      p = sharedBuild((async () => {
        const pt: ScanPattern = {};
        if ('const' in this.s) pt.s = this.s.const;
        if ('const' in this.p) pt.p = this.p.const;
        if ('const' in this.o) pt.o = this.o.const;
        const graphs = g.kind === 'default' ? rt.defaultGraphs : [g.gid];
        const idx = new FactIndex(keyCols, rt.estimate(pt, graphs));
        for await (const fb of rt.scan(pt, graphs)) idx.add(fb);
        return idx.seal();
      })());
      rt.builds.set(key, p);
    }
    yield* (await p).probe(rt, input, keySlots, Int32Array.from(slots));
  }

  private async *rowHashJoin(rt: Runtime, input: Stream, g: GraphCtx): Stream {
    const w = rt.width;
    const key = graphKey(g);
    let p = this.cache.get(key);
    if (!p) {
      p = sharedBuild(materialize(this.inl(rt, null, g), w).then((rel: Rel) => new RowIndex(rel, w, Int32Array.from(this.opts.keys ?? []))));
      this.cache.set(key, p);
    }
    const idx = await p;
    const slots = Int32Array.from([this.sSlot, this.pSlot, this.oSlot, g.kind === 'var' ? g.slot : -1].filter((x) => x >= 0));
    const out = new RowBuffer(w, 256);
    const rel = idx.rel.rows;
    for await (const b of input) {
      rt.check();
      if (rt.due()) await rt.pause();
      for (let r = 0; r < b.n; r++) {
        const off = r * w;
        for (let m = idx.first(b.rows, off); m >= 0; m = idx.next(m, b.rows, off)) {
          if (rt.spin()) await rt.pause();
          if (!compatible(b.rows, off, rel, m * w, slots)) continue;
          const at = out.push(b.rows, off);
          fillFrom(out.rows, at, rel, m * w, slots);
        }
        if (out.full) {
          if (rt.due()) await rt.pause();
          yield out.take();
        }
      }
    }
    if (out.n > 0) yield out.take();
  }
}


async function* one<T>(x: T): AsyncIterable<T> { yield x; }

/** The empty stream. */
export async function* empty(): Stream { /* no solutions */ }
