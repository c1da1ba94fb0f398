/**
 * Dropping ledgers (http-api.md §3): soft drop retracts every branch record; hard drop deletes every
 * object reachable from the branches' commit chains and index roots, then purges the records
 * leaf-first (child branches before their sources).
 */
import { CID } from 'multiformats/cid';
import { internalError } from '../errors.js';
import type { NsRecord } from '../store.js';
import { collectReachable, reachableFromOthers } from './reachable.js';
import type { LedgerStores } from './stores.js';

/** Drop response (http-api.md §2.8). */
export interface DropResponse { ledger_id: string; status: 'dropped' | 'already_retracted' | 'not_found'; files_deleted: number; branches_dropped: string[] }

/** Drop all branches of a ledger name. */
export async function dropLedger(conn: LedgerStores, name: string, records: NsRecord[], hard: boolean): Promise<DropResponse> {
  const ids = records.map((r) => r.ledger_id).sort();
  if (!hard) {
    const live = records.filter((r) => !r.retracted);
    if (live.length === 0) return { ledger_id: name, status: 'already_retracted', files_deleted: 0, branches_dropped: [] };
    for (const r of live) {
      const ok = await conn.ns.compareAndSet(r.ledger_id, r, { ...r, retracted: true });
      if (!ok) throw internalError(`drop of ${r.ledger_id} raced with a write; retry`);
    }
    return { ledger_id: name, status: 'dropped', files_deleted: 0, branches_dropped: live.map((r) => r.ledger_id).sort() };
  }
  const objects = new Set<string>();
  // Every branch of a name shares one content partition (content-scope.ts).
  const content = conn.contentFor(name);
  for (const r of records) await collectReachable(content, r, objects);
  // Objects another ledger of the partition also reaches stay (under the shared layout a restore
  // into another name shares every commit), and the deletes wait for running index jobs (one may
  // be writing an equal object).
  const remove = async (): Promise<number> => {
    const keep = await reachableFromOthers(conn, conn.partitionOf(name), new Set(ids), 'all');
    let deleted = 0;
    for (const c of objects) if (!keep.has(c) && (await content.delete(CID.parse(c)))) deleted++;
    return deleted;
  };
  const deleted = conn.exclusively ? await conn.exclusively(remove) : await remove();
  // Leaf-first: branches created from another branch go before their source.
  const order = [...records].sort((a, b) => Number(!!b.source_branch) - Number(!!a.source_branch));
  for (const r of order) {
    if (!(await conn.ns.delete(r.ledger_id)) && (await conn.ns.get(r.ledger_id))) {
      throw internalError(`could not purge nameservice record ${r.ledger_id}; retry the drop`);
    }
  }
  return { ledger_id: name, status: 'dropped', files_deleted: deleted, branches_dropped: ids };
}
