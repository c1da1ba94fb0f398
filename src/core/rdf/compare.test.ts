import { describe, expect, it } from 'vitest';
import { compareCodePoints, compareForOrder, valueCompare, valueEquals, valueLess } from './compare.js';
import { ExprError } from './expr-error.js';
import type { Term } from './terms.js';
import { t } from '../test-support/term-syntax.js';

const X = 'http://www.w3.org/2001/XMLSchema#';

const eq = (a: string, b: string) => valueEquals(t(a), t(b));
const lt = (a: string, b: string) => valueLess(t(a), t(b));

describe('valueEquals (SPARQL =)', () => {
  it('compares numbers by value across datatypes', () => {
    expect(eq('1', '1.0')).toBe(true);
    expect(eq('1', '1e0')).toBe(true);
    expect(eq('"01"^^xsd:int', '1')).toBe(true);
    expect(eq('"1"^^xsd:unsignedByte', '"1.000"^^xsd:decimal')).toBe(true);
    expect(eq('1', '2')).toBe(false);
    expect(eq('"NaN"^^xsd:double', '"NaN"^^xsd:double')).toBe(false);
    expect(eq('"INF"^^xsd:double', '"INF"^^xsd:float')).toBe(true);
  });

  it('compares strings by text; language-tagged strings are equal only as the same term (§17.4.1.7)', () => {
    expect(eq('"a"', '"a"^^xsd:string')).toBe(true);
    expect(eq('"a"@en', '"a"@EN')).toBe(true);
    expect(eq('"a"', '"b"')).toBe(false);
    expect(eq('"a b"^^xsd:token', '"a b"')).toBe(true);
    // RDFterm-equal: both literals, not the same term -> a type error, for = and so for != too.
    expect(() => eq('"a"@en', '"a"@fr')).toThrow(ExprError);
    expect(() => eq('"a"@en', '"a"')).toThrow(ExprError);
    expect(() => eq('"a"@en', '"b"@en')).toThrow(ExprError);
  });

  it('is an error across known value spaces (open world), false for distinct IRIs/blank nodes', () => {
    expect(() => eq('1', '"1"')).toThrow(ExprError);
    expect(() => eq('true', '1')).toThrow(ExprError);
    expect(() => eq('"2010-01-01"^^xsd:date', '"2010-01-01T00:00:00Z"^^xsd:dateTime')).toThrow(ExprError);
    expect(eq('<http://a>', '"http://a"')).toBe(false);
    expect(eq('<http://a>', '<http://a>')).toBe(true);
    expect(eq('<http://a>', '<http://b>')).toBe(false);
    expect(eq('_:x', '_:x')).toBe(true);
    expect(eq('_:x', '<http://x>')).toBe(false);
  });

  it('compares booleans, date/times and durations by value', () => {
    expect(eq('true', '"1"^^xsd:boolean')).toBe(true);
    expect(eq('"2010-01-01T12:00:00Z"^^xsd:dateTime', '"2010-01-01T07:00:00-05:00"^^xsd:dateTime')).toBe(true);
    expect(eq('"2010-01-01T12:00:00Z"^^xsd:dateTime', '"2010-01-03T12:00:00"^^xsd:dateTime')).toBe(false);
    expect(eq('"P1Y"^^xsd:duration', '"P12M"^^xsd:yearMonthDuration')).toBe(true);
    expect(eq('"PT24H"^^xsd:dayTimeDuration', '"P1D"^^xsd:dayTimeDuration')).toBe(true);
    expect(eq('"12:00:00Z"^^xsd:time', '"13:00:00+01:00"^^xsd:time')).toBe(true);
    expect(eq('"2024Z"^^xsd:gYear', '"2024+00:00"^^xsd:gYear')).toBe(true);
    expect(() => eq('"2024"^^xsd:gYear', '"2024Z"^^xsd:gYear')).toThrow(ExprError);
  });

  it('is an error when it cannot be decided', () => {
    expect(() => eq('"x"^^<http://ex/t>', '"y"^^<http://ex/t>')).toThrow(ExprError);
    expect(() => eq('"x"^^<http://ex/t>', '"x"')).toThrow(ExprError);
    expect(eq('"x"^^<http://ex/t>', '"x"^^<http://ex/t>')).toBe(true);
    expect(() => eq('"abc"^^xsd:integer', '1')).toThrow(ExprError);
    expect(eq('"abc"^^xsd:integer', '"abc"^^xsd:integer')).toBe(true);
    expect(() => eq('"2010-01-01T12:00:00"^^xsd:dateTime', '"2010-01-01T12:00:00Z"^^xsd:dateTime')).toThrow(ExprError);
  });
});

describe('valueLess / valueCompare (SPARQL <)', () => {
  it('orders numbers, strings, booleans', () => {
    expect(lt('1', '1.5')).toBe(true);
    expect(lt('2', '1e1')).toBe(true);
    expect(lt('"-5"^^xsd:byte', '-4.9')).toBe(true);
    expect(lt('"abc"', '"abd"')).toBe(true);
    expect(lt('"b"', '"abc"')).toBe(false);
    expect(lt('""', '"a"')).toBe(true);
    // U+FFFD < U+1F600 by code point although its UTF-16 unit is larger than the surrogate's.
    expect(lt('"\uFFFD"', '"\u{1F600}"')).toBe(true);
    expect(lt('false', 'true')).toBe(true);
    expect(lt('true', 'false')).toBe(false);
  });

  it('returns NaN (all comparisons false) for NaN operands', () => {
    expect(valueCompare(t('"NaN"^^xsd:double'), t('1'))).toBeNaN();
    expect(lt('"NaN"^^xsd:double', '1')).toBe(false);
  });

  it('orders date/times, raising on indeterminate pairs', () => {
    expect(lt('"2010-01-01T12:00:00Z"^^xsd:dateTime', '"2010-01-01T12:00:01Z"^^xsd:dateTime')).toBe(true);
    expect(lt('"2010-01-01T12:00:00-05:00"^^xsd:dateTime', '"2010-01-01T12:00:00Z"^^xsd:dateTime')).toBe(false);
    expect(lt('"2010-01-01"^^xsd:date', '"2010-01-02"^^xsd:date')).toBe(true);
    expect(lt('"2010-01-01T00:00:00"^^xsd:dateTime', '"2010-01-03T00:00:00Z"^^xsd:dateTime')).toBe(true);
    expect(() => lt('"2010-01-01T00:00:00"^^xsd:dateTime', '"2010-01-01T10:00:00Z"^^xsd:dateTime')).toThrow(ExprError);
    expect(lt('"PT1H"^^xsd:dayTimeDuration', '"PT61M"^^xsd:dayTimeDuration')).toBe(true);
    expect(() => lt('"P1M"^^xsd:duration', '"P30D"^^xsd:duration')).toThrow(ExprError);
  });

  it('is an error for operands < does not cover', () => {
    expect(() => lt('<http://a>', '<http://b>')).toThrow(ExprError);
    expect(() => lt('"a"@en', '"b"@en')).toThrow(ExprError);
    expect(() => lt('1', '"2"')).toThrow(ExprError);
    expect(() => lt('"2010-01-01"^^xsd:date', '"2010-01-01T00:00:00Z"^^xsd:dateTime')).toThrow(ExprError);
    expect(() => lt('"x"^^<http://ex/t>', '"y"^^<http://ex/t>')).toThrow(ExprError);
    expect(() => lt('"abc"^^xsd:integer', '1')).toThrow(ExprError);
    expect(() => lt('_:a', '_:b')).toThrow(ExprError);
  });
});

describe('compareCodePoints', () => {
  it('orders by code point', () => {
    expect(compareCodePoints('a', 'b')).toBe(-1);
    expect(compareCodePoints('ab', 'a')).toBe(1);
    expect(compareCodePoints('\uFFFF', '\u{10000}')).toBe(-1);
    expect(compareCodePoints('\uE000', '\uD800')).toBe(-1);
    expect(compareCodePoints('x', 'x')).toBe(0);
  });
});

describe('compareForOrder (ORDER BY)', () => {
  const expected = [
    undefined, '_:a', '_:b', '<http://a>', '<http://b>',
    '""', '"A"', '"a"', '"b"', '"\u{1F600}"',
    '"a"@de', '"a"@en', '"b"@en',
    '"NaN"^^xsd:double', '"-INF"^^xsd:double', '-5', '"1.0"^^xsd:decimal', '1e0', '"1"^^xsd:int', '1', '1.5', '2', '"INF"^^xsd:float',
    'false', 'true',
    '"2010-01-01T00:00:00"^^xsd:dateTime', '"2010-01-01T10:00:00+05:00"^^xsd:dateTime', '"2010-01-01T05:00:01Z"^^xsd:dateTime',
    '"2009-12-31"^^xsd:date', '"08:00:00"^^xsd:time',
    '"PT1H"^^xsd:dayTimeDuration', '"P1M"^^xsd:yearMonthDuration',
    '"z"^^<http://ex/a>', '"a"^^<http://ex/b>', '"b"^^<http://ex/b>', '"abc"^^xsd:integer',
  ] as const;

  it('sorts a mixed list into the total order', () => {
    const terms = expected.map((s) => (s === undefined ? undefined : t(s)));
    const shuffled = [...terms].reverse();
    shuffled.push(shuffled.shift());
    // Array#sort never passes undefined to a comparator, so sort boxed values (as rows are).
    const sorted = shuffled.map((v) => ({ v })).sort((a, b) => compareForOrder(a.v, b.v)).map((r) => r.v);
    expect(sorted.map((x) => (x === undefined ? 'unbound' : x.termType === 'Literal' ? x.value + '|' + x.language + '|' + x.datatype.value.replace(X, '') : x.value)))
      .toEqual(terms.map((x) => (x === undefined ? 'unbound' : x.termType === 'Literal' ? x.value + '|' + x.language + '|' + x.datatype.value.replace(X, '') : x.value)));
  });

  it('is antisymmetric and returns 0 only for the same term', () => {
    const terms = expected.map((s) => (s === undefined ? undefined : t(s)));
    for (let i = 0; i < terms.length; i++) {
      for (let j = 0; j < terms.length; j++) {
        const c = compareForOrder(terms[i], terms[j]);
        expect(Math.sign(c)).toBe(Math.sign(i - j));
      }
    }
  });

  it('agrees with < where < is defined', () => {
    expect(compareForOrder(t('2'), t('10'))).toBe(-1);
    expect(compareForOrder(t('"10"'), t('"2"'))).toBe(-1);
    expect(compareForOrder(t('1.5'), t('"1.25"^^xsd:float'))).toBe(1);
  });
});
