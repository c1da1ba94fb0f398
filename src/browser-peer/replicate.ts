/**
 * What the browser peer keeps of a ledger beyond the objects its queries touched. `lazy`: the
 * first-parent chain of commits (one small object each), which `time` and `commit` resolve
 * against, so those answer offline for every state whose index objects were read. `full`: also
 * every object of the ledger's current index — root, branches, leaves, their histories and the
 * dictionary — so every query at every t answers offline. Both read through the peer's store, which
 * verifies each object against its CID and keeps it in IndexedDB; a walk after a commit skips the
 * subtrees it already holds (copy-on-write shares them).
 */
import { CID } from 'multiformats/cid';
import { indexArtifacts } from '../core/index/artifacts.js';
import type { Connection } from '../core/ledger/connection.js';

/** How much of the ledger the peer keeps in IndexedDB ahead of queries. */
export type ReplicateMode = 'lazy' | 'full';

/** Objects fetched at once by a full replication. */
const PARALLEL = 4;

/**
 * Bring the cache up to `mode` for `ledgerId`; `held` (kept by the caller across calls) remembers
 * the index objects already stored. Resolves with the number of objects read.
 */
export async function replicateLedger(conn: Connection, ledgerId: string, mode: ReplicateMode, held: Set<string>): Promise<number> {
  const ledger = await conn.ledger(ledgerId);
  const chain = await ledger.chainEntries();
  const read = chain.length;
  if (mode !== 'full') return read;
  const rec = await conn.ns.get(ledger.id);
  if (!rec?.index_head_id || held.has(rec.index_head_id)) return read;
  // The walk reads branches and leaves (to find their histories); the rest is fetched here.
  const idx = await indexArtifacts(conn.contentFor(ledger.id), rec.index_head_id, { skip: held });
  const todo = (idx?.objects ?? []).filter((c) => !held.has(c));
  for (let i = 0; i < todo.length; i += PARALLEL) {
    await Promise.all(todo.slice(i, i + PARALLEL).map((c) => conn.contentFor(ledger.id).get(CID.parse(c))));
  }
  for (const c of todo) held.add(c);
  held.add(rec.index_head_id);
  return read + todo.length;
}
