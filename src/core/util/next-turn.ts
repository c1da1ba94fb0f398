/**
 * Giving the event loop a turn. A `for await` over async generators resolves through microtasks
 * only, so a long query would otherwise run to its end without letting a socket, a timer or
 * another request in. nextTurn() resolves on a later macrotask: after pending I/O in Node
 * (setImmediate runs after the poll phase), after pending events in a browser (a MessageChannel
 * message, which unlike setTimeout(0) is not clamped to 4 ms when nested).
 */

/** Run a function on a later macrotask. */
export type Schedule = (fn: () => void) => void;

/** What the scheduler may use from the global scope. */
export interface TurnGlobals { setImmediate?: (fn: () => void) => unknown; MessageChannel?: typeof MessageChannel }

/** The way to schedule a macrotask in a runtime with these globals (exported for tests). */
export function scheduler(g: TurnGlobals = globalThis as TurnGlobals): Schedule {
  if (typeof g.setImmediate === 'function') {
    const si = g.setImmediate;
    return (fn) => { si(fn); };
  }
  if (typeof g.MessageChannel === 'function') {
    const ch = new g.MessageChannel();
    const queue: (() => void)[] = [];
    ch.port1.onmessage = () => { queue.shift()?.(); };
    // Where ports hold a process open (Node, in tests), this one must not.
    (ch.port1 as { unref?: () => void }).unref?.();
    return (fn) => { queue.push(fn); ch.port2.postMessage(0); };
  }
  return (fn) => { setTimeout(fn, 0); };
}

let schedule: Schedule | undefined;

/** A promise that resolves on a later turn of the event loop, once pending I/O and events have run. */
export function nextTurn(): Promise<void> {
  schedule ??= scheduler();
  const s = schedule;
  return new Promise((resolve) => { s(resolve); });
}

/**
 * A budget of uninterrupted work: `due()` (one clock read) says when `ms` have passed since the
 * slice began, `pause()` gives the event loop a turn and starts a new slice.
 */
export class TimeSlice {
  private end: number;
  constructor(readonly ms: number) { this.end = performance.now() + ms; }

  /** True when this slice is used up. */
  due(): boolean { return performance.now() >= this.end; }

  /** Let the event loop run, then start a new slice (of `ms`, or of `next` ms when given). */
  async pause(next?: number): Promise<void> {
    await nextTurn();
    this.end = performance.now() + (next ?? this.ms);
  }
}
