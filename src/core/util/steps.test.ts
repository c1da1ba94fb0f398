import { describe, expect, it } from 'vitest';
import { TimeSlice } from './next-turn.js';
import { runSteps, runStepsSliced, sortSteps, type Steps } from './steps.js';

/** A small deterministic generator (no Math.random: failures reproduce). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('sortSteps', () => {
  it('gives exactly Array.prototype.sort\'s order, ties in input order, at every size around the chunk', () => {
    const rnd = lcg(7);
    for (const n of [0, 1, 4095, 4096, 4097, 8192, 9000, 20_011]) {
      // Keys with many ties; the index tells whether equal keys kept their input order.
      const a = Array.from({ length: n }, (_, i) => ({ k: Math.floor(rnd() * 500), i }));
      const want = [...a].sort((x, y) => x.k - y.k);
      runSteps(sortSteps(a, (x, y) => x.k - y.k));
      expect(a).toEqual(want);
    }
  });

  it('gives Array.prototype.sort\'s order on input in interleaved sorted blocks (the merge copies whole blocks)', () => {
    const rnd = lcg(11);
    for (const n of [9000, 30_000]) {
      // Subject-like groups: group keys in a shuffled order, each group's rows together and sorted, ties included.
      const groups = Array.from({ length: Math.ceil(n / 12) }, (_, g) => g).sort(() => rnd() - 0.5);
      const a: { k: number; r: number; i: number }[] = [];
      for (const g of groups) for (let r = 0; r < 12 && a.length < n; r++) a.push({ k: g, r: Math.floor(r / 3), i: a.length });
      const cmp = (x: { k: number; r: number }, y: { k: number; r: number }) => x.k - y.k || x.r - y.r;
      const want = [...a].sort(cmp);
      runSteps(sortSteps(a, cmp));
      expect(a).toEqual(want);
    }
  });

  it('pauses between chunks of a large sort', () => {
    const a = Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 20_011);
    let pauses = 0;
    const it = sortSteps(a, (x, y) => x - y);
    while (!it.next().done) pauses++;
    expect(pauses).toBeGreaterThan(5);
    expect(a).toEqual([...a].sort((x, y) => x - y));
  });
});

describe('runStepsSliced', () => {
  /** Steps until the timer fired or `ms` passed; returns whether it fired during the work. */
  function* work(fired: () => boolean, ms: number): Steps<boolean> {
    const end = performance.now() + ms;
    while (!fired() && performance.now() < end) yield;
    return fired();
  }

  it('lets a timer run in the middle of long work, and returns its result', async () => {
    let fired = false;
    setTimeout(() => { fired = true; }, 0);
    expect(await runStepsSliced(work(() => fired, 5000), new TimeSlice(2))).toBe(true);
  });

  it('runSteps runs the same work in one piece: the timer waits for its end', () => {
    let fired = false;
    setTimeout(() => { fired = true; }, 0);
    expect(runSteps(work(() => fired, 50))).toBe(false);
  });
});
