/**
 * Which objects a ledger owns, for the storage proxy: storage scope is per ledger, but objects of
 * every ledger share one content store (or, under a per-ledger layout, every branch of a ledger), so an object is served under `?ledger=X` only when it is
 * reachable from X's nameservice record (commit chain with transaction blobs, every index root on
 * the `prev_root` chain with its dictionaries, branches, leaves and histories, the config and
 * default-context blobs). The set is built on first use and extended incrementally when the heads
 * move (a walk stops at objects already known, and index updates are copy-on-write).
 */
import { collectReachable } from '../../core/ledger/reachable.js';
import type { ContentStore, NsRecord } from '../../core/store.js';

interface Entry { commit: string | null; index: string | null; commitT: number; set: Set<string>; busy: Promise<void> }

export class LedgerObjects {
  private readonly byLedger = new Map<string, Entry>();

  /** `contentFor`: the content store of a ledger (core/ledger/content-scope.ts). */
  constructor(private readonly contentFor: (ledgerId: string) => ContentStore) {}

  /** True when `cid` is reachable from the record's heads. */
  async has(record: NsRecord, cid: string): Promise<boolean> {
    let e = this.byLedger.get(record.ledger_id);
    // A commit_t that went down means the id was purged and created afresh: start over.
    if (!e || record.commit_t < e.commitT) {
      e = { commit: null, index: null, commitT: 0, set: new Set(), busy: Promise.resolve() };
      this.byLedger.set(record.ledger_id, e);
    }
    const entry = e;
    if (entry.commit !== record.commit_head_id || entry.index !== record.index_head_id) {
      // One walk at a time per ledger; a concurrent request waits for it instead of walking twice.
      const walk = entry.busy.then(async () => {
        if (entry.commit === record.commit_head_id && entry.index === record.index_head_id) return;
        await collectReachable(this.contentFor(record.ledger_id), record, entry.set);
        entry.commit = record.commit_head_id;
        entry.index = record.index_head_id;
        entry.commitT = Math.max(entry.commitT, record.commit_t);
      });
      entry.busy = walk.catch(() => {});
      await walk;
    }
    return entry.set.has(cid) || cid === record.config_id || cid === record.default_context;
  }

  /** Forget a ledger (dropped). */
  forget(ledgerId: string): void {
    this.byLedger.delete(ledgerId);
  }
}
