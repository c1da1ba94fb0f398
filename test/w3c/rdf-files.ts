/**
 * Reading the W3C suites' RDF files (Turtle, N-Triples, N-Quads, TriG, RDF/XML) into Ledgraph
 * quads, each parsed with its upstream IRI as base. Every call gets its own blank node scope, so
 * loading several files (or one file twice) never merges their blank nodes.
 */
import { Parser as N3Parser } from 'n3';
import * as oxigraph from 'oxigraph';
import { blankNode, defaultGraph, fromRdfJs, namedNode, type Quad, type Term } from '../../src/core/rdf/terms.js';
import { readW3c } from './manifest.js';

let scope = 0;

/** The n3 format name for a file, by extension. */
export function formatOf(iri: string): 'Turtle' | 'N-Triples' | 'N-Quads' | 'TriG' | 'RDF/XML' {
  const ext = iri.replace(/[#?].*$/, '').replace(/^.*\./, '').toLowerCase();
  switch (ext) {
    case 'ttl': return 'Turtle';
    case 'nt': return 'N-Triples';
    case 'nq': return 'N-Quads';
    case 'trig': return 'TriG';
    case 'rdf': return 'RDF/XML';
    default: throw new Error(`unknown RDF file type: ${iri}`);
  }
}

type RdfJsQuad = { subject: RdfJsTerm; predicate: RdfJsTerm; object: RdfJsTerm; graph: RdfJsTerm };
type RdfJsTerm = { termType: string; value: string; language?: string; datatype?: { value: string } };

/** Parse RDF text into quads with a fresh blank node scope; `graph` puts every quad in that graph. */
export function parseRdfText(text: string, opts: { format: ReturnType<typeof formatOf>; baseIri: string; graph?: string }): Quad[] {
  const prefix = `f${scope++}_`;
  const term = (t: RdfJsTerm): Term => (t.termType === 'BlankNode' ? blankNode(prefix + t.value) : fromRdfJs(t) as Term);
  const raw: RdfJsQuad[] = opts.format === 'RDF/XML'
    ? oxigraph.parse(text, { format: 'application/rdf+xml', base_iri: opts.baseIri }) as unknown as RdfJsQuad[]
    : new N3Parser({ format: opts.format, baseIRI: opts.baseIri }).parse(text) as unknown as RdfJsQuad[];
  return raw.map((q) => ({
    subject: term(q.subject),
    predicate: namedNode(q.predicate.value),
    object: term(q.object),
    graph: opts.graph !== undefined ? namedNode(opts.graph)
      : q.graph.termType === 'DefaultGraph' ? defaultGraph : term(q.graph) as Quad['graph'],
  }));
}

/** Parse the W3C file with this IRI (its own IRI as base). */
export function readRdfFile(iri: string, graph?: string): Quad[] {
  const opts: Parameters<typeof parseRdfText>[1] = { format: formatOf(iri), baseIri: iri };
  if (graph !== undefined) opts.graph = graph;
  return parseRdfText(readW3c(iri), opts);
}
