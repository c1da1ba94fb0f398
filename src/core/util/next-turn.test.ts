import { describe, expect, it } from 'vitest';
import { nextTurn, scheduler, TimeSlice } from './next-turn.js';

describe('nextTurn', () => {
  it('lets timers run, which a microtask loop never does', async () => {
    let fired = false;
    setTimeout(() => { fired = true; }, 0);
    let turns = 0;
    while (!fired) { await nextTurn(); turns++; }
    expect(turns).toBeGreaterThan(0);
  });

  it('schedules through a MessageChannel where there is no setImmediate (browsers), in order', async () => {
    const schedule = scheduler({ MessageChannel });
    const order: number[] = [];
    await new Promise<void>((done) => {
      schedule(() => order.push(1));
      schedule(() => order.push(2));
      schedule(() => { order.push(3); done(); });
    });
    expect(order).toEqual([1, 2, 3]);
  });

  it('falls back to setTimeout with neither', async () => {
    const schedule = scheduler({});
    await new Promise<void>((done) => { schedule(done); });
  });
});

describe('TimeSlice', () => {
  it('is due once its time has passed, and not after a pause starts a new slice', async () => {
    const slice = new TimeSlice(1);
    const end = performance.now() + 2;
    while (performance.now() < end) { /* spin past the slice */ }
    expect(slice.due()).toBe(true);
    await slice.pause(1000);
    expect(slice.due()).toBe(false);
  });
});
