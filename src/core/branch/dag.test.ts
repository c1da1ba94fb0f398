/** The commit graph walks on hand-built histories (nodes remembered, no store reads). */
import { describe, expect, it } from 'vitest';
import type { ContentStore } from '../store.js';
import { cidOf, Codec } from '../commit/cid.js';
import { CommitGraph, EnvelopeCache } from './dag.js';

const NO_STORE = {} as ContentStore;

function graph(nodes: [string, number, string[]][]): CommitGraph {
  const g = new CommitGraph(NO_STORE);
  for (const [cid, t, parents] of nodes) g.remember({ cid, t, parents, time: '' });
  return g;
}

describe('CommitGraph', () => {
  // main: g ← m1 ← m2 ← M3 (merge of d5) ← m4;  dev: m1 ← d2 ← d3 ← d4 ← d5 ← d6
  const g = graph([
    ['g', 0, []], ['m1', 1, ['g']], ['m2', 2, ['m1']], ['d2', 2, ['m1']], ['d3', 3, ['d2']], ['d4', 4, ['d3']], ['d5', 5, ['d4']],
    ['M3', 3, ['m2', 'd5']], ['m4', 4, ['M3']], ['d6', 6, ['d5']], ['x5', 5, ['M3']],
  ]);

  it('common ancestor: the best one, even when an older common commit has a greater t', async () => {
    // x5 forked from main at M3 (t 3); M3's ancestor d5 has t 5 but is behind M3.
    expect((await g.commonAncestor('m4', 'x5'))!.cid).toBe('M3');
    expect((await g.commonAncestor('m4', 'd6'))!.cid).toBe('d5');
    expect((await g.commonAncestor('d6', 'm2'))!.cid).toBe('m1');
    expect((await g.commonAncestor('m4', 'm1'))!.cid).toBe('m1');
  });

  it('ties between best ancestors go to the smallest CID at the greatest t', async () => {
    // Criss-cross: a and b each merged the other's tip; both a1 and b1 are best ancestors (t 1).
    const cc = graph([['g', 0, []], ['a1', 1, ['g']], ['b1', 1, ['g']], ['A2', 2, ['a1', 'b1']], ['B2', 2, ['b1', 'a1']]]);
    expect((await cc.commonAncestor('A2', 'B2'))!.cid).toBe('a1');
  });

  it('only: reachable from a head and not from an ancestor set, parents first', async () => {
    const excl = await g.ancestors('m2');
    expect((await g.only('m4', excl)).map((n) => n.cid)).toEqual(['d2', 'd3', 'd4', 'd5', 'M3', 'm4']);
    expect((await g.firstParents('m4')).map((n) => n.cid)).toEqual(['m4', 'M3', 'm2', 'm1', 'g']);
  });

  it('keeps its cached envelopes under its byte budget, reading evicted ones from the store again', async () => {
    const cids: string[] = [];
    for (let i = 0; i < 1_000; i++) cids.push((await cidOf(Codec.commit, new TextEncoder().encode(String(i)))).toString());
    const cid = (i: number) => cids[i]!;
    const reads: string[] = [];
    const store = { async get(c: { toString(): string }) { reads.push(c.toString()); throw new Error('not stored'); } } as unknown as ContentStore;
    const cache = new EnvelopeCache(10_000);
    const small = new CommitGraph(store, cache);
    for (let i = 0; i < 1_000; i++) {
      small.remember({ cid: cid(i), t: i, parents: i ? [cid(i - 1)] : [], time: '2026-11-27T10:00:00.000Z' });
      expect(cache.cachedBytes).toBeLessThanOrEqual(10_000);
    }
    expect(cache.cachedBytes).toBeGreaterThan(5_000);
    // The newest commits are at hand; the first was let go (and would be read from the store).
    expect((await small.node(cid(999))).t).toBe(999);
    expect(reads).toEqual([]);
    await expect(small.node(cid(0))).rejects.toThrow('not stored');
    expect(reads).toEqual([cid(0)]);
  });
});
