import { describe, expect, it } from 'vitest';
import { namedNode, termKey, type Term } from '../rdf/terms.js';
import { TermDict, TERM_SLOT_BYTES } from './dict.js';
import { TermCache, TERM_CACHE_WAYS } from './term-cache.js';

const iri = (i: number): Term => namedNode('http://ex.org/t' + i);

describe('TermCache', () => {
  it('keeps every id of a working set that fits, however the ids are spaced', () => {
    const c = new TermCache(4096);
    // Ids spaced by a power of two: all one slot in a direct-mapped `id & mask` cache.
    const ids = Array.from({ length: 1000 }, (_, i) => i * 65536 + 7);
    const size = ids[ids.length - 1]! + 1;
    for (const id of ids) { expect(c.get(id, size)).toBeUndefined(); c.put(id, iri(id)); }
    let hits = 0;
    for (const id of ids) {
      const t = c.get(id, size);
      if (t !== undefined) { hits++; expect(t).toEqual(iri(id)); }
    }
    // 1000 ids in 1024 sets of 4: only an overfull set (5+ of 1000 hashed ids) loses one.
    expect(hits).toBeGreaterThan(990);
  });

  it('never returns the term of another id (colliding ids evict, they do not alias)', () => {
    const c = new TermCache(16); // 4 sets × 4 ways
    for (let id = 0; id < 200; id++) { c.get(id, 200); c.put(id, iri(id)); }
    let cached = 0;
    for (let id = 0; id < 200; id++) {
      const t = c.get(id, 200);
      if (t !== undefined) { cached++; expect(t).toEqual(iri(id)); }
    }
    expect(cached).toBeLessThanOrEqual(16);
    expect(cached).toBeGreaterThan(0);
  });

  it('evicts the oldest insert of a full set', () => {
    const c = new TermCache(16);
    c.get(0, 1 << 20);
    // Find TERM_CACHE_WAYS + 1 ids that share id 0's set: the fifth insert evicts the first.
    const same: number[] = [0];
    c.put(0, iri(0));
    for (let id = 1; same.length <= TERM_CACHE_WAYS; id++) {
      // id shares 0's set when TERM_CACHE_WAYS inserts of it push 0 out.
      const probe = new TermCache(16);
      probe.get(0, 1 << 20); probe.put(0, iri(0));
      for (let k = 0; k < TERM_CACHE_WAYS; k++) probe.put(id, iri(id));
      if (probe.get(0, 1 << 20) === undefined) same.push(id);
    }
    for (const id of same.slice(1)) c.put(id, iri(id));
    expect(c.get(0, 1 << 20)).toBeUndefined();
    for (const id of same.slice(1)) expect(c.get(id, 1 << 20)).toEqual(iri(id));
  });

  it('grows with the dictionary up to its slot budget, and drops truncated ids', () => {
    const c = new TermCache(8192);
    c.get(0, 10);
    expect(c.slots).toBe(1024);
    c.get(3000, 3001);
    expect(c.slots).toBe(4096);
    c.get(1_000_000, 1_000_001);
    expect(c.slots).toBe(8192);
    c.put(1_000_000, iri(1_000_000));
    c.put(5, iri(5));
    c.dropFrom(100);
    expect(c.get(1_000_000, 1_000_001)).toBeUndefined();
    expect(c.get(5, 1_000_001)).toEqual(iri(5));
  });
});

describe('TermDict term cache', () => {
  it('decodes the right term for every id and respects its byte budget', () => {
    const budget = 64 * 1024;
    const d = new TermDict(budget);
    const n = 20_000;
    const keys: number[] = [];
    for (let i = 0; i < n; i++) keys.push(d.internKey(termKey(namedNode('http://ex.org/k' + i))));
    for (let pass = 0; pass < 2; pass++) for (let i = n - 1; i >= 0; i -= 7) expect(d.term(keys[i]!)).toEqual(namedNode('http://ex.org/k' + i));
    const m = d.memory();
    expect(m.termCacheBytes).toBeLessThanOrEqual(budget);
    expect(m.termCacheLimitBytes).toBeLessThanOrEqual(budget);
    // Half the budget in term slots, the rest for derived texts (none asked for here).
    expect(m.termCacheBytes / TERM_SLOT_BYTES).toBe(256);
    expect(m.termCacheLimitBytes).toBe(budget);
  });

  it('a hit returns the same object (no allocation per hit)', () => {
    const d = new TermDict();
    const id = d.internKey(termKey(namedNode('http://ex.org/a')));
    expect(d.term(id)).toBe(d.term(id));
  });
});

describe('derived texts beside the terms (SPARQL JSON fragments)', () => {
  const show = (t: Term) => `<${t.value}>`;

  it('follows its term: evicted with it, dropped with truncated ids, within its character budget', () => {
    const c = new TermCache(16, 60); // 4 sets × 4 ways, 60 characters of text
    c.get(0, 200);
    c.put(1, iri(1));
    c.putText(1, 'one');
    expect(c.text(1)).toBe('one');
    expect(c.text(2)).toBeUndefined();
    c.putText(2, 'two'); // no term cached for 2: not kept
    expect(c.text(2)).toBeUndefined();
    // Evict id 1 by filling its set: its text goes with it and its characters are given back.
    for (let id = 2; id < 400 && c.get(1, 400) !== undefined; id++) if (c.get(id, 400) === undefined) c.put(id, iri(id));
    expect(c.text(1)).toBeUndefined();
    expect(c.textLength).toBe(0);
    c.put(5, iri(5));
    c.putText(5, 'x'.repeat(61)); // over the budget: not kept
    expect(c.text(5)).toBeUndefined();
    c.putText(5, 'x'.repeat(60));
    expect(c.textLength).toBe(60);
    c.dropFrom(5);
    expect(c.text(5)).toBeUndefined();
    expect(c.textLength).toBe(0);
  });

  it('TermDict.termText: cached per id, recomputed after a truncated id is reused', () => {
    const d = new TermDict(64 * TERM_SLOT_BYTES);
    const a = d.intern(iri(1));
    let calls = 0;
    const derive = (t: Term) => { calls++; return show(t); };
    expect(d.termText(a, derive)).toBe('<http://ex.org/t1>');
    expect(d.termText(a, derive)).toBe('<http://ex.org/t1>');
    expect(calls).toBe(1);
    // Another derivation is computed every time, never served the first one's text.
    expect(d.termText(a, (t) => t.value)).toBe('http://ex.org/t1');
    d.truncate(a);
    const b = d.intern(iri(2));
    expect(b).toBe(a);
    expect(d.termText(b, derive)).toBe('<http://ex.org/t2>');
    expect(termKey(d.term(b))).toBe(termKey(iri(2)));
  });
});
