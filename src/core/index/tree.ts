/**
 * The persisted index of one snapshot: root, per-order leaf references (branch nodes flattened on
 * load) and a shared cache of decoded leaves. Leaves are fetched by CID on first use, so a peer only
 * pulls the leaves its queries touch.
 */
import { CID } from 'multiformats/cid';
import { ORDERS, type IndexOrder } from '../flake/flake.js';
import type { ContentStore } from '../store.js';
import { HoldBound } from './dict-held.js';
import { decodeLeaf, type DecodedLeaf } from './leaf-codec.js';
import { parseJsonNode, type BranchNode, type IndexRoot } from './root-codec.js';
import type { KeyPrefix, Run } from './run.js';

export interface LeafRef {
  first: number[]; last: number[]; rows: number; cid: CID;
  /** Memo of this leaf's cache entry, so repeated lookups skip the CID-keyed map (cleared on eviction). */
  entry?: LeafEntry;
}

/** A decoded leaf in the cache; `leaf` becomes undefined when evicted. `used` is its CLOCK bit. */
export interface LeafEntry { leaf: DecodedLeaf | undefined; bytes: number; used?: boolean }

/** Compare a key (5 columns) with a prefix on the prefix's columns. */
export function cmpKeyPrefix(key: number[], prefix: KeyPrefix): number {
  for (let c = 0; c < prefix.length; c++) {
    const d = key[c]! - prefix[c]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Default budget of the decoded-leaf cache of a connection. */
export const DEFAULT_LEAF_CACHE_BYTES = 128 * 1024 * 1024;

/** Bytes a decoded leaf holds: the buffers under its columns (shared buffers counted once) plus the objects. */
export function decodedLeafBytes(leaf: DecodedLeaf): number {
  const r = leaf.run;
  const seen = new Set<ArrayBufferLike>();
  let n = 256;
  for (const col of [r.g, r.s, r.p, r.o, r.m, r.t, r.op]) {
    if (seen.has(col.buffer)) continue;
    seen.add(col.buffer);
    n += col.buffer.byteLength;
  }
  return n;
}

/**
 * Decoded leaves shared by every tree of a connection, bounded by the bytes they hold
 * (--leaf-cache-bytes). Eviction is CLOCK (second chance): entries sit in insertion order; a hit
 * sets the entry's `used` bit, and eviction moves a used entry to the back (clearing the bit)
 * instead of dropping it, so leaves in use survive while leaves of superseded index trees age out.
 */
export class LeafCache {
  private readonly map = new Map<string, LeafEntry>();
  private bytes = 0;
  /** Dictionary pages held past this budget for their grace window are bounded by a quarter of it (docs/memory.md). */
  readonly holdBound: HoldBound;
  constructor(readonly maxBytes = DEFAULT_LEAF_CACHE_BYTES) {
    this.holdBound = new HoldBound(Math.floor(maxBytes / 4));
  }

  /** Bytes held now, and the number of leaves. */
  get size(): { bytes: number; leaves: number } { return { bytes: this.bytes, leaves: this.map.size }; }

  /** The entry of a decoded object, if cached (a hit marks it used). */
  entry(cid: CID): LeafEntry | undefined {
    const e = this.map.get(cid.toString());
    if (e) e.used = true;
    return e;
  }
  get(cid: CID): DecodedLeaf | undefined {
    return this.entry(cid)?.leaf;
  }
  set(cid: CID, leaf: DecodedLeaf, bytes = decodedLeafBytes(leaf)): void {
    this.add(cid.toString(), leaf, bytes);
  }

  /** A decoded dictionary page under its CID string, if cached (shares the budget with leaves). */
  getObject(key: string): unknown {
    const e = this.map.get(key);
    if (e) e.used = true;
    return e?.leaf;
  }
  /** Cache a decoded dictionary page under its CID string, charged `bytes`. */
  setObject(key: string, value: object, bytes: number): void {
    this.add(key, value as DecodedLeaf, bytes);
  }

  private add(k: string, leaf: DecodedLeaf, bytes: number): void {
    if (this.map.has(k)) return;
    this.map.set(k, { leaf, bytes, used: false });
    this.bytes += bytes;
    // Each visit either evicts an entry or clears its bit and moves it back, so this ends within
    // two rounds; the entry just added is never the one evicted.
    for (const [key, v] of this.map) {
      if (this.bytes <= this.maxBytes) break;
      if (key === k) continue;
      this.map.delete(key);
      if (v.used) {
        v.used = false;
        this.map.set(key, v);
        continue;
      }
      this.bytes -= v.bytes;
      v.leaf = undefined;
    }
  }
}

export class IndexTree {
  private readonly pending = new Map<string, Promise<DecodedLeaf>>();

  constructor(
    readonly store: ContentStore,
    readonly rootCid: CID,
    readonly root: IndexRoot,
    readonly leaves: Record<IndexOrder, LeafRef[]>,
    private readonly cache: LeafCache,
  ) {}

  /** The shared cache of decoded objects this tree reads through (dictionary pages share it). */
  get objects(): LeafCache { return this.cache; }

  /** Load a root and its branch nodes. */
  static async load(store: ContentStore, rootCid: CID, cache: LeafCache): Promise<IndexTree> {
    return IndexTree.fromRoot(store, rootCid, parseJsonNode<IndexRoot>(await store.get(rootCid), 'index root'), cache);
  }

  /** The tree of an already parsed root: its branch nodes, the four orders read concurrently (a peer reads them over the network). */
  static async fromRoot(store: ContentStore, rootCid: CID, root: IndexRoot, cache: LeafCache): Promise<IndexTree> {
    const lists = await Promise.all(ORDERS.map((order) => {
      const top = root.orders[order];
      return top ? flatten(store, CID.parse(top)) : Promise.resolve([] as LeafRef[]);
    }));
    const leaves = {} as Record<IndexOrder, LeafRef[]>;
    ORDERS.forEach((order, i) => { leaves[order] = lists[i]!; });
    return new IndexTree(store, rootCid, root, leaves, cache);
  }

  get t(): number { return this.root.index_t; }

  /** Index range [lo, hi) of the leaves of `order` that may hold keys starting with `prefix`. */
  leafSpan(order: IndexOrder, prefix: KeyPrefix): [number, number] {
    const refs = this.leaves[order];
    let lo = 0, hi = refs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmpKeyPrefix(refs[mid]!.last, prefix) < 0) lo = mid + 1; else hi = mid;
    }
    let end = lo;
    while (end < refs.length && cmpKeyPrefix(refs[end]!.first, prefix) <= 0) end++;
    return [lo, end];
  }

  /** The decoded leaf (current rows and history pointer). */
  async leaf(ref: LeafRef): Promise<DecodedLeaf> {
    return this.fetch(ref.cid);
  }

  /** The leaf if already decoded (sync, for estimates). */
  cachedLeaf(ref: LeafRef): DecodedLeaf | undefined {
    const memo = ref.entry;
    if (memo?.leaf !== undefined) {
      memo.used = true;
      return memo.leaf;
    }
    const e = this.cache.entry(ref.cid);
    if (e) ref.entry = e;
    return e?.leaf;
  }

  /** The history run of a leaf if decoded already (sync), else undefined. */
  cachedHistory(leaf: DecodedLeaf): Run | undefined {
    return leaf.history ? this.cache.get(leaf.history)?.run : undefined;
  }

  /** The history run of a leaf (events older than the current rows), empty when none. */
  async history(leaf: DecodedLeaf): Promise<Run | null> {
    if (!leaf.history) return null;
    return (await this.fetch(leaf.history)).run;
  }

  private async fetch(cid: CID): Promise<DecodedLeaf> {
    const hit = this.cache.get(cid);
    if (hit) return hit;
    const k = cid.toString();
    let p = this.pending.get(k);
    if (!p) {
      p = this.store.get(cid).then((bytes) => {
        const leaf = decodeLeaf(bytes);
        this.cache.set(cid, leaf);
        return leaf;
      }).finally(() => this.pending.delete(k));
      this.pending.set(k, p);
    }
    return p;
  }
}

async function flatten(store: ContentStore, cid: CID): Promise<LeafRef[]> {
  const node = parseJsonNode<BranchNode>(await store.get(cid), 'index branch');
  const out: LeafRef[] = [];
  for (const c of node.children) {
    if (node.level === 1) out.push({ first: c.first, last: c.last, rows: c.rows, cid: CID.parse(c.cid) });
    else out.push(...(await flatten(store, CID.parse(c.cid))));
  }
  return out;
}
