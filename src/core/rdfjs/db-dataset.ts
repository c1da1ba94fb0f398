/**
 * A synchronous RDF/JS DatasetCore over the default graph of one Db snapshot, for tools that read
 * with `match` and need the answer at once (rdf-validate-shacl and clownface). A pattern is
 * answered from decoded index leaves and novelty (`Db.scanSync`); when its leaves are not in memory
 * (or the result does not fit one batch) it is answered empty and recorded in `misses`. The caller
 * then `load`s the misses asynchronously and runs its synchronous work again, until a run reads
 * nothing it did not have: the final run saw exactly the snapshot's facts.
 */
import type * as RDF from '@rdfjs/types';
import { DataFactory } from 'n3';
import { internalError } from '../errors.js';
import type { FactBatch, ScanPattern } from '../index/view.js';
import type { Db } from '../ledger/db.js';
import { fromRdfJs, type Term } from '../rdf/terms.js';
import { toRdfJs } from './terms.js';

type Pos = RDF.Term | null | undefined;

/** Quads in an array, as the DatasetCore a `match` returns. */
export class QuadArray implements RDF.DatasetCore {
  constructor(private readonly quads: RDF.Quad[]) {}
  get size(): number { return this.quads.length; }
  [Symbol.iterator](): Iterator<RDF.Quad> { return this.quads[Symbol.iterator](); }
  has(q: RDF.Quad): boolean { return this.quads.some((x) => x.equals(q)); }
  match(s?: Pos, p?: Pos, o?: Pos, g?: Pos): QuadArray {
    return new QuadArray(this.quads.filter((q) => (!s || q.subject.equals(s)) && (!p || q.predicate.equals(p)) && (!o || q.object.equals(o)) && (!g || q.graph.equals(g))));
  }
  add(): this { throw internalError('a match result is read-only'); }
  delete(): this { throw internalError('a match result is read-only'); }
}

const EMPTY = new QuadArray([]);

/** The default graph of a snapshot as a read-only, synchronous RDF/JS DatasetCore. */
export class DbDataset implements RDF.DatasetCore {
  /** Patterns a run asked for whose facts were not in memory, by key. */
  readonly misses = new Map<string, ScanPattern>();
  private readonly loaded = new Map<string, RDF.Quad[]>();
  private readonly terms = new Map<number, RDF.NamedNode | RDF.BlankNode | RDF.Literal>();
  /** List position of quads read from ordered (JSON-LD `@list`) values. */
  readonly listIndex = new WeakMap<RDF.Quad, number>();

  constructor(readonly db: Db) {}

  private term(id: number): RDF.NamedNode | RDF.BlankNode | RDF.Literal {
    let t = this.terms.get(id);
    if (!t) this.terms.set(id, (t = toRdfJs(this.db.dict.term(id))));
    return t;
  }

  /** The id of a bound position; null when unbound, undefined when the snapshot has no such term. */
  private id(t: Pos): number | null | undefined {
    if (!t || t.termType === 'Variable') return null;
    if (t.termType !== 'NamedNode' && t.termType !== 'BlankNode' && t.termType !== 'Literal') return undefined;
    return this.db.dict.idOf(fromRdfJs(t) as Term);
  }

  private quadsOf(b: FactBatch, out: RDF.Quad[]): void {
    const g = DataFactory.defaultGraph();
    for (let k = 0; k < b.n; k++) {
      const q = DataFactory.quad(this.term(b.s[k]!) as RDF.Quad_Subject, this.term(b.p[k]!) as RDF.Quad_Predicate, this.term(b.o[k]!) as RDF.Quad_Object, g);
      if (b.m[k]! >= 0) this.listIndex.set(q, b.m[k]!);
      out.push(q);
    }
  }

  /** Quads of the default graph matching the pattern (a named graph matches nothing). */
  match(s?: Pos, p?: Pos, o?: Pos, g?: Pos): RDF.DatasetCore {
    if (g && g.termType !== 'DefaultGraph' && g.termType !== 'Variable') return EMPTY;
    const si = this.id(s), pi = this.id(p), oi = this.id(o);
    if (si === undefined || pi === undefined || oi === undefined) return EMPTY;
    // A bound subject reads all its facts once and filters them: validating a node asks for many
    // of its predicates, and one scan is cheaper than one per predicate.
    if (si !== null && (pi !== null || oi !== null)) {
      const all = this.match(s) as QuadArray;
      if (all.size === 0) return EMPTY;
      return all.match(null, pi === null ? null : p, oi === null ? null : o);
    }
    const key = `${si ?? ''} ${pi ?? ''} ${oi ?? ''}`;
    let quads = this.loaded.get(key);
    if (!quads) {
      const pattern: ScanPattern = { g: 0 };
      if (si !== null) pattern.s = si;
      if (pi !== null) pattern.p = pi;
      if (oi !== null) pattern.o = oi;
      const b = this.db.scanSync(pattern);
      if (!b) {
        this.misses.set(key, pattern);
        return EMPTY;
      }
      quads = [];
      this.quadsOf(b, quads);
      this.loaded.set(key, quads);
    }
    return new QuadArray(quads);
  }

  /** Read the missed patterns from storage; the next run answers them. */
  async load(signal?: AbortSignal): Promise<void> {
    const todo = [...this.misses];
    this.misses.clear();
    for (const [key, pattern] of todo) {
      const quads: RDF.Quad[] = [];
      for await (const b of this.db.scan(pattern, { signal })) this.quadsOf(b, quads);
      this.loaded.set(key, quads);
    }
  }

  get size(): number { return this.match().size; }
  [Symbol.iterator](): Iterator<RDF.Quad> { return this.match()[Symbol.iterator](); }
  has(q: RDF.Quad): boolean { return this.match(q.subject, q.predicate, q.object, q.graph).size > 0; }
  add(): this { throw internalError('a snapshot dataset is read-only'); }
  delete(): this { throw internalError('a snapshot dataset is read-only'); }
}
