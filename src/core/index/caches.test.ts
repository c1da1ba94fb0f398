/** The memory-bounded caches of the index: decoded leaves (LeafCache) and decoded terms (TermDict). */
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import { describe, expect, it } from 'vitest';
import { namedNode } from '../rdf/terms.js';
import { TERM_SLOT_BYTES, TermDict } from './dict.js';
import type { DecodedLeaf } from './leaf-codec.js';
import { allocRun } from './run.js';
import { decodedLeafBytes, LeafCache } from './tree.js';

async function cid(i: number): Promise<CID> {
  return CID.create(1, 0x55, await sha256.digest(new TextEncoder().encode(String(i))));
}
function leaf(rows: number): DecodedLeaf {
  const run = allocRun(rows);
  run.n = rows;
  return { kind: 0, order: 'spot', run, history: null };
}

describe('LeafCache', () => {
  it('charges a leaf the buffers under its columns', () => {
    // 6 Int32 columns and one Uint8 column of 1000 rows, plus the fixed object charge.
    expect(decodedLeafBytes(leaf(1000))).toBe(1000 * 25 + 256);
  });

  it('stays within its byte budget, evicting leaves nobody used since they were added', async () => {
    const per = decodedLeafBytes(leaf(1000));
    const cache = new LeafCache(per * 4);
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => cid(i)));
    for (const c of ids) cache.set(c, leaf(1000));
    expect(cache.size).toEqual({ bytes: per * 4, leaves: 4 });
    expect(ids.map((c) => cache.get(c) !== undefined)).toEqual([false, false, false, false, false, false, true, true, true, true]);
  });

  it('gives a leaf in use a second chance (CLOCK) over one never read again', async () => {
    const per = decodedLeafBytes(leaf(100));
    const cache = new LeafCache(per * 3);
    const [a, b, c, d, e] = await Promise.all([0, 1, 2, 3, 4].map(cid));
    cache.set(a!, leaf(100));
    cache.set(b!, leaf(100));
    cache.set(c!, leaf(100));
    expect(cache.get(a!)).toBeDefined(); // a is hot
    cache.set(d!, leaf(100)); // evicts b (a has its bit set and moves back)
    expect([a, b, c, d].map((x) => cache.get(x!) !== undefined)).toEqual([true, false, true, true]);
    cache.set(e!, leaf(100));
    expect(cache.size.leaves).toBe(3);
    expect(cache.get(e!)).toBeDefined();
  });
});

describe('TermDict term cache', () => {
  it('decodes terms correctly whatever the cache keeps, within the budget', () => {
    const dict = new TermDict(64 * TERM_SLOT_BYTES);
    const ids = Array.from({ length: 5000 }, (_, i) => dict.intern(namedNode(`http://ex.org/t/${i}`)));
    for (let round = 0; round < 2; round++) {
      for (const id of ids) expect(dict.term(id)).toEqual(namedNode(`http://ex.org/t/${id}`));
    }
    const m = dict.memory();
    expect(m.termCacheLimitBytes).toBe(64 * TERM_SLOT_BYTES);
    expect(m.termCacheBytes).toBeLessThanOrEqual(m.termCacheLimitBytes);
    expect(m.dictBytes).toBeGreaterThan(5000 * 'http://ex.org/t/0'.length);
  });

  it('forgets cached terms of ids removed by truncate', () => {
    const dict = new TermDict();
    const a = dict.intern(namedNode('http://ex.org/a'));
    const b = dict.intern(namedNode('http://ex.org/b'));
    expect(dict.term(b).value).toBe('http://ex.org/b');
    dict.truncate(1);
    const c = dict.intern(namedNode('http://ex.org/c'));
    expect(c).toBe(b);
    expect([dict.term(a).value, dict.term(c).value]).toEqual(['http://ex.org/a', 'http://ex.org/c']);
  });
});
