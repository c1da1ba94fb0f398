import { describe, expect, it } from 'vitest';
import { ByteLru } from './byte-lru.js';

describe('ByteLru', () => {
  it('evicts the least recently used entries once the byte budget is passed', () => {
    const c = new ByteLru<string, number>(100, 1);
    c.set('a', 1, 40);
    c.set('b', 2, 40);
    expect(c.get('a')).toBe(1); // a is now the most recent
    c.set('c', 3, 40);
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([1, undefined, 3]);
    expect([c.bytes, c.size]).toEqual([80, 2]);
  });

  it('does not keep an entry larger than its share of the budget', () => {
    const c = new ByteLru<string, number>(100);
    c.set('small', 1, 10);
    expect(c.set('huge', 2, 26)).toBe(false);
    expect([c.get('huge'), c.get('small'), c.bytes]).toEqual([undefined, 1, 10]);
  });

  it('recharges a replaced key and shrinks to a new budget', () => {
    const c = new ByteLru<string, number>(100, 1);
    c.set('a', 1, 30);
    c.set('a', 2, 50);
    c.set('b', 3, 40);
    expect(c.bytes).toBe(90);
    c.resize(45);
    expect([c.get('a'), c.get('b'), c.bytes]).toEqual([undefined, 3, 40]);
    expect(c.delete('b')).toBe(true);
    expect(c.bytes).toBe(0);
  });
});
