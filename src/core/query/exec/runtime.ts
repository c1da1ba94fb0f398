/**
 * Per-execution state: the view and its ids, the dataset's graphs, and the limits every long
 * stream obeys (DESIGN.md rule 7): fuel (facts scanned and path steps taken), a deadline and an
 * AbortSignal, checked at every batch and every index probe so work stops promptly.
 *
 * Isolation: operators run in slices of about SLICE_MS of wall time. At every batch they ask
 * `due()` (one clock read) and, when the slice is used up, `await pause()`, which gives the event
 * loop a turn (other requests, socket closes, timers) and then checks the limits again. A point
 * query finishes inside its first slice and never pauses (docs/isolation.md).
 */
import { LedgraphError, isLedgraphError, timeoutError } from '../../errors.js';
import type { DbView, FactBatch, ScanPattern } from '../../index/view.js';
import { namedNode } from '../../rdf/terms.js';
import type { FederationOptions } from '../federation/service.js';
import { TimeSlice } from '../../util/next-turn.js';
import { QueryIds } from './ids.js';

/** Longest run of executor work (ms) before it gives the event loop a turn. */
export const SLICE_MS = 2;
/** The shortest slice, however many long executions share the loop. */
const MIN_SLICE_MS = 0.5;
/**
 * Executions that have paused at least once and not yet ended: the CPU-bound ones. They share
 * SLICE_MS between them, so one turn of the event loop (everyone's slice, then I/O) stays about
 * SLICE_MS long however many run, and a point query waits about as long behind ten as behind one.
 */
let longRunning = 0;

/**
 * The process's heap check, run at every pause before the event loop gets its turn (the server's
 * memory guard installs it; src/core cannot read V8's heap itself). It may abort running queries'
 * signals; `extraBytes` is heap about to be needed at once (a final sort's index and work arrays).
 */
export type HeapCheck = (extraBytes: number) => void;
let heapCheck: HeapCheck | null = null;

/** Install (or with null remove) the process's heap check. */
export function setHeapCheck(fn: HeapCheck | null): void {
  heapCheck = fn;
}

/** The error of an exhausted fuel budget (jsonld-query.md: 400 "fuel limit exceeded"; stream code fuel_exhausted). */
export function fuelExhausted(max: number): LedgraphError {
  return new LedgraphError(400, 'err:db/BadRequest', `fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel ${max}`);
}

/** True when an error is the fuel budget running out. */
export function isFuelExhausted(e: unknown): boolean {
  return isLedgraphError(e) && e.message.includes('(fuel_exhausted)');
}

/** The error of an aborted query: the signal's reason when it is a LedgraphError, else a cancellation. */
export function abortError(signal: AbortSignal): LedgraphError {
  const r: unknown = signal.reason;
  if (isLedgraphError(r)) return r;
  if (typeof r === 'object' && r !== null && (r as { name?: string }).name === 'TimeoutError') return timeoutError('query timeout exceeded');
  return new LedgraphError(499, 'err:db/Cancelled', 'cancelled: the query was aborted');
}

export interface RuntimeOptions {
  view: DbView;
  defaultGraphs: number[];
  namedGraphs: number[];
  resolveGraph: (iri: string) => number | undefined;
  now: Date;
  baseIri?: string;
  maxFuel?: number;
  deadline?: number;
  signal?: AbortSignal;
  /** Where SERVICE may reach (absent: federation off). */
  federation?: FederationOptions;
}

export class Runtime {
  readonly view: DbView;
  readonly ids: QueryIds;
  /** Slots per row (set by the planner). */
  width = 0;
  readonly defaultGraphs: number[];
  readonly namedGraphs: number[];
  readonly namedSet: Set<number>;
  readonly now: Date;
  readonly baseIri: string | undefined;
  /** Fuel spent so far. */
  fuel = 0;
  /**
   * Build sides shared by the operators of this execution, by what they contain: a subquery and
   * the outer query joining the same pattern (BI-Q4's prices, BI-Q6's ratings) read it once.
   */
  readonly builds = new Map<string, Promise<unknown>>();
  private readonly maxFuel: number;
  private readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  private readonly resolve: (iri: string) => number | undefined;
  readonly federation: FederationOptions | undefined;
  private readonly graphTerms = new Map<number, number>();
  private readonly termGraphs = new Map<number, number>();
  private ticks = 0;
  private spins = 0;
  /** Counted in longRunning (it has paused). */
  private long = false;
  /** The current slice of uninterrupted work. */
  private readonly slice = new TimeSlice(SLICE_MS);

  constructor(o: RuntimeOptions) {
    this.view = o.view;
    this.ids = new QueryIds(o.view.dict);
    this.defaultGraphs = o.defaultGraphs;
    this.namedGraphs = o.namedGraphs;
    this.namedSet = new Set(o.namedGraphs);
    this.now = o.now;
    this.baseIri = o.baseIri;
    this.maxFuel = o.maxFuel ?? Infinity;
    this.deadline = o.deadline ?? Infinity;
    this.signal = o.signal;
    this.resolve = o.resolveGraph;
    this.federation = o.federation;
  }

  /** True when this slice of work is used up and the operator should `await pause()` (call per batch, not per row). */
  due(): boolean {
    return this.slice.due();
  }

  /**
   * Count one step of an inner loop that may produce nothing (a probe over a build side whose
   * matches all fail a compatibility check): true every 1,024 steps once the slice is used up, and
   * the loop should `await pause()`. Loops that yield only when their output fills need this.
   */
  spin(): boolean {
    return (++this.spins & 1023) === 0 && this.slice.due();
  }

  /** Give the event loop a turn, start a new slice, then throw if the query was aborted or ran out of time meanwhile. */
  async pause(): Promise<void> {
    if (!this.long) { this.long = true; longRunning++; }
    // Before the turn: V8's incremental marking runs its steps there, and one that finds the
    // heap full ends the process; the check (and the abort it may cause) must come first.
    this.heapCheck(0);
    await this.slice.pause(Math.max(MIN_SLICE_MS, SLICE_MS / longRunning));
    this.check();
    if (this.deadline !== Infinity && Date.now() > this.deadline) throw timeoutError('query timeout exceeded');
  }

  /** Run the process's heap check (see HeapCheck) and throw if it (or anything else) stopped the query. */
  heapCheck(extraBytes: number): void {
    if (heapCheck) heapCheck(extraBytes);
    this.check();
  }

  /** A signal for an outgoing request: the query's own, aborting at its deadline too. */
  requestSignal(): AbortSignal | undefined {
    const parts: AbortSignal[] = [];
    if (this.signal) parts.push(this.signal);
    if (this.deadline !== Infinity) parts.push(AbortSignal.timeout(Math.max(1, this.deadline - Date.now())));
    return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : AbortSignal.any(parts);
  }

  /** The execution is over (it no longer shares the slices of the event loop). */
  release(): void {
    if (this.long) { this.long = false; longRunning--; }
  }

  /** Spend fuel; throws when the budget is exceeded. */
  charge(n: number): void {
    this.fuel += n;
    if (this.fuel > this.maxFuel) throw fuelExhausted(this.maxFuel);
  }

  /** Throw when the query is out of time or aborted (cheap enough to call per probe). */
  check(): void {
    if (this.signal?.aborted) throw abortError(this.signal);
    if (this.deadline !== Infinity && (++this.ticks & 15) === 0 && Date.now() > this.deadline) {
      throw timeoutError('query timeout exceeded');
    }
  }

  /** The term id of a named graph's IRI. */
  graphTerm(gid: number): number {
    let id = this.graphTerms.get(gid);
    if (id === undefined) {
      const iri = this.view.graphIri(gid);
      if (iri === undefined) throw new RangeError('graph ' + gid + ' has no IRI');
      id = this.ids.intern(iri.startsWith('_:') ? { termType: 'BlankNode', value: iri.slice(2) } : namedNode(iri));
      this.graphTerms.set(gid, id);
      this.termGraphs.set(id, gid);
    }
    return id;
  }

  /** The visible named graph a term id names, or -1. */
  graphOfTerm(id: number): number {
    let gid = this.termGraphs.get(id);
    if (gid === undefined) {
      const t = this.ids.term(id);
      const found = t.termType === 'NamedNode' ? this.resolve(t.value) : t.termType === 'BlankNode' ? this.resolve('_:' + t.value) : undefined;
      gid = found !== undefined && this.namedSet.has(found) ? found : -1;
      this.termGraphs.set(id, gid);
    }
    return gid;
  }

  /** The visible named graph with this IRI, or -1. */
  graphOfIri(iri: string): number {
    const gid = this.resolve(iri);
    return gid !== undefined && this.namedSet.has(gid) ? gid : -1;
  }

  /**
   * Facts matching `pt` in the given graphs (null = every visible named graph, reported by fact.g);
   * several graphs are merged as one RDF graph, so a triple present in two of them comes once.
   * Fuel: the facts found, and at least one per index lookup (a lookup that finds nothing is work too).
   */
  async *scan(pt: ScanPattern, graphs: readonly number[] | null): AsyncIterable<FactBatch> {
    this.check();
    if (this.due()) await this.pause();
    let found = 0;
    if (graphs === null) {
      for await (const b of this.view.scan(pt, { signal: this.signal })) {
        this.charge(b.n);
        found += b.n;
        if (this.due()) await this.pause();
        const out = scratch(b.n);
        for (let i = 0; i < b.n; i++) if (this.namedSet.has(b.g[i]!)) copyFact(b, i, out);
        if (out.n > 0) yield out;
        this.check();
      }
      if (found === 0) this.charge(1);
      return;
    }
    if (graphs.length === 1) {
      for await (const b of this.view.scan({ ...pt, g: graphs[0]! }, { signal: this.signal })) {
        this.charge(b.n);
        found += b.n;
        if (this.due()) await this.pause();
        yield b;
        this.check();
      }
      if (found === 0) this.charge(1);
      return;
    }
    const seen = new Set<string>();
    for (const g of graphs) {
      // A graph with no match yields no batch: look at the clock per graph too.
      if (this.due()) await this.pause();
      found = 0;
      for await (const b of this.view.scan({ ...pt, g }, { signal: this.signal })) {
        this.charge(b.n);
        found += b.n;
        if (this.due()) await this.pause();
        const out = scratch(b.n);
        for (let i = 0; i < b.n; i++) {
          const key = b.s[i] + ' ' + b.p[i] + ' ' + b.o[i];
          if (seen.has(key)) continue;
          seen.add(key);
          copyFact(b, i, out);
        }
        if (out.n > 0) yield out;
        this.check();
      }
      if (found === 0) this.charge(1);
    }
  }

  /** Estimated facts matching `pt` in the given graphs (planner input). */
  estimate(pt: ScanPattern, graphs: readonly number[] | null): number {
    if (graphs === null) return this.view.estimate(pt);
    let n = 0;
    for (const g of graphs) n += this.view.estimate({ ...pt, g });
    return n;
  }
}

/** A fresh fact batch for filtered copies (the view's batches are read-only to us). */
function scratch(n: number): FactBatch {
  return { n: 0, g: new Int32Array(n), s: new Int32Array(n), p: new Int32Array(n), o: new Int32Array(n), m: new Int32Array(n) };
}

function copyFact(b: FactBatch, i: number, out: FactBatch): void {
  const k = out.n++;
  out.g[k] = b.g[i]!; out.s[k] = b.s[i]!; out.p[k] = b.p[i]!; out.o[k] = b.o[i]!; out.m[k] = b.m[i]!;
}
