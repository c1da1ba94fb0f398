/** A promise-chained async mutex: one holder at a time, FIFO. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  /** True when nobody holds or waits for the lock. */
  get idle(): boolean { return this.holders === 0; }

  /** Run `fn` while holding the lock. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const prev = this.tail;
    this.tail = prev.then(() => next);
    this.holders++;
    try {
      await prev;
      return await fn();
    } finally {
      this.holders--;
      release();
    }
  }
}
