/**
 * Which objects belong to a ledger: everything reachable from its nameservice record (hard drop
 * deletes them; the storage proxy serves only them under that ledger's scope).
 */
import { CID } from 'multiformats/cid';
import { decodeEnvelope } from '../commit/commit-codec.js';
import { parseJsonNode, type BranchNode, type IndexRoot } from '../index/root-codec.js';
import { decodeLeaf } from '../index/leaf-codec.js';
import type { ContentStore, NsRecord } from '../store.js';

/**
 * Add to `out` the CID of every object reachable from a record: its first-parent commit chain with
 * transaction blobs, and every index root on its `prev_root` chain with dictionary chunks, branch
 * nodes, leaves and leaf histories. A walk stops at objects already in `out`, so calling it again
 * with the same set after the head moved reads only what is new (copy-on-write shares the rest).
 */
export async function collectReachable(store: ContentStore, r: NsRecord, out: Set<string>): Promise<void> {
  let cur: CID | null = r.commit_head_id ? CID.parse(r.commit_head_id) : null;
  while (cur && !out.has(cur.toString())) {
    out.add(cur.toString());
    const bytes = await store.get(cur).catch(() => null);
    if (!bytes) break;
    const env = decodeEnvelope(bytes);
    if (env.txn) out.add(env.txn.toString());
    cur = env.parents[0] ?? null;
  }
  let root: string | null = r.index_head_id;
  while (root && !out.has(root)) {
    out.add(root);
    const bytes = await store.get(CID.parse(root)).catch(() => null);
    if (!bytes) break;
    const idx = parseJsonNode<IndexRoot>(bytes, 'index root');
    for (const c of idx.dict.chunks) out.add(c);
    for (const top of Object.values(idx.orders)) if (top) await collectBranch(store, top, out);
    root = idx.prev_root;
  }
}

async function collectBranch(store: ContentStore, cid: string, out: Set<string>): Promise<void> {
  if (out.has(cid)) return;
  out.add(cid);
  const bytes = await store.get(CID.parse(cid)).catch(() => null);
  if (!bytes) return;
  const node = parseJsonNode<BranchNode>(bytes, 'index branch');
  for (const c of node.children) {
    if (node.level > 1) { await collectBranch(store, c.cid, out); continue; }
    if (out.has(c.cid)) continue;
    out.add(c.cid);
    const leaf = await store.get(CID.parse(c.cid)).catch(() => null);
    if (!leaf) continue;
    const h = decodeLeaf(leaf).history;
    if (h) out.add(h.toString());
  }
}
