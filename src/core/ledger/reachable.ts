/**
 * Which objects belong to a ledger: everything reachable from its nameservice record (hard drop
 * deletes them; the storage proxy serves only them under that ledger's scope).
 */
import { CID } from 'multiformats/cid';
import { decodeEnvelope } from '../commit/commit-codec.js';
import { indexArtifacts } from '../index/artifacts.js';
import type { ContentStore, NsRecord } from '../store.js';

/**
 * Add to `out` the CID of every object reachable from a record: every commit reachable through any
 * parent (merged-in commits belong to the branch that merged them) with transaction blobs, and every index root on its `prev_root` chain with dictionary pages (or old-format chunks), branch
 * nodes, leaves and leaf histories. A walk stops at objects already in `out`, so calling it again
 * with the same set after the head moved reads only what is new (copy-on-write shares the rest).
 */
export async function collectReachable(store: ContentStore, r: NsRecord, out: Set<string>): Promise<void> {
  const stack: CID[] = r.commit_head_id ? [CID.parse(r.commit_head_id)] : [];
  while (stack.length > 0) {
    const cur = stack.pop()!;
    if (out.has(cur.toString())) continue;
    out.add(cur.toString());
    const bytes = await store.get(cur).catch(() => null);
    if (!bytes) continue;
    const env = decodeEnvelope(bytes);
    if (env.txn) out.add(env.txn.toString());
    for (let k = env.parents.length - 1; k >= 0; k--) stack.push(env.parents[k]!);
  }
  let root: string | null = r.index_head_id;
  while (root && !out.has(root)) {
    const idx = await indexArtifacts(store, root, { tolerant: true, skip: out });
    out.add(root);
    if (!idx) break;
    for (const c of idx.objects) out.add(c);
    root = idx.root.prev_root;
  }
}
