import { describe, expect, it } from 'vitest';
import { IdempotencyStore } from './idempotency.js';

describe('IdempotencyStore', () => {
  it('replays a fresh success and forgets it after the TTL', () => {
    let now = 1000;
    const s = new IdempotencyStore(500, () => now);
    s.set('k', { t: 3 });
    expect(s.get('k')).toEqual({ t: 3 });
    now = 1600;
    expect(s.get('k')).toBeUndefined();
  });

  it('stays within its byte budget, forgetting the oldest responses first', () => {
    const s = new IdempotencyStore(60_000, Date.now, 4096);
    for (let i = 0; i < 100; i++) s.set(`key-${i}`, { ledger: 'a:main', t: i, commit: 'x'.repeat(40) });
    expect(s.bytes).toBeLessThanOrEqual(4096);
    expect(s.get('key-99')).toEqual({ ledger: 'a:main', t: 99, commit: 'x'.repeat(40) });
    expect(s.get('key-0')).toBeUndefined();
  });
});
