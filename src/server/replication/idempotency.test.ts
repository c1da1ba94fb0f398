import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS, IdempotencyStore } from './idempotency.js';

const enc = (s: string) => new TextEncoder().encode(s);

describe('IdempotencyStore', () => {
  it('keeps a success for 24 h under (ledger, key, body hash)', () => {
    let now = 1_000_000;
    const store = new IdempotencyStore(IDEMPOTENCY_TTL_MS, () => now);
    const k = IdempotencyStore.key('hr:main', 'k1', enc('{"commits":[]}'));
    store.set(k, { accepted: 1 });
    expect(store.get(k)).toEqual({ accepted: 1 });
    // Another body, ledger or key is another request.
    expect(store.get(IdempotencyStore.key('hr:main', 'k1', enc('{"commits":["x"]}')))).toBeUndefined();
    expect(store.get(IdempotencyStore.key('hr2:main', 'k1', enc('{"commits":[]}')))).toBeUndefined();
    expect(store.get(IdempotencyStore.key('hr:main', 'k2', enc('{"commits":[]}')))).toBeUndefined();
    now += IDEMPOTENCY_TTL_MS - 1;
    expect(store.get(k)).toEqual({ accepted: 1 });
    now += 1;
    expect(store.get(k)).toBeUndefined();
  });

  it('stays within its byte budget, forgetting the oldest responses first', () => {
    const s = new IdempotencyStore(60_000, Date.now, 4096);
    for (let i = 0; i < 100; i++) s.set(`key-${i}`, { ledger: 'a:main', t: i, commit: 'x'.repeat(40) });
    expect(s.bytes).toBeLessThanOrEqual(4096);
    expect(s.get('key-99')).toEqual({ ledger: 'a:main', t: 99, commit: 'x'.repeat(40) });
    expect(s.get('key-0')).toBeUndefined();
  });
});
