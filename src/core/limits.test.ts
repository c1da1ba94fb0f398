import { afterEach, describe, expect, it } from 'vitest';
import { capMessage, excerpt } from './excerpt.js';
import { DEFAULT_INPUT_LIMITS, exceedsUtf8Bytes, inputLimits, MAX_SAFE_DEPTH, setInputLimits, withinStack } from './limits.js';

describe('input limits', () => {
  afterEach(() => setInputLimits({}));

  it('starts at the defaults, takes partial settings and clamps depths to what is proven safe', () => {
    expect(inputLimits()).toEqual(DEFAULT_INPUT_LIMITS);
    setInputLimits({ maxQueryBytes: 10, maxNestingDepth: 10 * MAX_SAFE_DEPTH, maxJsonDepth: 10 * MAX_SAFE_DEPTH });
    expect(inputLimits()).toEqual({ ...DEFAULT_INPUT_LIMITS, maxQueryBytes: 10, maxNestingDepth: MAX_SAFE_DEPTH, maxJsonDepth: MAX_SAFE_DEPTH });
  });

  it('counts UTF-8 bytes', () => {
    expect(exceedsUtf8Bytes('a'.repeat(10), 10)).toBe(false);
    expect(exceedsUtf8Bytes('a'.repeat(11), 10)).toBe(true);
    expect(exceedsUtf8Bytes('€'.repeat(3), 9)).toBe(false);
    expect(exceedsUtf8Bytes('€'.repeat(4), 9)).toBe(true);
    expect(exceedsUtf8Bytes('😀😀', 8)).toBe(false);
  });

  it('turns a stack overflow into a 400 and leaves other errors alone', () => {
    const deep = (n: number): number => (n === 0 ? 0 : 1 + deep(n - 1));
    expect(() => withinStack('the thing', () => deep(1e7))).toThrow('the thing is too deeply nested to process');
    expect(() => withinStack('the thing', () => { throw new TypeError('boom'); })).toThrow(TypeError);
  });
});

describe('excerpt', () => {
  it('keeps short text and cuts long text with an ellipsis, never inside a surrogate pair', () => {
    expect(excerpt('abc')).toBe('abc');
    expect(excerpt('x'.repeat(500))).toBe('x'.repeat(200) + '…');
    expect(excerpt('a😀', 2)).toBe('a…');
    expect(capMessage('y'.repeat(5000)).length).toBe(1001);
  });
});
