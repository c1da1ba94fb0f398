/**
 * Which objects belong to a ledger: everything reachable from its nameservice record (hard drop
 * deletes them; the storage proxy serves only them under that ledger's scope; index garbage
 * collection keeps them).
 */
import { CID } from 'multiformats/cid';
import { decodeEnvelope } from '../commit/commit-codec.js';
import { indexArtifacts } from '../index/artifacts.js';
import type { ContentStore, NsRecord } from '../store.js';
import type { LedgerStores } from './stores.js';

/**
 * Add to `out` the CID of every object reachable from a record: its commits and index objects
 * (collectCommits, collectIndex). A walk stops at objects already in `out`, so calling it again
 * with the same set after the head moved reads only what is new (copy-on-write shares the rest).
 */
export async function collectReachable(store: ContentStore, r: NsRecord, out: Set<string>): Promise<void> {
  await collectCommits(store, r, out);
  await collectIndex(store, r, out);
}

/**
 * Every commit reachable through any parent (merged-in commits belong to the branch that merged
 * them) with its transaction blob, and the record's default-context blob.
 */
export async function collectCommits(store: ContentStore, r: NsRecord, out: Set<string>): Promise<void> {
  if (r.default_context) out.add(r.default_context);
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
}

/**
 * Every index root on the `prev_root` chain of the record's index head (the ledger's index history:
 * a fork at an older commit starts from one of them) with its dictionary pages and filter groups
 * (old roots: chunks), branch nodes, leaves and leaf histories. `histories` memoizes leaf → history across walks.
 */
export async function collectIndex(store: ContentStore, r: NsRecord, out: Set<string>, histories?: Map<string, string | null>): Promise<void> {
  let root: string | null = r.index_head_id;
  while (root && !out.has(root)) {
    const idx = await indexArtifacts(store, root, { tolerant: true, skip: out, histories });
    out.add(root);
    if (!idx) break;
    for (const c of idx.objects) out.add(c);
    root = idx.root.prev_root;
  }
}

/**
 * Everything reachable from every record of the nameservice in content partition `partition`
 * (content-scope.ts) except `except`. Under the shared layout that is every ledger name, since
 * content addressing shares objects across ledgers too (a restore into another name on the same
 * storage shares every commit; equal data gives equal leaves); under a per-ledger layout only the
 * branches of one ledger share its objects. `index` limits the walk to index objects.
 */
export async function reachableFromOthers(stores: Pick<LedgerStores, 'contentFor' | 'partitionOf' | 'ns'>, partition: string, except: ReadonlySet<string>, what: 'all' | 'index', histories?: Map<string, string | null>): Promise<Set<string>> {
  const keep = new Set<string>();
  for (const r of await stores.ns.list()) {
    if (except.has(r.ledger_id) || stores.partitionOf(r.ledger_id) !== partition) continue;
    const store = stores.contentFor(r.ledger_id);
    if (what === 'all') await collectCommits(store, r, keep);
    await collectIndex(store, r, keep, histories);
  }
  return keep;
}
