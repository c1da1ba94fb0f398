/**
 * Reconnect delays of the event subscription (replication.md §14.1): 1 s, doubling, at most 30 s,
 * back to 1 s after a connection that worked.
 */
export class Backoff {
  private next: number;

  constructor(private readonly initialMs = 1000, private readonly maxMs = 30_000, private readonly factor = 2) {
    this.next = initialMs;
  }

  /** The delay before the next attempt; each call doubles the one after it, up to the maximum. */
  delay(): number {
    const d = this.next;
    this.next = Math.min(this.maxMs, this.next * this.factor);
    return d;
  }

  /** After a successful connect: start again from the initial delay. */
  reset(): void {
    this.next = this.initialMs;
  }
}
