/**
 * SPARQL 1.1 Query Results JSON Format (application/sparql-results+json): a streaming writer and
 * a parser. Also home of ResultTable, the materialised SELECT/ASK result the parsers return.
 */
import { badRequest, jsonParseError } from '../../errors.js';
import { blankNode, literal, namedNode, type Term } from '../../rdf/terms.js';
import { rdf, xsd } from '../../rdf/vocab.js';
import type { Binding, IdSolutions, QueryResult } from './types.js';
import { quote } from '../../excerpt.js';

/** A fully materialised SELECT or ASK result (parsed result documents, buffered results). */
export type ResultTable =
  | { type: 'bindings'; variables: string[]; rows: Binding[] }
  | { type: 'boolean'; value: boolean };

/** One RDF term in SPARQL JSON. */
export interface SparqlJsonTerm {
  type: 'uri' | 'bnode' | 'literal';
  value: string;
  'xml:lang'?: string;
  datatype?: string;
}

/** A materialised table as a streaming QueryResult (for the writers). */
export function tableToResult(table: ResultTable): QueryResult {
  if (table.type === 'boolean') return table;
  const rows = table.rows;
  return { type: 'bindings', variables: table.variables, rows: (async function* () { yield* rows; })() };
}

/** Drain a SELECT/ASK QueryResult into a ResultTable. */
export async function resultToTable(result: QueryResult): Promise<ResultTable> {
  if (result.type === 'boolean') return result;
  if (result.type !== 'bindings') throw badRequest('expected a SELECT or ASK result');
  const rows: Binding[] = [];
  for await (const r of result.rows) rows.push(r);
  return { type: 'bindings', variables: result.variables, rows };
}

/** A term in SPARQL JSON (simple literals carry no datatype, language-tagged ones only xml:lang). */
export function termToSparqlJson(t: Term): SparqlJsonTerm {
  switch (t.termType) {
    case 'NamedNode': return { type: 'uri', value: t.value };
    case 'BlankNode': return { type: 'bnode', value: t.value };
    case 'Literal':
      if (t.language) return { type: 'literal', value: t.value, 'xml:lang': t.language };
      if (t.datatype.value === xsd.string) return { type: 'literal', value: t.value };
      return { type: 'literal', value: t.value, datatype: t.datatype.value };
  }
}

/** A solution as a SPARQL JSON binding object (unbound variables omitted). */
export function bindingToSparqlJson(b: Binding, variables?: string[]): Record<string, SparqlJsonTerm> {
  const out: Record<string, SparqlJsonTerm> = {};
  for (const v of variables ?? Object.keys(b)) {
    const t = b[v];
    if (t) out[v] = termToSparqlJson(t);
  }
  return out;
}

/** Stream a SELECT or ASK result as SPARQL JSON, one solution per line (one chunk per solution). */
export async function* writeSparqlJson(result: QueryResult): AsyncIterable<string> {
  if (result.type === 'boolean') {
    yield `{"head":{},"boolean":${result.value}}\n`;
    return;
  }
  if (result.type !== 'bindings') throw badRequest('SPARQL JSON serialises SELECT and ASK results only');
  const vars = result.variables;
  const row = rowWriter(vars);
  yield `{"head":{"vars":${JSON.stringify(vars)}},"results":{"bindings":[`;
  let first = true;
  for await (const b of result.rows) {
    yield (first ? '\n' : ',\n') + row(b);
    first = false;
  }
  yield first ? ']}}\n' : '\n]}}\n';
}

/**
 * The same document as writeSparqlJson, in chunks of about `chunkChars` characters (a small
 * result is one chunk): fewer hand-offs for a response body built from it.
 */
export async function* writeSparqlJsonChunked(result: QueryResult, chunkChars = 16 * 1024): AsyncIterable<string> {
  if (result.type !== 'bindings') {
    yield* writeSparqlJson(result);
    return;
  }
  const vars = result.variables;
  let buf = `{"head":{"vars":${JSON.stringify(vars)}},"results":{"bindings":[`;
  let first = true;
  const keys = directKeys(vars);
  // A batch of the plan's output at a time (one await per batch, not per row) where the result has them.
  const texts = result.ids && keys ? idBatchTexts(result.ids, keys)
    : result.batches ? bindingBatchTexts(result.batches, rowWriter(vars))
      : rowTexts(result.rows, rowWriter(vars));
  for await (const t of texts) {
    if (t === '') continue;
    buf += (first ? '\n' : ',\n') + t;
    first = false;
    if (buf.length >= chunkChars) {
      yield buf;
      buf = '';
    }
  }
  yield buf + (first ? ']}}\n' : '\n]}}\n');
}

/** The rows of each id batch as text (rows joined by ",\n"): each term's fragment is built once and kept beside the decoded term. */
async function* idBatchTexts(ids: IdSolutions, keys: string[]): AsyncIterable<string> {
  const { width, slots, unbound, text } = ids;
  for await (const b of ids.batches) {
    const rows = b.rows;
    let out = '';
    for (let r = 0, at = 0; r < b.n; r++, at += width) {
      out += r === 0 ? '{' : ',\n{';
      let sep = '';
      for (let i = 0; i < slots.length; i++) {
        const s = slots[i]!;
        if (s < 0) continue;
        const id = rows[at + s]!;
        if (id === unbound) continue;
        out += sep + keys[i]! + text(id, termJson);
        sep = ',';
      }
      out += '}';
    }
    yield out;
  }
}

/** The rows of each batch of bindings as text (rows joined by ",\n"). */
async function* bindingBatchTexts(batches: AsyncIterable<Binding[]>, row: (b: Binding) => string): AsyncIterable<string> {
  for await (const bs of batches) {
    let out = '';
    for (let i = 0; i < bs.length; i++) out += (i === 0 ? '' : ',\n') + row(bs[i]!);
    yield out;
  }
}

/** Each row as text. */
async function* rowTexts(rows: AsyncIterable<Binding>, row: (b: Binding) => string): AsyncIterable<string> {
  for await (const b of rows) yield row(b);
}

/**
 * A serialiser of one solution, equal to `JSON.stringify(bindingToSparqlJson(b, vars))` but
 * written directly. Variable names that a JS object would reorder or drop (array indices,
 * `__proto__`) or repeat take the object route, so the output is the same either way.
 */
function rowWriter(vars: string[]): (b: Binding) => string {
  const keys = directKeys(vars);
  if (!keys) return (b) => JSON.stringify(bindingToSparqlJson(b, vars));
  return (b) => {
    let out = '{';
    for (let i = 0; i < vars.length; i++) {
      const t = b[vars[i]!];
      if (!t) continue;
      if (out.length > 1) out += ',';
      out += keys[i]! + termJson(t);
    }
    return out + '}';
  };
}

/**
 * The `"name":` prefixes of the variables when a row can be written directly in their order, or
 * null when a JS object would reorder or drop them (array indices, `__proto__`) or they repeat.
 */
export function directKeys(vars: string[]): string[] | null {
  const direct = new Set(vars).size === vars.length && vars.every((v) => v !== '__proto__' && !/^(?:0|[1-9]\d*)$/.test(v));
  return direct ? vars.map((v) => JSON.stringify(v) + ':') : null;
}

/** Characters JSON.stringify escapes in a string: quote, backslash, controls, and surrogates (lone ones). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(s)`: most values need no escaping, and a test is cheaper than the serialiser. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** `JSON.stringify(termToSparqlJson(t))`, written directly (the per-term fragment both writers cache). */
export function termJson(t: Term): string {
  switch (t.termType) {
    case 'NamedNode': return `{"type":"uri","value":${jsonString(t.value)}}`;
    case 'BlankNode': return `{"type":"bnode","value":${jsonString(t.value)}}`;
    case 'Literal':
      if (t.language) return `{"type":"literal","value":${jsonString(t.value)},"xml:lang":${jsonString(t.language)}}`;
      if (t.datatype.value === xsd.string) return `{"type":"literal","value":${jsonString(t.value)}}`;
      return `{"type":"literal","value":${jsonString(t.value)},"datatype":${jsonString(t.datatype.value)}}`;
  }
}

/** A SELECT or ASK result as a SPARQL JSON string. */
export async function toSparqlJson(result: QueryResult): Promise<string> {
  let s = '';
  for await (const c of writeSparqlJson(result)) s += c;
  return s;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Decode one SPARQL JSON term (also accepts the legacy `typed-literal`). */
export function sparqlJsonToTerm(j: unknown): Term {
  if (!isObject(j) || typeof j.value !== 'string') throw badRequest('SPARQL JSON: a term needs a string "value"');
  switch (j.type) {
    case 'uri': return namedNode(j.value);
    case 'bnode': return blankNode(j.value);
    case 'literal':
    case 'typed-literal': {
      const lang = j['xml:lang'];
      if (typeof lang === 'string' && lang !== '') return literal(j.value, lang);
      const dt = j.datatype;
      if (dt !== undefined && typeof dt !== 'string') throw badRequest('SPARQL JSON: "datatype" must be a string');
      if (dt === rdf.langString) throw badRequest('SPARQL JSON: rdf:langString literal without xml:lang');
      return literal(j.value, namedNode(dt ?? xsd.string));
    }
    default: throw badRequest(`SPARQL JSON: unknown term type ${quote(j.type)}`);
  }
}

/** Parse a SPARQL JSON results document. */
export function parseSparqlJson(text: string): ResultTable {
  let doc: unknown;
  try { doc = JSON.parse(text); } catch (e) { throw jsonParseError('SPARQL JSON: ' + (e as Error).message); }
  if (!isObject(doc) || !isObject(doc.head)) throw badRequest('SPARQL JSON: missing "head"');
  if (typeof doc.boolean === 'boolean') return { type: 'boolean', value: doc.boolean };
  const vars = doc.head.vars ?? [];
  if (!Array.isArray(vars) || !vars.every((v) => typeof v === 'string')) throw badRequest('SPARQL JSON: "head.vars" must be an array of strings');
  if (!isObject(doc.results) || !Array.isArray(doc.results.bindings)) throw badRequest('SPARQL JSON: missing "results.bindings"');
  const rows: Binding[] = doc.results.bindings.map((b: unknown) => {
    if (!isObject(b)) throw badRequest('SPARQL JSON: a binding must be an object');
    const row: Binding = {};
    for (const [k, v] of Object.entries(b)) row[k] = sparqlJsonToTerm(v);
    return row;
  });
  return { type: 'bindings', variables: vars as string[], rows };
}
