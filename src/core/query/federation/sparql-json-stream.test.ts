import { describe, expect, it } from 'vitest';
import { sparqlJsonSolutions } from './sparql-json-stream.js';
import { allowedUrl } from './service.js';

async function all(text: string, size: number): Promise<unknown[]> {
  async function* chunks() { for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size); }
  const out: unknown[] = [];
  for await (const batch of sparqlJsonSolutions(chunks(), 'p_')) out.push(...batch);
  return out;
}

const DOC = JSON.stringify({
  head: { vars: ['s', 'o'], link: ['bindings'] },
  results: {
    bindings: [
      { s: { type: 'uri', value: 'http://x/a' }, o: { type: 'literal', value: 'a "quoted" } { ] [ value', 'xml:lang': 'en' } },
      { s: { type: 'bnode', value: 'b1' }, o: { type: 'literal', value: '1', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } },
      { s: { type: 'uri', value: 'http://x/c' } },
      {},
    ],
  },
});

describe('sparqlJsonSolutions', () => {
  it('cuts bindings out of any chunking, strings with braces included', async () => {
    const expected = [
      { s: { termType: 'NamedNode', value: 'http://x/a' }, o: { termType: 'Literal', value: 'a "quoted" } { ] [ value', language: 'en', datatype: { termType: 'NamedNode', value: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString' } } },
      { s: { termType: 'BlankNode', value: 'p_b1' }, o: { termType: 'Literal', value: '1', language: '', datatype: { termType: 'NamedNode', value: 'http://www.w3.org/2001/XMLSchema#integer' } } },
      { s: { termType: 'NamedNode', value: 'http://x/c' } },
      {},
    ];
    for (const size of [1, 2, 3, 7, 64, DOC.length]) expect(await all(DOC, size)).toEqual(expected);
  });

  it('fails on a document that ends inside the bindings', async () => {
    await expect(all(DOC.slice(0, DOC.length - 10), 5)).rejects.toThrow('ended before the bindings array closed');
  });
});

describe('allowedUrl', () => {
  it('matches prefixes at a path boundary', () => {
    expect(allowedUrl('http://h:80/sparql', ['http://h:80'])).toBe(true);
    expect(allowedUrl('http://h:8080/sparql', ['http://h:80'])).toBe(false);
    expect(allowedUrl('http://h/sparql/x', ['http://h/sparql/'])).toBe(true);
    expect(allowedUrl('http://h/sparqlx', ['http://h/sparql'])).toBe(false);
    expect(allowedUrl('http://h/sparql?x=1', ['http://h/sparql'])).toBe(true);
  });
});
