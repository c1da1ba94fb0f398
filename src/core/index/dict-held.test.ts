/** A paged dictionary under a small budget: interning new keys holds no page, and held pages stay under their byte bound. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cidOf, type CID } from '../commit/cid.js';
import type { ContentStore } from '../store.js';
import { PAGE_IDS } from './dict-page.js';
import { writeDictPages } from './dict-write.js';
import { DICT_PAGE_BUSY_MS, TermDict, type DictRootJson } from './dict.js';
import { LeafCache } from './tree.js';

const PAGES = 48;
const N = PAGES * PAGE_IDS;
const key = (i: number) => `<http://example.org/resource/item/${i}/with/a/longer/path>`;
const fresh = (i: number) => `"a new literal ${i} of a write"`;

/** Bytes by CID string, counting reads. */
function memStore(): ContentStore & { blobs: Map<string, Uint8Array>; reads: number } {
  const blobs = new Map<string, Uint8Array>();
  const s = {
    blobs, reads: 0,
    async put(codec: number, bytes: Uint8Array): Promise<CID> { const c = await cidOf(codec, bytes); blobs.set(c.toString(), bytes); return c; },
    async get(c: CID): Promise<Uint8Array> { s.reads++; return blobs.get(c.toString())!; },
  };
  return s as unknown as ContentStore & { blobs: Map<string, Uint8Array>; reads: number };
}

async function pagedDict(): Promise<{ root: DictRootJson; store: ReturnType<typeof memStore> }> {
  const store = memStore();
  const d = new TermDict();
  for (let i = 0; i < N; i++) d.internKey(key(i));
  return { root: await writeDictPages(store, d, null, N), store };
}

function open(root: DictRootJson, store: ReturnType<typeof memStore>, cache: LeafCache): TermDict {
  const d = new TermDict();
  d.attachBase(root, { get: async (c) => { store.reads++; return store.blobs.get(c)!; } }, cache);
  return d;
}

afterEach(() => { vi.useRealTimers(); });

describe('paged TermDict memory', () => {
  it('interns many new keys under a small cache budget without holding a page, and reads each page at most once to reject keys', async () => {
    const { root, store } = await pagedDict();
    const BUDGET = 512 * 1024;
    const cache = new LeafCache(BUDGET);
    const d = open(root, store, cache);
    const before = store.reads;
    const NEW = 20_000;
    for (let b = 0; b < NEW; b += 500) {
      const keys = Array.from({ length: 500 }, (_, i) => fresh(b + i));
      await d.resolveKeys(keys);
      for (let i = 0; i < keys.length; i++) expect(d.internKey(keys[i]!)).toBe(N + b + i);
      expect(d.memory().dictPageBytes).toBe(0);
      expect(cache.size.bytes).toBeLessThanOrEqual(BUDGET);
    }
    expect(d.size).toBe(N + NEW);
    // Bloom false positives named candidate pages; the fingerprints rejected every one of them.
    expect(d.probes.absent).toBe(NEW);
    expect(d.probes.candidates).toBeGreaterThan(0);
    expect(d.probes.pagesRead).toBe(0);
    // Filter groups plus at most one read per page (to learn its fingerprints).
    expect(store.reads - before).toBeLessThanOrEqual(root.filters!.length + PAGES);
    // Keys in pages are still found (their pages are held: they are about to be used).
    await d.resolveKeys([key(5), key(N - 1), key(30 * PAGE_IDS + 7)]);
    expect([d.idOfKey(key(5)), d.idOfKey(key(N - 1)), d.idOfKey(key(30 * PAGE_IDS + 7))]).toEqual([5, N - 1, 30 * PAGE_IDS + 7]);
    expect(d.idOfKey(fresh(0))).toBe(N);
    // An absent answer is remembered until the base changes: staging's lookup, resolveKeys and the
    // intern after it probe the filters once between them.
    expect(d.idOfKey(fresh(NEW + 1))).toBeUndefined();
    await d.resolveKeys([fresh(NEW + 1)]);
    expect(d.internKey(fresh(NEW + 1))).toBe(N + NEW);
    expect(d.probes.absent).toBe(NEW + 1);
  });

  it('bounds the pages held for the grace window by a quarter of the cache budget', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const { root, store } = await pagedDict();
    const cache = new LeafCache(2 * 1024 * 1024);
    const d = open(root, store, cache);
    // Decode one id of every page: each is held while in use.
    for (let k = 0; k < PAGES; k++) {
      await d.ensureIds([[k * PAGE_IDS]], 1);
      expect(d.key(k * PAGE_IDS)).toBe(key(k * PAGE_IDS));
    }
    const all = d.memory().dictPageBytes;
    expect(all).toBeGreaterThan(cache.holdBound.max);
    // Within the grace window, but past the busy time: the next load sweeps down to 3/4 of the bound.
    vi.setSystemTime(1_000_000 + DICT_PAGE_BUSY_MS + 1_000);
    await d.ensureIds([[0]], 1);
    expect(d.key(0)).toBe(key(0));
    expect(cache.holdBound.bytes()).toBe(d.memory().dictPageBytes);
    expect(d.memory().dictPageBytes).toBeLessThanOrEqual(cache.holdBound.max);
    expect(d.memory().dictPageBytes).toBeGreaterThan(0);
    // Past the grace window only the page used now stays.
    vi.setSystemTime(1_000_000 + 40_000);
    await d.ensureIds([[PAGE_IDS]], 1);
    expect(d.key(PAGE_IDS)).toBe(key(PAGE_IDS));
    expect(d.memory().dictPageBytes).toBeLessThan(all / PAGES * 2);
  });

  it('keeps the pages a large delta becomes within the bound when they are attached (a bulk load, an index job)', async () => {
    const store = memStore();
    const d = new TermDict();
    for (let i = 0; i < N; i++) d.internKey(key(i));
    const root = await writeDictPages(store, d, null, N);
    const cache = new LeafCache(2 * 1024 * 1024);
    d.attachBase(root, { get: async (c) => store.blobs.get(c)! }, cache);
    // Every page was made from the delta just now; without a sweep here all 48 stayed held.
    expect(d.memory().dictPageBytes).toBeGreaterThan(0);
    expect(d.memory().dictPageBytes).toBeLessThanOrEqual(cache.holdBound.max);
    expect(cache.holdBound.bytes()).toBe(d.memory().dictPageBytes);
    // Ids of pages no longer held are still decoded (from the cache or the store).
    await d.ensureIds([[0], [N - 1]], 2);
    expect([d.key(0), d.key(N - 1)]).toEqual([key(0), key(N - 1)]);
  });

  it('keeps page fingerprints in the shared cache under its budget; after they are evicted lookups stay exact', async () => {
    const { root, store } = await pagedDict();
    // Fingerprints of all 48 pages take 48 × (4 KiB + 192) bytes; the cache holds about half of them.
    const BUDGET = 100 * 1024;
    const cache = new LeafCache(BUDGET);
    const d = open(root, store, cache);
    const filterBytes = d.memory().dictBytes;
    const NEW = 3_000;
    for (let b = 0; b < NEW; b += 500) {
      const keys = Array.from({ length: 500 }, (_, i) => fresh(b + i));
      await d.resolveKeys(keys);
      for (let i = 0; i < keys.length; i++) expect(d.internKey(keys[i]!)).toBe(N + b + i);
      expect(cache.size.bytes).toBeLessThanOrEqual(BUDGET);
    }
    // The fingerprints are the cache's, not the dictionary's: the same work on a dictionary without
    // a shared cache counts exactly 4 bytes per key of every page it learned them for on top.
    const own = new TermDict();
    own.attachBase(root, { get: async (c) => store.blobs.get(c)! }, null);
    expect(own.memory().dictBytes).toBe(filterBytes);
    for (let b = 0; b < NEW; b += 500) {
      const keys = Array.from({ length: 500 }, (_, i) => fresh(b + i));
      await own.resolveKeys(keys);
      for (const k of keys) own.internKey(k);
    }
    const extra = own.memory().dictBytes - d.memory().dictBytes;
    expect(extra).toBeGreaterThan(0);
    expect(extra % (PAGE_IDS * 4)).toBe(0);
    // Push every fingerprint out of the cache; keys in pages and absent keys are still answered exactly.
    for (let i = 0; i < 8; i++) cache.setObject(`filler-${i}`, {}, BUDGET / 4);
    const reads = store.reads;
    await d.resolveKeys([key(7), key(40 * PAGE_IDS + 3), fresh(NEW + 5)]);
    expect(store.reads).toBeGreaterThan(reads);
    expect([d.idOfKey(key(7)), d.idOfKey(key(40 * PAGE_IDS + 3)), d.idOfKey(fresh(NEW + 5))]).toEqual([7, 40 * PAGE_IDS + 3, undefined]);
    expect(d.internKey(fresh(NEW + 5))).toBe(N + NEW);
    expect(d.internKey(fresh(0))).toBe(N);
    // A synchronous lookup that needs an evicted fingerprint misses (DictMiss) and resolves, never answers wrongly.
    for (let i = 0; i < 8; i++) cache.setObject(`filler2-${i}`, {}, BUDGET / 4);
    expect(await d.lookupKey(key(20 * PAGE_IDS + 9))).toBe(20 * PAGE_IDS + 9);
    expect(await d.lookupKey(fresh(NEW + 77))).toBeUndefined();
  });
});
