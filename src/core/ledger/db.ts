/**
 * Db: an immutable snapshot of a ledger at transaction time t, and the engine's DbView. It reads
 * the index tree and novelty captured when it was made; later commits never change what it sees.
 */
import { FIRST_NAMED_GRAPH, type Flake } from '../flake/flake.js';
import type { TermDict } from '../index/dict.js';
import type { Novelty } from '../index/novelty.js';
import { allocRun, keyCols, lowerBound, upperBound } from '../index/run.js';
import { estimateOrder, NO_FILTER, scanSteps, scanStepsSync, type ScanSource, type ScanStep } from '../index/scan.js';
import type { IndexTree } from '../index/tree.js';
import type { DbView, FactBatch, HistoryEvent, ScanPattern, ViewStats } from '../index/view.js';
import type { GraphTable } from './graph-table.js';
import type { LedgerStats } from './stats.js';
import { rdf } from '../rdf/vocab.js';
import type { Steps } from '../util/steps.js';

const RDF_TYPE = rdf.type;

/** One index probe costs about as much as reading this many facts of a range in order. */
const PROBE_FACTS = 32;

/** Sampled fan-outs per index snapshot (a snapshot's leaves never change). */
/** Most graphs, and steps per graph, one estimate looks at (exact below these). */
const ESTIMATE_GRAPHS = 16;
const ESTIMATE_STEPS = 32;

/** At most `k` items spread evenly over `xs` (all of them when there are no more than `k`). */
function strided<T>(xs: readonly T[], k: number): readonly T[] {
  if (xs.length <= k) return xs;
  const out: T[] = [];
  for (let i = 0; i < k; i++) out.push(xs[Math.floor((i * xs.length) / k)]!);
  return out;
}

const sampleCache = new WeakMap<IndexTree, Map<string, number>>();
const SAMPLE_ROWS = 4096;

/**
 * Facts per distinct subject (or object) of predicate `p` in the default graph, from the first
 * decoded leaves of its PSOT (POST) range: exact when the range fits the sample. Undefined when
 * no leaf of the range is decoded yet: planning never waits for I/O, it starts the fetch instead.
 */
function sampleValuesPerKey(tree: IndexTree, p: number, key: 's' | 'o'): number | undefined {
  const order = key === 's' ? 'psot' : 'post';
  const prefix = [0, p];
  const [lo, hi] = tree.leafSpan(order, prefix);
  let rows = 0, distinct = 0, last = NaN;
  for (let li = lo; li < hi && rows < SAMPLE_ROWS; li++) {
    const ref = tree.leaves[order][li]!;
    const leaf = tree.cachedLeaf(ref);
    if (!leaf) {
      // Fetch it in the background, so later plans get the sample.
      if (rows === 0) void tree.leaf(ref).catch(() => undefined);
      break;
    }
    const cols = keyCols(leaf.run, order);
    const keyCol = cols[2]!;
    let i = lowerBound(cols, 0, leaf.run.n, prefix);
    const end = upperBound(cols, i, leaf.run.n, prefix);
    for (; i < end && rows < SAMPLE_ROWS; i++, rows++) {
      const v = keyCol[i]!;
      if (v !== last) { distinct++; last = v; }
    }
  }
  return distinct === 0 ? undefined : rows / distinct;
}

/**
 * Scan batches whose terms are in memory: every id a scan hands out can be decoded synchronously
 * (the dictionary keeps pages in use for its grace window, docs/dictionary.md).
 */
async function* withTerms(dict: TermDict, batches: AsyncIterable<FactBatch>): AsyncIterable<FactBatch> {
  for await (const b of batches) {
    if (!dict.resident([b.s, b.p, b.o], b.n)) await dict.ensureIds([b.s, b.p, b.o], b.n);
    yield b;
  }
}

/** What a Db needs from its ledger. */
export interface DbParts {
  ledgerId: string;
  dict: TermDict;
  graphs: GraphTable;
  stats: LedgerStats;
  tree: IndexTree | null;
  novelty: Novelty;
  /** Head t when the snapshot was taken. */
  headT: number;
  /** Commit CID string at t (when known). */
  commitId: string | null;
  /** Facts per graph when they differ from the ledger's head stats (overlays). */
  graphCounts?: Map<number, number>;
}

export class Db implements DbView {
  readonly t: number;
  readonly dict: TermDict;
  readonly ledgerId: string;
  readonly commitId: string | null;
  private readonly src: ScanSource;

  constructor(private readonly parts: DbParts, t: number) {
    this.t = t;
    this.dict = parts.dict;
    this.ledgerId = parts.ledgerId;
    this.commitId = parts.commitId;
    this.src = { tree: parts.tree, novelty: parts.novelty, t };
  }

  /**
   * This snapshot plus extra events at `t` (> this.t): how a multi-operation update lets each
   * operation see the ones staged before it without committing anything.
   */
  withEvents(flakes: Flake[], graphs: GraphTable, t: number, novelty?: Novelty): Db {
    novelty ??= this.parts.novelty.add(flakes, 0, this.isRef);
    const graphCounts = new Map(this.parts.graphCounts ?? this.parts.stats.graphs);
    for (const f of flakes) graphCounts.set(f.g, (graphCounts.get(f.g) ?? 0) + (f.op ? 1 : -1));
    return new Db({ ...this.parts, graphs, novelty, headT: t, graphCounts }, t);
  }

  /** This snapshot's novelty plus events, in steps (the `novelty` withEvents takes, built so a big commit can pause). */
  noveltySteps(flakes: Flake[]): Steps<Novelty> {
    return this.parts.novelty.addSteps(flakes, 0, this.isRef);
  }

  /** Which objects are references (belong in OPST). */
  readonly isRef = (o: number): boolean => this.dict.kind(o) !== 2;

  /** The index tree (null: none yet) and novelty this snapshot reads: class summaries fold the one into the other's. */
  get sources(): { tree: IndexTree | null; novelty: Novelty } { return { tree: this.parts.tree, novelty: this.parts.novelty }; }

  /** This snapshot's data at another t, or another tree and novelty of the same ledger at t (the indexer's before and after). */
  at(t: number, sources: { tree: IndexTree | null; novelty: Novelty } = this.sources): Db {
    return new Db({ ...this.parts, tree: sources.tree, novelty: sources.novelty }, t);
  }

  /** The graph id a new named graph would get in this snapshot. */
  get nextGraphId(): number { return this.parts.graphs.nextId; }

  /** This snapshot's graph table plus new graphs (IRI -> id), for an overlay. */
  graphTableWith(newGraphs: ReadonlyMap<string, number>): GraphTable {
    const graphs = this.parts.graphs.clone();
    for (const [iri, id] of newGraphs) graphs.set(id, iri);
    return graphs;
  }

  /** The head t of the ledger when this snapshot was made. */
  get headT(): number { return this.parts.headT; }

  graphId(iri: string): number | undefined { return this.parts.graphs.id(iri); }
  graphIri(g: number): string | undefined { return g === 0 ? undefined : this.parts.graphs.iri(g); }

  namedGraphs(): number[] {
    const out: number[] = [];
    for (const id of this.parts.graphs.namedIds()) {
      // Exact at the head; before it, every graph that existed is listed (scans of it may be empty).
      const counts = this.parts.graphCounts ?? this.parts.stats.graphs;
      if (this.t < this.parts.headT || (counts.get(id) ?? 0) > 0) out.push(id);
    }
    return out;
  }

  /** Graph ids a scan with unbound g visits: default, txn-meta, config and named graphs. */
  private allGraphs(): number[] {
    return [0, 1, 2, ...this.parts.graphs.namedIds()];
  }

  private steps(p: ScanPattern, g: number): ScanStep[] {
    const { s, p: pr, o } = p;
    if (s !== undefined) {
      if (pr !== undefined) return [{ order: 'spot', prefix: o !== undefined ? [g, s, pr, o] : [g, s, pr], filter: NO_FILTER }];
      return [{ order: 'spot', prefix: [g, s], filter: o !== undefined ? { s: -1, p: -1, o } : NO_FILTER }];
    }
    if (pr !== undefined) return [{ order: o !== undefined ? 'post' : 'psot', prefix: o !== undefined ? [g, pr, o] : [g, pr], filter: NO_FILTER }];
    if (o !== undefined) {
      if (this.dict.kind(o) !== 2) return [{ order: 'opst', prefix: [g, o], filter: NO_FILTER }];
      // Literal objects are not in OPST: probe POST once per known predicate, or read the whole
      // graph when that is cheaper (a small named graph in a ledger of many predicates).
      const preds = this.parts.stats.properties;
      const facts = (this.parts.graphCounts ?? this.parts.stats.graphs).get(g);
      if (facts !== undefined && facts < preds.size * PROBE_FACTS) return [{ order: 'spot', prefix: [g], filter: { s: -1, p: -1, o } }];
      return [...preds.keys()].sort((a, b) => a - b).map((pid) => ({ order: 'post' as const, prefix: [g, pid, o], filter: NO_FILTER }));
    }
    return [{ order: 'spot', prefix: [g], filter: NO_FILTER }];
  }

  /**
   * The steps of a scan. Over every graph they are made one graph at a time as the scan reaches
   * it: graphs × predicates steps (a literal object under `GRAPH ?g`) can run to millions.
   */
  private scanPlan(pattern: ScanPattern): Iterable<ScanStep> {
    if (pattern.g !== undefined) return this.steps(pattern, pattern.g);
    const graphs = this.allGraphs();
    const steps = (g: number) => this.steps(pattern, g);
    return (function* () { for (const g of graphs) yield* steps(g); })();
  }

  scan(pattern: ScanPattern, opts?: { signal?: AbortSignal }): AsyncIterable<FactBatch> {
    const batches = scanSteps(this.src, this.scanPlan(pattern), opts?.signal);
    return this.dict.baseSize === 0 ? batches : withTerms(this.dict, batches);
  }

  scanSync(pattern: ScanPattern): FactBatch | null {
    const b = scanStepsSync(this.src, this.scanPlan(pattern));
    // A batch whose terms are not all in memory goes the async way, which loads their pages.
    if (b && this.dict.baseSize > 0 && !this.dict.resident([b.s, b.p, b.o], b.n)) return null;
    return b;
  }

  estimate(pattern: ScanPattern): number {
    // Real-time statistics answer the two most common shapes exactly, even before any leaf is
    // decoded (the leaf-based estimate can only guess for leaves not yet read).
    if (pattern.s === undefined && pattern.p !== undefined && (pattern.g === undefined || pattern.g === 0)) {
      const st = this.parts.stats;
      if (pattern.o === undefined) return Math.max(0, st.properties.get(pattern.p) ?? 0);
      if (pattern.p === this.dict.idOfKey(RDF_TYPE)) return Math.max(0, st.classes.get(pattern.o) ?? 0);
    }
    // Planning is synchronous and weighs every pattern: look at a bounded sample of graphs (a
    // variable graph spans them all) and of steps (a literal object is probed once per predicate)
    // and scale up, so a ledger with thousands of graphs or predicates cannot stall the server.
    const graphs = pattern.g !== undefined ? [pattern.g] : this.allGraphs();
    const gs = strided(graphs, ESTIMATE_GRAPHS);
    let n = 0;
    for (const g of gs) {
      const steps = this.steps(pattern, g);
      const ss = strided(steps, ESTIMATE_STEPS);
      let m = 0;
      for (const step of ss) {
        const est = estimateOrder(this.src, step.order, step.prefix);
        // A post-prefix filter keeps a fraction of the range.
        m += step.filter === NO_FILTER ? est : Math.ceil(est / 10);
      }
      n += ss.length === steps.length ? m : (m * steps.length) / ss.length;
    }
    return Math.round(gs.length === graphs.length ? n : (n * graphs.length) / gs.length);
  }

  valuesPerKey(p: number, key: 's' | 'o'): number | undefined {
    const tree = this.parts.tree;
    if (!tree) return undefined;
    let byKey = sampleCache.get(tree);
    if (!byKey) sampleCache.set(tree, (byKey = new Map()));
    const k = key + p;
    let v = byKey.get(k);
    if (v === undefined) {
      v = sampleValuesPerKey(tree, p, key);
      if (v !== undefined) byKey.set(k, v);
    }
    return v;
  }

  async *history(pattern: ScanPattern, fromT: number, toT: number): AsyncIterable<HistoryEvent> {
    const graphs = pattern.g !== undefined ? [pattern.g] : this.allGraphs();
    const events: HistoryEvent[] = [];
    for (const g of graphs) {
      for (const step of this.steps(pattern, g)) {
        const keep = (r: { g: Int32Array; s: Int32Array; p: Int32Array; o: Int32Array; m: Int32Array; t: Int32Array; op: Uint8Array }, i: number): void => {
          const t = r.t[i]!;
          if (t < fromT || t > toT) return;
          const f = step.filter;
          if ((f.s >= 0 && r.s[i] !== f.s) || (f.p >= 0 && r.p[i] !== f.p) || (f.o >= 0 && r.o[i] !== f.o)) return;
          events.push({ g: r.g[i]!, s: r.s[i]!, p: r.p[i]!, o: r.o[i]!, m: r.m[i]!, t, op: r.op[i] === 1 });
        };
        const tree = this.parts.tree;
        if (tree) {
          const [lo, hi] = tree.leafSpan(step.order, step.prefix);
          for (let li = lo; li < hi; li++) {
            const leaf = await tree.leaf(tree.leaves[step.order][li]!);
            for (const run of [leaf.run, (await tree.history(leaf)) ?? allocRun(0)]) {
              const cols = keyCols(run, step.order);
              for (let i = 0; i < run.n; i++) {
                let ok = true;
                for (let c = 0; c < step.prefix.length; c++) if (cols[c]![i] !== step.prefix[c]) { ok = false; break; }
                if (ok) keep(run, i);
              }
            }
          }
        }
        const nov = this.parts.novelty.range(step.order, step.prefix, toT);
        for (let i = 0; i < nov.n; i++) keep(nov, i);
      }
    }
    if (this.dict.baseSize > 0) {
      const cols = [Int32Array.from(events, (e) => e.s), Int32Array.from(events, (e) => e.p), Int32Array.from(events, (e) => e.o)];
      await this.dict.ensureIds(cols, events.length);
    }
    events.sort((a, b) => (a.t - b.t) || (Number(a.op) - Number(b.op)) || (a.g - b.g) || (a.s - b.s) || (a.p - b.p) || (a.o - b.o) || (a.m - b.m));
    for (const e of events) yield e;
  }

  get stats(): ViewStats {
    const st = this.parts.stats;
    return {
      flakes: st.flakes,
      subjects: Math.max(1, Math.round(st.flakes / 8)),
      predicateCount: (p: number) => Math.max(0, st.properties.get(p) ?? 0),
      classCount: (c: number) => Math.max(0, st.classes.get(c) ?? 0),
    };
  }

  /** True when the named graph id denotes a user graph. */
  static isNamedGraph(g: number): boolean { return g >= FIRST_NAMED_GRAPH; }
}
