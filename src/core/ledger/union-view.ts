/**
 * A DbView over several snapshots (several ledgers, or one ledger at several t) for queries whose
 * dataset spans them. Each member graph becomes a union graph id; terms are re-keyed into a
 * query-local dictionary so joins across ledgers still compare integer ids. Single-ledger queries
 * never pay for this: they read the Db directly.
 */
import { FIRST_NAMED_GRAPH } from '../flake/flake.js';
import { TermDict, withDictRetry } from '../index/dict.js';
import { acquireBatch, releaseBatch } from '../index/scan.js';
import type { DbView, FactBatch, HistoryEvent, ScanPattern, ViewStats } from '../index/view.js';

/** One graph of a member snapshot exposed under a union graph id. */
export interface UnionGraph { view: DbView; memberGraph: number; iri: string | undefined }

/** The query-local dictionary: a term any member knows gets a union id on first lookup. */
class UnionDict extends TermDict {
  constructor(private readonly members: () => Iterable<DbView>) { super(); }
  override idOfKey(key: string): number | undefined {
    const id = super.idOfKey(key);
    if (id !== undefined) return id;
    for (const m of this.members()) if (m.dict.idOfKey(key) !== undefined) return this.internKey(key);
    return undefined;
  }
}

export class UnionView implements DbView {
  readonly dict: TermDict = new UnionDict(() => new Set(this.graphs.map((g) => g.view)));
  readonly t: number;
  private readonly graphs: UnionGraph[] = [];
  private readonly byIri = new Map<string, number>();
  /** Per member view: member id -> union id (-1 unmapped). */
  private readonly maps = new Map<DbView, Int32Array>();

  constructor(t = 0) { this.t = t; }

  /** Add a member graph; returns its union graph id (>= 3). */
  addGraph(view: DbView, memberGraph: number, iri: string | undefined): number {
    const id = FIRST_NAMED_GRAPH + this.graphs.length;
    this.graphs.push({ view, memberGraph, iri });
    if (iri !== undefined && !this.byIri.has(iri)) this.byIri.set(iri, id);
    return id;
  }

  graphId(iri: string): number | undefined { return this.byIri.get(iri); }
  graphIri(g: number): string | undefined { return this.graphs[g - FIRST_NAMED_GRAPH]?.iri; }
  namedGraphs(): number[] { return [...this.byIri.values()]; }

  private member(g: number): UnionGraph | undefined { return this.graphs[g - FIRST_NAMED_GRAPH]; }

  /** Union id of a member id. */
  private up(view: DbView, id: number): number {
    let map = this.maps.get(view);
    if (!map || id >= map.length) {
      const next = new Int32Array(Math.max(view.dict.size, id + 1, (map?.length ?? 0) * 2)).fill(-1);
      if (map) next.set(map);
      map = next;
      this.maps.set(view, map);
    }
    let u = map[id]!;
    if (u < 0) { u = this.dict.internKey(view.dict.key(id)); map[id] = u; }
    return u;
  }

  /** Member id of a union id, or undefined when the member never saw the term. */
  private down(view: DbView, id: number | undefined): number | undefined | null {
    if (id === undefined) return undefined;
    return view.dict.idOfKey(this.dict.key(id)) ?? null;
  }

  /** The member's pattern for a union pattern on graph index i, or null when it cannot match. */
  private memberPattern(m: UnionGraph, pattern: ScanPattern): ScanPattern | null {
    const s = this.down(m.view, pattern.s), p = this.down(m.view, pattern.p), o = this.down(m.view, pattern.o);
    if (s === null || p === null || o === null) return null; // a bound term the member never had
    const mp: ScanPattern = { g: m.memberGraph };
    if (s !== undefined) mp.s = s;
    if (p !== undefined) mp.p = p;
    if (o !== undefined) mp.o = o;
    return mp;
  }

  /** The member graphs a union pattern can match: union graph id, member, member pattern. */
  private *targets(pattern: ScanPattern): Iterable<[number, UnionGraph, ScanPattern]> {
    const gs = pattern.g !== undefined ? [pattern.g] : this.graphs.map((_, i) => FIRST_NAMED_GRAPH + i);
    for (const g of gs) {
      const m = this.member(g);
      if (!m) continue;
      const mp = this.memberPattern(m, pattern);
      if (mp) yield [g, m, mp];
    }
  }

  async *scan(pattern: ScanPattern, opts?: { signal?: AbortSignal }): AsyncIterable<FactBatch> {
    // Bound terms are looked up in each member's dictionary: load the pages that needs first.
    const targets = await withDictRetry(() => [...this.targets(pattern)]);
    const out = acquireBatch();
    try {
      for (const [g, m, mp] of targets) {
        for await (const b of m.view.scan(mp, opts)) {
          out.n = b.n;
          for (let i = 0; i < b.n; i++) {
            out.g[i] = g; out.s[i] = this.up(m.view, b.s[i]!); out.p[i] = this.up(m.view, b.p[i]!);
            out.o[i] = this.up(m.view, b.o[i]!); out.m[i] = b.m[i]!;
          }
          yield out;
        }
      }
    } finally {
      releaseBatch(out);
    }
  }

  estimate(pattern: ScanPattern): number {
    let n = 0;
    for (const [, m, mp] of this.targets(pattern)) n += m.view.estimate(mp);
    return n;
  }

  async *history(pattern: ScanPattern, fromT: number, toT: number): AsyncIterable<HistoryEvent> {
    for (const [g, m, mp] of await withDictRetry(() => [...this.targets(pattern)])) {
      for await (const e of m.view.history(mp, fromT, toT)) {
        yield { ...e, g, s: this.up(m.view, e.s), p: this.up(m.view, e.p), o: this.up(m.view, e.o) };
      }
    }
  }

  get stats(): ViewStats {
    const members = [...new Set(this.graphs.map((m) => m.view))];
    return {
      flakes: members.reduce((a, v) => a + v.stats.flakes, 0),
      subjects: members.reduce((a, v) => a + v.stats.subjects, 0),
      predicateCount: (p) => members.reduce((a, v) => { const id = this.down(v, p); return a + (typeof id === 'number' ? v.stats.predicateCount(id) : 0); }, 0),
      classCount: (c) => members.reduce((a, v) => { const id = this.down(v, c); return a + (typeof id === 'number' ? v.stats.classCount(id) : 0); }, 0),
    };
  }
}
