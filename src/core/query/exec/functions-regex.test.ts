import { describe, expect, it } from 'vitest';
import { ExprError } from '../../rdf/expr-error.js';
import { compileRegex, regexMatches, regexReplace } from './functions-regex.js';

describe('XPath regular expressions on a linear-time engine', () => {
  it('answers the catastrophic pattern ^(a+)+$ without backtracking (issue 20)', () => {
    // A backtracking engine needs ~2^n steps here: 2^40 would not finish in a test run.
    const text = 'a'.repeat(40) + '!';
    expect(regexMatches(text, '^(a+)+$', '')).toBe(false);
    expect(regexMatches('a'.repeat(40), '^(a+)+$', '')).toBe(true);
    expect(regexMatches(text, '^(a|aa)+$', '')).toBe(false);
    expect(regexMatches(text, '^(.*a){20}$', '')).toBe(false);
    expect(regexReplace(text, '(a+)+b', 'x', '')).toBe(text);
  });

  it('refuses back-references, which no linear-time engine can run', () => {
    expect(() => compileRegex('(a)\\1', '')).toThrow(ExprError);
    expect(() => compileRegex('(a)\\1', '')).toThrow(/back-references are not supported/);
    // Inside a class \1 was never a back-reference: still an invalid escape.
    expect(() => compileRegex('[\\1]', '')).toThrow(/invalid escape/);
  });

  it('computes class subtraction into ranges, Unicode categories and name classes included', () => {
    expect(regexMatches('acd', '^[a-z-[b]]+$', '')).toBe(true);
    expect(regexMatches('abc', '^[a-z-[b]]+$', '')).toBe(false);
    expect(regexMatches('ABC', '^[a-z-[b]]+$', 'i')).toBe(false);
    expect(regexMatches('ACD', '^[a-z-[b]]+$', 'i')).toBe(true);
    expect(regexMatches('éx', '^[\\p{L}-[a-z]]+$', '')).toBe(false);
    expect(regexMatches('éÅ', '^[\\p{L}-[a-z]]+$', '')).toBe(true);
    expect(regexMatches('x', '^[\\i-[\\p{Ll}]]$', '')).toBe(false);
    expect(regexMatches('X', '^[\\i-[\\p{Ll}]]$', '')).toBe(true);
    expect(regexMatches('\u{10001}', '^[\\c-[a]]$', '')).toBe(true);
    expect(regexMatches('a', '^[a-[a]]$', '')).toBe(false);
  });

  it('keeps the XPath flags and escapes', () => {
    expect(regexMatches('a\u2028b', '^b$', 'm')).toBe(false); // only \n ends a line in XPath
    expect(regexMatches('a\nb', '^b$', 'm')).toBe(true);
    expect(regexMatches('a\nb', 'a.b', 's')).toBe(true);
    expect(regexMatches('a\u2028b', 'a.b', '')).toBe(true); // XPath's . excludes only \n and \r
    expect(regexMatches('ÉTÉ', 'été', 'i')).toBe(true);
    expect(regexMatches('a+b', 'a+b', 'q')).toBe(true);
    expect(regexMatches('aab', 'a+b', 'q')).toBe(false);
    expect(regexMatches('\u{1F600}', '^.$', '')).toBe(true);
    expect(regexMatches('x\u{1F600}y', '^x[\\p{So}]y$', '')).toBe(true);
    expect(regexMatches('Ωμέγα', '^\\p{IsGreek}+$', '')).toBe(true);
    expect(regexReplace('a b', '\\b', '|', '')).toBe('|a| |b|');
    expect(regexReplace('abcd', '(ab)|(a)', '[$1][$2]', '')).toBe('[ab][]cd');
  });
});
