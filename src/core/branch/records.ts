/** Nameservice record updates shared by branch creation and drop: the `branches` child count. */
import { internalError } from '../errors.js';
import { sameRecordVersion, type NsRecord } from '../store.js';
import type { BranchEnv } from './env.js';

/**
 * Add `delta` to a record's `branches` count with compare-and-set (retrying while commits move it).
 * A live branch is updated under its write lock so the loaded ledger's record stays current.
 */
export async function adjustChildren(env: BranchEnv, id: string, delta: number): Promise<NsRecord | null> {
  const first = await env.ns.get(id);
  if (!first) return null;
  const ledger = first.retracted ? null : await env.ledger(id).catch(() => null);
  const update = async (): Promise<NsRecord | null> => {
    for (let attempt = 0; attempt < 32; attempt++) {
      const cur = await env.ns.get(id);
      if (!cur) return null;
      const n = Math.max(0, (cur.branches ?? 0) + delta);
      const next: NsRecord = { ...cur };
      if (n > 0) next.branches = n; else delete next.branches;
      if (await env.ns.compareAndSet(id, cur, next)) {
        if (ledger && sameRecordVersion(ledger.record, cur)) ledger.record = next;
        return next;
      }
    }
    throw internalError(`could not update the child count of ${id}: the nameservice kept changing; retry`);
  };
  return ledger ? ledger.lock.run(update) : update();
}
