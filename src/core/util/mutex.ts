/** A promise-chained async mutex: one holder at a time, FIFO. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Run `fn` while holding the lock. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const prev = this.tail;
    this.tail = prev.then(() => next);
    await prev;
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
