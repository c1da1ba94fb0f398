import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff.js';

describe('Backoff', () => {
  it('1 s, doubling, capped at 30 s, reset after a good connect', () => {
    const b = new Backoff();
    expect([1, 2, 3, 4, 5, 6, 7].map(() => b.delay())).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    b.reset();
    expect(b.delay()).toBe(1000);
    expect(b.delay()).toBe(2000);
  });
});
