/**
 * The deadlines of running requests (query timeouts), earliest first, behind one Node timer for
 * the earliest. A timer per request costs a Timeout object and timer-list work on every point
 * query, while a server's deadlines arrive in about the order they expire (start + the query
 * timeout), so keeping them in order is an append. A finished request's entry is dropped when it
 * reaches the front, or in a sweep once such entries are most of the queue. When the queue empties
 * the timer stays armed but unreferenced (it fires into an empty queue at most once per timeout):
 * clearing it made one client's every query set and clear a Node timer.
 */

/** A request's deadline: `fire` runs at `at` (ms since the epoch) unless cancelled first. */
export interface Deadline { at: number; fire: (() => void) | null }

const queue: Deadline[] = [];
let cancelled = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
/** When the timer fires (Infinity: not armed). */
let timerAt = Infinity;
/** The armed timer keeps the process alive (false once the queue emptied under it). */
let timerRef = false;
/** Cancelled entries kept in the queue before a sweep (when they are also half of it). */
const SWEEP_AT = 4096;

/** Run `fire` at `at` (ms since the epoch), unless cancelled first. */
export function addDeadline(at: number, fire: () => void): Deadline {
  const d: Deadline = { at, fire };
  let i = queue.length;
  while (i > 0 && queue[i - 1]!.at > at) i--;
  if (i === queue.length) queue.push(d); else queue.splice(i, 0, d);
  if (at < timerAt) arm(at);
  else if (!timerRef) { timer!.ref(); timerRef = true; }
  return d;
}

/** Cancel a deadline (nothing when it has fired or was cancelled). */
export function cancelDeadline(d: Deadline): void {
  if (d.fire === null) return;
  d.fire = null;
  cancelled++;
  while (queue.length > 0 && queue[0]!.fire === null) { queue.shift(); cancelled--; }
  if (cancelled > SWEEP_AT && cancelled * 2 > queue.length) {
    let k = 0;
    for (const x of queue) if (x.fire !== null) queue[k++] = x;
    queue.length = k;
    cancelled = 0;
  }
  // Left armed for the next request's deadline, which comes later than this one's (see above).
  if (queue.length === 0 && timerRef) { timer!.unref(); timerRef = false; }
}

/** Deadlines waiting to fire (for tests: none once every request is over). */
export function pendingDeadlines(): number {
  return queue.length - cancelled;
}

function arm(at: number): void {
  if (timer !== undefined) clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(expire, Math.max(0, at - Date.now()));
  timerRef = true;
}

/** Fire every deadline that has passed, then wait for the next live one. */
function expire(): void {
  timer = undefined;
  timerAt = Infinity;
  timerRef = false;
  const now = Date.now();
  while (queue.length > 0 && (queue[0]!.fire === null || queue[0]!.at <= now)) {
    const d = queue.shift()!;
    const fire = d.fire;
    if (fire === null) { cancelled--; continue; }
    d.fire = null;
    try { fire(); } catch { /* an abort listener's error is not the queue's */ }
  }
  if (queue.length > 0) arm(queue[0]!.at);
}
