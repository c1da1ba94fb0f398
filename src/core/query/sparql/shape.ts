/**
 * The shape of SPARQL query text: the text with its absolute IRIs lifted out as parameters, so
 * that queries differing only in the IRIs they name (a point query on one product, then another)
 * share one parse. A shape is parsed once with placeholder IRIs; each text of that shape gets the
 * algebra with its own IRIs put back in the placeholders' places. Only IRIs whose value cannot
 * change how the text parses are lifted (not a PREFIX or BASE IRI, not a datatype after `^^`, not
 * a function or cast name before `(`, not a text with `\u` escapes), and a text of the shape is
 * also parsed as it is and must give the same algebra, or the shape is never used.
 */
import { namedNode } from '../../rdf/terms.js';
import type { Query } from '../algebra/algebra.js';

/** The lexer's IRIREF (lexer.ts), with a scheme: an absolute IRI, which the parser keeps as written. */
const IRI = /<([A-Za-z][A-Za-z0-9+.-]*:[^<>"{}|^`\\\u0000-\u0020]*)>/y;
const PLACEHOLDER = `urn:x-ledgraph-shape:${Math.random().toString(36).slice(2, 10)}:`;

/** Text of a shape (IRIs replaced by numbered placeholders) and the IRIs lifted from it, in order. */
export interface Shape { text: string; iris: string[] }

/** The shape of query text, or null when nothing can be lifted. */
export function sparqlShape(text: string): Shape | null {
  if (text.includes('\\u') || text.includes('\\U')) return null;
  const iris: string[] = [];
  let out = '';
  let from = 0;
  const n = text.length;
  for (let i = 0; i < n;) {
    const c = text.charCodeAt(i);
    if (c === 35 /* # */) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === 34 /* " */ || c === 39 /* ' */) {
      i = stringEnd(text, i, c);
    } else if (c === 60 /* < */) {
      IRI.lastIndex = i;
      const m = IRI.exec(text);
      if (!m) { i++; continue; }
      const end = i + m[0].length;
      if (liftable(text, i, end)) {
        out += text.slice(from, i) + '<' + PLACEHOLDER + iris.length + '>';
        iris.push(m[1]!);
        from = end;
      }
      i = end;
    } else i++;
  }
  return iris.length ? { text: out + text.slice(from), iris } : null;
}

/** Index after the string literal opening at `i` (long or short form, escapes skipped). */
function stringEnd(text: string, i: number, q: number): number {
  const quote = String.fromCharCode(q);
  const long = text.startsWith(quote + quote + quote, i);
  const close = long ? quote + quote + quote : quote;
  for (let j = i + close.length; j < text.length;) {
    const c = text.charCodeAt(j);
    if (c === 92 /* \ */) { j += 2; continue; }
    if (!long && (c === 10 || c === 13)) return j;
    if (text.startsWith(close, j)) return j + close.length;
    j++;
  }
  return text.length;
}

/** Whether the IRI at [start, end) is a plain term: not a datatype, a PREFIX or BASE IRI, or a function name. */
function liftable(text: string, start: number, end: number): boolean {
  let j = end;
  while (j < text.length && /\s/.test(text[j]!)) j++;
  if (text[j] === '(') return false;
  let k = start - 1;
  while (k >= 0 && /\s/.test(text[k]!)) k--;
  if (k >= 1 && text[k] === '^' && text[k - 1] === '^') return false;
  // PREFIX p: <iri> and BASE <iri>: the word (and prefix name) before it.
  const before = text.slice(Math.max(0, k - 200), k + 1);
  return !/(?:^|[^\w:-])(?:PREFIX\s+[^\s:]*:|BASE)$/i.test(before);
}

/** The algebra of a shape's parse with the placeholders replaced by `iris` (unchanged subtrees shared). */
export function bindShape(q: Query, iris: readonly string[]): Query {
  return put(q, iris) as Query;
}

function put(x: unknown, iris: readonly string[]): unknown {
  if (typeof x !== 'object' || x === null) return x;
  if (Array.isArray(x)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < x.length; i++) {
      const v = put(x[i], iris);
      if (v !== x[i]) (copy ??= x.slice())[i] = v;
    }
    return copy ?? x;
  }
  const o = x as Record<string, unknown>;
  if (o.termType === 'NamedNode') {
    const v = o.value as string;
    return v.startsWith(PLACEHOLDER) ? namedNode(iris[Number(v.slice(PLACEHOLDER.length))]!) : x;
  }
  if (typeof o.termType === 'string') return x;
  let copy: Record<string, unknown> | null = null;
  for (const k in o) {
    const v = put(o[k], iris);
    if (v !== o[k]) (copy ??= { ...o })[k] = v;
  }
  return copy ?? x;
}

/** Structural equality of two algebra values (plain objects, arrays, primitives). */
export function sameAlgebra(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!sameAlgebra((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
