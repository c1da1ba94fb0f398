/**
 * Background work that gives way to foreground work (docs/isolation.md "Index jobs give way to
 * writes"). A ledger's index job shares the main thread with the writes to that ledger: at every
 * pause it would otherwise take the turns a staging write gives (staging pauses every few ms), and
 * the write waits behind its slices. With `Activity` the write pipeline says when it runs, and
 * a `YieldingSlice` in the index job waits at its pauses until the writes are done — at most
 * `maxWaitMs` per pause (then it works one full slice), and not at all while `urgent()` says so
 * (novelty near its hard limit, where writes would be refused) — so indexing always progresses.
 */
import { TimeSlice } from './next-turn.js';

/** Foreground work in progress (counted: nested or overlapping begins are fine). */
export class Activity {
  private n = 0;
  private readonly waiters = new Set<() => void>();

  /** True while some foreground work runs. */
  get busy(): boolean { return this.n > 0; }

  /** Foreground work starts. */
  begin(): void { this.n++; }

  /** Foreground work ends; when none is left, whoever waits for idleness goes on. */
  end(): void {
    if (this.n === 0) return;
    if (--this.n > 0) return;
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w();
  }

  /** Resolves true once no foreground work runs, or false after `ms` of waiting. */
  idle(ms: number): Promise<boolean> {
    if (this.n === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const done = (): void => { clearTimeout(timer); this.waiters.delete(done); resolve(true); };
      const timer = setTimeout(() => { this.waiters.delete(done); resolve(false); }, ms);
      (timer as { unref?: () => void }).unref?.();
      this.waiters.add(done);
    });
  }
}

/** What a yielding slice gives way to, and for how long. */
export interface GiveWay {
  activity: Activity;
  /** Longest wait (ms) at one pause before working a slice anyway. */
  maxWaitMs: number;
  /** True when the background work must not wait at all. */
  urgent(): boolean;
}

/**
 * A TimeSlice for background work: its slice is also used up as soon as foreground work starts
 * (so the work stops at its next check), and its pause waits for the foreground to finish. A
 * slice that began after a wait ran out is time-bounded only, so a steady foreground load still
 * leaves the background one slice per `maxWaitMs`.
 */
export class YieldingSlice extends TimeSlice {
  private granted = false;
  /** Pauses that waited for foreground work, and the ms they waited (for tests and benchmarks). */
  readonly waited = { pauses: 0, ms: 0 };

  constructor(ms: number, private readonly way: GiveWay) { super(ms); }

  private holdsBack(): boolean { return this.way.activity.busy && !this.way.urgent(); }

  /** True when the slice is used up, or foreground work wants the turns. */
  override due(): boolean {
    return super.due() || (!this.granted && this.holdsBack());
  }

  /**
   * A turn of the event loop; then, while foreground work runs, a bounded wait for it to finish and
   * another turn (whatever the end of that work scheduled, a receipt or the next request, runs
   * first; a write that began during the turn is waited for too). A new slice starts after.
   */
  override async pause(next?: number): Promise<void> {
    this.granted = false;
    for (;;) {
      await super.pause(next);
      if (this.granted || !this.holdsBack()) return;
      const t0 = performance.now();
      const idle = await this.way.activity.idle(this.way.maxWaitMs);
      this.waited.pauses++;
      this.waited.ms += performance.now() - t0;
      this.granted = !idle;
    }
  }

  /** Pause when due; the check the work makes between its pieces. */
  async check(): Promise<void> {
    if (this.due()) await this.pause();
  }
}
