/**
 * A correct but simple DbView over an array of quads, for tests of the query engine until (and
 * alongside) the real ledger index: facts live in an array, scans filter the smallest of three
 * per-position posting lists, statistics are exact counts.
 */
import { Parser as N3Parser } from 'n3';
import { TermDict } from '../../src/core/index/dict.js';
import type { DbView, FactBatch, HistoryEvent, ScanPattern, ViewStats } from '../../src/core/index/view.js';
import { fromRdfJs, type NamedNode, type Quad, type Term } from '../../src/core/rdf/terms.js';
import { rdf } from '../../src/core/rdf/vocab.js';

const BATCH = 256;

/** A DbView over in-memory quads (graph ids >= 3 assigned to named graphs in order of appearance). */
export class FixtureView implements DbView {
  readonly t: number;
  readonly dict: TermDict;
  readonly stats: ViewStats;
  private readonly gs: number[] = [];
  private readonly ss: number[] = [];
  private readonly ps: number[] = [];
  private readonly os: number[] = [];
  private readonly bySubject = new Map<number, number[]>();
  private readonly byPredicate = new Map<number, number[]>();
  private readonly byObject = new Map<number, number[]>();
  private readonly graphIds = new Map<string, number>();
  private readonly graphIris: string[] = [];
  /** Number of scan() calls, so tests can check that plans touch the data as expected. */
  scans = 0;

  constructor(quads: Iterable<Quad>, opts: { dict?: TermDict; t?: number } = {}) {
    this.t = opts.t ?? 1;
    this.dict = opts.dict ?? new TermDict();
    const seen = new Set<string>();
    for (const q of quads) {
      const g = q.graph.termType === 'DefaultGraph' ? 0 : this.graphFor(q.graph.termType === 'BlankNode' ? '_:' + q.graph.value : q.graph.value);
      const s = this.dict.intern(q.subject);
      const p = this.dict.intern(q.predicate);
      const o = this.dict.intern(q.object);
      const key = g + ' ' + s + ' ' + p + ' ' + o;
      if (seen.has(key)) continue;
      seen.add(key);
      const i = this.ss.length;
      this.gs.push(g); this.ss.push(s); this.ps.push(p); this.os.push(o);
      push(this.bySubject, s, i); push(this.byPredicate, p, i); push(this.byObject, o, i);
    }
    const typeId = this.dict.idOf({ termType: 'NamedNode', value: rdf.type });
    const classCounts = new Map<number, number>();
    if (typeId !== undefined) for (const i of this.byPredicate.get(typeId) ?? []) classCounts.set(this.os[i]!, (classCounts.get(this.os[i]!) ?? 0) + 1);
    const n = this.ss.length;
    const subjects = this.bySubject.size;
    this.stats = {
      flakes: n,
      subjects,
      predicateCount: (p) => this.byPredicate.get(p)?.length ?? 0,
      classCount: (c) => classCounts.get(c) ?? 0,
    };
  }

  private graphFor(iri: string): number {
    let g = this.graphIds.get(iri);
    if (g === undefined) {
      g = 3 + this.graphIris.length;
      this.graphIds.set(iri, g);
      this.graphIris.push(iri);
    }
    return g;
  }

  /** Graph id of an IRI (0 is the default graph). */
  graphId(iri: string): number | undefined { return this.graphIds.get(iri); }
  /** IRI of a named graph id. */
  graphIri(g: number): string | undefined { return g >= 3 ? this.graphIris[g - 3] : undefined; }
  /** Named graphs holding at least one fact. */
  namedGraphs(): number[] {
    const present = new Set(this.gs.filter((g) => g >= 3));
    return [...present].sort((a, b) => a - b);
  }

  private candidates(pt: ScanPattern): number[] | undefined {
    let best: number[] | undefined;
    const consider = (m: Map<number, number[]>, id: number | undefined) => {
      if (id === undefined) return;
      const l = m.get(id) ?? [];
      if (!best || l.length < best.length) best = l;
    };
    consider(this.bySubject, pt.s);
    consider(this.byPredicate, pt.p);
    consider(this.byObject, pt.o);
    return best;
  }

  private matches(i: number, pt: ScanPattern): boolean {
    return (pt.g === undefined || this.gs[i] === pt.g) && (pt.s === undefined || this.ss[i] === pt.s)
      && (pt.p === undefined || this.ps[i] === pt.p) && (pt.o === undefined || this.os[i] === pt.o);
  }

  /** Matching facts in insertion order, in batches of at most 256. */
  async *scan(pt: ScanPattern, opts: { signal?: AbortSignal } = {}): AsyncIterable<FactBatch> {
    this.scans++;
    const cand = this.candidates(pt);
    const total = cand ? cand.length : this.ss.length;
    let b = newBatch();
    for (let k = 0; k < total; k++) {
      const i = cand ? cand[k]! : k;
      if (!this.matches(i, pt)) continue;
      const r = b.n++;
      b.g[r] = this.gs[i]!; b.s[r] = this.ss[i]!; b.p[r] = this.ps[i]!; b.o[r] = this.os[i]!; b.m[r] = -1;
      if (b.n === BATCH) {
        if (opts.signal?.aborted) return;
        yield b;
        b = newBatch();
      }
    }
    if (b.n > 0) yield b;
  }

  /** Exact count of matching facts. */
  estimate(pt: ScanPattern): number {
    const cand = this.candidates(pt);
    if (!cand) return pt.g === undefined ? this.ss.length : this.ss.reduce((n, _s, i) => n + (this.gs[i] === pt.g ? 1 : 0), 0);
    let n = 0;
    for (const i of cand) if (this.matches(i, pt)) n++;
    return n;
  }

  /** Every matching fact as one assertion at this view's t. */
  async *history(pt: ScanPattern, fromT: number, toT: number): AsyncIterable<HistoryEvent> {
    if (this.t < fromT || this.t > toT) return;
    for await (const b of this.scan(pt)) {
      for (let r = 0; r < b.n; r++) yield { g: b.g[r]!, s: b.s[r]!, p: b.p[r]!, o: b.o[r]!, m: -1, t: this.t, op: true };
    }
  }
}

function newBatch(): FactBatch {
  return { n: 0, g: new Int32Array(BATCH), s: new Int32Array(BATCH), p: new Int32Array(BATCH), o: new Int32Array(BATCH), m: new Int32Array(BATCH) };
}

function push(m: Map<number, number[]>, k: number, v: number): void {
  const l = m.get(k);
  if (l) l.push(v); else m.set(k, [v]);
}

/** Parse Turtle / TriG / N-Triples / N-Quads text into quads (named graphs kept). */
export function parseRdf(text: string, opts: { format?: string; baseIRI?: string; graph?: string } = {}): Quad[] {
  const parser = new N3Parser({ format: opts.format ?? 'application/trig', baseIRI: opts.baseIRI });
  const out: Quad[] = [];
  for (const q of parser.parse(text)) {
    const graph = opts.graph !== undefined
      ? { termType: 'NamedNode' as const, value: opts.graph }
      : (fromRdfJs(q.graph) as Quad['graph']);
    out.push({ subject: fromRdfJs(q.subject) as Term, predicate: fromRdfJs(q.predicate) as NamedNode, object: fromRdfJs(q.object) as Term, graph });
  }
  return out;
}

/** A fixture view over RDF text (TriG by default). */
export function viewFromRdf(text: string, opts: { format?: string; baseIRI?: string } = {}): FixtureView {
  return new FixtureView(parseRdf(text, opts));
}
