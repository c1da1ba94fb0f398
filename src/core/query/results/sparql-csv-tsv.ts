/**
 * SPARQL 1.1 Query Results CSV and TSV Formats (text/csv, text/tab-separated-values), for SELECT
 * results. CSV is lossy: IRIs and lexical forms as plain strings, RFC 4180 quoting, CRLF line ends.
 * TSV keeps every term in Turtle/SPARQL syntax, with the bare-number and boolean shortcuts.
 */
import { badRequest } from '../../errors.js';
import { blankNode, literal, namedNode, type Term } from '../../rdf/terms.js';
import { xsd } from '../../rdf/vocab.js';
import { BlankLabeler, encodeIriRef, escapeLiteralText } from './rdf-writers.js';
import type { ResultTable } from './sparql-json.js';
import type { Binding, QueryResult } from './types.js';
import { quote } from '../../excerpt.js';

function selectOnly(result: QueryResult, format: string): Extract<QueryResult, { type: 'bindings' }> {
  if (result.type !== 'bindings') throw badRequest(`${format} serialises SELECT results only`);
  return result;
}

async function join(chunks: AsyncIterable<string>): Promise<string> {
  let s = '';
  for await (const c of chunks) s += c;
  return s;
}

// ---------------------------------------------------------------------------------------------
// CSV

/** One CSV field: quoted (quotes doubled) when it holds `"`, `,`, CR or LF. */
export function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

function csvTerm(t: Term | undefined, labeler: BlankLabeler): string {
  if (!t) return '';
  if (t.termType === 'BlankNode') return '_:' + labeler.label(t.value);
  return csvField(t.value);
}

/** Stream a SELECT result as SPARQL CSV. */
export async function* writeCsv(result: QueryResult): AsyncIterable<string> {
  const { variables, rows } = selectOnly(result, 'CSV');
  const labeler = new BlankLabeler();
  yield variables.map(csvField).join(',') + '\r\n';
  for await (const row of rows) yield variables.map((v) => csvTerm(row[v], labeler)).join(',') + '\r\n';
}
/** A SELECT result as a SPARQL CSV string. */
export function toCsv(result: QueryResult): Promise<string> { return join(writeCsv(result)); }

/** A parsed CSV document: the header fields and the rows of fields (RFC 4180; CRLF or LF). */
export interface CsvTable { header: string[]; rows: string[][] }

/** Parse CSV text (RFC 4180 quoting; accepts CRLF or LF line ends). */
export function parseCsv(text: string): CsvTable {
  const records: string[][] = [];
  let fields: string[] = [];
  let i = 0;
  const n = text.length;
  if (n === 0) throw badRequest('CSV: empty document');
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= n) throw badRequest('CSV: unterminated quoted field');
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
          i++;
          break;
        }
        field += c;
        i++;
      }
      if (i < n && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') throw badRequest('CSV: text after a closing quote');
    } else {
      while (i < n && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw badRequest('CSV: quote inside an unquoted field');
        field += text[i++];
      }
    }
    fields.push(field);
    if (i >= n) { records.push(fields); break; }
    if (text[i] === ',') { i++; continue; }
    // end of record
    i += text[i] === '\r' && text[i + 1] === '\n' ? 2 : 1;
    records.push(fields);
    fields = [];
    if (i >= n) break;
  }
  const [header, ...rows] = records;
  for (const r of rows) {
    if (r.length !== header!.length) throw badRequest(`CSV: a row has ${r.length} fields, the header ${header!.length}`);
  }
  return { header: header!, rows };
}

// ---------------------------------------------------------------------------------------------
// TSV

const TSV_INTEGER = /^[+-]?[0-9]+$/;
const TSV_DECIMAL = /^[+-]?[0-9]*\.[0-9]+$/;
const TSV_DOUBLE = /^[+-]?(?:[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+|[0-9]+[eE][+-]?[0-9]+)$/;

/** A term in SPARQL TSV syntax (numbers and booleans in their short form when the lexical form allows). */
export function termToTsv(t: Term, labeler?: BlankLabeler): string {
  if (t.termType === 'Literal' && !t.language) {
    const dt = t.datatype.value;
    const v = t.value;
    if ((dt === xsd.integer && TSV_INTEGER.test(v)) || (dt === xsd.decimal && TSV_DECIMAL.test(v)) ||
        (dt === xsd.double && TSV_DOUBLE.test(v)) || (dt === xsd.boolean && (v === 'true' || v === 'false'))) return v;
  }
  switch (t.termType) {
    case 'NamedNode': return encodeIriRef(t.value);
    case 'BlankNode': return '_:' + (labeler ? labeler.label(t.value) : t.value);
    case 'Literal': {
      const lex = '"' + escapeLiteralText(t.value) + '"';
      if (t.language) return lex + '@' + t.language;
      return t.datatype.value === xsd.string ? lex : lex + '^^' + encodeIriRef(t.datatype.value);
    }
  }
}

/** Stream a SELECT result as SPARQL TSV. */
export async function* writeTsv(result: QueryResult): AsyncIterable<string> {
  const { variables, rows } = selectOnly(result, 'TSV');
  const labeler = new BlankLabeler();
  yield variables.map((v) => '?' + v).join('\t') + '\n';
  for await (const row of rows) {
    yield variables.map((v) => { const t = row[v]; return t ? termToTsv(t, labeler) : ''; }).join('\t') + '\n';
  }
}
/** A SELECT result as a SPARQL TSV string. */
export function toTsv(result: QueryResult): Promise<string> { return join(writeTsv(result)); }

const UNESCAPE: Record<string, string> = { t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' };

function unescapeString(s: string, allowEchar: boolean): string {
  return s.replace(/\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))/gs, (_m, u4?: string, u8?: string, c?: string) => {
    if (u4 || u8) return String.fromCodePoint(parseInt((u4 ?? u8)!, 16));
    const r = allowEchar ? UNESCAPE[c!] : undefined;
    if (r === undefined) throw badRequest(`TSV: invalid escape \\${c}`);
    return r;
  });
}

const TSV_IRI = /^<([^<>"{}|^`\\\u0000-\u0020]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>$/;
const TSV_BNODE = /^_:[^\s]+$/;
const TSV_STRING = /^(?:"((?:[^"\\\n\r]|\\.)*)"|'((?:[^'\\\n\r]|\\.)*)')(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^(<.*>))?$/s;

/** Parse one TSV cell into a term. */
export function tsvToTerm(cell: string): Term {
  if (TSV_IRI.test(cell)) return namedNode(unescapeString(cell.slice(1, -1), false));
  if (TSV_BNODE.test(cell)) return blankNode(cell.slice(2));
  if (TSV_INTEGER.test(cell)) return literal(cell, namedNode(xsd.integer));
  if (TSV_DECIMAL.test(cell)) return literal(cell, namedNode(xsd.decimal));
  if (TSV_DOUBLE.test(cell)) return literal(cell, namedNode(xsd.double));
  if (cell === 'true' || cell === 'false') return literal(cell, namedNode(xsd.boolean));
  const m = TSV_STRING.exec(cell);
  if (m) {
    const lex = unescapeString(m[1] ?? m[2]!, true);
    if (m[3]) return literal(lex, m[3]);
    if (m[4]) {
      if (!TSV_IRI.test(m[4])) throw badRequest(`TSV: bad datatype IRI ${m[4]}`);
      return literal(lex, namedNode(unescapeString(m[4].slice(1, -1), false)));
    }
    return literal(lex);
  }
  throw badRequest(`TSV: cannot read term ${quote(cell)}`);
}

/** Parse a SPARQL TSV document (an empty cell is an unbound variable). */
export function parseTsv(text: string): ResultTable {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const headerLine = lines.shift() ?? '';
  const variables = headerLine === '' ? [] : headerLine.split('\t').map((h) => {
    if (!/^[?$]\S+$/.test(h)) throw badRequest(`TSV: bad header field ${quote(h)}`);
    return h.slice(1);
  });
  const rows: Binding[] = lines.map((line) => {
    const cells = variables.length === 0 && line === '' ? [] : line.split('\t');
    if (cells.length !== variables.length) throw badRequest(`TSV: a row has ${cells.length} fields, the header ${variables.length}`);
    const row: Binding = {};
    cells.forEach((c, i) => { if (c !== '') row[variables[i]!] = tsvToTerm(c); });
    return row;
  });
  return { type: 'bindings', variables, rows };
}
