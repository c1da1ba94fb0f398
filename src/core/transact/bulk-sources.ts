/**
 * Statement readers for bulk loads (bulk-load.ts): each turns one document, read chunk by chunk,
 * into dictionary keys (rdf/terms.ts grammar) handed to a sink, without holding the text whole.
 * N-Triples / N-Quads go through the byte reader (ids without a string per occurrence); Turtle
 * and TriG through n3's parser fed chunk by chunk; JSON-LD (which has no streaming form) through jsonld.js on the parsed document.
 */
import { Parser } from 'n3';
import { badRequest, isLedgraphError } from '../errors.js';
import { parseJsonWithinLimits } from '../json-depth.js';
import { NTriplesByteReader, utf8Error, type IdSink } from '../rdf/ntriples-bytes.js';
import { fromRdfJs, termKey, type Term } from '../rdf/terms.js';
import { hasScheme, relativeIriError } from './iri-errors.js';
import { parseJsonLdTxn } from './parse-jsonld.js';

/** The formats a bulk load reads. */
export type BulkFormat = 'n-triples' | 'n-quads' | 'turtle' | 'trig' | 'json-ld';

/** Where a reader puts statements: keys of subject, predicate, object and graph (null: default). */
export interface StatementSink {
  /** A written blank-node label keeps `_:label`; an anonymous one (Turtle `[]`) is `anon` true. */
  add(s: string, p: string, o: string, g: string | null): void;
}

/** Blank-node keys of anonymous nodes get this marker (bulk-load.ts gives them their own label space). */
export const ANON_MARK = '\u0000';

const decoderFor = () => new TextDecoder('utf-8', { fatal: true });


/** N-Triples or N-Quads into the sink, read from bytes (rdf/ntriples-bytes.ts; errors name line and column). */
export async function readNTriples(source: AsyncIterable<string | Uint8Array>, quads: boolean, sink: IdSink): Promise<void> {
  const reader = new NTriplesByteReader(quads, sink);
  const encoder = new TextEncoder();
  for await (const chunk of source) reader.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
  reader.end();
}

interface RdfJs { termType: string; value: string; language?: string; datatype?: { value: string } }

/** Turtle or TriG through n3's parser, fed chunk by chunk; relative IRIs need `base`. */
export async function readTurtle(source: AsyncIterable<string | Uint8Array>, trig: boolean, base: string | undefined, sink: StatementSink): Promise<void> {
  const parser = new Parser({ format: trig ? 'TriG' : 'Turtle', blankNodePrefix: '!', ...(base ? { baseIRI: base } : {}) });
  const handlers: Record<string, (x?: unknown) => void> = {};
  const input = { on(event: string, fn: (x?: unknown) => void) { handlers[event] = fn; } };
  let failure: unknown = null;
  let done = false;
  const key = (t: RdfJs): string => {
    if (t.termType === 'BlankNode') return t.value.startsWith('!') ? '_:' + t.value.slice(1) : '_:' + ANON_MARK + t.value;
    if (t.termType === 'NamedNode' && !hasScheme(t.value)) throw relativeIriError(t.value);
    if (t.termType === 'Quad') throw badRequest('RDF-star triple terms are not supported');
    return termKey(fromRdfJs(t) as Term);
  };
  parser.parse(input as never, (err: Error | null, q: { subject: RdfJs; predicate: RdfJs; object: RdfJs; graph: RdfJs } | null) => {
    if (failure) return;
    if (err) { failure = err; return; }
    if (!q) { done = true; return; }
    try {
      if (q.subject.termType === 'Literal' || q.predicate.termType !== 'NamedNode') throw badRequest('invalid triple: literal subject or non-IRI predicate');
      sink.add(key(q.subject), key(q.predicate), key(q.object), q.graph.termType === 'DefaultGraph' ? null : key(q.graph));
    } catch (e) { failure = e; }
  });
  const decoder = decoderFor();
  for await (const chunk of source) {
    let text: string;
    try { text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }); } catch { utf8Error(); }
    if (text) handlers.data?.(text);
    if (failure) throw n3Error(failure, trig);
  }
  handlers.end?.();
  if (failure) throw n3Error(failure, trig);
  if (!done) throw badRequest(`invalid ${trig ? 'TriG' : 'Turtle'}: the document ends inside a statement`);
}

/** n3's "… on line N." as a 400 naming the line (and column when n3 gives the token). */
function n3Error(e: unknown, trig: boolean): Error {
  if (isLedgraphError(e)) return e;
  const err = e as { message?: string; context?: { line?: number; token?: { line?: number; start?: number } } };
  const raw = String(err.message ?? e);
  const m = / on line (\d+)\.$/.exec(raw);
  const line = err.context?.line ?? (m ? Number(m[1]) : undefined);
  const tok = err.context?.token;
  const col = tok && tok.line === line && typeof tok.start === 'number' ? tok.start + 1 : undefined;
  const problem = (m ? raw.slice(0, m.index) : raw).slice(0, 200);
  const where = line === undefined ? '' : col === undefined ? ` at line ${line}` : ` at line ${line}, column ${col}`;
  return badRequest(`${trig ? 'TriG' : 'Turtle'} syntax error${where}: ${problem}`);
}

/** A JSON-LD document (read whole: JSON-LD has no streaming form) through jsonld.js; contexts are never fetched. */
export async function readJsonLd(source: AsyncIterable<string | Uint8Array>, base: string | undefined, sink: StatementSink): Promise<void> {
  const decoder = decoderFor();
  const parts: string[] = [];
  try {
    for await (const chunk of source) parts.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    parts.push(decoder.decode());
  } catch { utf8Error(); }
  const json = parseJsonWithinLimits(parts.join(''), 'the JSON-LD document');
  parts.length = 0;
  const req = await parseJsonLdTxn(json, 'insert', base ? { base } : {});
  if (req.kind !== 'insert') throw badRequest('a JSON-LD document to load must be data, not an update');
  if (req.meta.length) throw badRequest('commit metadata (f:message and the like) is not taken by a bulk load');
  const k = (t: Term): string => (t.termType === 'BlankNode' ? '_:' + t.value : termKey(t));
  for (const q of req.quads) {
    const g = q.graph.termType === 'DefaultGraph' ? null : k(q.graph as Term);
    sink.add(k(q.subject as Term), k(q.predicate as Term), k(q.object as Term), g);
  }
}

/** Read one document of `format` into the sink. */
export function readDocument(source: AsyncIterable<string | Uint8Array>, format: BulkFormat, base: string | undefined, sink: StatementSink & IdSink): Promise<void> {
  switch (format) {
    case 'n-triples': return readNTriples(source, false, sink);
    case 'n-quads': return readNTriples(source, true, sink);
    case 'turtle': return readTurtle(source, false, base, sink);
    case 'trig': return readTurtle(source, true, base, sink);
    case 'json-ld': return readJsonLd(source, base, sink);
  }
}
