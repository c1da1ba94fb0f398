import { describe, expect, it } from 'vitest';
import { filterHas, FILTER_WORDS, keyHashes, pageFilter } from './dict-page.js';
import { SlicedFilters } from './dict-slices.js';

/** 70 pages (three runs of 32, the last partial) of 300 keys each. */
const PAGES = 70;
const keysOf = (k: number) => Array.from({ length: 300 }, (_, i) => `http://ex.org/p${k}/k${i}`);

describe('bit-sliced page filters', () => {
  const filters = Array.from({ length: PAGES }, (_, k) => pageFilter(keysOf(k)));
  const sliced = new SlicedFilters();
  sliced.resize(PAGES);
  filters.forEach((f, k) => sliced.setPage(k, f, 0));
  const h = new Uint32Array(2);
  const candidates = (key: string, limit = PAGES) => {
    keyHashes(key, h);
    const out: number[] = [];
    sliced.candidates(h, limit, (k) => { out.push(k); return false; });
    return out;
  };

  it('name exactly the pages whose own filter may hold the key', () => {
    const probes = [...keysOf(0).slice(0, 50), ...keysOf(69).slice(250), ...keysOf(33).slice(100, 140),
      ...Array.from({ length: 3000 }, (_, i) => `absent ${i}`)];
    let falsePositives = 0;
    for (const key of probes) {
      keyHashes(key, h);
      const expected = filters.flatMap((f, k) => (filterHas(f, 0, h) ? [k] : []));
      expect(candidates(key)).toEqual(expected);
      if (key.startsWith('absent')) falsePositives += expected.length;
    }
    // Every stored key finds its page; absent keys rarely find any (300 keys per 32,768-bit filter).
    expect(candidates('http://ex.org/p69/k299')).toContain(69);
    expect(falsePositives).toBeLessThan(5);
  });

  it('stops at the limit and when the callback says so', () => {
    expect(candidates('http://ex.org/p69/k1', 69)).toEqual([]);
    keyHashes('http://ex.org/p5/k1', h);
    const seen: number[] = [];
    sliced.candidates(h, PAGES, (k) => { seen.push(k); return true; });
    expect(seen).toEqual([5]);
  });

  it('gives back each page filter, and adds keys as the per-page filter does', () => {
    for (const k of [0, 31, 32, 69]) expect(sliced.pageWords(k)).toEqual(filters[k]);
    const grown = new SlicedFilters();
    grown.resize(40);
    grown.setPage(35, filters[1]!, 0);
    grown.resize(PAGES);
    for (const key of keysOf(66)) { keyHashes(key, h); grown.add(66, h); }
    expect(grown.pageWords(35)).toEqual(filters[1]);
    expect(grown.pageWords(66)).toEqual(filters[66]);
    expect(grown.pageWords(0)).toEqual(new Uint32Array(FILTER_WORDS));
  });

  it('keeps pages after the last complete run of 32 as one filter each (a small dictionary stays small)', () => {
    const small = new SlicedFilters();
    small.resize(1);
    expect(small.byteLength).toBe(FILTER_WORDS * 4);
    small.resize(33);
    expect(small.byteLength).toBe(32 * FILTER_WORDS * 4 + FILTER_WORDS * 4);
    expect(sliced.byteLength).toBe(70 * FILTER_WORDS * 4); // two runs and six pages: 2 bytes per key slot either way
  });
});
