import { describe, expect, it } from 'vitest';
import { ORDERS, compareFlake, type Flake } from '../flake/flake.js';
import { rowFlake, runFromFlakes, sortAllOrdersSteps, sortRun } from './run.js';
import { runSteps } from '../util/steps.js';

function rand(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}

describe('sortAllOrdersSteps', () => {
  for (const n of [50, 5000]) {
    it(`gives sortRun's run in every order from one sort and stable re-sorts (${n} flakes, repeated keys, several graphs, t and ops)`, () => {
      const r = rand(7 * n);
      const flakes: Flake[] = [];
      for (let i = 0; i < n; i++) {
        flakes.push({ g: Math.floor(r() * 3), s: Math.floor(r() * 40), p: Math.floor(r() * 5), o: Math.floor(r() * 90) - 10, m: Math.floor(r() * 3) - 1, t: 1 + Math.floor(r() * 9), op: r() < 0.5 });
      }
      const all = runSteps(sortAllOrdersSteps(runFromFlakes(flakes)));
      for (const order of ORDERS) {
        const want = sortRun(runFromFlakes(flakes), order);
        const rows = (x: typeof want) => Array.from({ length: x.n }, (_, i) => rowFlake(x, i));
        expect(rows(all[order])).toEqual(rows(want));
      }
    });
  }
});

describe('sortRun', () => {
  for (const n of [50, 5000]) {
    it(`sorts ${n} flakes exactly like the comparator in every order (${n >= 2048 ? 'radix' : 'comparison'} path)`, () => {
      const r = rand(n);
      const flakes: Flake[] = [];
      for (let i = 0; i < n; i++) {
        flakes.push({ g: Math.floor(r() * 3), s: Math.floor(r() * 300), p: Math.floor(r() * 5), o: Math.floor(r() * 70000) - 10, m: Math.floor(r() * 3) - 1, t: 1 + Math.floor(r() * 90000), op: r() < 0.5 });
      }
      for (const order of ORDERS) {
        const sorted = sortRun(runFromFlakes(flakes), order);
        const got = Array.from({ length: sorted.n }, (_, i) => rowFlake(sorted, i));
        const want = [...flakes].sort((a, b) => compareFlake(order, a, b));
        expect(got).toEqual(want);
      }
    });
  }
});
