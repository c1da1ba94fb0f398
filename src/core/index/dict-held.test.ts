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
    const cache = new LeafCache(512 * 1024);
    const d = open(root, store, cache);
    const before = store.reads;
    const NEW = 20_000;
    for (let b = 0; b < NEW; b += 500) {
      const keys = Array.from({ length: 500 }, (_, i) => fresh(b + i));
      await d.resolveKeys(keys);
      for (let i = 0; i < keys.length; i++) expect(d.internKey(keys[i]!)).toBe(N + b + i);
      expect(d.memory().dictPageBytes).toBe(0);
      expect(cache.size.bytes).toBeLessThanOrEqual(512 * 1024);
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
});
