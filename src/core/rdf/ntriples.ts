/**
 * A fast N-Triples / N-Quads line reader for bulk loads. n3's general parser builds term objects
 * per triple (~90k triples/s here); bulk loading needs dictionary keys (rdf/terms.ts grammar)
 * straight from the text, so this reads one line at a time and yields keys. It implements the full
 * RDF 1.1 N-Triples/N-Quads grammar (escapes, language tags, blank nodes, comments) and is checked
 * against the W3C suites; anything else (Turtle, TriG) goes through n3.
 */
import { badRequest } from '../errors.js';
import { rdf, xsd } from './vocab.js';

/** Keys of one statement; `g` is null for the default graph. */
export interface KeyQuad { s: string; p: string; o: string; g: string | null }

const LANG_RE = /^[a-zA-Z]+(-[a-zA-Z0-9]+)*$/;
// Characters IRIREF forbids (besides escapes and controls).
const BAD_IRI = /[\u0000-\u0020<>"{}|^`\\]/;

function fail(line: number, col: number, why: string): never {
  throw badRequest(`N-Triples syntax error at line ${line}, column ${col}: ${why}`);
}

/** Unescape \uXXXX, \UXXXXXXXX (IRIs) and, for literals, the ECHAR escapes. */
function unescape(s: string, literal: boolean, line: number, col: number): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const b = s.indexOf('\\', i);
    if (b < 0) { out += s.slice(i); break; }
    out += s.slice(i, b);
    const c = s[b + 1];
    if (c === 'u' || c === 'U') {
      const len = c === 'u' ? 4 : 8;
      const hex = s.slice(b + 2, b + 2 + len);
      if (hex.length !== len || !/^[0-9A-Fa-f]+$/.test(hex)) fail(line, col + b, 'bad \\u escape');
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) fail(line, col + b, 'escape is not a Unicode scalar value');
      out += String.fromCodePoint(cp);
      i = b + 2 + len;
      continue;
    }
    if (!literal) fail(line, col + b, 'only \\u and \\U escapes are allowed in IRIs');
    const m: Record<string, string> = { t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' };
    const r = c === undefined ? undefined : m[c];
    if (r === undefined) fail(line, col + b, `bad escape \\${c ?? ''}`);
    out += r;
    i = b + 2;
  }
  return out;
}

/** Copy a string so a slice does not keep a whole input chunk alive in the dictionary. */
export function detach(s: string): string {
  return s.length < 13 ? s : (s + ' ').slice(0, -1);
}

/** IRIs (after unescaping) known to be valid absolute IRIs; bounded, cleared when full. */
const checked = new Set<string>();

class LineReader {
  i = 0;
  constructor(readonly s: string, readonly line: number) {}
  ws(): void {
    const s = this.s;
    while (this.i < s.length && (s.charCodeAt(this.i) === 32 || s.charCodeAt(this.i) === 9)) this.i++;
  }
  iri(): string {
    const s = this.s;
    const end = s.indexOf('>', this.i + 1);
    if (end < 0) fail(this.line, this.i + 1, 'unterminated IRI');
    let v = s.slice(this.i + 1, end);
    const col = this.i + 1;
    this.i = end + 1;
    // Subjects, predicates and datatypes repeat line after line: each distinct IRI is checked once
    // (a member never holds a backslash, so an escaped spelling is always unescaped and checked).
    if (checked.has(v)) return v;
    if (v.indexOf('\\') >= 0) v = unescape(v, false, this.line, col + 1);
    if (BAD_IRI.test(v)) fail(this.line, col, `invalid character in IRI <${v}>`);
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(v)) fail(this.line, col, `relative IRI <${v}> (N-Triples needs absolute IRIs)`);
    if (checked.size >= 8192) checked.clear();
    checked.add(v);
    return v;
  }
  bnode(): string {
    const s = this.s;
    if (s.charCodeAt(this.i + 1) !== 58) fail(this.line, this.i + 1, 'expected _: for a blank node');
    let j = this.i + 2;
    while (j < s.length && !/[\s<>"]/.test(s[j]!)) j++;
    let label = s.slice(this.i + 2, j);
    // A label may not end with '.' (that is the statement terminator).
    while (label.endsWith('.')) { label = label.slice(0, -1); j--; }
    if (!label || !/^[\p{L}\p{N}_]/u.test(label) || !/^[\p{L}\p{N}_.\-\u00B7\u0300-\u036F\u203F-\u2040]+$/u.test(label)) fail(this.line, this.i + 1, `invalid blank node label "${label}"`);
    this.i = j;
    return '_:' + label;
  }
  literal(): string {
    const s = this.s;
    let j = this.i + 1;
    let hasEscape = false;
    for (;;) {
      const q = s.indexOf('"', j);
      if (q < 0) fail(this.line, this.i + 1, 'unterminated string literal');
      // Count backslashes before the quote: odd means escaped.
      let k = q - 1, bs = 0;
      while (k > this.i && s.charCodeAt(k) === 92) { bs++; k--; }
      if (bs % 2 === 0) { j = q; break; }
      hasEscape = true;
      j = q + 1;
    }
    let lex = s.slice(this.i + 1, j);
    if (hasEscape || lex.indexOf('\\') >= 0) lex = unescape(lex, true, this.line, this.i + 2);
    else if (/[\n\r]/.test(lex)) fail(this.line, this.i + 1, 'raw line break in a string literal');
    this.i = j + 1;
    if (s.charCodeAt(this.i) === 64 /* @ */) {
      let e = this.i + 1;
      while (e < s.length && /[a-zA-Z0-9-]/.test(s[e]!)) e++;
      const lang = s.slice(this.i + 1, e);
      if (!LANG_RE.test(lang)) fail(this.line, this.i + 1, `invalid language tag "${lang}"`);
      this.i = e;
      return '"' + rdf.langString + '|' + lang.toLowerCase() + '|' + lex;
    }
    if (s.charCodeAt(this.i) === 94 && s.charCodeAt(this.i + 1) === 94) {
      this.i += 2;
      if (s.charCodeAt(this.i) !== 60) fail(this.line, this.i + 1, 'expected <datatype IRI> after ^^');
      return '"' + this.iri() + '||' + lex;
    }
    return '"' + xsd.string + '||' + lex;
  }
  term(allowLiteral: boolean, allowBnode: boolean, what: string): string {
    this.ws();
    const c = this.s.charCodeAt(this.i);
    if (c === 60) return this.iri();
    if (c === 95 && allowBnode) return this.bnode();
    if (c === 34 && allowLiteral) return this.literal();
    return fail(this.line, this.i + 1, `expected ${what}`);
  }
}

/**
 * The key of one term written alone (`<iri>`, `_:label`, or a literal with its suffix), read and
 * checked exactly as inside a line: the byte reader (ntriples-bytes.ts) asks this once per distinct
 * spelling. Throws when the text is not one whole term of `kind` (0 subject, 1 predicate, 2 object,
 * 3 graph).
 */
export function readNTriplesTerm(text: string, kind: 0 | 1 | 2 | 3, lineNo: number): string {
  const r = new LineReader(text, lineNo);
  const key = r.term(kind === 2, kind !== 1, 'a term');
  if (r.i !== text.length) fail(lineNo, r.i + 1, 'unexpected text after the term');
  return key;
}

/**
 * Read one line; returns null for blank and comment lines. Keys are IRIs as-is, `_:label` for
 * blank nodes, `"dt|lang|lex` for literals.
 */
export function readNTriplesLine(text: string, lineNo: number, quads: boolean): KeyQuad | null {
  const r = new LineReader(text, lineNo);
  r.ws();
  if (r.i >= text.length || text.charCodeAt(r.i) === 35 /* # */) return null;
  const s = r.term(false, true, 'a subject IRI or blank node');
  const p = r.term(false, false, 'a predicate IRI');
  const o = r.term(true, true, 'an object');
  r.ws();
  let g: string | null = null;
  if (quads && text.charCodeAt(r.i) !== 46) g = r.term(false, true, 'a graph IRI or "."');
  r.ws();
  if (text.charCodeAt(r.i) !== 46) fail(lineNo, r.i + 1, 'expected "." at the end of the statement');
  r.i++;
  r.ws();
  if (r.i < text.length && text.charCodeAt(r.i) !== 35) fail(lineNo, r.i + 1, 'unexpected text after "."');
  return { s, p, o, g };
}
