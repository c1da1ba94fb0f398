/**
 * Novelty: the events (flakes) committed after the index's `index_t`, kept sorted in the four
 * orders as small LSM-style runs. Immutable: adding a commit returns a new Novelty sharing the old
 * runs, so a Db snapshot keeps a consistent view while writes go on.
 */
import { ORDERS, type Flake, type IndexOrder } from '../flake/flake.js';
import {
  EMPTY_RUN, allocRun, copyRow, keyCols, lowerBound, mergeRuns, mergeRunsSteps, runFromFlakes, sortAllOrdersSteps, upperBound, type KeyPrefix, type Run,
} from './run.js';
import { runSteps, type Steps } from '../util/steps.js';

type RunsByOrder = Record<IndexOrder, readonly Run[]>;

export class Novelty {
  private constructor(
    private readonly runs: RunsByOrder,
    /** Encoded size of the events (replication.md §13: commit flake-section bytes). */
    readonly bytes: number,
    /** Number of events. */
    readonly size: number,
    /** Highest t held (0 when empty). */
    readonly maxT: number,
  ) {}

  static empty(): Novelty {
    return new Novelty({ spot: [], psot: [], post: [], opst: [] }, 0, 0, 0);
  }

  /** A Novelty with one more commit's events. `isRef(o)` tells which objects belong in OPST. */
  add(flakes: readonly Flake[], bytes: number, isRef: (o: number) => boolean): Novelty {
    return runSteps(this.addSteps(flakes, bytes, isRef));
  }

  /**
   * add() in steps that may pause (util/steps.ts): the same result, built off to the side (this
   * Novelty is never changed), so a big commit's sorts and merges need not run in one piece.
   */
  *addSteps(flakes: readonly Flake[], bytes: number, isRef: (o: number) => boolean): Steps<Novelty> {
    if (flakes.length === 0) return this;
    const sorted = yield* sortAllOrdersSteps(runFromFlakes(flakes));
    const next = {} as Record<IndexOrder, Run[]>;
    for (const order of ORDERS) {
      yield;
      let run = sorted[order];
      if (order === 'opst') run = filterRun(run, isRef);
      next[order] = run.n === 0 ? [...this.runs[order]] : yield* compactSteps([...this.runs[order], run], order);
    }
    let maxT = this.maxT;
    for (const f of flakes) if (f.t > maxT) maxT = f.t;
    return new Novelty(next, this.bytes + bytes, this.size + flakes.length, maxT);
  }

  /** Drop the events with t <= `t` (they are now in the index). `bytesLeft` is the new size. */
  dropUpTo(t: number, bytesLeft: number): Novelty {
    const next = {} as Record<IndexOrder, Run[]>;
    let size = 0;
    for (const order of ORDERS) {
      const kept: Run[] = [];
      for (const r of this.runs[order]) {
        const f = filterRunByT(r, t);
        if (f.n > 0) kept.push(f);
        if (order === 'spot') size += f.n;
      }
      next[order] = kept;
    }
    return new Novelty(next, size === 0 ? 0 : bytesLeft, size, size === 0 ? 0 : this.maxT);
  }

  /**
   * Events in an order whose key starts with `prefix` and whose t <= maxT, sorted by key then t
   * descending (then retract first).
   */
  range(order: IndexOrder, prefix: KeyPrefix, maxT: number): Run {
    const parts: Run[] = [];
    let total = 0;
    for (const r of this.runs[order]) {
      const cols = keyCols(r, order);
      const lo = lowerBound(cols, 0, r.n, prefix);
      const hi = upperBound(cols, lo, r.n, prefix);
      if (hi > lo) {
        const part = allocRun(hi - lo);
        for (let i = lo; i < hi; i++) if (r.t[i]! <= maxT) copyRow(part, r, i);
        if (part.n > 0) { parts.push(part); total += part.n; }
      }
    }
    if (parts.length === 0) return EMPTY_RUN;
    let out = parts[0]!;
    for (let i = 1; i < parts.length; i++) out = mergeRuns(out, parts[i]!, order);
    return out;
  }

  /**
   * How many events of an order have a key starting with `prefix` (any t): what `range` would
   * return for the latest t, counted by binary search without copying. The planner asks this for
   * every pattern it weighs, so it must not cost a pass over novelty.
   */
  count(order: IndexOrder, prefix: KeyPrefix): number {
    let n = 0;
    for (const r of this.runs[order]) {
      const cols = keyCols(r, order);
      const lo = lowerBound(cols, 0, r.n, prefix);
      n += upperBound(cols, lo, r.n, prefix) - lo;
    }
    return n;
  }

  /** Bytes the runs hold in memory (typed-array buffers of all four orders). */
  memoryBytes(): number {
    const seen = new Set<ArrayBufferLike>();
    let n = 0;
    for (const order of ORDERS) {
      for (const r of this.runs[order]) {
        for (const col of [r.g, r.s, r.p, r.o, r.m, r.t, r.op]) {
          if (seen.has(col.buffer)) continue;
          seen.add(col.buffer);
          n += col.buffer.byteLength;
        }
      }
    }
    return n;
  }

  /** Every event with t <= maxT in an order, sorted (for the indexer). */
  all(order: IndexOrder, maxT: number): Run {
    return this.range(order, [], maxT);
  }

  /** `all` in steps (pausing every MERGE_STEP_ROWS rows copied or merged): the same run, without holding the event loop. */
  *allSteps(order: IndexOrder, maxT: number): Steps<Run> {
    const parts: Run[] = [];
    for (const r of this.runs[order]) {
      // Runs are never changed once built: one wholly at or before maxT (the indexer's case: it
      // indexes up to the head of the novelty it captured) is taken as it is, not copied.
      let newer = 0;
      while (newer < r.n && r.t[newer]! <= maxT) newer++;
      if (newer === r.n) {
        if (r.n > 0) parts.push(r);
        continue;
      }
      const part = allocRun(r.n);
      for (let i = 0; i < r.n; i++) {
        if (r.t[i]! <= maxT) copyRow(part, r, i);
        if ((i + 1) % MERGE_STEP_ROWS === 0) yield;
      }
      if (part.n > 0) parts.push(part);
    }
    if (parts.length === 0) return EMPTY_RUN;
    let out = parts[0]!;
    for (let i = 1; i < parts.length; i++) out = yield* mergeRunsSteps(out, parts[i]!, order, MERGE_STEP_ROWS);
    return out;
  }
}

function filterRun(r: Run, keep: (o: number) => boolean): Run {
  const out = allocRun(r.n);
  for (let i = 0; i < r.n; i++) if (keep(r.o[i]!)) copyRow(out, r, i);
  return out;
}

function filterRunByT(r: Run, t: number): Run {
  let any = false;
  for (let i = 0; i < r.n; i++) if (r.t[i]! <= t) { any = true; break; }
  if (!any) return r;
  const out = allocRun(r.n);
  for (let i = 0; i < r.n; i++) if (r.t[i]! > t) copyRow(out, r, i);
  return out;
}

/** Merge the newest runs while a run is at least half the size of its predecessor (size tiers). */
function* compactSteps(runs: Run[], order: IndexOrder): Steps<Run[]> {
  while (runs.length >= 2) {
    const last = runs[runs.length - 1]!, prev = runs[runs.length - 2]!;
    if (last.n * 2 < prev.n && runs.length <= 12) break;
    runs.splice(runs.length - 2, 2, yield* mergeRunsSteps(prev, last, order, MERGE_STEP_ROWS));
  }
  return runs;
}

/** Rows merged between two possible pauses. */
const MERGE_STEP_ROWS = 16384;

