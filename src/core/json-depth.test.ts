import { afterEach, describe, expect, it } from 'vitest';
import { checkJsonTextDepth, checkJsonValueDepth, jsonTextDepth, jsonValueDepth, parseJsonWithinLimits } from './json-depth.js';
import { setInputLimits } from './limits.js';

describe('JSON depth', () => {
  afterEach(() => setInputLimits({}));

  it('measures text and values alike, ignoring brackets inside strings', () => {
    const doc = { a: [1, { b: '[[{{', c: [[]] }], d: 'x\\"[' };
    const text = JSON.stringify(doc);
    expect(jsonTextDepth(text)).toBe(5);
    expect(jsonValueDepth(doc)).toBe(5);
    expect(jsonTextDepth('"\\\\"[[')).toBe(2); // an escaped backslash ends the string
    expect(jsonTextDepth('1')).toBe(0);
  });

  it('stops once past the limit, even at a million levels', () => {
    expect(jsonTextDepth('['.repeat(1e6) + ']'.repeat(1e6), 100)).toBe(101);
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(jsonValueDepth(v, 100)).toBe(101);
  });

  it('refuses JSON past --max-json-depth with a 400, and parses JSON within it', () => {
    setInputLimits({ maxJsonDepth: 2 });
    expect(parseJsonWithinLimits('{"a":[1]}')).toEqual({ a: [1] });
    expect(() => checkJsonTextDepth('{"a":[[1]]}', 'the body')).toThrow('the body is nested too deeply in arrays and objects (limit: 2, set by --max-json-depth)');
    expect(() => checkJsonValueDepth({ a: [[1]] })).toThrow('nested too deeply');
  });

  it('reports invalid JSON as err:db/JsonParse with a capped message', () => {
    try {
      parseJsonWithinLimits('{"a": ' + 'x'.repeat(100_000));
      expect.unreachable();
    } catch (e) {
      expect((e as { type: string }).type).toBe('err:db/JsonParse');
      expect((e as Error).message.length).toBeLessThan(1100);
    }
  });
});
