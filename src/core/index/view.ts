/**
 * The narrow interface the query executor reads data through (DESIGN.md "Read"): scan a pattern of
 * integer ids at the snapshot's time bound, get batches of id rows back, plus statistics. A local Db,
 * a peer's lazily fetched index and test fixtures all implement it.
 */
import type { TermDict } from './dict.js';

/** A scan pattern; an omitted position is unbound. `g` omitted = every graph. */
export interface ScanPattern {
  g?: number;
  s?: number;
  p?: number;
  o?: number;
}

/** A batch of matching facts as parallel columns, `n` rows long (arrays may be longer). */
export interface FactBatch {
  n: number;
  g: Int32Array;
  s: Int32Array;
  p: Int32Array;
  o: Int32Array;
  /** List index, -1 when none. */
  m: Int32Array;
}

/** One event of a fact for history queries. */
export interface HistoryEvent { g: number; s: number; p: number; o: number; m: number; t: number; op: boolean }

/** Statistics the planner uses; counts are of facts current at the view's t (may be estimates). */
export interface ViewStats {
  /** Total current facts. */
  flakes: number;
  /** Current facts per predicate id. */
  predicateCount(p: number): number;
  /** Instances per class id (rdf:type objects). */
  classCount(c: number): number;
  /** Distinct subjects (estimate). */
  subjects: number;
}

export interface DbView {
  /** Transaction time of this snapshot. */
  readonly t: number;
  /** The term dictionary ids in this view refer to. */
  readonly dict: TermDict;
  /** Graph id of a graph IRI, or undefined when the graph never existed. 0 is the default graph. */
  graphId(iri: string): number | undefined;
  /** IRI of a graph id (undefined for the default graph). */
  graphIri(g: number): string | undefined;
  /** Every named graph id (>= 3) that has at least one current fact. */
  namedGraphs(): number[];
  /** Facts current at `t` matching the pattern. Batches are reused between yields: copy what you keep. */
  scan(pattern: ScanPattern, opts?: { signal?: AbortSignal }): AsyncIterable<FactBatch>;
  /**
   * Optional fast path: every match in one batch, synchronously, when the data is at hand (decoded
   * leaves) and fits; null means "use scan". The batch is reused by the next call.
   */
  scanSync?(pattern: ScanPattern): FactBatch | null;
  /** Estimated number of facts matching the pattern (exact when cheap). */
  estimate(pattern: ScanPattern): number;
  /**
   * Optional planner hint: the average number of facts with predicate `p` per distinct subject
   * (`'s'`) or per distinct object (`'o'`), sampled from data at hand; undefined when unknown.
   */
  valuesPerKey?(p: number, key: 's' | 'o'): number | undefined;
  /** Every event with fromT <= t <= toT of facts matching the pattern, ordered by t then op. */
  history(pattern: ScanPattern, fromT: number, toT: number): AsyncIterable<HistoryEvent>;
  readonly stats: ViewStats;
}
