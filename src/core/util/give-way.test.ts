import { describe, expect, it } from 'vitest';
import { Activity, YieldingSlice } from './give-way.js';
import { nextTurn, TimeSlice } from './next-turn.js';

/** Background work of `steps` pieces, checking its slice between them; records 'b' per piece. */
async function background(slice: YieldingSlice, steps: number, log: string[]): Promise<void> {
  for (let i = 0; i < steps; i++) {
    await slice.check();
    log.push('b');
  }
}

/** Foreground work like a staging write: `steps` pieces, a turn of the event loop after each. */
async function foreground(activity: Activity, steps: number, log: string[]): Promise<void> {
  activity.begin();
  try {
    const slice = new TimeSlice(0);
    for (let i = 0; i < steps; i++) {
      log.push('w');
      await slice.pause();
    }
  } finally {
    activity.end();
  }
}

describe('YieldingSlice', () => {
  it('takes none of the turns a foreground write gives while it runs, and goes on after it', async () => {
    const activity = new Activity();
    const log: string[] = [];
    const slice = new YieldingSlice(0, { activity, maxWaitMs: 60_000, urgent: () => false });
    const bg = background(slice, 40, log);
    // Let the background start, then a write comes in.
    for (let i = 0; i < 3; i++) await nextTurn();
    const started = log.length;
    await foreground(activity, 30, log);
    await bg;
    const first = log.indexOf('w'), last = log.lastIndexOf('w');
    expect(started).toBeGreaterThan(0);
    expect(log.slice(first, last + 1)).toEqual(Array(30).fill('w'));
    expect(log.filter((x) => x === 'b')).toHaveLength(40);
    expect(slice.waited.pauses).toBeGreaterThan(0);
  });

  it('without giving way (a plain TimeSlice) the same work interleaves with the write', async () => {
    const activity = new Activity();
    const log: string[] = [];
    const plain = new TimeSlice(0);
    const bg = (async () => { for (let i = 0; i < 40; i++) { if (plain.due()) await plain.pause(); log.push('b'); } })();
    for (let i = 0; i < 3; i++) await nextTurn();
    await foreground(activity, 30, log);
    await bg;
    const first = log.indexOf('w'), last = log.lastIndexOf('w');
    expect(log.slice(first, last + 1)).toContain('b');
  });

  it('waits at most maxWaitMs per pause, then works a slice: a write that never ends does not stop it', async () => {
    const activity = new Activity();
    activity.begin(); // foreground that stays busy
    const log: string[] = [];
    const slice = new YieldingSlice(1, { activity, maxWaitMs: 5, urgent: () => false });
    const t0 = performance.now();
    await background(slice, 20, log);
    expect(log).toHaveLength(20);
    expect(slice.waited.pauses).toBeGreaterThan(0);
    expect(performance.now() - t0).toBeLessThan(10_000);
    activity.end();
  });

  it('does not wait at all while urgent', async () => {
    const activity = new Activity();
    activity.begin();
    const slice = new YieldingSlice(0, { activity, maxWaitMs: 60_000, urgent: () => true });
    await background(slice, 20, []);
    expect(slice.waited.pauses).toBe(0);
    activity.end();
  });

  it('Activity counts overlapping work and wakes waiters only when all of it ended', async () => {
    const a = new Activity();
    a.begin(); a.begin();
    let woke = false;
    const w = a.idle(60_000).then((idle) => { woke = idle; });
    a.end();
    await nextTurn();
    expect(woke).toBe(false);
    a.end();
    await w;
    expect(woke).toBe(true);
    expect(a.busy).toBe(false);
    expect(await a.idle(0)).toBe(true);
    a.begin();
    expect(await a.idle(1)).toBe(false);
  });
});
