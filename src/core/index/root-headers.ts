/**
 * What walks over index-root chains need of a root (its t, commit, predecessor, dictionary blobs and
 * order tops), cached by CID. Roots are immutable, and a full root can be megabytes (namespace table,
 * statistics), so a fork at an older commit or a garbage-collection sweep walking twenty roots would
 * otherwise read and parse tens of megabytes each time.
 */
import { CID } from 'multiformats/cid';
import type { IndexOrder } from '../flake/flake.js';
import type { ContentStore } from '../store.js';
import { dictObjects, parseJsonNode, type IndexRoot } from './root-codec.js';

/** The small part of an index root. */
export interface RootHeader {
  ledger_id: string;
  index_t: number;
  commit_id: string;
  prev_root: string | null;
  /** Every dictionary blob: old-format chunks, or pages and filter groups (dictObjects). */
  dictObjects: readonly string[];
  orders: Readonly<Record<IndexOrder, string | null>>;
  /** The root's class summary object, if it has one. */
  summary: string | null;
}

/** Most headers kept; past it the cache starts over. */
const MAX_HEADERS = 10_000;
const headers = new Map<string, RootHeader>();

/** Cache the header of a root the caller has at hand (just written or parsed). */
export function rememberRoot(cid: string, root: IndexRoot): RootHeader {
  const h: RootHeader = {
    ledger_id: root.ledger_id, index_t: root.index_t, commit_id: root.commit_id, prev_root: root.prev_root,
    dictObjects: dictObjects(root.dict), orders: { ...root.orders }, summary: root.class_summary ?? null,
  };
  if (headers.size >= MAX_HEADERS) headers.clear();
  headers.set(cid, h);
  return h;
}

/** The header of the root at `cid`; with `tolerant`, null when it cannot be read. */
export async function rootHeader(store: ContentStore, cid: string, tolerant = false): Promise<RootHeader | null> {
  const hit = headers.get(cid);
  if (hit) return hit;
  const bytes = tolerant ? await store.get(CID.parse(cid)).catch(() => null) : await store.get(CID.parse(cid));
  if (!bytes) return null;
  return rememberRoot(cid, parseJsonNode<IndexRoot>(bytes, 'index root'));
}
