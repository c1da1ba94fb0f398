/**
 * Property paths (SPARQL 1.1 §9, §18.4): evaluated per input row from whichever end is bound,
 * over integer ids. Alternatives and sequences keep bag semantics (duplicates count, as their
 * join/union translation would); `*`, `+` and `?` yield each reachable node once, walking with a
 * visited set so cycles terminate. Zero-length paths with both ends open range over every node
 * of the active graph.
 */
import type { ScanPattern } from '../../index/view.js';
import { OVERFLOW_BASE } from './ids.js';
import { RowBuffer, unitBatch } from './rows.js';
import type { Runtime } from './runtime.js';
import type { Pos } from './scan.js';
import { UNBOUND, type Batch, type GraphCtx, type PNode, type Stream } from './types.js';

/** A path with IRIs resolved to stored ids (-2 when the IRI is not in the store). */
export type CPath =
  | { type: 'link'; p: number }
  | { type: 'inv'; path: CPath }
  | { type: 'seq'; items: CPath[] }
  | { type: 'alt'; items: CPath[] }
  | { type: 'zeroOrMore' | 'oneOrMore' | 'zeroOrOne'; path: CPath }
  | { type: 'nps'; fwd: Set<number> | null; inv: Set<number> | null };

function mayBeEmpty(p: CPath): boolean {
  switch (p.type) {
    case 'zeroOrMore': case 'zeroOrOne': return true;
    case 'link': case 'nps': return false;
    case 'inv': case 'oneOrMore': return mayBeEmpty(p.path);
    case 'seq': return p.items.every(mayBeEmpty);
    case 'alt': return p.items.some(mayBeEmpty);
  }
}

export class PathNode implements PNode {
  constructor(readonly s: Pos, readonly path: CPath, readonly o: Pos) {}

  describe(): string {
    const f = (x: Pos) => ('slot' in x ? '?' + x.slot : String(x.const));
    return `path(${f(this.s)} ${JSON.stringify(this.path, (_k, v: unknown) => (v instanceof Set ? [...v] : v))} ${f(this.o)})`;
  }

  exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    return this.run(rt, input, g);
  }

  private async *run(rt: Runtime, input: Stream | null, g: GraphCtx): Stream {
    const w = rt.width;
    const out = new RowBuffer(w, 64);
    const src: AsyncIterable<Batch> = input ?? (async function* () { yield unitBatch(w); })();
    const walker = new Walker(rt);
    for await (const b of src) {
      for (let r = 0; r < b.n; r++) {
        const off = r * w;
        rt.check();
        if (rt.due()) await rt.pause();
        if (g.kind === 'var' && b.rows[off + g.slot] === UNBOUND) {
          for (const gid of rt.namedGraphs) await this.row(walker, b.rows, off, [gid], out, g.slot, rt.graphTerm(gid));
        } else if (g.kind === 'var') {
          const gid = rt.graphOfTerm(b.rows[off + g.slot]!);
          if (gid >= 0) await this.row(walker, b.rows, off, [gid], out, -1, 0);
        } else {
          await this.row(walker, b.rows, off, g.kind === 'default' ? rt.defaultGraphs : [g.gid], out, -1, 0);
        }
        if (out.full) yield out.take();
      }
    }
    if (out.n > 0) yield out.take();
  }

  /** All path solutions for one input row in one graph set. */
  private async row(wk: Walker, rows: Int32Array, off: number, graphs: readonly number[], out: RowBuffer, gSlot: number, gTerm: number): Promise<void> {
    const sv = 'const' in this.s ? this.s.const : rows[off + this.s.slot]!;
    const ov = 'const' in this.o ? this.o.const : rows[off + this.o.slot]!;
    const emit = (s: number, o: number) => {
      const at = out.push(rows, off);
      const r = out.rows;
      if ('slot' in this.s && !put(r, at + this.s.slot, s)) return out.pop();
      if ('slot' in this.o && !put(r, at + this.o.slot, o)) return out.pop();
      if (gSlot >= 0 && !put(r, at + gSlot, gTerm)) return out.pop();
    };
    // With no constant end, a node outside the graph has no path at all, not even a zero-length
    // one (a zero-length path from a variable ranges over the graph's nodes).
    const anchored = 'const' in this.s || 'const' in this.o;
    if (!anchored && (sv !== UNBOUND || ov !== UNBOUND) && !await wk.inGraph(sv !== UNBOUND ? sv : ov, graphs)) return;
    if (sv !== UNBOUND) {
      for (const n of await wk.reach(this.path, sv, true, graphs)) if (ov === UNBOUND || n === ov) emit(sv, n);
      return;
    }
    if (ov !== UNBOUND) {
      for (const n of await wk.reach(this.path, ov, false, graphs)) emit(n, ov);
      return;
    }
    const same = 'slot' in this.s && 'slot' in this.o && this.s.slot === this.o.slot;
    for (const start of await wk.starts(this.path, graphs)) {
      for (const n of await wk.reach(this.path, start, true, graphs)) if (!same || n === start) emit(start, n);
    }
  }
}

/**
 * Append `more` to `out` in place. Node sets are data-sized: `out.push(...more)` passes every
 * element as an argument and throws RangeError past about 10^5 of them (a predicate on many facts).
 */
function append(out: number[], more: readonly number[]): void {
  for (const x of more) out.push(x);
}

function put(r: Int32Array, at: number, v: number): boolean {
  const cur = r[at]!;
  if (cur === UNBOUND) { r[at] = v; return true; }
  return cur === v;
}

/** Walks paths over the view for one execution (caches the node sets of graphs). */
class Walker {
  private readonly nodeCache = new Map<string, number[]>();
  constructor(private readonly rt: Runtime) {}

  private async collect(pt: ScanPattern, graphs: readonly number[], take: 's' | 'o', skipP?: Set<number> | null): Promise<number[]> {
    const out: number[] = [];
    for await (const fb of this.rt.scan(pt, graphs)) {
      const col = fb[take];
      for (let i = 0; i < fb.n; i++) if (!skipP || !skipP.has(fb.p[i]!)) out.push(col[i]!);
    }
    return out;
  }

  /** Nodes one application of `p` leads to from `node` (forward) or from which it leads to `node` (backward), with multiplicity. */
  async reach(p: CPath, node: number, fwd: boolean, graphs: readonly number[]): Promise<number[]> {
    this.rt.charge(1);
    switch (p.type) {
      case 'link':
        if (p.p < 0 || node >= OVERFLOW_BASE) return [];
        return fwd ? this.collect({ s: node, p: p.p }, graphs, 'o') : this.collect({ o: node, p: p.p }, graphs, 's');
      case 'inv': return this.reach(p.path, node, !fwd, graphs);
      case 'seq': {
        let cur = [node];
        const items = fwd ? p.items : [...p.items].reverse();
        for (const it of items) {
          const next: number[] = [];
          for (const x of cur) for (const y of await this.reach(it, x, fwd, graphs)) next.push(y);
          cur = next;
          if (!cur.length) break;
        }
        return cur;
      }
      case 'alt': {
        const out: number[] = [];
        for (const it of p.items) for (const y of await this.reach(it, node, fwd, graphs)) out.push(y);
        return out;
      }
      case 'zeroOrOne': {
        const seen = new Set<number>([node]);
        for (const y of await this.reach(p.path, node, fwd, graphs)) seen.add(y);
        return [...seen];
      }
      case 'zeroOrMore': case 'oneOrMore': {
        const seen = new Set<number>();
        const result: number[] = [];
        if (p.type === 'zeroOrMore') { seen.add(node); result.push(node); }
        let frontier = [node];
        while (frontier.length) {
          this.rt.check();
          if (this.rt.due()) await this.rt.pause();
          const next: number[] = [];
          for (const x of frontier) {
            for (const y of await this.reach(p.path, x, fwd, graphs)) {
              if (seen.has(y)) continue;
              seen.add(y);
              result.push(y);
              next.push(y);
            }
          }
          frontier = next;
        }
        return result;
      }
      case 'nps': {
        if (node >= OVERFLOW_BASE) return [];
        const out: number[] = [];
        // Forward part follows s->o edges (o->s when walking backward); the inverse part the reverse.
        if (p.fwd) append(out, await (fwd ? this.collect({ s: node }, graphs, 'o', p.fwd) : this.collect({ o: node }, graphs, 's', p.fwd)));
        if (p.inv) append(out, await (fwd ? this.collect({ o: node }, graphs, 's', p.inv) : this.collect({ s: node }, graphs, 'o', p.inv)));
        return out;
      }
    }
  }

  /** Candidate start nodes when both ends are open: every node when the path may be empty, else the first step's sources. */
  async starts(p: CPath, graphs: readonly number[]): Promise<number[]> {
    if (mayBeEmpty(p)) return this.allNodes(graphs);
    return [...new Set(await this.sources(p, graphs))];
  }

  private async sources(p: CPath, graphs: readonly number[]): Promise<number[]> {
    switch (p.type) {
      case 'link': return p.p < 0 ? [] : this.collect({ p: p.p }, graphs, 's');
      case 'inv': return this.sinks(p.path, graphs);
      case 'seq': {
        const first = p.items.find((x) => !mayBeEmpty(x));
        return first === p.items[0] ? this.sources(first!, graphs) : this.allNodes(graphs);
      }
      case 'alt': {
        const out: number[] = [];
        for (const it of p.items) append(out, await this.sources(it, graphs));
        return out;
      }
      case 'oneOrMore': return this.sources(p.path, graphs);
      default: return this.allNodes(graphs);
    }
  }

  private async sinks(p: CPath, graphs: readonly number[]): Promise<number[]> {
    if (p.type === 'link') return p.p < 0 ? [] : this.collect({ p: p.p }, graphs, 'o');
    if (p.type === 'inv') return this.sources(p.path, graphs);
    return this.allNodes(graphs);
  }

  /** True when the node is a subject or object of some fact in the graphs. */
  async inGraph(node: number, graphs: readonly number[]): Promise<boolean> {
    if (node >= OVERFLOW_BASE) return false;
    for (const pt of [{ s: node }, { o: node }]) {
      for await (const fb of this.rt.scan(pt, graphs)) if (fb.n > 0) return true;
    }
    return false;
  }

  /** Every subject and object of the graphs. */
  async allNodes(graphs: readonly number[]): Promise<number[]> {
    const key = graphs.join(',');
    let nodes = this.nodeCache.get(key);
    if (!nodes) {
      const set = new Set<number>();
      for await (const fb of this.rt.scan({}, graphs)) for (let i = 0; i < fb.n; i++) { set.add(fb.s[i]!); set.add(fb.o[i]!); }
      nodes = [...set];
      this.nodeCache.set(key, nodes);
    }
    return nodes;
  }
}
