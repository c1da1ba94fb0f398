import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addDeadline, cancelDeadline, pendingDeadlines } from './deadlines.js';

describe('request deadlines behind one timer', () => {
  beforeEach(() => { vi.useFakeTimers(); vi.setSystemTime(1_000_000); });
  afterEach(() => { vi.useRealTimers(); });

  it('fires each deadline at its time, in order, whatever order they came in', () => {
    const fired: string[] = [];
    const t0 = Date.now();
    addDeadline(t0 + 300, () => fired.push('c'));
    addDeadline(t0 + 100, () => fired.push('a'));
    addDeadline(t0 + 200, () => fired.push('b'));
    addDeadline(t0 + 200, () => fired.push('b2'));
    vi.advanceTimersByTime(99);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a', 'b', 'b2']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a', 'b', 'b2', 'c']);
    expect(pendingDeadlines()).toBe(0);
  });

  it('a cancelled deadline never fires, at the front or behind a live one', () => {
    const fired: number[] = [];
    const t0 = Date.now();
    const a = addDeadline(t0 + 100, () => fired.push(1));
    addDeadline(t0 + 200, () => fired.push(2));
    const c = addDeadline(t0 + 300, () => fired.push(3));
    addDeadline(t0 + 400, () => fired.push(4));
    cancelDeadline(a);
    cancelDeadline(c);
    cancelDeadline(c);
    expect(pendingDeadlines()).toBe(2);
    vi.advanceTimersByTime(500);
    expect(fired).toEqual([2, 4]);
    expect(pendingDeadlines()).toBe(0);
  });

  it('a deadline added after the queue emptied under the still-armed timer fires at its own time', () => {
    const t0 = Date.now();
    const fired: string[] = [];
    cancelDeadline(addDeadline(t0 + 100, () => fired.push('cancelled')));
    expect(pendingDeadlines()).toBe(0);
    vi.advanceTimersByTime(50);
    addDeadline(t0 + 250, () => fired.push('later'));
    vi.advanceTimersByTime(60); // the timer armed for t0 + 100 fires into a queue whose front is later
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(139);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['later']);
    expect(pendingDeadlines()).toBe(0);
  });

  it('many finished requests behind a long one: swept, and the long one still fires', () => {
    const t0 = Date.now();
    let long = 0;
    addDeadline(t0 + 60_000, () => long++);
    for (let i = 0; i < 20_000; i++) cancelDeadline(addDeadline(t0 + 60_000 + i, () => { throw new Error('cancelled'); }));
    expect(pendingDeadlines()).toBe(1);
    const late = addDeadline(t0 + 1000, () => long += 10); // earlier than the front: re-arms the timer
    vi.advanceTimersByTime(1000);
    expect(long).toBe(10);
    cancelDeadline(late);
    vi.advanceTimersByTime(60_000);
    expect(long).toBe(11);
    expect(pendingDeadlines()).toBe(0);
  });
});
