/**
 * The objects of one index root, found by walking it: dictionary pages and filter groups (old
 * roots: chunks), leaves with their history blobs, branch nodes, the class summary and the root. Packs send them (minus those of the receiver's root) and hard
 * drop deletes them. Copy-on-write makes the diff cheap: a branch the other root also holds is a
 * whole shared subtree, so it is not walked.
 */
import { CID } from 'multiformats/cid';
import type { ContentStore } from '../store.js';
import { leafHistory } from './leaf-codec.js';
import { parseJsonNode, type BranchNode } from './root-codec.js';
import { rootHeader, type RootHeader } from './root-headers.js';

/** An index's objects in pack order: dictionaries and leaves, then branches (children first), the class summary, the root last. */
export interface IndexArtifacts { root: RootHeader; objects: string[] }

export interface WalkOptions {
  /** Objects the receiver holds already: shared subtrees are skipped. */
  skip?: ReadonlySet<string>;
  /** Leave out objects that cannot be read instead of failing (hard drop of damaged storage). */
  tolerant?: boolean;
  /** Memo of leaf CID → its history leaf's CID (leaves are immutable), sparing a leaf read per walk. */
  histories?: Map<string, string | null>;
}

/** Most leaves a history memo keeps before it starts over. */
const MAX_MEMO = 1_000_000;

async function read(store: ContentStore, cid: string, tolerant: boolean): Promise<Uint8Array | null> {
  if (!tolerant) return store.get(CID.parse(cid));
  return store.get(CID.parse(cid)).catch(() => null);
}

/** Every object of the index rooted at `rootCid` not in `opts.skip`. */
export async function indexArtifacts(store: ContentStore, rootCid: string, opts: WalkOptions = {}): Promise<IndexArtifacts | null> {
  const skip = opts.skip ?? new Set<string>();
  const tolerant = !!opts.tolerant;
  const root = await rootHeader(store, rootCid, tolerant);
  if (!root) return null;
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
      let h = opts.histories?.get(c.cid);
      if (h === undefined) {
        const leaf = await read(store, c.cid, tolerant);
        h = leaf ? leafHistory(leaf)?.toString() ?? null : null;
        if (leaf && opts.histories) {
          if (opts.histories.size >= MAX_MEMO) opts.histories.clear();
          opts.histories.set(c.cid, h);
        }
      }
      if (h && !skip.has(h)) leaves.push(h);
    }
    branches.push(cid);
  };
  for (const top of Object.values(root.orders)) if (top) await walk(top);
  const dicts = root.dictObjects.filter((c) => !skip.has(c));
  const summary = root.summary && !skip.has(root.summary) ? [root.summary] : [];
  return { root, objects: [...dicts, ...leaves, ...branches, ...summary, ...(skip.has(rootCid) ? [] : [rootCid])] };
}
