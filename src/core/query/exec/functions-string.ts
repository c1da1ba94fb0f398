/**
 * SPARQL string functions (§17.4.3) and hash functions (§17.4.6). Lengths and positions count
 * Unicode code points; result literals keep the first argument's language tag where the spec
 * says so (SUBSTR, UCASE, LCASE, STRBEFORE/STRAFTER on a match, REPLACE, CONCAT when all agree).
 */
import { md5, sha1, sha256, sha384, sha512, toHex, utf8Encode } from '../../rdf/hash.js';
import type { Literal, Term } from '../../rdf/terms.js';
import { booleanLiteral, integerLiteral, numericToNumber, stringLiteral } from '../../rdf/values.js';
import { type FunctionDef, checkCompatible, def, numArg, simpleArg, stringArg } from './functions-common.js';
import { regexMatches, regexReplace } from './functions-regex.js';

/** A literal with the same language tag as `like` (or xsd:string when it has none). */
function sameKind(s: string, like: Literal): Literal { return stringLiteral(s, like.language); }

/** fn:round on a double: nearest integer, halves toward +∞ (NaN and ±INF pass through). */
function xround(n: number): number { return Math.round(n); }

/**
 * fn:substring: the code points at 1-based positions p with round(start) <= p < round(start) + round(len).
 * Follows XPath's double arithmetic, so NaN or -INF + INF select nothing.
 */
export function substring(s: string, start: number, len?: number): string {
  const cps = Array.from(s);
  const st = xround(start);
  const end = len === undefined ? Infinity : st + xround(len);
  if (Number.isNaN(st) || Number.isNaN(end)) return '';
  const from = Math.max(st, 1), to = Math.min(end, cps.length + 1);
  return from < to ? cps.slice(from - 1, to - 1).join('') : '';
}

/** langMatches per RFC 4647 basic filtering: "*" matches any non-empty tag, else equal or a "-" prefix (case-insensitive). */
export function langMatches(tag: string, range: string): boolean {
  if (range === '*') return tag !== '';
  const t = tag.toLowerCase(), r = range.toLowerCase();
  return t === r || (r !== '' && t.startsWith(r + '-'));
}

/** ENCODE_FOR_URI: percent-encode every UTF-8 byte except the RFC 3986 unreserved characters. */
export function encodeForUri(s: string): string {
  let out = '';
  for (const ch of s) {
    if (/^[A-Za-z0-9\-_.~]$/.test(ch)) { out += ch; continue; }
    for (const b of utf8Encode(ch)) out += '%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
  }
  return out;
}

function hashFn(name: string, h: (b: Uint8Array) => Uint8Array): FunctionDef {
  return def(1, 1, ([a]) => stringLiteral(toHex(h(utf8Encode(simpleArg(a!, name).value)))));
}

function flagsArg(t: Term | undefined, fname: string): string {
  return t === undefined ? '' : simpleArg(t, fname).value;
}

/** The string-function entries of the registry. */
export const STRING_FUNCTIONS: Record<string, FunctionDef> = {
  strlen: def(1, 1, ([a]) => {
    let n = 0;
    for (const _ of stringArg(a!, 'STRLEN').value) n++;
    return integerLiteral(n);
  }),
  substr: def(2, 3, ([a, start, len]) => {
    const s = stringArg(a!, 'SUBSTR');
    const st = numericToNumber(numArg(start!, 'SUBSTR'));
    const ln = len === undefined ? undefined : numericToNumber(numArg(len, 'SUBSTR'));
    return sameKind(substring(s.value, st, ln), s);
  }),
  ucase: def(1, 1, ([a]) => { const s = stringArg(a!, 'UCASE'); return sameKind(s.value.toUpperCase(), s); }),
  lcase: def(1, 1, ([a]) => { const s = stringArg(a!, 'LCASE'); return sameKind(s.value.toLowerCase(), s); }),
  strstarts: def(2, 2, ([a, b]) => { const [x, y] = checkCompatible(a!, b!, 'STRSTARTS'); return booleanLiteral(x.value.startsWith(y.value)); }),
  strends: def(2, 2, ([a, b]) => { const [x, y] = checkCompatible(a!, b!, 'STRENDS'); return booleanLiteral(x.value.endsWith(y.value)); }),
  contains: def(2, 2, ([a, b]) => { const [x, y] = checkCompatible(a!, b!, 'CONTAINS'); return booleanLiteral(x.value.includes(y.value)); }),
  strbefore: def(2, 2, ([a, b]) => {
    const [x, y] = checkCompatible(a!, b!, 'STRBEFORE');
    const i = x.value.indexOf(y.value);
    // No match gives the empty simple literal; a match (even of "") keeps the first argument's tag.
    return i < 0 ? stringLiteral('') : sameKind(x.value.slice(0, i), x);
  }),
  strafter: def(2, 2, ([a, b]) => {
    const [x, y] = checkCompatible(a!, b!, 'STRAFTER');
    const i = x.value.indexOf(y.value);
    return i < 0 ? stringLiteral('') : sameKind(x.value.slice(i + y.value.length), x);
  }),
  encode_for_uri: def(1, 1, ([a]) => stringLiteral(encodeForUri(stringArg(a!, 'ENCODE_FOR_URI').value))),
  concat: def(0, Infinity, (args) => {
    let out = '';
    let lang: string | undefined;
    for (const a of args) {
      const s = stringArg(a, 'CONCAT');
      out += s.value;
      const l = s.language.toLowerCase();
      lang = lang === undefined ? l : lang === l ? lang : '';
    }
    return stringLiteral(out, lang ?? '');
  }),
  langmatches: def(2, 2, ([a, b]) => booleanLiteral(langMatches(simpleArg(a!, 'LANGMATCHES').value, simpleArg(b!, 'LANGMATCHES').value))),
  regex: def(2, 3, ([text, pattern, flags]) => booleanLiteral(regexMatches(
    stringArg(text!, 'REGEX').value, simpleArg(pattern!, 'REGEX').value, flagsArg(flags, 'REGEX')))),
  replace: def(3, 4, ([a, pattern, replacement, flags]) => {
    const s = stringArg(a!, 'REPLACE');
    const out = regexReplace(s.value, simpleArg(pattern!, 'REPLACE').value, simpleArg(replacement!, 'REPLACE').value, flagsArg(flags, 'REPLACE'));
    return sameKind(out, s);
  }),
  md5: hashFn('MD5', md5),
  sha1: hashFn('SHA1', sha1),
  sha256: hashFn('SHA256', sha256),
  sha384: hashFn('SHA384', sha384),
  sha512: hashFn('SHA512', sha512),
};

