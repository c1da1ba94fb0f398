/**
 * Admission control (http-api.md §7: 503 err:system/InternalError with a jittered Retry-After):
 * `Admission` caps concurrently running write operations (--max-in-flight); `QueryGate` caps
 * concurrently executing queries (--max-concurrent-queries) with a small FIFO wait queue
 * (--query-queue-size, --query-queue-wait-ms) so a short burst waits instead of failing, and
 * refuses every new query while the memory guard reports pressure.
 */
import { busy, type LedgraphError } from '../core/errors.js';
import { memoryGuard } from './memory-guard.js';

export { busy };

/**
 * Caps concurrently running write operations. Past the cap, or once shutdown began, a write is
 * refused with 503 err:system/InternalError and a jittered Retry-After instead of queueing, so an
 * overloaded server sheds load rather than piling up requests (http-api.md §7).
 */
export class Admission {
  private running = 0;
  private closing = false;
  private drained: (() => void) | null = null;

  constructor(readonly max: number) {}

  /** Operations admitted and not yet finished. */
  get inFlight(): number { return this.running; }

  /** Run `fn` as one admitted operation, or throw 503 when the cap is reached or the server is stopping. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closing) throw busy('the server is shutting down; retry against another instance or later');
    if (this.running >= this.max) throw busy(`too many write operations in flight (limit ${this.max}); retry later`);
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      if (this.running === 0 && this.drained) this.drained();
    }
  }

  /** Stop admitting; resolves when every admitted operation has finished. */
  close(): Promise<void> {
    this.closing = true;
    if (this.running === 0) return Promise.resolve();
    return new Promise((ok) => { this.drained = ok; });
  }
}

interface Waiter { grant(): void }

/** What the gate asks about memory before admitting a query (the process's memory guard by default). */
export interface MemoryPressure {
  readonly pressure: boolean;
  /** The 503 a query gets while `pressure` holds. */
  refusal(): Error;
}

/**
 * Caps concurrently executing queries. A query past the cap waits in a FIFO queue of at most
 * `queueSize` entries for up to `waitMs`; a full queue or a wait that runs out is refused with the
 * same 503 as writes. A waiter whose client goes away leaves the queue. A permit is handed
 * directly to the oldest waiter on release, so the cap holds at every moment. While the memory
 * guard reports pressure (memory-guard.ts) no new query is admitted: `tryAcquire` gives null and
 * `acquire` throws the guard's 503, before the queue is looked at.
 */
export class QueryGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly max: number, readonly queueSize: number, readonly waitMs: number, private readonly memory: MemoryPressure = memoryGuard) {}

  /** Queries holding a permit. */
  get active(): number { return this.running; }
  /** Queries waiting for one. */
  get queued(): number { return this.waiting.length; }

  /** A permit at once (its release function, idempotent), or null when one would have to wait or memory is short (`acquire` then says why). */
  tryAcquire(): (() => void) | null {
    if (this.memory.pressure || this.running >= this.max || this.waiting.length > 0) return null;
    this.running++;
    return this.releaser();
  }

  /** Take a permit (waiting in the queue if needed; `signal` withdraws the wait); returns its release function. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.memory.pressure) throw this.memory.refusal(); // the heap is nearly full
    const now = this.tryAcquire();
    if (now) return now;
    if (this.waiting.length >= this.queueSize || this.waitMs <= 0) throw this.refusal();
    if (signal?.aborted) throw signal.reason;
    await new Promise<void>((ok, fail) => {
      const leave = () => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => { leave(); fail(signal!.reason); };
      const timer = setTimeout(() => { leave(); fail(this.refusal()); }, this.waitMs);
      const w: Waiter = { grant: () => { leave(); ok(); } };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(w);
    });
    return this.releaser();
  }

  private refusal(): LedgraphError {
    return busy(`too many queries executing (limit ${this.max}, ${this.queueSize} waiting); retry later`);
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next.grant(); // the permit passes to the waiter; running stays the same
      else this.running--;
    };
  }
}
