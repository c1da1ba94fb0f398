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
