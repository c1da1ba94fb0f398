import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MEMORY_LIMIT, heapFlags, launchEnv, memoryLimitOf, memoryPlan, memoryWarnings, parseMemoryLimit, setsHeapSize,
} from './memory-plan.js';

const MiB = 1024 * 1024;

describe('memoryPlan', () => {
  it('gives the historical cache defaults and a 192 MiB old space for the 512 MiB default', () => {
    expect(DEFAULT_MEMORY_LIMIT).toBe(512 * MiB);
    expect(memoryPlan(DEFAULT_MEMORY_LIMIT)).toEqual({
      total: 512 * MiB, leafCacheBytes: 128 * MiB, termCacheBytes: 12 * MiB, commitCacheBytes: 16 * MiB,
      parseCacheBytes: 24 * MiB, idempotencyCacheBytes: 8 * MiB, maxLoadedLedgers: 64, oldSpaceMiB: 192, semiSpaceMiB: 8,
    });
    expect(heapFlags(DEFAULT_MEMORY_LIMIT)).toEqual(['--max-old-space-size=192', '--max-semi-space-size=8']);
  });

  it('scales every share with the total, the semi-space between 1 and 16 MiB', () => {
    const p = memoryPlan(4096 * MiB);
    expect(p.leafCacheBytes).toBe(1024 * MiB);
    expect(p.parseCacheBytes).toBe(192 * MiB);
    expect(p.oldSpaceMiB).toBe(1536);
    expect(p.semiSpaceMiB).toBe(16);
    expect(p.maxLoadedLedgers).toBe(512);
    expect(memoryPlan(256 * MiB).maxLoadedLedgers).toBe(32);
    expect(memoryPlan(256 * MiB).semiSpaceMiB).toBe(4);
    expect(heapFlags(256 * MiB)).toEqual(['--max-old-space-size=96', '--max-semi-space-size=4']);
  });

  it('leaves about a third of the total to the process itself', () => {
    for (const total of [256 * MiB, 512 * MiB, 2048 * MiB]) {
      const p = memoryPlan(total);
      const planned = p.leafCacheBytes + (p.oldSpaceMiB + 3 * p.semiSpaceMiB) * MiB;
      expect(total - planned).toBeGreaterThan(total * 0.3);
    }
  });
});

describe('memoryLimitOf (the launcher reads the total before the flag parser runs)', () => {
  it('takes --memory-limit in both spellings, else the environment, else the default', () => {
    expect(memoryLimitOf(['--memory-limit', '1GiB'], {})).toBe(1024 * MiB);
    expect(memoryLimitOf(['--port', '0', '--memory-limit=768MiB'], {})).toBe(768 * MiB);
    expect(memoryLimitOf([], { LEDGRAPH_MEMORY_LIMIT: '2GiB' })).toBe(2048 * MiB);
    expect(memoryLimitOf(['--memory-limit', '1GiB'], { LEDGRAPH_MEMORY_LIMIT: '2GiB' })).toBe(1024 * MiB);
    expect(memoryLimitOf([], {})).toBe(DEFAULT_MEMORY_LIMIT);
    expect(memoryLimitOf([], { LEDGRAPH_MEMORY_LIMIT: '' })).toBe(DEFAULT_MEMORY_LIMIT);
  });

  it('gives null for a value the server parser will refuse', () => {
    expect(memoryLimitOf(['--memory-limit', 'lots'], {})).toBeNull();
    expect(memoryLimitOf(['--memory-limit', '100MiB'], {})).toBeNull();
    expect(() => parseMemoryLimit('100MiB', '--memory-limit')).toThrow(/at least 256MiB/);
  });
});

describe('setsHeapSize', () => {
  it('sees node flags that size the heap, in either spelling', () => {
    expect(setsHeapSize(['--max-old-space-size=300'])).toBe(true);
    expect(setsHeapSize(['--expose-gc', '--max_semi_space_size=4'])).toBe(true);
    expect(setsHeapSize(['--max-heap-size=1000'])).toBe(true);
    expect(setsHeapSize(['--expose-gc', '--enable-source-maps'])).toBe(false);
    expect(setsHeapSize([])).toBe(false);
  });
});

describe('memoryWarnings', () => {
  const plan = memoryPlan(DEFAULT_MEMORY_LIMIT);
  const settings = { memoryLimitBytes: DEFAULT_MEMORY_LIMIT, ...plan };
  it('is quiet when the heap limit and budgets follow the plan', () => {
    expect(memoryWarnings(settings, (192 + 24) * MiB + 3 * MiB)).toEqual([]);
  });
  it('warns when V8 was not sized from the total', () => {
    const w = memoryWarnings(settings, 4144 * MiB);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/--max-old-space-size=192 --max-semi-space-size=8/);
  });
  it('warns when budgets given one by one do not fit the total', () => {
    const w = memoryWarnings({ ...settings, leafCacheBytes: 1024 * MiB }, 216 * MiB);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/exceed 60% of --memory-limit \(512 MiB\)/);
  });
});

describe('launchEnv', () => {
  it("fixes glibc's mmap threshold unless the user set it", () => {
    expect(launchEnv({})).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(launchEnv({ MALLOC_MMAP_THRESHOLD_: '65536' })).toEqual({});
  });
});
