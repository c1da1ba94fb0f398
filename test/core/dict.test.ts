import { CID } from 'multiformats/cid';
import { describe, expect, it } from 'vitest';
import { MemoryContentStore } from '../../src/storage/memory-store.js';
import { decodeDictPage, encodeDictPage, PAGE_IDS } from '../../src/core/index/dict-page.js';
import { writeDictPages } from '../../src/core/index/dict-write.js';
import { isDictMiss, TermDict, type DictRootJson } from '../../src/core/index/dict.js';
import { LeafCache } from '../../src/core/index/tree.js';

const key = (i: number) => (i % 3 === 0 ? `"v${i}|http://www.w3.org/2001/XMLSchema#string` : i % 3 === 1 ? `http://example.org/resource/${i}` : `_:b${i}`);

async function paged(n: number, cacheBytes = 1 << 30, grace = 60_000) {
  const store = new MemoryContentStore();
  const reads = { n: 0 };
  const src = { get: (c: string) => { reads.n++; return store.get(CID.parse(c)); } };
  const writer = new TermDict();
  for (let i = 0; i < n; i++) writer.internKey(key(i));
  const root = await writeDictPages(store, writer, null, n);
  const cache = new LeafCache(cacheBytes);
  const dict = new TermDict(undefined, grace);
  dict.attachBase(root, src, cache);
  return { store, src, writer, root, cache, dict, reads };
}

describe('dictionary pages', () => {
  it('front-codes keys losslessly, surrogate pairs and empty keys included', () => {
    const keys = ['http://a/x', 'http://a/xy', 'http://a/x\u{1F600}a', 'http://a/x\u{1F600}b', '', '"é|http://d', 'http://a/x'];
    const { from, keys: back } = decodeDictPage(encodeDictPage(4096, keys));
    expect(from).toBe(4096);
    expect(back).toEqual(keys);
  });

  it('opens on the root alone, then serves ids and keys from pages loaded on demand', async () => {
    const n = PAGE_IDS * 2 + 100;
    const { root, dict, reads } = await paged(n);
    expect(root.pages).toHaveLength(3);
    expect(root.filters).toHaveLength(1);
    expect(root.chunks).toEqual([]);
    expect(dict.size).toBe(n);
    expect(dict.baseSize).toBe(n);
    // Nothing is loaded yet: lookups say what they need.
    expect(() => dict.key(5)).toThrow(expect.objectContaining({ status: 503 }));
    let miss: unknown;
    try { dict.idOfKey(key(PAGE_IDS + 7)); } catch (e) { miss = e; }
    expect(isDictMiss(miss)).toBe(true);
    await dict.ensureIds([Int32Array.of(5, PAGE_IDS * 2 + 99)], 2);
    expect(dict.key(5)).toBe(key(5));
    expect(dict.key(PAGE_IDS * 2 + 99)).toBe(key(PAGE_IDS * 2 + 99));
    expect(dict.term(4)).toEqual({ termType: 'NamedNode', value: 'http://example.org/resource/4' });
    expect(reads.n).toBe(2);
    await dict.resolveKeys([key(PAGE_IDS + 7), 'http://example.org/absent']);
    expect(dict.idOfKey(key(PAGE_IDS + 7))).toBe(PAGE_IDS + 7);
    expect(dict.idOfKey('http://example.org/absent')).toBeUndefined();
    // One filter group and the one page whose filter matched.
    expect(reads.n).toBe(4);
    // New keys go to the delta with the next ids.
    expect(dict.internKey('http://example.org/new')).toBe(n);
    expect(dict.key(n)).toBe('http://example.org/new');
  });

  it('folds the delta into pages: the tail page and filter group are rewritten, earlier pages shared', async () => {
    const n = PAGE_IDS + 10;
    const { root, dict, src, cache, store } = await paged(n);
    await dict.resolveKeys([key(1)]);
    for (let i = n; i < n + PAGE_IDS; i++) dict.internKey(key(i));
    const next = await writeDictPages(store, dict, root, dict.size);
    expect(next.pages![0]).toBe(root.pages![0]);
    expect(next.pages![1]).not.toBe(root.pages![1]);
    expect(next.pages).toHaveLength(3);
    dict.attachBase(next, src, cache);
    expect(dict.baseSize).toBe(n + PAGE_IDS);
    // The same answers as a dictionary opened afresh on the new root.
    const fresh = new TermDict();
    fresh.attachBase(next, src, new LeafCache());
    const probe = [0, PAGE_IDS - 1, PAGE_IDS, n - 1, n, n + PAGE_IDS - 1];
    for (const d of [dict, fresh]) {
      await d.ensureIds([Int32Array.from(probe)], probe.length);
      await d.resolveKeys(probe.map(key));
      for (const id of probe) {
        expect(d.key(id)).toBe(key(id));
        expect(d.idOfKey(key(id))).toBe(id);
      }
    }
    // Filters extended in memory equal the persisted ones.
    expect(await dict.filterWords()).toEqual(await fresh.filterWords());
  });

  it('drops pages no longer in use when the shared cache evicts them, and loads them again', async () => {
    const { dict } = await paged(PAGE_IDS * 3, 1, 0);
    await dict.ensureIds([Int32Array.of(1)], 1);
    expect(dict.key(1)).toBe(key(1));
    await new Promise((r) => setTimeout(r, 1100));
    // The sweep runs on the next load; the tiny shared cache kept nothing but the newest page.
    await dict.ensureIds([Int32Array.of(PAGE_IDS * 2)], 1);
    await dict.ensureIds([Int32Array.of(PAGE_IDS)], 1);
    expect(() => dict.key(1)).toThrow(expect.objectContaining({ status: 503 }));
    expect(dict.memory().dictPageBytes).toBeLessThan(600_000); // two of the three pages
    await dict.ensureIds([Int32Array.of(1)], 1);
    expect(dict.key(1)).toBe(key(1));
  });

  it('refuses a root that does not fit the dictionary', async () => {
    const { root, src } = await paged(10);
    const d = new TermDict();
    d.internKey('x');
    expect(() => d.attachBase({ ...root, size: 20 } as DictRootJson, src, null)).toThrow(/does not fit/);
  });
});
