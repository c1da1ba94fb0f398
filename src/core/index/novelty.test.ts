import { describe, expect, it } from 'vitest';
import { ORDERS, type Flake } from '../flake/flake.js';
import { Novelty } from './novelty.js';

describe('Novelty.count', () => {
  // Several commits (so several runs per order), two graphs, asserts and retracts.
  let nov = Novelty.empty();
  for (let t = 1; t <= 6; t++) {
    const flakes: Flake[] = [];
    for (let i = 0; i < 200; i++) flakes.push({ g: i % 2, s: 100 + (i % 17), p: 10 + (i % 3), o: 1000 + ((i * t) % 41), m: -1, t, op: t % 3 !== 0 });
    nov = nov.add(flakes, 1000, () => false);
  }
  it('equals the size of the range at the latest t, for every order and prefix length', () => {
    const prefixes = [[], [0], [1], [0, 100], [1, 105], [0, 10], [0, 100, 11], [0, 1005], [0, 999_999]];
    let nonEmpty = 0;
    for (const order of ORDERS) {
      for (const prefix of prefixes) {
        const n = nov.range(order, prefix, Number.MAX_SAFE_INTEGER).n;
        expect(nov.count(order, prefix), `${order} ${prefix.join(',')}`).toBe(n);
        if (n > 0) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(ORDERS.length * 3);
    expect(nov.count('spot', [])).toBe(nov.size);
  });
});

describe('Novelty.addSteps', () => {
  const flakes = (t: number, n: number): Flake[] => Array.from({ length: n }, (_, i) => ({ g: i % 2, s: 100 + ((i * 7919) % 5003), p: 10 + (i % 5), o: 2000 + ((i * t) % 9973), m: -1, t, op: i % 7 !== 0 }));

  it('builds what add builds, pausing in between, and leaves the novelty it started from as it was', async () => {
    const { runStepsSliced } = await import('../util/steps.js');
    const { TimeSlice } = await import('../util/next-turn.js');
    // Big runs, so the size tiers merge 40,000-row runs in steps.
    let a = Novelty.empty(), b = Novelty.empty();
    for (let t = 1; t <= 4; t++) {
      const f = flakes(t, 20_000);
      const before = b;
      let fired = false;
      setTimeout(() => { fired = true; }, 0);
      b = await runStepsSliced(b.addSteps(f, 100, (o) => o % 3 !== 0), new TimeSlice(0));
      expect(fired).toBe(true); // a timer ran while it was built
      expect(before.size).toBe(20_000 * (t - 1));
      a = a.add(f, 100, (o) => o % 3 !== 0);
    }
    expect(b.size).toBe(a.size);
    expect(b.bytes).toBe(a.bytes);
    for (const order of ORDERS) {
      const x = a.all(order, 99), y = b.all(order, 99);
      expect(y.n).toBe(x.n);
      for (const col of ['g', 's', 'p', 'o', 'm', 't', 'op'] as const) expect(Array.from(y[col].subarray(0, y.n))).toEqual(Array.from(x[col].subarray(0, x.n)));
    }
  });
});

describe('Novelty.allSteps', () => {
  it('gives the run all() gives, at every t, whether its runs are taken whole or filtered', async () => {
    const { runSteps } = await import('../util/steps.js');
    let nov = Novelty.empty();
    for (let t = 1; t <= 5; t++) {
      const flakes: Flake[] = [];
      for (let i = 0; i < 30_000; i++) flakes.push({ g: i % 2, s: 100 + ((i * 31) % 4001), p: 10 + (i % 4), o: 1000 + ((i * t) % 977), m: -1, t, op: (i + t) % 5 !== 0 });
      nov = nov.add(flakes, 1000, () => false);
    }
    for (const order of ORDERS) {
      for (const maxT of [0, 2, 4, 5, 99]) {
        const x = nov.all(order, maxT), y = runSteps(nov.allSteps(order, maxT));
        expect(y.n, `${order} ${maxT}`).toBe(x.n);
        for (const col of ['g', 's', 'p', 'o', 'm', 't', 'op'] as const) expect(Array.from(y[col].subarray(0, y.n))).toEqual(Array.from(x[col].subarray(0, x.n)));
      }
    }
  });
});
