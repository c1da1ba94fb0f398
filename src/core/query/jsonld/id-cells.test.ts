import { describe, expect, it } from 'vitest';
import { IdCells, LONG_CELL_CHARS } from './id-cells.js';

describe('IdCells', () => {
  it('keeps short strings, numbers and booleans, never objects', () => {
    const c = new IdCells({});
    c.put(1, 'a'); c.put(2, 7); c.put(3, true); c.put(4, { '@value': 'x' });
    expect([c.get(1), c.get(2), c.get(3), c.get(4)]).toEqual(['a', 7, true, undefined]);
  });

  it('keeps long strings only within its character budget, and frees the budget when they are pushed out', () => {
    const c = new IdCells({});
    const long = (ch: string): string => ch.repeat(4000);
    const fit = Math.floor(LONG_CELL_CHARS / 4000);
    for (let id = 0; id < fit; id++) c.put(id * 256, long(String.fromCharCode(97 + id)));
    for (let id = 0; id < fit; id++) expect(c.get(id * 256)).toBe(long(String.fromCharCode(97 + id)));
    // Over budget: not kept.
    c.put(fit * 256, long('z'));
    expect(c.get(fit * 256)).toBeUndefined();
    // Strings over 8,192 characters are never kept.
    const c2 = new IdCells({});
    c2.put(5, 'x'.repeat(8193));
    expect(c2.get(5)).toBeUndefined();
    // Short cells pushed in until the first long cell's set pushes it out: its budget takes another.
    for (let id = 1_000_000; c.get(0) !== undefined && id < 1_100_000; id++) c.put(id, 's');
    expect(c.get(0)).toBeUndefined();
    c.put(fit * 256, long('z'));
    expect(c.get(fit * 256)).toBe(long('z'));
  });
});
