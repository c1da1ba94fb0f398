/**
 * mergeRunsSteps (index/run.ts) gallops over long stretches from one side and copies them column
 * by column: its output must be exactly the rows of both runs in the order's sort (key, t
 * descending, retraction first), for any interleaving, stretch length and pause interval.
 */
import { describe, expect, it } from 'vitest';
import { ORDERS } from '../../src/core/flake/flake.js';
import { allocRun, copyRow, mergeRunsSteps, sortRun, type Run } from '../../src/core/index/run.js';
import { runSteps } from '../../src/core/util/steps.js';
import { prng } from '../support/prng.js';

type Row = [number, number, number, number, number, number, number];

function runOf(rows: Row[]): Run {
  const r = allocRun(rows.length);
  for (const [g, s, p, o, m, t, op] of rows) {
    const j = r.n++;
    r.g[j] = g; r.s[j] = s; r.p[j] = p; r.o[j] = o; r.m[j] = m; r.t[j] = t; r.op[j] = op;
  }
  return r;
}

function rowsOf(r: Run): Row[] {
  return Array.from({ length: r.n }, (_, i) => [r.g[i]!, r.s[i]!, r.p[i]!, r.o[i]!, r.m[i]!, r.t[i]!, r.op[i]!] as Row);
}

function concat(a: Run, b: Run): Run {
  const out = allocRun(a.n + b.n);
  for (let i = 0; i < a.n; i++) copyRow(out, a, i);
  for (let i = 0; i < b.n; i++) copyRow(out, b, i);
  return out;
}

/** Rows from a few small ranges (so keys collide and equal rows occur), `base` shifting s. */
function randomRows(next: () => number, n: number, base: number, spread: number): Row[] {
  const pick = (k: number) => Math.floor(next() * k);
  return Array.from({ length: n }, () => [pick(2), base + pick(spread), pick(4), pick(6), -1, 1 + pick(5), pick(2)] as Row);
}

describe('mergeRunsSteps', () => {
  it('merges as sorting both runs together would, for interleaved, disjoint and repeated rows, in every order', () => {
    const next = prng(18);
    const shapes: [number, number, number, number, number, number][] = [
      // [a rows, a base, a spread, b rows, b base, b spread]
      [500, 0, 40, 500, 0, 40], // interleaved, many equal keys
      [3000, 0, 1000, 50, 1000, 20], // b after all of a (new subjects): one long stretch of a
      [50, 1000, 20, 3000, 0, 1000], // a after all of b
      [2000, 0, 10000, 2000, 0, 10000], // sparse: short stretches from both sides
      [1, 5, 1, 700, 0, 10], // one row against many
      [0, 0, 1, 30, 0, 5], // an empty side
    ];
    for (const [an, ab, as, bn, bb, bs] of shapes) {
      for (const order of ORDERS) {
        const a = sortRun(runOf(randomRows(next, an, ab, as)), order);
        const b = sortRun(runOf(randomRows(next, bn, bb, bs)), order);
        const expected = rowsOf(sortRun(concat(a, b), order));
        for (const pause of [Infinity, 7, 1]) {
          const merged = runSteps(mergeRunsSteps(a, b, order, pause));
          expect(merged.n).toBe(an + bn);
          expect(rowsOf(merged)).toEqual(expected);
        }
      }
    }
  });

  it('puts a row of the first run before an identical-key row of the second that has the same t and op', () => {
    const a = runOf([[0, 1, 1, 1, -1, 3, 1], [0, 1, 1, 2, -1, 3, 1]]);
    const b = runOf([[0, 1, 1, 1, -1, 3, 1], [0, 1, 1, 1, -1, 4, 1], [0, 1, 1, 1, -1, 3, 0]]);
    const merged = rowsOf(runSteps(mergeRunsSteps(sortRun(a, 'spot'), sortRun(b, 'spot'), 'spot', Infinity)));
    expect(merged).toEqual([
      [0, 1, 1, 1, -1, 4, 1], [0, 1, 1, 1, -1, 3, 0], [0, 1, 1, 1, -1, 3, 1], [0, 1, 1, 1, -1, 3, 1], [0, 1, 1, 2, -1, 3, 1],
    ]);
  });
});
