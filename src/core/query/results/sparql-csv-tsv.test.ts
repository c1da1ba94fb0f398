import { describe, expect, it } from 'vitest';
import { blankNode, literal, namedNode } from '../../rdf/terms.js';
import { xsd } from '../../rdf/vocab.js';
import { tableToResult, type ResultTable } from './sparql-json.js';
import { parseCsv, parseTsv, toCsv, toTsv, tsvToTerm, writeCsv } from './sparql-csv-tsv.js';

const dt = (v: string, d: string) => literal(v, namedNode(d));
// The example of the W3C CSV/TSV spec, plus numeric and escaping corner cases.
const table: ResultTable = {
  type: 'bindings',
  variables: ['x', 'literal'],
  rows: [
    { x: namedNode('http://example/x'), literal: literal('String') },
    { x: namedNode('http://example/x'), literal: literal('String-with-dquote"') },
    { x: blankNode('b0'), literal: literal('Blank node') },
    { literal: literal("Missing 'x'") },
    {},
    { x: namedNode('http://example/x') },
    { x: blankNode('b1'), literal: literal('String-with-lang', 'en') },
    { x: blankNode('b1'), literal: dt('123', xsd.integer) },
    { literal: literal('a,b\tc\nd\re') },
    { literal: dt('-3', 'http://www.w3.org/2001/XMLSchema#negativeInteger') },
    { literal: dt('1.0E6', xsd.double) },
    { literal: dt('.5', xsd.decimal) },
    { literal: dt('5.', xsd.decimal) },
    { literal: dt('true', xsd.boolean) },
    { literal: dt('1', xsd.boolean) },
  ],
};

describe('SPARQL CSV', () => {
  it('writes plain strings with RFC 4180 quoting and CRLF line ends', async () => {
    expect(await toCsv(tableToResult(table))).toBe(
      'x,literal\r\n' +
      'http://example/x,String\r\n' +
      'http://example/x,"String-with-dquote"""\r\n' +
      '_:b0,Blank node\r\n' +
      ",Missing 'x'\r\n" +
      ',\r\n' +
      'http://example/x,\r\n' +
      '_:b1,String-with-lang\r\n' +
      '_:b1,123\r\n' +
      ',"a,b\tc\nd\re"\r\n' +
      ',-3\r\n' +
      ',1.0E6\r\n' +
      ',.5\r\n' +
      ',5.\r\n' +
      ',true\r\n' +
      ',1\r\n');
  });

  it('rewrites blank node labels that are not valid labels, consistently', async () => {
    const r = tableToResult({ type: 'bindings', variables: ['a', 'b'], rows: [{ a: blankNode('n 1'), b: blankNode('n 1') }, { a: blankNode('x_0') }] });
    expect(await toCsv(r)).toBe('a,b\r\n_:x_0,_:x_0\r\n_:x_1,\r\n');
  });

  it('refuses ASK and graph results', async () => {
    await expect(toCsv({ type: 'boolean', value: true })).rejects.toThrow(/SELECT results only/);
    const it = writeCsv({ type: 'quads', quads: (async function* () {})() })[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toMatchObject({ status: 400, type: 'err:db/BadRequest' });
  });

  it('parses what it writes, and LF-terminated files', async () => {
    const parsed = parseCsv(await toCsv(tableToResult(table)));
    expect(parsed.header).toEqual(['x', 'literal']);
    expect(parsed.rows[1]).toEqual(['http://example/x', 'String-with-dquote"']);
    expect(parsed.rows[8]).toEqual(['', 'a,b\tc\nd\re']);
    expect(parsed.rows).toHaveLength(15);
    expect(parseCsv('a,b\n1,"x""y"\n,\n')).toEqual({ header: ['a', 'b'], rows: [['1', 'x"y'], ['', '']] });
    expect(parseCsv('a\r\n1')).toEqual({ header: ['a'], rows: [['1']] });
  });

  it('rejects malformed CSV', () => {
    expect(() => parseCsv('a,b\n1\n')).toThrow(/1 fields/);
    expect(() => parseCsv('a\n"x\n')).toThrow(/unterminated/);
    expect(() => parseCsv('a\nx"y\n')).toThrow(/quote inside/);
  });
});

describe('SPARQL TSV', () => {
  it('writes Turtle-syntax terms with numeric shortcuts where the lexical form allows', async () => {
    expect(await toTsv(tableToResult(table))).toBe(
      '?x\t?literal\n' +
      '<http://example/x>\t"String"\n' +
      '<http://example/x>\t"String-with-dquote\\""\n' +
      '_:b0\t"Blank node"\n' +
      "\t\"Missing 'x'\"\n" +
      '\t\n' +
      '<http://example/x>\t\n' +
      '_:b1\t"String-with-lang"@en\n' +
      '_:b1\t123\n' +
      '\t"a,b\\tc\\nd\\re"\n' +
      '\t"-3"^^<http://www.w3.org/2001/XMLSchema#negativeInteger>\n' +
      '\t1.0E6\n' +
      '\t.5\n' +
      '\t"5."^^<http://www.w3.org/2001/XMLSchema#decimal>\n' +
      '\ttrue\n' +
      '\t"1"^^<http://www.w3.org/2001/XMLSchema#boolean>\n');
  });

  it('round-trips through the parser exactly', async () => {
    expect(parseTsv(await toTsv(tableToResult(table)))).toEqual(table);
  });

  it('reads the W3C expected-result conventions', () => {
    expect(parseTsv('?s\t?o\n<http://a>\t1.0e6\n_:b0\t\n\t2.2\n')).toEqual({
      type: 'bindings', variables: ['s', 'o'],
      rows: [{ s: namedNode('http://a'), o: dt('1.0e6', xsd.double) }, { s: blankNode('b0') }, { o: dt('2.2', xsd.decimal) }],
    });
    expect(tsvToTerm("'single \\u0041'@EN")).toEqual(literal('single A', 'en'));
    expect(tsvToTerm('<http://a/\\u00E9>')).toEqual(namedNode('http://a/\u00e9'));
    expect(tsvToTerm('false')).toEqual(dt('false', xsd.boolean));
    expect(tsvToTerm('-7')).toEqual(dt('-7', xsd.integer));
  });

  it('keeps an all-unbound single-column row', () => {
    expect(parseTsv('?x\n\n<http://a>\n')).toEqual({ type: 'bindings', variables: ['x'], rows: [{}, { x: namedNode('http://a') }] });
  });

  it('rejects malformed TSV', () => {
    expect(() => parseTsv('x\n')).toThrow(/header/);
    expect(() => parseTsv('?x\t?y\n<a>\n')).toThrow(/1 fields/);
    expect(() => tsvToTerm('foo')).toThrow(/cannot read/);
    expect(() => tsvToTerm('"a\\qb"')).toThrow(/invalid escape/);
  });
});
