/**
 * Turtle, TriG, N-Triples and N-Quads bodies -> `TxnRequest` for insert and upsert (http-api.md:
 * insert/upsert content types). TriG graph blocks land in their named graphs; a `<#txn-meta>`
 * block becomes commit metadata. Blank-node labels stay as written; anonymous nodes (`[]`,
 * collections) get b0, b1, ... in document order, skipping written labels, as in JSON-LD.
 */
import { Parser } from 'n3';
import { badRequest } from '../errors.js';
import { capMessage, excerpt, EXCERPT_CHARS } from '../excerpt.js';
import { hasScheme, relativeIriError } from './iri-errors.js';
import { resolveIri } from '../rdf/jsonld-context.js';
import { type BlankNode, type NamedNode, type Term, blankNode, defaultGraph, fromRdfJs, namedNode } from '../rdf/terms.js';
import { MAX_GRAPH_IRI_BYTES, checkMetaEntries, utf8Length } from './parse-jsonld.js';
import type { GraphRef, MetaEntry, TxnQuad, TxnRequest } from './txn-request.js';

/** The RDF media types a write endpoint accepts. */
export type RdfContentType = 'text/turtle' | 'application/trig' | 'application/n-triples' | 'application/n-quads';

/**
 * Written labels get this marker from n3 so they can be told apart from n3's own anonymous labels
 * (`n3-<k>`, from a process-wide counter); '!' cannot occur in a Turtle blank-node label.
 */
const LABELED = '!';

export interface RdfJsTerm { termType: string; value: string; language?: string; datatype?: { value: string } }
export interface RdfJsQuad { subject: RdfJsTerm; predicate: RdfJsTerm; object: RdfJsTerm; graph: RdfJsTerm }

/**
 * Parse an RDF document for insert or upsert. Turtle and N-Triples are read with the TriG grammar
 * (its superset), so graph blocks work in text/turtle too. Syntax errors are 400 with line and column.
 */
export function parseRdfTxn(text: string, contentType: RdfContentType, mode: 'insert' | 'upsert', baseIri?: string): TxnRequest {
  const format = contentType === 'application/n-quads' ? 'N-Quads' : 'TriG';
  const parser = new Parser({ format, blankNodePrefix: LABELED, ...(baseIri ? { baseIRI: baseIri } : {}) });
  let parsed: RdfJsQuad[];
  try {
    parsed = parser.parse(text) as unknown as RdfJsQuad[];
  } catch (e) {
    throw syntaxError(e, text, contentType);
  }
  return txnFromRdfJs(parsed, mode, baseIri);
}

/**
 * RDF/JS quads (from any parser) -> `TxnRequest`: `<#txn-meta>` graph statements become commit
 * metadata; blank nodes whose label starts with n3's written-label marker keep it, others are
 * renamed b0, b1, ... in order of appearance.
 */
export function txnFromRdfJs(parsed: readonly RdfJsQuad[], mode: 'insert' | 'upsert', baseIri?: string): TxnRequest {
  const metaGraphs = new Set(['#txn-meta']);
  if (baseIri) metaGraphs.add(resolveIri('#txn-meta', baseIri));
  const anon = new Map<string, BlankNode>();
  const order: BlankNode[] = [];
  const used = new Set<string>();
  const term = (t: RdfJsTerm): Term => {
    if (t.termType === 'Quad') throw badRequest('RDF-star triple terms are not supported');
    if (t.termType === 'NamedNode' && !hasScheme(t.value)) throw relativeIriError(t.value);
    if (t.termType !== 'BlankNode') return fromRdfJs(t) as Term;
    if (t.value.startsWith(LABELED)) {
      const label = t.value.slice(LABELED.length);
      used.add(label);
      return blankNode(label);
    }
    let b = anon.get(t.value);
    if (!b) {
      b = blankNode('');
      anon.set(t.value, b);
      order.push(b);
    }
    return b;
  };

  const quads: TxnQuad[] = [];
  const meta: MetaEntry[] = [];
  let metaBytes = 0;
  for (const q of parsed) {
    if (q.graph.termType === 'NamedNode' && metaGraphs.has(q.graph.value)) {
      // The block's subject only groups the statements; its predicate/object pairs describe the commit.
      if (q.object.termType === 'BlankNode') throw badRequest(`metadata <${q.predicate.value}> cannot be a blank node or nested node`);
      const o = term(q.object);
      meta.push({ predicate: q.predicate.value, object: o });
      metaBytes += utf8Length(q.predicate.value) + utf8Length(o.value);
      continue;
    }
    const s = term(q.subject);
    const p = term(q.predicate);
    const o = term(q.object);
    if (s.termType === 'Literal' || p.termType !== 'NamedNode') throw badRequest('invalid triple: literal subject or non-IRI predicate');
    // A blank graph name (TriG `_:g { … }`, N-Quads) is labelled like blank subjects and objects.
    const g = q.graph.termType === 'BlankNode' ? term(q.graph) as BlankNode : graphOf(q.graph);
    quads.push({ subject: s, predicate: p, object: o, graph: g });
  }
  let n = 0;
  for (const b of order) {
    while (used.has('b' + n)) n++;
    (b as { value: string }).value = 'b' + n++;
  }
  checkMetaEntries(meta, metaBytes);
  if (quads.length === 0) throw badRequest('nothing to write: the document contains no triples');
  return { kind: mode, quads, meta, opts: {} };
}

function graphOf(g: RdfJsTerm): GraphRef {
  if (g.termType === 'DefaultGraph') return defaultGraph;
  if (g.termType !== 'NamedNode') throw badRequest(`a graph name must be an IRI or a blank node, not a ${g.termType}`);
  if (g.value === 'txn-meta' || g.value === 'default') throw badRequest(`the graph name "${g.value}" is reserved`);
  if (!hasScheme(g.value)) throw relativeIriError(g.value);
  if (utf8Length(g.value) > MAX_GRAPH_IRI_BYTES) throw badRequest(`graph IRI too long: at most ${MAX_GRAPH_IRI_BYTES} bytes`);
  return namedNode(g.value) as NamedNode;
}

const FORMAT_NAMES: Record<RdfContentType, string> = {
  'text/turtle': 'Turtle', 'application/trig': 'TriG', 'application/n-triples': 'N-Triples', 'application/n-quads': 'N-Quads',
};

/**
 * n3 reports "<problem> on line N." with the offending token (0-based `start` column) when the
 * parser fails, or only the unexpected text when the lexer does; turn either into a 400 naming
 * line and column.
 */
export function syntaxError(e: unknown, text: string, contentType: RdfContentType): Error {
  const err = e as { message?: string; context?: { line?: number; token?: { line?: number; start?: number } } };
  const raw = String(err.message ?? e);
  const m = / on line (\d+)\.$/.exec(raw);
  const line = err.context?.line ?? (m ? Number(m[1]) : undefined);
  const problem = m ? raw.slice(0, m.index) : raw;
  // n3 quotes the whole unexpected text ("Unexpected \"...\""), which may be most of the body.
  const snippet = problem.startsWith('Unexpected "') && problem.endsWith('"') ? problem.slice(12, -1) : undefined;
  let column: number | undefined;
  const tok = err.context?.token;
  if (tok && tok.line === line && typeof tok.start === 'number') column = tok.start + 1;
  else if (line !== undefined) {
    const lineText = snippet !== undefined ? lineAt(text, line) : undefined;
    if (snippet !== undefined && lineText !== undefined) {
      // The start of the snippet's first line is enough to find it (the snippet may be megabytes).
      const i = lineText.indexOf(/^[^\r\n]*/.exec(snippet.slice(0, EXCERPT_CHARS))![0]);
      if (i >= 0) column = i + 1;
    }
  }
  const where = line === undefined ? '' : column === undefined ? ` (line ${line})` : ` (line ${line}, column ${column})`;
  const shown = snippet !== undefined ? `Unexpected "${excerpt(snippet)}"` : capMessage(problem);
  return badRequest(`invalid ${FORMAT_NAMES[contentType]}: ${shown}${where}`);
}

/** Line `line` (1-based) of `text`, found without splitting the whole text. */
function lineAt(text: string, line: number): string | undefined {
  let start = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.slice(start).search(/\r\n|\r|\n/);
    if (nl < 0) return undefined;
    start += nl + (text.startsWith('\r\n', start + nl) ? 2 : 1);
  }
  const end = text.slice(start).search(/\r|\n/);
  return end < 0 ? text.slice(start) : text.slice(start, start + end);
}
