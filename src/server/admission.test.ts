/** QueryGate: the cap, the queue, and the refusal under memory pressure (one place for both callers). */
import { describe, expect, it } from 'vitest';
import { isLedgraphError } from '../core/errors.js';
import { QueryGate, type MemoryPressure } from './admission.js';
import { memoryGuard } from './memory-guard.js';

/** A memory guard whose pressure the test sets; its refusal is the real guard's 503. */
function fakeMemory(): MemoryPressure & { pressure: boolean } {
  return { pressure: false, refusal: () => memoryGuard.refusal() };
}

describe('QueryGate', () => {
  it('under memory pressure tryAcquire gives no permit and acquire throws the guard\'s 503 with Retry-After', async () => {
    const mem = fakeMemory();
    const gate = new QueryGate(4, 2, 1000, mem);
    mem.pressure = true;
    expect(gate.tryAcquire()).toBeNull();
    const e = await gate.acquire().then(() => null, (x: unknown) => x);
    expect(isLedgraphError(e)).toBe(true);
    const err = e as { status: number; type: string; message: string; headers?: Record<string, string> };
    expect(err.status).toBe(503);
    expect(err.type).toBe('err:system/InternalError');
    expect(err.message).toBe('the server is short of memory (a running query needed more than its headroom); retry later or with a smaller query');
    expect(err.headers?.['Retry-After']).toMatch(/^\d+$/);
    // Nothing was admitted or queued while refusing.
    expect(gate.active).toBe(0);
    expect(gate.queued).toBe(0);
  });

  it('admits again once the pressure is lifted', async () => {
    const mem = fakeMemory();
    const gate = new QueryGate(1, 1, 1000, mem);
    mem.pressure = true;
    await expect(gate.acquire()).rejects.toThrow(/short of memory/);
    mem.pressure = false;
    const release = gate.tryAcquire();
    expect(release).not.toBeNull();
    expect(gate.active).toBe(1);
    release!();
    expect(gate.active).toBe(0);
  });

  it('refuses for memory before the queue: a full gate under pressure gives the memory 503, not the queue\'s', async () => {
    const mem = fakeMemory();
    const gate = new QueryGate(1, 0, 0, mem);
    const held = gate.tryAcquire()!;
    await expect(gate.acquire()).rejects.toThrow(/too many queries executing \(limit 1, 0 waiting\)/);
    mem.pressure = true;
    await expect(gate.acquire()).rejects.toThrow(/short of memory/);
    held();
  });

  it('queues past the cap and hands the permit to the oldest waiter on release', async () => {
    const gate = new QueryGate(1, 2, 5000, fakeMemory());
    const first = gate.tryAcquire()!;
    let granted = false;
    const waiting = gate.acquire().then((r) => { granted = true; return r; });
    expect(gate.queued).toBe(1);
    first();
    const second = await waiting;
    expect(granted).toBe(true);
    expect(gate.active).toBe(1);
    second();
    expect(gate.active).toBe(0);
  });
});
