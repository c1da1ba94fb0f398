/**
 * Idempotency-Key memory of the push endpoints (replication.md §7, decided): a successful response
 * is kept for 24 h under (ledger, key, SHA-256 of the body), and a retry of the same request returns
 * it instead of a 409. Only successes are stored, so a refusal (novelty 503, or any other error)
 * never consumes the key.
 */
import { createHash } from 'node:crypto';
import { ByteLru } from '../../core/util/byte-lru.js';

/** 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Default byte budget of remembered responses (--idempotency-cache-bytes). */
export const DEFAULT_IDEMPOTENCY_CACHE_BYTES = 8 * 1024 * 1024;

/** Remembered responses, bounded by bytes (the oldest go first beyond the budget) and by age. */
export class IdempotencyStore {
  private readonly entries: ByteLru<string, { expires: number; response: unknown }>;

  constructor(
    private readonly ttlMs = IDEMPOTENCY_TTL_MS, private readonly now: () => number = Date.now,
    budgetBytes = DEFAULT_IDEMPOTENCY_CACHE_BYTES,
  ) {
    this.entries = new ByteLru(budgetBytes);
  }

  /** Bytes held now. */
  get bytes(): number { return this.entries.bytes; }

  /** The lookup key of a request. */
  static key(ledger: string, key: string, body: Uint8Array): string {
    return `${ledger}\u0000${key}\u0000${createHash('sha256').update(body).digest('hex')}`;
  }

  /** The stored success for a key, if still fresh. */
  get(k: string): unknown {
    const e = this.entries.get(k);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.entries.delete(k);
      return undefined;
    }
    return e.response;
  }

  /** Remember a success (charged its key and JSON size; a response too large to keep is not remembered). */
  set(k: string, response: unknown): void {
    const bytes = 2 * k.length + 2 * (JSON.stringify(response) ?? '').length + 128;
    this.entries.set(k, { expires: this.now() + this.ttlMs, response }, bytes);
  }
}
