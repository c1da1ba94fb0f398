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

/**
 * Bytes of headers kept; past it the least recently remembered or read go first. A header lists
 * every dictionary blob of its root (a page per 1,024 terms), so a count bound grew with index
 * jobs × dictionary size: 10,000 headers of a 3.5M-term dictionary were up to 300 MB.
 */
export const ROOT_HEADER_BYTES = 4 * 1024 * 1024;
/** Bytes charged per dictionary blob a header lists (an array slot and, when parsed, its CID string). */
const HEADER_OBJECT_BYTES = 88;
const HEADER_BYTES = 512;
const headers = new Map<string, { h: RootHeader; bytes: number }>();
let heldBytes = 0;

/** Bytes the cached headers are charged now, and their number (tests, /stats). */
export function rootHeaderCacheSize(): { bytes: number; headers: number } { return { bytes: heldBytes, headers: headers.size }; }

function keep(cid: string, h: RootHeader): void {
  const bytes = HEADER_BYTES + h.dictObjects.length * HEADER_OBJECT_BYTES;
  const had = headers.get(cid);
  if (had) { headers.delete(cid); heldBytes -= had.bytes; }
  if (bytes > ROOT_HEADER_BYTES) return;
  headers.set(cid, { h, bytes });
  heldBytes += bytes;
  for (const [k, v] of headers) {
    if (heldBytes <= ROOT_HEADER_BYTES) break;
    headers.delete(k);
    heldBytes -= v.bytes;
  }
}

/** Cache the header of a root the caller has at hand (just written or parsed). */
export function rememberRoot(cid: string, root: IndexRoot): RootHeader {
  const h: RootHeader = {
    ledger_id: root.ledger_id, index_t: root.index_t, commit_id: root.commit_id, prev_root: root.prev_root,
    dictObjects: dictObjects(root.dict), orders: { ...root.orders }, summary: root.class_summary ?? null,
  };
  keep(cid, h);
  return h;
}

/** The header of the root at `cid`; with `tolerant`, null when it cannot be read. */
export async function rootHeader(store: ContentStore, cid: string, tolerant = false): Promise<RootHeader | null> {
  const hit = headers.get(cid);
  if (hit) {
    // Most recently used last: eviction starts with the oldest.
    headers.delete(cid);
    headers.set(cid, hit);
    return hit.h;
  }
  const bytes = tolerant ? await store.get(CID.parse(cid)).catch(() => null) : await store.get(CID.parse(cid));
  if (!bytes) return null;
  return rememberRoot(cid, parseJsonNode<IndexRoot>(bytes, 'index root'));
}
