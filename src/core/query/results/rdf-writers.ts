/**
 * RDF serialisations of graph results (CONSTRUCT, DESCRIBE, graph store reads): N-Triples,
 * N-Quads, Turtle, TriG (through n3's Writer), RDF/XML, and JSON-LD (jsonld-writer.ts, re-exported).
 * Every writer is an async generator of text chunks plus a `toX` helper that joins them.
 */
import { DataFactory, Writer as N3Writer } from 'n3';
import type * as RDF from '@rdfjs/types';
import { badRequest } from '../../errors.js';
import type { Quad, Term } from '../../rdf/terms.js';
import { RDF as RDF_NS, rdf, xsd } from '../../rdf/vocab.js';
import { quadsOf, type QueryResult } from './types.js';

/** Options shared by the RDF writers. */
export interface RdfWriterOptions {
  /** Prefix name (without `:`) to namespace IRI; used by Turtle, TriG and RDF/XML. */
  prefixes?: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Blank node labels

const NT_LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;
const NCNAME_LABEL = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Maps engine blank node labels to labels valid in a target syntax, injectively within one
 * document: a label that already fits (and does not start with the reserved `x_`) is kept,
 * any other gets a fresh `x_<n>`.
 */
export class BlankLabeler {
  private readonly map = new Map<string, string>();
  private next = 0;
  constructor(private readonly valid: RegExp = NT_LABEL) {}

  /** The label to write for an engine label. */
  label(engineLabel: string): string {
    let out = this.map.get(engineLabel);
    if (out !== undefined) return out;
    out = this.valid.test(engineLabel) && !engineLabel.startsWith('x_') ? engineLabel : 'x_' + this.next++;
    this.map.set(engineLabel, out);
    return out;
  }
}

/** A labeler producing XML NCNames (RDF/XML `rdf:nodeID`). */
export function ncNameLabeler(): BlankLabeler { return new BlankLabeler(NCNAME_LABEL); }

// ---------------------------------------------------------------------------------------------
// N-Triples / N-Quads term encoding (canonical form)

const ECHAR: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\b': '\\b', '\f': '\\f' };
const LITERAL_ESCAPE = /[\u0000-\u001f"\\\u007f\ufffe\uffff]/g;
const IRI_ESCAPE = /[\u0000-\u0020<>"{}|^`\\]/g;

function uchar(c: string): string {
  const hex = c.charCodeAt(0).toString(16).toUpperCase();
  return '\\u' + '0000'.slice(hex.length) + hex;
}

/** Escape a literal's lexical form for a double-quoted N-Triples/Turtle string. */
export function escapeLiteralText(s: string): string {
  return s.replace(LITERAL_ESCAPE, (c) => ECHAR[c] ?? uchar(c));
}

/** An IRI in angle brackets, characters not allowed in IRIREF written as UCHAR escapes. */
export function encodeIriRef(iri: string): string {
  return '<' + iri.replace(IRI_ESCAPE, uchar) + '>';
}

/** A term in N-Triples syntax (canonical escapes); blank labels pass through `labeler` when given. */
export function termToNTriples(t: Term, labeler?: BlankLabeler): string {
  switch (t.termType) {
    case 'NamedNode': return encodeIriRef(t.value);
    case 'BlankNode': return '_:' + (labeler ? labeler.label(t.value) : t.value);
    case 'Literal': {
      const lex = '"' + escapeLiteralText(t.value) + '"';
      if (t.language) return lex + '@' + t.language;
      if (t.datatype.value === xsd.string) return lex;
      return lex + '^^' + encodeIriRef(t.datatype.value);
    }
  }
}

function graphToNQuads(g: Quad['graph'], labeler: BlankLabeler): string {
  return g.termType === 'DefaultGraph' ? '' : ' ' + termToNTriples(g, labeler);
}


function noNamedGraphs(q: Quad, format: string): void {
  if (q.graph.termType !== 'DefaultGraph') {
    throw badRequest(`${format} cannot express named graphs; use TriG, N-Quads or JSON-LD`);
  }
}

async function join(chunks: AsyncIterable<string>): Promise<string> {
  let s = '';
  for await (const c of chunks) s += c;
  return s;
}

/** Stream a graph result as N-Triples (named-graph quads are rejected). */
export async function* writeNTriples(result: QueryResult): AsyncIterable<string> {
  const labeler = new BlankLabeler();
  for await (const q of quadsOf(result, 'N-Triples')) {
    noNamedGraphs(q, 'N-Triples');
    yield `${termToNTriples(q.subject, labeler)} ${termToNTriples(q.predicate)} ${termToNTriples(q.object, labeler)} .\n`;
  }
}
/** A graph result as an N-Triples string. */
export function toNTriples(result: QueryResult): Promise<string> { return join(writeNTriples(result)); }

/** Stream a dataset result as N-Quads. */
export async function* writeNQuads(result: QueryResult): AsyncIterable<string> {
  const labeler = new BlankLabeler();
  for await (const q of quadsOf(result, 'N-Quads')) {
    yield `${termToNTriples(q.subject, labeler)} ${termToNTriples(q.predicate)} ${termToNTriples(q.object, labeler)}${graphToNQuads(q.graph, labeler)} .\n`;
  }
}
/** A dataset result as an N-Quads string. */
export function toNQuads(result: QueryResult): Promise<string> { return join(writeNQuads(result)); }

// ---------------------------------------------------------------------------------------------
// Turtle / TriG through n3's Writer (it pretty-prints consecutive quads sharing subject/predicate)

function toN3Term(t: Term, labeler: BlankLabeler): RDF.Quad_Object {
  switch (t.termType) {
    case 'NamedNode': return DataFactory.namedNode(t.value);
    case 'BlankNode': return DataFactory.blankNode(labeler.label(t.value));
    case 'Literal':
      return t.language ? DataFactory.literal(t.value, t.language) : DataFactory.literal(t.value, DataFactory.namedNode(t.datatype.value));
  }
}

async function* writeWithN3(result: QueryResult, format: 'Turtle' | 'TriG', opts: RdfWriterOptions): AsyncIterable<string> {
  const quads = quadsOf(result, format);
  let buf: string[] = [];
  const sink = { write(chunk: string, _enc?: unknown, done?: () => void) { buf.push(chunk); done?.(); }, end(done?: () => void) { done?.(); } };
  const writer = new N3Writer(sink as never, { format, prefixes: opts.prefixes ?? {} });
  const labeler = new BlankLabeler();
  const drain = (): string => { const s = buf.join(''); buf = []; return s; };
  for await (const q of quads) {
    if (format === 'Turtle') noNamedGraphs(q, 'Turtle');
    const g = q.graph.termType === 'DefaultGraph' ? DataFactory.defaultGraph() : toN3Term(q.graph, labeler) as RDF.Quad_Graph;
    writer.addQuad(toN3Term(q.subject, labeler) as RDF.Quad_Subject, DataFactory.namedNode(q.predicate.value), toN3Term(q.object, labeler), g);
    const s = drain();
    if (s) yield s;
  }
  await new Promise<void>((resolve) => writer.end(() => resolve()));
  const s = drain();
  if (s) yield s;
}

/** Stream a graph result as Turtle (named-graph quads are rejected). */
export function writeTurtle(result: QueryResult, opts: RdfWriterOptions = {}): AsyncIterable<string> {
  return writeWithN3(result, 'Turtle', opts);
}
/** A graph result as a Turtle string. */
export function toTurtle(result: QueryResult, opts: RdfWriterOptions = {}): Promise<string> { return join(writeTurtle(result, opts)); }

/** Stream a dataset result as TriG. */
export function writeTriG(result: QueryResult, opts: RdfWriterOptions = {}): AsyncIterable<string> {
  return writeWithN3(result, 'TriG', opts);
}
/** A dataset result as a TriG string. */
export function toTriG(result: QueryResult, opts: RdfWriterOptions = {}): Promise<string> { return join(writeTriG(result, opts)); }

// ---------------------------------------------------------------------------------------------
// RDF/XML

// XML 1.0 cannot carry these code points at all, not even as character references.
const XML_INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Escape text content for XML (`&`, `<`, `>`, and CR so it survives line-end normalisation). */
export function xmlText(s: string): string {
  if (XML_INVALID.test(s)) throw badRequest('value contains a character XML 1.0 cannot represent');
  return s.replace(/[&<>\r]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#13;'));
}

/** Escape an attribute value for a double-quoted XML attribute. */
export function xmlAttr(s: string): string {
  if (XML_INVALID.test(s)) throw badRequest('value contains a character XML 1.0 cannot represent');
  return s.replace(/[&<>"\t\n\r]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' })[c]!);
}

const NC_START = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
const NC_CHAR = NC_START + '\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040';
const LOCAL_NAME = new RegExp(`[${NC_START}][${NC_CHAR}]*$`);

/** Split a property IRI into namespace and an NCName local part (RDF/XML needs a QName). */
function splitPredicate(iri: string): [string, string] {
  const m = LOCAL_NAME.exec(iri);
  if (!m || m.index === 0) throw badRequest(`property IRI <${iri}> cannot be written as an RDF/XML element name`);
  return [iri.slice(0, m.index), m[0]];
}

/** Stream a graph result as RDF/XML: one rdf:Description per run of quads sharing a subject. */
export async function* writeRdfXml(result: QueryResult, opts: RdfWriterOptions = {}): AsyncIterable<string> {
  const quads = quadsOf(result, 'RDF/XML');
  const nsPrefix = new Map<string, string>([[RDF_NS, 'rdf']]);
  let head = '<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF xmlns:rdf="' + RDF_NS + '"';
  for (const [p, ns] of Object.entries(opts.prefixes ?? {})) {
    if (p === 'rdf' || !NCNAME_LABEL.test(p) || /^xml/i.test(p) || nsPrefix.has(ns)) continue;
    nsPrefix.set(ns, p);
    head += `\n    xmlns:${p}="${xmlAttr(ns)}"`;
  }
  yield head + '>\n';
  const labeler = ncNameLabeler();
  const node = (t: Term): string => t.termType === 'BlankNode'
    ? `rdf:nodeID="${labeler.label(t.value)}"`
    : `rdf:about="${xmlAttr(t.value)}"`;
  let subject: Term | undefined;
  for await (const q of quads) {
    noNamedGraphs(q, 'RDF/XML');
    let out = '';
    if (!subject || subject.termType !== q.subject.termType || subject.value !== q.subject.value) {
      if (subject) out += '  </rdf:Description>\n';
      subject = q.subject;
      if (subject.termType === 'Literal') throw badRequest('RDF/XML cannot express a literal subject');
      out += `  <rdf:Description ${node(subject)}>\n`;
    }
    const [ns, local] = splitPredicate(q.predicate.value);
    const known = nsPrefix.get(ns);
    const name = known ? `${known}:${local}` : `ns0:${local}`;
    const decl = known ? '' : ` xmlns:ns0="${xmlAttr(ns)}"`;
    const o = q.object;
    if (o.termType === 'NamedNode') out += `    <${name}${decl} rdf:resource="${xmlAttr(o.value)}"/>\n`;
    else if (o.termType === 'BlankNode') out += `    <${name}${decl} rdf:nodeID="${labeler.label(o.value)}"/>\n`;
    else {
      const attr = o.language ? ` xml:lang="${xmlAttr(o.language)}"`
        : o.datatype.value === xsd.string ? '' : ` rdf:datatype="${xmlAttr(o.datatype.value)}"`;
      out += `    <${name}${decl}${attr}>${xmlText(o.value)}</${name}>\n`;
    }
    yield out;
  }
  yield (subject ? '  </rdf:Description>\n' : '') + '</rdf:RDF>\n';
}
/** A graph result as an RDF/XML string. */
export function toRdfXml(result: QueryResult, opts: RdfWriterOptions = {}): Promise<string> { return join(writeRdfXml(result, opts)); }

