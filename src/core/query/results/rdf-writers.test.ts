import { describe, expect, it } from 'vitest';
import { Parser } from 'n3';
import jsonld from 'jsonld';
import { toJsonLd } from './jsonld-writer.js';
import * as oxigraph from 'oxigraph';
import { blankNode, defaultGraph, literal, namedNode, type Quad, type Term } from '../../rdf/terms.js';
import { rdf, xsd } from '../../rdf/vocab.js';
import type { QueryResult } from './types.js';
import {
  termToNTriples, toNQuads, toNTriples, toRdfXml, toTriG, toTurtle, writeTurtle,
} from './rdf-writers.js';

const ex = (s: string) => namedNode('http://example.org/' + s);
const q = (s: Term, p: string, o: Term, g: Quad['graph'] = defaultGraph): Quad => ({ subject: s, predicate: p.startsWith('http') ? namedNode(p) : ex(p), object: o, graph: g });
const triples: Quad[] = [
  q(ex('s'), rdf.type, ex('C')),
  q(ex('s'), 'p', literal('a "q"\n\u0001')),
  q(ex('s'), 'p', literal('chat', 'fr')),
  q(ex('s'), 'n', literal('5', namedNode(xsd.integer))),
  q(blankNode('b 1'), 'q', ex('s')),
  q(blankNode('k'), 'q', blankNode('b 1')),
];
const quads: Quad[] = [
  q(ex('s'), 'p', literal('x')),
  q(ex('s'), 'p', literal('y'), ex('g')),
  q(blankNode('b'), 'q', ex('s'), ex('g')),
  q(ex('g'), 'label', literal('G')),
];
const res = (qs: Quad[]): QueryResult => ({ type: 'quads', quads: (async function* () { yield* qs; })() });

/** Canonical N-Quads of any RDF/JS quads, for isomorphism checks through rdf-canonize. */
async function canon(qs: { subject: Term; predicate: Term; object: Term; graph: { termType: string; value: string } }[]): Promise<string> {
  return (jsonld as unknown as { canonize(x: unknown, o: unknown): Promise<string> }).canonize(
    await toNQuads(res(qs.map((x) => ({ subject: x.subject, predicate: x.predicate as never, object: x.object, graph: x.graph as never })))),
    { algorithm: 'URDNA2015', inputFormat: 'application/n-quads' });
}
const fromRdfJs = (x: { termType: string; value: string; language?: string; datatype?: { value: string } }): Term =>
  x.termType === 'NamedNode' ? namedNode(x.value) : x.termType === 'BlankNode' ? blankNode(x.value)
    : x.language ? literal(x.value, x.language) : literal(x.value, namedNode(x.datatype!.value));
const parsed = (qs: { subject: never; predicate: never; object: never; graph: { termType: string; value: string } }[]) =>
  qs.map((x) => ({ subject: fromRdfJs(x.subject), predicate: fromRdfJs(x.predicate), object: fromRdfJs(x.object),
    graph: x.graph.termType === 'DefaultGraph' ? defaultGraph : fromRdfJs(x.graph as never) }));

describe('N-Triples and N-Quads', () => {
  it('writes canonical lines', async () => {
    expect(await toNTriples(res(triples))).toBe(
      '<http://example.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/C> .\n' +
      '<http://example.org/s> <http://example.org/p> "a \\"q\\"\\n\\u0001" .\n' +
      '<http://example.org/s> <http://example.org/p> "chat"@fr .\n' +
      '<http://example.org/s> <http://example.org/n> "5"^^<http://www.w3.org/2001/XMLSchema#integer> .\n' +
      '_:x_0 <http://example.org/q> <http://example.org/s> .\n' +
      '_:k <http://example.org/q> _:x_0 .\n');
    expect(await toNQuads(res(quads))).toBe(
      '<http://example.org/s> <http://example.org/p> "x" .\n' +
      '<http://example.org/s> <http://example.org/p> "y" <http://example.org/g> .\n' +
      '_:b <http://example.org/q> <http://example.org/s> <http://example.org/g> .\n' +
      '<http://example.org/g> <http://example.org/label> "G" .\n');
  });

  it('escapes IRIs and refuses named graphs in N-Triples and SELECT results', async () => {
    expect(termToNTriples(namedNode('http://a/b c'))).toBe('<http://a/b\\u0020c>');
    await expect(toNTriples(res(quads))).rejects.toThrow(/named graphs/);
    await expect(toNTriples({ type: 'boolean', value: true })).rejects.toThrow(/graph results/);
  });
});

describe('Turtle and TriG', () => {
  it('writes Turtle with prefixes, grouping subjects and predicates', async () => {
    expect(await toTurtle(res(triples), { prefixes: { ex: 'http://example.org/', xsd: 'http://www.w3.org/2001/XMLSchema#' } })).toBe(
      '@prefix ex: <http://example.org/>.\n' +
      '@prefix xsd: <http://www.w3.org/2001/XMLSchema#>.\n' +
      '\n' +
      'ex:s a ex:C;\n' +
      '    ex:p "a \\"q\\"\\n\\u0001", "chat"@fr;\n' +
      '    ex:n 5.\n' +
      '_:x_0 ex:q ex:s.\n' +
      '_:k ex:q _:x_0.\n');
  });

  it('writes TriG graph blocks', async () => {
    expect(await toTriG(res(quads), { prefixes: { ex: 'http://example.org/' } })).toBe(
      '@prefix ex: <http://example.org/>.\n' +
      '\n' +
      'ex:s ex:p "x".\n' +
      'ex:g {\n' +
      'ex:s ex:p "y".\n' +
      '_:b ex:q ex:s\n' +
      '}\n' +
      'ex:g ex:label "G".\n');
  });

  it('streams Turtle incrementally and refuses named graphs', async () => {
    const chunks: string[] = [];
    for await (const c of writeTurtle(res(triples))) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(3);
    await expect(toTurtle(res(quads))).rejects.toThrow(/named graphs/);
  });

  it('produces documents n3 parses back to the same dataset', async () => {
    const ttl = await toTurtle(res(triples), { prefixes: { ex: 'http://example.org/' } });
    expect(await canon(parsed(new Parser({ format: 'Turtle' }).parse(ttl) as never))).toBe(await canon(triples));
    const trig = await toTriG(res(quads));
    expect(await canon(parsed(new Parser({ format: 'TriG' }).parse(trig) as never))).toBe(await canon(quads));
  });
});

describe('RDF/XML', () => {
  it('writes one rdf:Description per subject run, with local namespaces for unknown predicates', async () => {
    expect(await toRdfXml(res([
      q(ex('s'), rdf.type, ex('C')),
      q(ex('s'), 'p', literal('a<&>\r')),
      q(ex('s'), 'http://other.example/v#val', literal('chat', 'fr')),
      q(ex('s'), 'n', literal('5', namedNode(xsd.integer))),
      q(blankNode('1b'), 'q', blankNode('k')),
    ]), { prefixes: { ex: 'http://example.org/' } })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"\n' +
      '    xmlns:ex="http://example.org/">\n' +
      '  <rdf:Description rdf:about="http://example.org/s">\n' +
      '    <rdf:type rdf:resource="http://example.org/C"/>\n' +
      '    <ex:p>a&lt;&amp;&gt;&#13;</ex:p>\n' +
      '    <ns0:val xmlns:ns0="http://other.example/v#" xml:lang="fr">chat</ns0:val>\n' +
      '    <ex:n rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">5</ex:n>\n' +
      '  </rdf:Description>\n' +
      '  <rdf:Description rdf:nodeID="x_0">\n' +
      '    <ex:q rdf:nodeID="k"/>\n' +
      '  </rdf:Description>\n' +
      '</rdf:RDF>\n');
    expect(await toRdfXml(res([]))).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n</rdf:RDF>\n');
  });

  it('refuses predicates without an NCName local part and named graphs', async () => {
    await expect(toRdfXml(res([q(ex('s'), 'http://example.org/1', ex('o'))]))).rejects.toThrow(/element name/);
    await expect(toRdfXml(res(quads))).rejects.toThrow(/named graphs/);
  });

  it('produces documents another RDF/XML parser reads back to the same graph', async () => {
    const good = triples.filter((t) => !(t.object.termType === 'Literal' && t.object.value.includes('\u0001')));
    const xml = await toRdfXml(res(good), { prefixes: { ex: 'http://example.org/' } });
    const back = oxigraph.parse(xml, { format: 'application/rdf+xml' });
    expect(await canon(parsed(back as never))).toBe(await canon(good));
  });
});

describe('JSON-LD', () => {
  it('writes expanded, flattened node objects sorted by @id', async () => {
    expect(await toJsonLd(res(triples))).toBe(
      '[\n' +
      '{"@id":"_:k","http://example.org/q":[{"@id":"_:x_0"}]},\n' +
      '{"@id":"_:x_0","http://example.org/q":[{"@id":"http://example.org/s"}]},\n' +
      '{"@id":"http://example.org/s","@type":["http://example.org/C"],"http://example.org/n":[{"@value":"5","@type":"http://www.w3.org/2001/XMLSchema#integer"}],' +
      '"http://example.org/p":[{"@value":"a \\"q\\"\\n\\u0001"},{"@value":"chat","@language":"fr"}]}\n' +
      ']\n');
  });

  it('nests named graphs under their graph node and merges that node\'s own properties', async () => {
    expect(await toJsonLd(res(quads))).toBe(
      '[\n' +
      '{"@id":"http://example.org/g","@graph":[{"@id":"_:b","http://example.org/q":[{"@id":"http://example.org/s"}]},' +
      '{"@id":"http://example.org/s","http://example.org/p":[{"@value":"y"}]}],"http://example.org/label":[{"@value":"G"}]},\n' +
      '{"@id":"http://example.org/s","http://example.org/p":[{"@value":"x"}]}\n' +
      ']\n');
    expect(await toJsonLd(res([]))).toBe('[]\n');
  });

  it('writes rdf:JSON literals as @json values and keeps lexical forms of other datatypes', async () => {
    const out = JSON.parse(await toJsonLd(res([
      q(ex('s'), 'j', literal('{"a":[1,2]}', namedNode(rdf.JSON))),
      q(ex('s'), 'd', literal('01.50', namedNode(xsd.decimal))),
      q(ex('s'), 'd', literal('01.50', namedNode(xsd.decimal))),
    ]))) as Record<string, unknown>[];
    expect(out[0]).toEqual({
      '@id': 'http://example.org/s',
      'http://example.org/d': [{ '@value': '01.50', '@type': xsd.decimal }],
      'http://example.org/j': [{ '@value': { a: [1, 2] }, '@type': '@json' }],
    });
  });

  it('produces JSON-LD that the jsonld library turns back into the same dataset', async () => {
    for (const qs of [triples, quads]) {
      const doc = JSON.parse(await toJsonLd(res(qs))) as object;
      const nq = await jsonld.toRDF(doc, { format: 'application/n-quads' }) as unknown as string;
      const back = new Parser({ format: 'N-Quads' }).parse(nq);
      expect(await canon(parsed(back as never))).toBe(await canon(qs));
    }
  });
});
