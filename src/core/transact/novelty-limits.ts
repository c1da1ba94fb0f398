/** The novelty limits of replication.md §13, shared by every write path (transactions and pushes). */
import { noveltyAtMax, noveltyDeltaTooLarge } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { WriteEnv } from '../ledger/stores.js';

/**
 * Refuse a write of `delta` commit bytes on top of the ledger's novelty plus `pendingBytes` staged
 * but not yet applied: 413 when the delta alone reaches reindex_max_bytes, 503 (asking for an index
 * job) when novelty is at the maximum or the delta would cross it.
 */
export function admitNovelty(env: WriteEnv, ledger: Ledger, pendingBytes: number, delta: number): void {
  const max = env.opts.reindexMaxBytes;
  const noveltyBytes = ledger.novelty.bytes + pendingBytes;
  if (delta >= max) throw noveltyDeltaTooLarge(`the transaction's novelty delta (${delta} bytes) is at or above reindex_max_bytes (${max}); split it into smaller transactions`);
  if (noveltyBytes >= max || noveltyBytes + delta > max) {
    env.maybeIndex(ledger);
    throw noveltyAtMax(`novelty is at capacity (${noveltyBytes} of ${max} bytes); retry after indexing catches up`);
  }
}
