/** The root-header cache is bounded by bytes: headers list every dictionary blob, so a count bound grew with the dictionary. */
import { describe, expect, it } from 'vitest';
import { cidOf, Codec, type CID } from '../commit/cid.js';
import type { ContentStore } from '../store.js';
import { canonicalJsonBytes, type IndexRoot } from './root-codec.js';
import { rememberRoot, ROOT_HEADER_BYTES, rootHeader, rootHeaderCacheSize } from './root-headers.js';

/** A root whose dictionary has `pages` pages and one filter group per 32 of them. */
function root(i: number, pages: number): IndexRoot {
  const cid = (what: string, k: number) => `bafy-${what}-${i}-${k}`;
  return {
    v: 1, ledger_id: 'l:main', index_t: i, base_t: 0, commit_id: `c${i}`, commit_time: '2026-11-27T00:00:00Z', ns: [], graphs: [], datatypes: [],
    dict: { size: pages * 1024, chunks: [], pages: Array.from({ length: pages }, (_, k) => cid('p', k)), filters: Array.from({ length: Math.ceil(pages / 32) }, (_, k) => cid('f', k)) },
    orders: { spot: null, psot: null, post: null, opst: null }, stats: {}, prev_root: i > 0 ? `r${i - 1}` : null,
  } as unknown as IndexRoot;
}

describe('root headers', () => {
  it('keeps the headers of roots within ROOT_HEADER_BYTES, newest first, and reads an evicted one again', async () => {
    const PAGES = 3_200; // a 3.3M-term dictionary: 3,200 pages + 100 filter groups per header
    const per = 512 + (PAGES + 100) * 88;
    const blobs = new Map<string, Uint8Array>();
    const cids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const r = root(i, PAGES);
      const bytes = canonicalJsonBytes(r);
      const c = (await cidOf(Codec.indexRoot, bytes)).toString();
      blobs.set(c, bytes);
      cids.push(c);
      rememberRoot(c, r);
      expect(rootHeaderCacheSize().bytes).toBeLessThanOrEqual(ROOT_HEADER_BYTES);
    }
    const kept = Math.floor(ROOT_HEADER_BYTES / per);
    // Other tests' headers may share the cache; these are the last `kept` remembered.
    expect(rootHeaderCacheSize().headers).toBeLessThanOrEqual(kept);
    let reads = 0;
    const store = { get: async (c: CID) => { reads++; return blobs.get(c.toString())!; } } as unknown as ContentStore;
    const last = await rootHeader(store, cids[99]!);
    expect(reads).toBe(0);
    expect(last!.index_t).toBe(99);
    expect(last!.dictObjects.length).toBe(PAGES + 100);
    // The first was evicted long ago: read from the store, exact, and kept again.
    const first = await rootHeader(store, cids[0]!);
    expect(reads).toBe(1);
    expect(first!.index_t).toBe(0);
    expect(first!.dictObjects[PAGES - 1]).toBe(`bafy-p-0-${PAGES - 1}`);
    expect(first!.dictObjects[PAGES]).toBe('bafy-f-0-0');
    await rootHeader(store, cids[0]!);
    expect(reads).toBe(1);
    expect(rootHeaderCacheSize().bytes).toBeLessThanOrEqual(ROOT_HEADER_BYTES);
  });
});
