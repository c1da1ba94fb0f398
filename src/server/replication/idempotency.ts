/**
 * Idempotency-Key memory of the push endpoints (replication.md §7, decided): a successful response
 * is kept for 24 h under (ledger, key, SHA-256 of the body), and a retry of the same request returns
 * it instead of a 409. Only successes are stored, so a refusal (novelty 503, or any other error)
 * never consumes the key.
 */
import { createHash } from 'node:crypto';

/** 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Most remembered responses; the oldest go first beyond it. */
const MAX_ENTRIES = 10_000;

export class IdempotencyStore {
  private readonly entries = new Map<string, { expires: number; response: unknown }>();

  constructor(private readonly ttlMs = IDEMPOTENCY_TTL_MS, private readonly now: () => number = Date.now) {}

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

  /** Remember a success. */
  set(k: string, response: unknown): void {
    this.entries.delete(k);
    this.entries.set(k, { expires: this.now() + this.ttlMs, response });
    for (const old of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break;
      this.entries.delete(old);
    }
  }
}
