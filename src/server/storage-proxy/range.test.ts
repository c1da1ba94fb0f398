/** Range header interpretation for GET /storage/objects. */
import { describe, expect, it } from 'vitest';
import { chooseRange } from './range.js';

describe('chooseRange', () => {
  it('reads the three single-range forms', () => {
    expect(chooseRange('bytes=0-9', 100)).toEqual({ kind: 'range', start: 0, end: 9 });
    expect(chooseRange('bytes=90-', 100)).toEqual({ kind: 'range', start: 90, end: 99 });
    expect(chooseRange('bytes=-5', 100)).toEqual({ kind: 'range', start: 95, end: 99 });
    expect(chooseRange('bytes=-500', 100)).toEqual({ kind: 'range', start: 0, end: 99 });
    expect(chooseRange('bytes=50-1000', 100)).toEqual({ kind: 'range', start: 50, end: 99 });
  });
  it('ignores what it does not serve: several ranges, other units, nonsense, reversed', () => {
    for (const h of [undefined, '', 'bytes=0-1,5-6', 'items=0-1', 'bytes=x', 'bytes=-', 'bytes=9-3']) expect(chooseRange(h, 100)).toEqual({ kind: 'all' });
  });
  it('416 for a start past the end or an empty suffix', () => {
    expect(chooseRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(chooseRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(chooseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});
