import { describe, expect, it } from 'vitest';
import { LedgraphError } from '../errors.js';
import {
  XSDT, canonicalDouble, canonicalFloat, canonicalLexical, isNumericDatatype, isTemporalDatatype, isValidLexical, promoteNumeric,
} from './datatypes.js';
import { decAdd, decCeil, decDiv, decFloor, decMul, decParse, decRound, decSub, decToCanonical, decToCanonical11, decToPlain } from './decimal.js';
import { compareDuration, compareTemporal, parseDuration, parseTemporal } from './temporal.js';
import { type Literal, literal, namedNode } from './terms.js';
import {
  coerceJsonValue, compareNumeric, isIllTyped, numericToXPathString, numericValue, numericValueEquals, parseLiteral,
} from './values.js';

const X = 'http://www.w3.org/2001/XMLSchema#';
const lit = (lex: string, local = 'string'): Literal => literal(lex, namedNode(local.includes(':') ? local : X + local));
const d = (s: string) => decParse(s)!;

describe('decimal arithmetic', () => {
  it('parses and prints canonical forms', () => {
    const cases: [string, string, string][] = [
      ['+33.3300', '33.33', '33.33'], ['0', '0.0', '0'], ['-0.0', '0.0', '0'], ['.5', '0.5', '0.5'],
      ['5.', '5.0', '5'], ['-007.250', '-7.25', '-7.25'], ['100', '100.0', '100'], ['0.001', '0.001', '0.001'],
    ];
    for (const [input, canonical, plain] of cases) {
      expect(decToCanonical(d(input))).toBe(canonical);
      expect(decToPlain(d(input))).toBe(plain);
    }
    expect(decParse('1e5')).toBeUndefined();
    expect(decToPlain(decParse('1.5e3', true)!)).toBe('1500');
    expect(decParse('.')).toBeUndefined();
    expect(decParse('')).toBeUndefined();
  });

  it('adds, subtracts and multiplies exactly', () => {
    expect(decToCanonical(decAdd(d('0.1'), d('0.2')))).toBe('0.3');
    expect(decToCanonical(decSub(d('1'), d('0.0001')))).toBe('0.9999');
    expect(decToCanonical(decMul(d('1.5'), d('-2.5')))).toBe('-3.75');
    expect(decToCanonical(decAdd(d('12345678901234567890.1'), d('0.9')))).toBe('12345678901234567891.0');
  });

  it('divides with 24 fractional digits when not terminating', () => {
    expect(decToCanonical(decDiv(d('1'), d('3')))).toBe('0.333333333333333333333333');
    expect(decToCanonical(decDiv(d('2'), d('3')))).toBe('0.666666666666666666666667');
    expect(decToCanonical(decDiv(d('-7'), d('2')))).toBe('-3.5');
    expect(decToCanonical(decDiv(d('1'), d('0.25')))).toBe('4.0');
    expect(() => decDiv(d('1'), d('0'))).toThrow(LedgraphError);
  });

  it('has an XSD 1.0 and an XSD 1.1 canonical form, differing only on whole numbers', () => {
    const forms = (s: string) => [decToCanonical(d(s)), decToCanonical11(d(s))];
    expect(forms('3.00')).toEqual(['3.0', '3']);
    expect(forms('-02')).toEqual(['-2.0', '-2']);
    expect(forms('-0.0')).toEqual(['0.0', '0']);
    expect(forms('-0.50')).toEqual(['-0.5', '-0.5']);
    expect(forms('+33.3300')).toEqual(['33.33', '33.33']);
  });

  it('floors, ceils and rounds half toward positive infinity', () => {
    expect([decFloor(d('2.5')), decCeil(d('2.5')), decRound(d('2.5'))]).toEqual([2n, 3n, 3n]);
    expect([decFloor(d('-2.5')), decCeil(d('-2.5')), decRound(d('-2.5'))]).toEqual([-3n, -2n, -2n]);
    expect([decFloor(d('-1.6')), decCeil(d('-1.6')), decRound(d('-1.6'))]).toEqual([-2n, -1n, -2n]);
    expect([decFloor(d('3')), decCeil(d('3')), decRound(d('2.4999'))]).toEqual([3n, 3n, 2n]);
  });
});

describe('datatype registry', () => {
  it('classifies datatypes', () => {
    expect(isNumericDatatype(XSDT.unsignedShort)).toBe(true);
    expect(isNumericDatatype(XSDT.string)).toBe(false);
    expect(isTemporalDatatype(XSDT.gYearMonth)).toBe(true);
    expect(isTemporalDatatype(XSDT.dayTimeDuration)).toBe(true);
    expect(promoteNumeric('integer', 'decimal')).toBe('decimal');
    expect(promoteNumeric('float', 'decimal')).toBe('float');
    expect(promoteNumeric('float', 'double')).toBe('double');
    expect(promoteNumeric('integer', 'integer')).toBe('integer');
  });

  it('checks lexical forms', () => {
    const cases: [string, string, boolean][] = [
      ['integer', '+1', true], ['integer', '1.0', false], ['integer', '', false], ['integer', ' 1', false],
      ['byte', '127', true], ['byte', '128', false], ['byte', '-128', true], ['byte', '-129', false],
      ['unsignedByte', '-1', false], ['unsignedByte', '255', true], ['positiveInteger', '0', false],
      ['negativeInteger', '-1', true], ['nonPositiveInteger', '1', false],
      ['long', '9223372036854775807', true], ['long', '9223372036854775808', false],
      ['unsignedLong', '18446744073709551615', true], ['int', '2147483648', false],
      ['decimal', '1.', true], ['decimal', '.5', true], ['decimal', '.', false], ['decimal', '1e5', false],
      ['double', '1e5', true], ['double', 'INF', true], ['double', '-INF', true], ['double', 'NaN', true],
      ['double', 'inf', false], ['double', '1.5E', false], ['float', '.5e-3', true],
      ['boolean', 'true', true], ['boolean', '1', true], ['boolean', 'TRUE', false], ['boolean', 'yes', false],
      ['dateTime', '2012-02-29T00:00:00Z', true], ['dateTime', '2011-02-29T00:00:00Z', false],
      ['dateTime', '2010-02-30T00:00:00', false], ['dateTime', '2010-12-31T24:00:00', true],
      ['dateTime', '2010-12-31T24:00:01', false], ['dateTime', '2010-06-21T11:28:01.5-08:00', true],
      ['dateTime', '2010-06-21T11:28:01+14:00', true], ['dateTime', '2010-06-21T11:28:01+14:01', false],
      ['dateTime', '10-06-21T11:28:01', false], ['dateTime', '2010-06-21', false], ['dateTime', '2010-06-21T11:28', false],
      ['dateTime', '-0044-03-15T12:00:00', true], ['dateTime', '02010-06-21T11:28:01', false],
      ['dateTimeStamp', '2010-06-21T11:28:01', false], ['dateTimeStamp', '2010-06-21T11:28:01Z', true],
      ['date', '2010-06-21', true], ['date', '2010-06-21Z', true], ['date', '2010-13-01', false],
      ['time', '23:59:59.999', true], ['time', '24:00:00', true], ['time', '12:60:00', false],
      ['gYear', '-0044', true], ['gYear', '2024Z', true], ['gYearMonth', '2024-13', false],
      ['gMonthDay', '--02-29', true], ['gMonthDay', '--02-30', false], ['gDay', '---31', true], ['gMonth', '--12', true],
      ['duration', 'P1Y2M3DT4H5M6.5S', true], ['duration', 'P', false], ['duration', 'PT', false],
      ['duration', 'P1YT', false], ['duration', '-P1D', true], ['duration', 'P1.5Y', false], ['duration', 'PT.5S', true],
      ['dayTimeDuration', 'P1Y', false], ['dayTimeDuration', 'PT36H', true], ['yearMonthDuration', 'P1D', false],
      ['yearMonthDuration', 'P1Y6M', true],
      ['language', 'en-US', true], ['language', 'en_US', false], ['token', 'a b', true], ['token', 'a  b', false],
      ['NCName', 'a:b', false], ['Name', 'a:b', true], ['hexBinary', '0fA1', true], ['hexBinary', '0f1', false],
      ['base64Binary', 'SGVsbG8=', true], ['base64Binary', 'SGVsbG8', false],
      ['http://example.org/custom', 'anything at all', true],
    ];
    for (const [dt, lex, ok] of cases) expect([dt, lex, isValidLexical(dt.includes(':') ? dt : X + dt, lex)]).toEqual([dt, lex, ok]);
  });

  it('produces canonical lexical forms', () => {
    const cases: [string, string, string][] = [
      ['integer', '+007', '7'], ['integer', '-0', '0'], ['byte', '-05', '-5'],
      ['decimal', '+33.3300', '33.33'], ['decimal', '1', '1.0'],
      ['double', '1', '1.0E0'], ['double', '-10.2E3', '-1.02E4'], ['double', '0.0', '0.0E0'], ['double', '-0', '-0.0E0'],
      ['double', '1e-7', '1.0E-7'], ['double', '123456789012345678', '1.2345678901234568E17'], ['double', '+INF', 'INF'],
      ['double', '100', '1.0E2'], ['double', '0.1', '1.0E-1'],
      ['float', '0.1', '1.0E-1'], ['float', '1.1', '1.1E0'], ['float', '16777217', '1.6777216E7'], ['float', '3.4028235E38', '3.4028235E38'],
      ['boolean', '1', 'true'], ['boolean', '0', 'false'],
      ['dateTime', '2010-06-21T11:28:01.500+00:00', '2010-06-21T11:28:01.5Z'],
      ['dateTime', '2010-12-31T24:00:00Z', '2011-01-01T00:00:00Z'], ['dateTime', '2010-06-21T11:28:01.000-08:00', '2010-06-21T11:28:01-08:00'],
      ['time', '24:00:00', '00:00:00'], ['date', '2010-06-21-00:00', '2010-06-21Z'],
      ['duration', 'P14M', 'P1Y2M'], ['duration', 'PT36H', 'P1DT12H'], ['duration', 'P0D', 'PT0S'], ['duration', 'PT1.50S', 'PT1.5S'],
      ['duration', '-P1DT0.5S', '-P1DT0.5S'], ['duration', 'PT3600S', 'PT1H'], ['yearMonthDuration', 'P0Y', 'P0M'],
      ['dayTimeDuration', 'PT90M', 'PT1H30M'], ['hexBinary', '0fa1', '0FA1'],
      ['http://example.org/custom', ' x ', ' x '],
    ];
    for (const [dt, lex, canon] of cases) expect([dt, lex, canonicalLexical(dt.includes(':') ? dt : X + dt, lex)]).toEqual([dt, lex, canon]);
    expect(() => canonicalLexical(X + 'integer', '1.5')).toThrow(LedgraphError);
    try { canonicalLexical(X + 'date', 'nope'); } catch (e) { expect((e as LedgraphError).status).toBe(400); }
    expect(canonicalDouble(NaN)).toBe('NaN');
    expect(canonicalFloat(Math.fround(0.3))).toBe('3.0E-1');
  });
});

describe('temporal values', () => {
  const dt = (s: string) => parseTemporal('dateTime', s)!;
  it('parses fields and timezone offsets', () => {
    expect(dt('2010-12-21T15:38:02.250-08:00')).toEqual({
      type: 'dateTime', year: 2010, month: 12, day: 21, hour: 15, minute: 38, second: 2, frac: '25', tz: -480,
    });
    expect(parseTemporal('time', '10:00:00+05:30')!.tz).toBe(330);
    expect(parseTemporal('gYear', '-0044')!.year).toBe(-44);
  });

  it('orders with the XSD partial order', () => {
    expect(compareTemporal(dt('2010-01-01T12:00:00Z'), dt('2010-01-01T07:00:00-05:00'))).toBe(0);
    expect(compareTemporal(dt('2010-01-01T12:00:00Z'), dt('2010-01-01T12:00:00.1Z'))).toBe(-1);
    expect(compareTemporal(dt('2010-01-01T12:00:00'), dt('2010-01-01T11:00:00'))).toBe(1);
    // One side without timezone: determinate only when more than 14 hours apart.
    expect(compareTemporal(dt('2010-01-01T12:00:00'), dt('2010-01-01T12:00:00Z'))).toBeUndefined();
    expect(compareTemporal(dt('2010-01-01T12:00:00'), dt('2010-01-02T02:00:00Z'))).toBeUndefined();
    expect(compareTemporal(dt('2010-01-01T12:00:00'), dt('2010-01-02T02:00:01Z'))).toBe(-1);
    expect(compareTemporal(dt('2010-01-02T02:00:01Z'), dt('2010-01-01T12:00:00'))).toBe(1);
    expect(compareTemporal(dt('2010-01-01T00:00:00Z'), dt('2010-01-01T14:00:01'))).toBe(-1);
    expect(compareTemporal(dt('-0001-01-01T00:00:00Z'), dt('0001-01-01T00:00:00Z'))).toBe(-1);
  });

  it('compares durations by component', () => {
    const du = (s: string) => parseDuration('duration', s)!;
    expect(du('P1Y2M')).toEqual({ type: 'duration', months: 14, seconds: { mant: 0n, scale: 0 } });
    expect(du('-P1DT1.5S')).toEqual({ type: 'duration', months: 0, seconds: { mant: -864015n, scale: 1 } });
    expect(compareDuration(du('P1Y'), du('P13M'))).toBe(-1);
    expect(compareDuration(du('PT24H'), du('P1D'))).toBe(0);
    expect(compareDuration(du('P1M'), du('P30D'))).toBeUndefined();
  });
});

describe('parseLiteral', () => {
  it('parses numbers exactly', () => {
    expect(parseLiteral(lit('-0012', 'integer'))).toEqual({ kind: 'integer', big: -12n });
    expect(parseLiteral(lit('123456789012345678901234567890', 'long'))).toBeUndefined();
    expect(parseLiteral(lit('123456789012345678901234567890', 'integer'))).toEqual({ kind: 'integer', big: 123456789012345678901234567890n });
    expect(parseLiteral(lit('1.50', 'decimal'))).toEqual({ kind: 'decimal', mant: 15n, scale: 1 });
    expect(parseLiteral(lit('0.1', 'float'))).toEqual({ kind: 'float', num: Math.fround(0.1) });
    expect(parseLiteral(lit('-INF', 'double'))).toEqual({ kind: 'double', num: -Infinity });
  });

  it('parses strings, booleans and dates', () => {
    expect(parseLiteral(literal('chat', 'fr'))).toEqual({ kind: 'string', value: 'chat', lang: 'fr' });
    expect(parseLiteral(literal('chat'))).toEqual({ kind: 'string', value: 'chat', lang: '' });
    expect(parseLiteral(lit('1', 'boolean'))).toEqual({ kind: 'boolean', value: true });
    expect(parseLiteral(lit('2011-02-01T01:02:03', 'dateTime'))).toMatchObject({ kind: 'temporal', type: 'dateTime', year: 2011, tz: undefined });
    expect(parseLiteral(lit('PT1H', 'dayTimeDuration'))).toMatchObject({ kind: 'duration', months: 0, seconds: { mant: 3600n, scale: 0 } });
    expect(parseLiteral(lit('x', 'http://example.org/t'))).toBeUndefined();
  });

  it('recognises ill-typed literals', () => {
    expect(isIllTyped(lit('abc', 'integer'))).toBe(true);
    expect(isIllTyped(lit('300', 'byte'))).toBe(true);
    expect(isIllTyped(lit('2010-02-30', 'date'))).toBe(true);
    expect(isIllTyped(lit('12', 'integer'))).toBe(false);
    expect(isIllTyped(lit('abc', 'http://example.org/t'))).toBe(false);
    expect(isIllTyped(literal('abc'))).toBe(false);
  });
});

describe('numeric values', () => {
  const nv = (lex: string, dt: string) => numericValue(lit(lex, dt))!;
  it('compares across types with promotion', () => {
    expect(compareNumeric(nv('1', 'integer'), nv('1.0', 'decimal'))).toBe(0);
    expect(compareNumeric(nv('1152921504606846977', 'integer'), nv('1152921504606846976', 'integer'))).toBe(1);
    expect(compareNumeric(nv('0.1', 'float'), nv('0.1', 'decimal'))).toBe(0);
    expect(compareNumeric(nv('0.1', 'double'), nv('0.1', 'float'))).toBe(-1);
    expect(compareNumeric(nv('NaN', 'double'), nv('1', 'integer'))).toBeUndefined();
    expect(compareNumeric(nv('-INF', 'double'), nv('-99999999999999999999', 'integer'))).toBe(-1);
  });

  it('casts to strings the XPath way', () => {
    const cases: [string, string, string][] = [
      ['1.0', 'decimal', '1'], ['-2.50', 'decimal', '-2.5'], ['0012', 'integer', '12'],
      ['1E0', 'double', '1'], ['1e6', 'double', '1.0E6'], ['123456.5', 'double', '123456.5'], ['1e-7', 'double', '1.0E-7'],
      ['0.000001', 'double', '0.000001'], ['-0', 'double', '-0'], ['NaN', 'double', 'NaN'], ['INF', 'float', 'INF'],
      ['1.25', 'float', '1.25'], ['0.1', 'float', '0.1'], ['-7.875', 'float', '-7.875'],
    ];
    for (const [lex, dt, s] of cases) expect([lex, dt, numericToXPathString(nv(lex, dt))]).toEqual([lex, dt, s]);
  });

  it('matches loosely by numeric value for retraction', () => {
    const n34 = coerceJsonValue(34, XSDT.integer);
    expect(numericValueEquals(n34, lit('34', 'int'))).toBe(true);
    expect(numericValueEquals(n34, lit('34.0', 'decimal'))).toBe(true);
    expect(numericValueEquals(n34, lit('3.4E1', 'double'))).toBe(true);
    expect(numericValueEquals(n34, lit('34'))).toBe(false);
    expect(numericValueEquals(n34, lit('35', 'int'))).toBe(false);
    expect(numericValueEquals(n34, lit('thirty-four', 'int'))).toBe(false);
    expect(numericValueEquals(lit('NaN', 'double'), lit('NaN', 'double'))).toBe(false);
  });
});

describe('coerceJsonValue (jsonld-transactions §3.4)', () => {
  const ok = (v: string | number | boolean, dt: string) => {
    const l = coerceJsonValue(v, dt.includes(':') ? dt : X + dt);
    return [l.value, l.datatype.value.replace(X, 'xsd:'), l.language];
  };
  const bad = (v: string | number | boolean, dt: string) => {
    try {
      coerceJsonValue(v, dt.includes(':') ? dt : X + dt);
    } catch (e) {
      expect(e).toBeInstanceOf(LedgraphError);
      expect((e as LedgraphError).status).toBe(400);
      expect((e as LedgraphError).type).toBe('err:db/BadRequest');
      return (e as LedgraphError).message;
    }
    throw new Error(`expected ${JSON.stringify(v)} as ${dt} to fail`);
  };

  it('parses strings with the datatype lexical rules', () => {
    expect(ok('12', 'integer')).toEqual(['12', 'xsd:integer', '']);
    expect(ok(' 12 ', 'integer')).toEqual(['12', 'xsd:integer', '']);
    expect(ok('true', 'boolean')).toEqual(['true', 'xsd:boolean', '']);
    expect(ok('1', 'boolean')).toEqual(['1', 'xsd:boolean', '']);
    expect(ok('1990-04-12', 'date')).toEqual(['1990-04-12', 'xsd:date', '']);
    expect(ok('4.75', 'decimal')).toEqual(['4.75', 'xsd:decimal', '']);
    expect(ok('P1Y2M', 'duration')).toEqual(['P1Y2M', 'xsd:duration', '']);
    expect(ok('2024', 'gYear')).toEqual(['2024', 'xsd:gYear', '']);
    expect(ok(' keep spaces ', 'string')).toEqual([' keep spaces ', 'xsd:string', '']);
    expect(ok('whatever', 'http://example.org/t')).toEqual(['whatever', 'http://example.org/t', '']);
    expect(bad('abc', 'decimal')).toBe('cannot coerce "abc" to xsd:decimal: not a valid xsd:decimal lexical form');
    expect(bad('1990-02-30', 'date')).toContain('xsd:date');
    expect(bad('200', 'byte')).toBe('value 200 is out of range for xsd:byte (-128..127)');
  });

  it('coerces numbers', () => {
    expect(ok(36, 'int')).toEqual(['36', 'xsd:int', '']);
    expect(ok(34, 'integer')).toEqual(['34', 'xsd:integer', '']);
    expect(ok(1e21, 'integer')).toEqual(['1000000000000000000000', 'xsd:integer', '']);
    expect(ok(3.5, 'decimal')).toEqual(['3.5', 'xsd:decimal', '']);
    expect(ok(0.1, 'decimal')).toEqual(['0.1', 'xsd:decimal', '']);
    expect(ok(34, 'decimal')).toEqual(['34.0', 'xsd:decimal', '']);
    expect(ok(3.5, 'double')).toEqual(['3.5E0', 'xsd:double', '']);
    expect(ok(0.1, 'float')).toEqual(['1.0E-1', 'xsd:float', '']);
    expect(ok(2024, 'gYear')).toEqual(['2024', 'xsd:gYear', '']);
    expect(ok(7, 'http://example.org/t')).toEqual(['7', 'http://example.org/t', '']);
    expect(bad(36, 'string')).toBe('cannot coerce number 36 to xsd:string; send it as a JSON string to store text');
    expect(bad(1, 'boolean')).toBe('cannot coerce number 1 to xsd:boolean; use true or false');
    expect(bad(3.5, 'integer')).toBe('cannot coerce non-integral number 3.5 to xsd:integer');
    expect(bad(128, 'byte')).toBe('value 128 is out of range for xsd:byte (-128..127)');
    expect(bad(-1, 'unsignedInt')).toBe('value -1 is out of range for xsd:unsignedInt (0..4294967295)');
    expect(bad(0, 'positiveInteger')).toBe('value 0 is out of range for xsd:positiveInteger (>= 1)');
    expect(bad(5, 'date')).toBe('cannot coerce number 5 to xsd:date; send a xsd:date lexical form as a string');
  });

  it('coerces booleans', () => {
    expect(ok(true, 'boolean')).toEqual(['true', 'xsd:boolean', '']);
    expect(ok(false, 'http://example.org/t')).toEqual(['false', 'http://example.org/t', '']);
    expect(bad(true, 'string')).toBe('cannot coerce boolean true to xsd:string');
    expect(bad(false, 'integer')).toBe('cannot coerce boolean false to xsd:integer');
    expect(bad('x', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString')).toBe('rdf:langString needs "@language", not "@type"');
  });

  it('keeps rdf:JSON text, checking that it parses', () => {
    const J = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON';
    expect(ok('{"a":1}', J)).toEqual(['{"a":1}', J, '']);
    expect(ok(7, J)).toEqual(['7', J, '']);
    expect(ok(true, J)).toEqual(['true', J, '']);
    expect(bad('{a:1}', J)).toBe(`cannot coerce "{a:1}" to ${J}: not a valid ${J} lexical form`);
  });
});
