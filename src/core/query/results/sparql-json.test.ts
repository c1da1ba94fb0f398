import { describe, expect, it } from 'vitest';
import { blankNode, literal, namedNode } from '../../rdf/terms.js';
import { xsd } from '../../rdf/vocab.js';
import { isLedgraphError } from '../../errors.js';
import fc from 'fast-check';
import { jsonString, parseSparqlJson, resultToTable, tableToResult, toSparqlJson, writeSparqlJson, type ResultTable } from './sparql-json.js';

const table: ResultTable = {
  type: 'bindings',
  variables: ['s', 'o'],
  rows: [
    { s: namedNode('http://example.org/a'), o: literal('plain') },
    { s: blankNode('b0'), o: literal('chat', 'fr') },
    { s: namedNode('http://example.org/c'), o: literal('1', namedNode(xsd.integer)) },
    { s: namedNode('http://example.org/d') },
  ],
};

describe('SPARQL JSON writer', () => {
  it('writes bindings one per line, omitting unbound variables and xsd:string datatypes', async () => {
    expect(await toSparqlJson(tableToResult(table))).toBe(
      '{"head":{"vars":["s","o"]},"results":{"bindings":[\n' +
      '{"s":{"type":"uri","value":"http://example.org/a"},"o":{"type":"literal","value":"plain"}},\n' +
      '{"s":{"type":"bnode","value":"b0"},"o":{"type":"literal","value":"chat","xml:lang":"fr"}},\n' +
      '{"s":{"type":"uri","value":"http://example.org/c"},"o":{"type":"literal","value":"1","datatype":"http://www.w3.org/2001/XMLSchema#integer"}},\n' +
      '{"s":{"type":"uri","value":"http://example.org/d"}}\n' +
      ']}}\n');
  });

  it('writes an empty result and booleans', async () => {
    expect(await toSparqlJson(tableToResult({ type: 'bindings', variables: ['x'], rows: [] })))
      .toBe('{"head":{"vars":["x"]},"results":{"bindings":[]}}\n');
    expect(await toSparqlJson({ type: 'boolean', value: true })).toBe('{"head":{},"boolean":true}\n');
    expect(await toSparqlJson({ type: 'boolean', value: false })).toBe('{"head":{},"boolean":false}\n');
  });

  it('streams chunk by chunk', async () => {
    const chunks: string[] = [];
    for await (const c of writeSparqlJson(tableToResult(table))) chunks.push(c);
    expect(chunks).toHaveLength(6);
    expect(JSON.parse(chunks.join(''))).toBeTruthy();
  });

  it('rejects graph results', async () => {
    const r = { type: 'quads' as const, quads: (async function* () {})() };
    await expect(toSparqlJson(r)).rejects.toSatisfy(isLedgraphError);
  });

  it('round-trips through the parser', async () => {
    expect(parseSparqlJson(await toSparqlJson(tableToResult(table)))).toEqual(table);
    expect(parseSparqlJson(await toSparqlJson({ type: 'boolean', value: true }))).toEqual({ type: 'boolean', value: true });
    expect(await resultToTable(tableToResult(table))).toEqual(table);
  });
});

describe('SPARQL JSON parser', () => {
  it('reads W3C-style documents, including typed-literal and explicit xsd:string', () => {
    const t = parseSparqlJson(`{
      "head": { "vars": [ "x", "y" ], "link": [] },
      "results": { "bindings": [
        { "x": { "type": "typed-literal", "datatype": "${xsd.decimal}", "value": "5" },
          "y": { "type": "literal", "datatype": "${xsd.string}", "value": "s" } },
        { "x": { "type": "literal", "xml:lang": "EN", "value": "hi" } }
      ] } }`);
    expect(t).toEqual({
      type: 'bindings', variables: ['x', 'y'],
      rows: [{ x: literal('5', namedNode(xsd.decimal)), y: literal('s') }, { x: literal('hi', 'en') }],
    });
  });

  it('reads booleans', () => {
    expect(parseSparqlJson('{"head":{},"boolean":false}')).toEqual({ type: 'boolean', value: false });
  });

  it('rejects malformed documents with LedgraphErrors', () => {
    for (const bad of ['{', '[]', '{"head":{}}', '{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"iri","value":"a"}}]}}',
      '{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"uri"}}]}}']) {
      expect(() => parseSparqlJson(bad), bad).toThrow(expect.objectContaining({ name: 'LedgraphError' }));
    }
  });
});

describe('jsonString', () => {
  it('equals JSON.stringify for any string (escapes, non-ASCII, lone and paired surrogates)', () => {
    for (const s of ['', 'plain', 'a"b', 'a\\b', 'line\nbreak', '\u0000\u001f', '\u007f', 'é', '\u2028', '😀', '\ud800x', 'x\udc00']) {
      expect(jsonString(s)).toBe(JSON.stringify(s));
    }
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => jsonString(s) === JSON.stringify(s)), { numRuns: 2000 });
  });
});

describe('SPARQL JSON writer over batches', () => {
  it('writes the same document from batches as from rows, in one chunk when small', async () => {
    const { writeSparqlJsonChunked } = await import('./sparql-json.js');
    const fromRows = (await collectChunks(writeSparqlJsonChunked(tableToResult(table)))).join('');
    const batches = (async function* () { yield table.rows.slice(0, 3); yield []; yield table.rows.slice(3); })();
    const chunks = await collectChunks(writeSparqlJsonChunked({ type: 'bindings', variables: table.variables, rows: (async function* () { throw new Error('rows read'); })(), batches }));
    expect(chunks).toHaveLength(1);
    expect(chunks.join('')).toBe(fromRows);
    const empty = await collectChunks(writeSparqlJsonChunked({ type: 'bindings', variables: ['x'], rows: (async function* () {})(), batches: (async function* () {})() }));
    expect(empty.join('')).toBe('{"head":{"vars":["x"]},"results":{"bindings":[]}}\n');
  });
});

async function collectChunks(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const c of it) out.push(c);
  return out;
}
