/**
 * Memory pressure. V8's heap limit is sized from --memory-limit (memory-plan.ts), so a query whose
 * working memory outgrows the headroom (GROUP BY, ORDER BY, hash joins: bounded by fuel and the
 * timeout, not by bytes) would otherwise end the whole process with V8's fatal out-of-memory. The
 * guard looks at the heap after every full collection: when one leaves more than 3/4 of the limit
 * in use, the queries running are stopped with 503 + Retry-After (their working memory is what can
 * go) and new ones are refused the same way until a full collection leaves less than 1/2 in use.
 * An idle server may not collect again for a long time, so while under pressure the guard runs a
 * full collection itself (100 ms after the queries stopped, then every second) to see whether it
 * can lift it. One guard per process: the heap is the process's.
 *
 * The GC observer alone comes too late: its callback runs on a later turn of the event loop, and
 * V8's incremental marking finishes its collections in tasks on that same loop, so a query growing
 * fast reaches the fatal limit before the callback runs. So the executor also asks the guard at
 * every pause, before the turn (runtime.ts setHeapCheck): one read of the heap's use, and above
 * CHECK_AT of the limit a full collection run there and then (at most every GC_EVERY_MS unless the
 * heap grew by GC_GROWTH since), judged as the observer judges it.
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { busy } from '../core/errors.js';
import { setHeapCheck } from '../core/query/exec/runtime.js';

/** Fractions of V8's heap limit in use after a full GC that start and end pressure. */
export const PRESSURE_HIGH = 0.75;
export const PRESSURE_LOW = 0.5;
/** Fraction of the limit in use (garbage included) above which a pausing query runs a full collection to judge the heap. */
export const CHECK_AT = 0.8;
/** Least time between the full collections the executor's checks run, unless the heap grew by GC_GROWTH of the limit since the last. */
export const GC_EVERY_MS = 250;
export const GC_GROWTH = 1 / 16;

class MemoryGuard {
  /** True while the last full GC left the heap above PRESSURE_HIGH (and not yet below PRESSURE_LOW). */
  pressure = false;
  /** Queries stopped for memory since start. */
  stopped = 0;
  /** Times pressure began. */
  episodes = 0;
  /**
   * Running queries' controllers by slot (undefined: free, or stopped and not yet untracked). A
   * slot array and a free list, not a Set: no hashing or table growth on every query's track and
   * untrack. A slot is reused only after its owner untracks it.
   */
  private readonly work: (AbortController | undefined)[] = [];
  private readonly free: number[] = [];
  private observer: PerformanceObserver | null = null;
  private onPressure: ((used: number, limit: number) => void) | null = null;

  /** Watch full GCs (idempotent); `onPressure` is told when an episode begins (for the log). */
  start(onPressure?: (used: number, limit: number) => void): void {
    if (onPressure) this.onPressure = onPressure;
    if (this.observer) return;
    setHeapCheck((extra) => { this.pauseCheck(extra); });
    this.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) { this.check(); return; }
      }
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  /** A running query's controller: aborted with 503 when pressure begins. Returns its slot, for `untrack` (once). */
  track(ac: AbortController): number {
    const slot = this.free.pop() ?? this.work.length;
    this.work[slot] = ac;
    return slot;
  }

  /** The query of `slot` (from `track`) is over. */
  untrack(slot: number): void {
    this.work[slot] = undefined;
    this.free.push(slot);
  }

  /** The 503 a query gets under pressure. */
  refusal(): Error {
    return busy('the server is short of memory (a running query needed more than its headroom); retry later or with a smaller query');
  }

  /**
   * The executor's check at a pause (runtime.ts HeapCheck), `extra` bytes about to be allocated:
   * when the heap with them passes CHECK_AT of the limit, a full collection now and the verdict
   * of check(), counting `extra` as in use.
   */
  pauseCheck(extra: number): void {
    if (this.pressure) return; // running queries are already stopped; check() lifts it
    // Reading the heap's use (≈ 0.3–1 µs) at most once a millisecond keeps the check a clock read
    // when many executions pause at once; the heap cannot grow far in a millisecond.
    const now = performance.now();
    if (extra === 0 && now < this.nextRead) return;
    this.nextRead = now + 1;
    const used = getHeapStatistics().used_heap_size + extra;
    const limit = this.limit || (this.limit = getHeapStatistics().heap_size_limit);
    if (used <= limit * CHECK_AT) return;
    if (now - this.lastGc < GC_EVERY_MS && used - this.afterGc < limit * GC_GROWTH) return;
    fullGc();
    this.lastGc = performance.now();
    this.afterGc = getHeapStatistics().used_heap_size;
    this.check(extra);
  }

  private limit = 0;
  private nextRead = 0;
  private lastGc = -Infinity;
  private afterGc = 0;

  /** Evaluate the heap now (after a full GC), with `extra` bytes about to be needed. */
  check(extra = 0): void {
    const h = getHeapStatistics();
    const used = h.used_heap_size + extra, limit = h.heap_size_limit;
    if (used > limit * PRESSURE_HIGH) {
      if (!this.pressure) { this.pressure = true; this.episodes++; this.onPressure?.(used, limit); }
      for (let i = 0; i < this.work.length; i++) {
        const ac = this.work[i];
        if (ac === undefined) continue;
        this.work[i] = undefined; // the slot stays its owner's until it untracks it
        this.stopped++;
        ac.abort(this.refusal());
      }
    } else if (used < limit * PRESSURE_LOW) {
      this.pressure = false;
    }
    if (this.pressure && !this.retry) {
      this.retry = setTimeout(() => { this.retry = null; fullGc(); this.check(); }, this.retried++ === 0 ? 100 : 1000);
      this.retry.unref();
    }
    if (!this.pressure) this.retried = 0;
  }

  private retry: ReturnType<typeof setTimeout> | null = null;
  private retried = 0;
}

let gcFn: (() => void) | null = null;
/** A full GC: global.gc when node runs with --expose-gc, else the same function taken from a fresh context once the flag is set. */
function fullGc(): void {
  if (!gcFn) {
    const g = (globalThis as { gc?: () => void }).gc;
    if (g) gcFn = g;
    else { setFlagsFromString('--expose-gc'); gcFn = runInNewContext('gc') as () => void; }
  }
  gcFn();
}

/** The process's guard. */
export const memoryGuard = new MemoryGuard();
