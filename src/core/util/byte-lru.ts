/**
 * A least-recently-used map bounded by bytes: each entry is charged an estimate of what it holds,
 * the oldest entries go once the total passes the budget, and an entry larger than `maxEntryBytes`
 * is not kept at all (one huge request must not flush everything else).
 */
export class ByteLru<K, V> {
  private readonly map = new Map<K, { value: V; bytes: number }>();
  private total = 0;
  /** The most recently used key while it is the map's last (its refresh is then a no-op, skipped). */
  private newest: K | undefined;

  constructor(private budget: number, private readonly maxEntryFraction = 0.25) {}

  /** Bytes charged now. */
  get bytes(): number { return this.total; }
  /** Entries held. */
  get size(): number { return this.map.size; }
  /** The budget in bytes. */
  get limit(): number { return this.budget; }

  /** The value, refreshed as most recently used. */
  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    // A repeated lookup of the most recent key (a client repeating one query) moves nothing.
    if (key !== this.newest) {
      this.map.delete(key);
      this.map.set(key, e);
      this.newest = key;
    }
    return e.value;
  }

  /** Remember a value charged `bytes`; returns false when it is too large to keep. */
  set(key: K, value: V, bytes: number): boolean {
    this.delete(key);
    if (bytes > this.budget * this.maxEntryFraction) return false;
    this.map.set(key, { value, bytes });
    this.newest = key;
    this.total += bytes;
    this.trim();
    return true;
  }

  /** Forget a key; true when it was held. */
  delete(key: K): boolean {
    const e = this.map.get(key);
    if (!e) return false;
    this.map.delete(key);
    if (key === this.newest) this.newest = undefined;
    this.total -= e.bytes;
    return true;
  }

  /** Oldest first, with their values (e.g. to expire them). */
  entries(): IterableIterator<[K, { value: V; bytes: number }]> { return this.map.entries(); }

  /** Change the budget (evicting down to it). */
  resize(budget: number): void {
    this.budget = budget;
    this.trim();
  }

  private trim(): void {
    for (const [k, e] of this.map) {
      if (this.total <= this.budget) break;
      this.map.delete(k);
      if (k === this.newest) this.newest = undefined;
      this.total -= e.bytes;
    }
  }
}
