/**
 * The objects of one index root, found by walking it: dictionary chunks, leaves with their history
 * blobs, branch nodes and the root. Packs send them (minus those of the receiver's root) and hard
 * drop deletes them. Copy-on-write makes the diff cheap: a branch the other root also holds is a
 * whole shared subtree, so it is not walked.
 */
import { CID } from 'multiformats/cid';
import type { ContentStore } from '../store.js';
import { leafHistory } from './leaf-codec.js';
import { dictObjects, parseJsonNode, type BranchNode, type IndexRoot } from './root-codec.js';

/** An index's objects in pack order: dictionaries and leaves, then branches (children first), the root last. */
export interface IndexArtifacts { root: IndexRoot; objects: string[] }

export interface WalkOptions {
  /** Objects the receiver holds already: shared subtrees are skipped. */
  skip?: ReadonlySet<string>;
  /** Leave out objects that cannot be read instead of failing (hard drop of damaged storage). */
  tolerant?: boolean;
}

async function read(store: ContentStore, cid: string, tolerant: boolean): Promise<Uint8Array | null> {
  if (!tolerant) return store.get(CID.parse(cid));
  return store.get(CID.parse(cid)).catch(() => null);
}

/** Every object of the index rooted at `rootCid` not in `opts.skip`. */
export async function indexArtifacts(store: ContentStore, rootCid: string, opts: WalkOptions = {}): Promise<IndexArtifacts | null> {
  const skip = opts.skip ?? new Set<string>();
  const tolerant = !!opts.tolerant;
  const rootBytes = await read(store, rootCid, tolerant);
  if (!rootBytes) return null;
  const root = parseJsonNode<IndexRoot>(rootBytes, 'index root');
  const leaves: string[] = [];
  const branches: string[] = [];
  const seen = new Set<string>();
  const walk = async (cid: string): Promise<void> => {
    if (skip.has(cid) || seen.has(cid)) return;
    seen.add(cid);
    const bytes = await read(store, cid, tolerant);
    if (!bytes) return;
    const node = parseJsonNode<BranchNode>(bytes, 'index branch');
    for (const c of node.children) {
      if (node.level > 1) { await walk(c.cid); continue; }
      if (skip.has(c.cid) || seen.has(c.cid)) continue;
      seen.add(c.cid);
      leaves.push(c.cid);
      const leaf = await read(store, c.cid, tolerant);
      const h = leaf ? leafHistory(leaf) : null;
      if (h && !skip.has(h.toString())) leaves.push(h.toString());
    }
    branches.push(cid);
  };
  for (const top of Object.values(root.orders)) if (top) await walk(top);
  const dicts = dictObjects(root.dict).filter((c) => !skip.has(c));
  return { root, objects: [...dicts, ...leaves, ...branches, ...(skip.has(rootCid) ? [] : [rootCid])] };
}
