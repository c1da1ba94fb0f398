import { afterEach, describe, expect, it } from 'vitest';
import { setInputLimits } from '../limits.js';
import { GraphTable } from './graph-table.js';
import { normalizeLedgerId, parseLedgerRef } from './ledger-id.js';

describe('ledger ids, normalised once', () => {
  afterEach(() => setInputLimits({}));

  it('answers a repeated id from memory, and checks it again under new limits', () => {
    expect(normalizeLedgerId('inventory')).toBe('inventory:main');
    expect(normalizeLedgerId('inventory')).toBe('inventory:main');
    expect(parseLedgerRef('inventory@t:3#txn-meta')).toEqual({ name: 'inventory', branch: 'main', id: 'inventory:main', time: { kind: 't', t: 3 }, fragment: 'txn-meta' });
    expect(parseLedgerRef('a/b:dev')).toEqual({ name: 'a/b', branch: 'dev', id: 'a/b:dev', time: { kind: 'head' }, fragment: null });
    setInputLimits({ maxLedgerNameLength: 5 });
    expect(() => normalizeLedgerId('inventory')).toThrow(/longer than allowed/);
    expect(() => parseLedgerRef('inventory')).toThrow(/longer than allowed/);
    setInputLimits({});
    expect(normalizeLedgerId('inventory')).toBe('inventory:main');
  });

  it('never remembers an invalid id', () => {
    expect(() => normalizeLedgerId('bad name')).toThrow(/invalid ledger name/);
    expect(() => normalizeLedgerId('bad name')).toThrow(/invalid ledger name/);
    expect(() => normalizeLedgerId('x:..')).toThrow(/invalid branch name/);
  });
});

describe('GraphTable.named', () => {
  it('lists the named graphs in id order, current after every set, and hands out copies', () => {
    const g = new GraphTable([[4, 'http://ex/b']]);
    expect(g.named()).toEqual([[4, 'http://ex/b']]);
    expect(g.namedIds()).toEqual([4]);
    g.set(3, 'http://ex/a');
    expect(g.named()).toEqual([[3, 'http://ex/a'], [4, 'http://ex/b']]);
    expect(g.namedIds()).toEqual([3, 4]);
    const mine = g.named();
    mine.pop();
    expect(g.named()).toHaveLength(2);
    expect(g.clone().named()).toEqual([[3, 'http://ex/a'], [4, 'http://ex/b']]);
  });
});
