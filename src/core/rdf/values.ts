/**
 * Literal values: parse an RDF literal into the JS value its datatype denotes (exact integers and
 * decimals, IEEE floats, date/times with timezone, booleans, strings with language), build
 * literals from values in canonical form, and coerce JSON-LD transaction values (§3.4).
 */
import { LedgraphError } from '../errors.js';
import {
  XSDT, canonicalDouble, canonicalFloat, durationType, integerRange, isStringDatatype, isValidLexical,
  isKnownDatatype, numericKind, parseDoubleLexical, shortestFloatExponential, temporalType,
} from './datatypes.js';
import { type Decimal, decCompare, decFromBigInt, decFromNumber, decParse, decToCanonical, decToCanonical11, decToNumber, decToPlain } from './decimal.js';
import { type DurationValue, type TemporalValue, parseDuration, parseTemporal } from './temporal.js';
import { type Literal, type Term, literal, namedNode } from './terms.js';
import { XSD, rdf } from './vocab.js';

/** A numeric value: exact for integer/decimal, IEEE for float/double. */
export type NumericValue =
  | { kind: 'integer'; big: bigint }
  | { kind: 'decimal'; mant: bigint; scale: number }
  | { kind: 'float'; num: number }
  | { kind: 'double'; num: number };
/** An xsd:boolean value. */
export interface BooleanValue { kind: 'boolean'; value: boolean }
/** A string value: xsd:string (and derived types, anyURI) with lang '' or rdf:langString with its tag. */
export interface StringValue { kind: 'string'; value: string; lang: string }
/** A date/time value of one of the temporal types. */
export type TemporalLiteralValue = { kind: 'temporal' } & TemporalValue;
/** A duration value. */
export type DurationLiteralValue = { kind: 'duration' } & DurationValue;
/** The value of a well-typed literal of a known datatype. */
export type LiteralValue = NumericValue | BooleanValue | StringValue | TemporalLiteralValue | DurationLiteralValue;

const cache = new WeakMap<Literal, LiteralValue | null>();
/**
 * The number literal made last and its value: an operator's or cast's result is most often read
 * right away by the next operator or an aggregate, which then skips re-parsing the lexical form
 * (and the WeakMap, costly for millions of short-lived literals).
 */
let lastMade: Literal | undefined;
let lastValue: LiteralValue | undefined;

/**
 * The value of a literal, or undefined when its datatype is unknown (custom IRIs, rdf:JSON, ...) or
 * its lexical form is invalid for its datatype (an ill-typed literal, e.g. "abc"^^xsd:integer).
 */
export function parseLiteral(lit: Literal): LiteralValue | undefined {
  if (lit === lastMade) return lastValue;
  // Strings parse for free; caching them (most are made per row by STR() and friends) costs more.
  const dt = lit.datatype.value;
  if (dt === XSDT.string || dt === rdf.langString) return computeValue(lit);
  let v = cache.get(lit);
  if (v === undefined) {
    v = computeValue(lit) ?? null;
    cache.set(lit, v);
  }
  return v ?? undefined;
}

function computeValue(lit: Literal): LiteralValue | undefined {
  const dt = lit.datatype.value, lex = lit.value;
  if (dt === rdf.langString) return lit.language ? { kind: 'string', value: lex, lang: lit.language } : undefined;
  if (dt === XSDT.string) return { kind: 'string', value: lex, lang: '' };
  const nk = numericKind(dt);
  if (nk) {
    if (!isValidLexical(dt, lex)) return undefined;
    switch (nk) {
      case 'integer': return { kind: 'integer', big: BigInt(lex) };
      case 'decimal': { const d = decParse(lex)!; return { kind: 'decimal', mant: d.mant, scale: d.scale }; }
      case 'float': return { kind: 'float', num: Math.fround(parseDoubleLexical(lex)!) };
      case 'double': return { kind: 'double', num: parseDoubleLexical(lex)! };
    }
  }
  if (dt === XSDT.boolean) {
    if (lex === 'true' || lex === '1') return { kind: 'boolean', value: true };
    if (lex === 'false' || lex === '0') return { kind: 'boolean', value: false };
    return undefined;
  }
  const tt = temporalType(dt);
  if (tt) {
    const t = parseTemporal(tt, lex);
    if (!t || (dt === XSDT.dateTimeStamp && t.tz === undefined)) return undefined;
    return { kind: 'temporal', ...t };
  }
  const du = durationType(dt);
  if (du) {
    const d = parseDuration(du, lex);
    return d && { kind: 'duration', ...d };
  }
  if (isStringDatatype(dt)) return isValidLexical(dt, lex) ? { kind: 'string', value: lex, lang: '' } : undefined;
  return undefined;
}

/** Is `t` a literal of a known datatype whose lexical form is invalid ("abc"^^xsd:integer)? */
export function isIllTyped(t: Term): boolean {
  if (t.termType !== 'Literal') return false;
  const dt = t.datatype.value;
  if (dt === rdf.langString) return t.language === '';
  return isKnownDatatype(dt) && !isValidLexical(dt, t.value);
}

/** The numeric value of a well-typed numeric literal, else undefined. */
export function numericValue(t: Term): NumericValue | undefined {
  if (t.termType !== 'Literal' || !numericKind(t.datatype.value)) return undefined;
  return parseLiteral(t) as NumericValue | undefined;
}

/** A numeric value as a JS number (integers/decimals may round). */
export function numericToNumber(v: NumericValue): number {
  switch (v.kind) {
    case 'integer': return Number(v.big);
    case 'decimal': return decToNumber(v);
    default: return v.num;
  }
}

/** An integer or decimal value as an exact Decimal. */
export function numericToDecimal(v: NumericValue): Decimal {
  if (v.kind === 'integer') return decFromBigInt(v.big);
  if (v.kind === 'decimal') return { mant: v.mant, scale: v.scale };
  return decFromNumber(v.num);
}

/**
 * Compare two numeric values after XPath type promotion: -1, 0, 1, or undefined when either is
 * NaN (NaN is unordered and unequal to everything).
 */
export function compareNumeric(a: NumericValue, b: NumericValue): number | undefined {
  if ((a.kind === 'integer' || a.kind === 'decimal') && (b.kind === 'integer' || b.kind === 'decimal')) {
    if (a.kind === 'integer' && b.kind === 'integer') return a.big < b.big ? -1 : a.big > b.big ? 1 : 0;
    return decCompare(numericToDecimal(a), numericToDecimal(b));
  }
  // A float operand promotes the other to float; a double operand to double.
  const toFloat = (a.kind === 'float' || b.kind === 'float') && a.kind !== 'double' && b.kind !== 'double';
  let x = numericToNumber(a), y = numericToNumber(b);
  if (toFloat) { x = Math.fround(x); y = Math.fround(y); }
  if (Number.isNaN(x) || Number.isNaN(y)) return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A typed literal in one step (always a datatype, never a language). */
export function typedLiteral(lex: string, datatype: string): Literal {
  return { termType: 'Literal', value: lex, language: '', datatype: namedNode(datatype) };
}
/** An xsd:integer literal. */
export function integerLiteral(v: bigint | number): Literal { return typedLiteral(BigInt(v).toString(), XSDT.integer); }
/** An xsd:decimal literal in XSD 1.0 canonical form ("3.0"). */
export function decimalLiteral(d: Decimal): Literal { return typedLiteral(decToCanonical(d), XSDT.decimal); }
/** An xsd:decimal literal in XSD 1.1 canonical form ("3"), as the §17.4 functions return it. */
export function decimalLiteral11(d: Decimal): Literal { return typedLiteral(decToCanonical11(d), XSDT.decimal); }
/** An xsd:double literal in canonical form. */
export function doubleLiteral(n: number): Literal { return typedLiteral(canonicalDouble(n), XSDT.double); }
/** An xsd:float literal in canonical form (the value is rounded to float32). */
export function floatLiteral(n: number): Literal { return typedLiteral(canonicalFloat(Math.fround(n)), XSDT.float); }
// Shared: filters produce one boolean per row, and a fresh object each time would also miss the value cache.
const TRUE_LITERAL = typedLiteral('true', XSDT.boolean);
const FALSE_LITERAL = typedLiteral('false', XSDT.boolean);
/** An xsd:boolean literal (one shared object per value; terms are never mutated). */
export function booleanLiteral(b: boolean): Literal { return b ? TRUE_LITERAL : FALSE_LITERAL; }
/** A simple (xsd:string) literal, or a language-tagged one when `lang` is non-empty. */
export function stringLiteral(s: string, lang = ''): Literal { return lang ? literal(s, lang) : typedLiteral(s, XSDT.string); }

/**
 * A numeric value as a literal of its primitive type in XSD 1.0 canonical form: "3", "3.0",
 * "3.0E0". The form of operator, aggregate and cast results (docs/sparql.md "Numeric results").
 */
export function numericLiteral(v: NumericValue): Literal {
  switch (v.kind) {
    case 'integer': return remember(integerLiteral(v.big), v);
    case 'decimal': return decimalLiteral(v);
    case 'float': {
      const f = Math.fround(v.num);
      return remember(floatLiteral(f), f === v.num || Number.isNaN(f) ? v : { kind: 'float', num: f });
    }
    case 'double': return remember(doubleLiteral(v.num), v);
  }
}

/**
 * Note `lit`'s value for parseLiteral. Only for kinds whose canonical lexical form parses back to
 * the very same value (a decimal's scale may not: "1.50" is made as "1.5").
 */
function remember(lit: Literal, v: NumericValue): Literal {
  lastMade = lit;
  lastValue = v;
  return lit;
}

/**
 * A numeric value as a literal of its primitive type in XSD 1.1 canonical form: as
 * numericLiteral except that whole decimals have no fractional part ("3"^^xsd:decimal). The form
 * of the numeric §17.4 function results (ABS, CEIL, FLOOR, ROUND).
 */
export function numericLiteral11(v: NumericValue): Literal {
  return v.kind === 'decimal' ? decimalLiteral11(v) : numericLiteral(v);
}

/**
 * A numeric value cast to xsd:string by XPath rules (F&O §17.1.2): integers and decimals without
 * exponent or trailing ".0" ("1", "2.5"); floats/doubles in [1e-6, 1e6) likewise, others canonical.
 */
export function numericToXPathString(v: NumericValue): string {
  if (v.kind === 'integer') return v.big.toString();
  if (v.kind === 'decimal') return decToPlain(v);
  const n = v.num;
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const a = Math.abs(n);
  if (Number.isFinite(n) && a >= 1e-6 && a < 1e6) {
    return decToPlain(v.kind === 'float' ? decParse(shortestFloatExponential(n), true)! : decFromNumber(n));
  }
  return v.kind === 'float' ? canonicalFloat(n) : canonicalDouble(n);
}

/**
 * Loose numeric match used by retraction (jsonld-transactions.md §3.5): both literals are
 * well-typed numerics with equal values, whatever their datatypes (34 matches "34"^^xsd:int and
 * "34.0"^^xsd:decimal).
 */
export function numericValueEquals(a: Term, b: Term): boolean {
  const x = numericValue(a), y = numericValue(b);
  return x !== undefined && y !== undefined && compareNumeric(x, y) === 0;
}

function coercionError(msg: string): LedgraphError {
  return new LedgraphError(400, 'err:db/BadRequest', msg);
}

function short(dt: string): string { return dt.startsWith(XSD) ? 'xsd:' + dt.slice(XSD.length) : dt; }

/**
 * Coerce a JSON `@value` to a literal of `datatypeIri` (jsonld-transactions.md §3.4). Strings are
 * checked against the datatype's lexical space (XSD whitespace collapse applies to non-string
 * types); numbers and booleans only go where they make sense. Impossible coercions throw 400.
 */
export function coerceJsonValue(value: string | number | boolean, datatypeIri: string): Literal {
  const dt = datatypeIri;
  if (dt === rdf.langString) throw coercionError('rdf:langString needs "@language", not "@type"');
  const range = integerRange(dt);
  const nk = numericKind(dt);
  if (typeof value === 'string') {
    if (!isKnownDatatype(dt)) return typedLiteral(value, dt);
    const lex = isStringDatatype(dt) || dt === rdf.JSON ? value : value.trim();
    if (!isValidLexical(dt, lex)) {
      if (range && /^[+-]?[0-9]+$/.test(lex)) throw coercionError(`value ${lex} is out of range for ${short(dt)}${rangeText(dt)}`);
      throw coercionError(`cannot coerce ${JSON.stringify(value)} to ${short(dt)}: not a valid ${short(dt)} lexical form`);
    }
    return typedLiteral(lex, dt);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw coercionError(`cannot coerce non-finite number ${value} to ${short(dt)}`);
    if (isStringDatatype(dt)) throw coercionError(`cannot coerce number ${value} to ${short(dt)}; send it as a JSON string to store text`);
    if (dt === XSDT.boolean) throw coercionError(`cannot coerce number ${value} to xsd:boolean; use true or false`);
    if (range) {
      if (!Number.isInteger(value)) throw coercionError(`cannot coerce non-integral number ${value} to ${short(dt)}`);
      const lex = BigInt(value).toString();
      if (!isValidLexical(dt, lex)) throw coercionError(`value ${lex} is out of range for ${short(dt)}${rangeText(dt)}`);
      return typedLiteral(lex, dt);
    }
    if (nk === 'decimal') return decimalLiteral(decFromNumber(value));
    if (nk === 'double') return doubleLiteral(value);
    if (nk === 'float') return floatLiteral(value);
    if (!isKnownDatatype(dt)) return typedLiteral(String(value), dt);
    // Other XSD types (e.g. xsd:gYear 2024): the number's digits must form a valid lexical form.
    const lex = String(value);
    if (isValidLexical(dt, lex)) return typedLiteral(lex, dt);
    throw coercionError(`cannot coerce number ${value} to ${short(dt)}; send a ${short(dt)} lexical form as a string`);
  }
  if (dt === XSDT.boolean) return booleanLiteral(value);
  if (!isKnownDatatype(dt) || dt === rdf.JSON) return typedLiteral(String(value), dt);
  throw coercionError(`cannot coerce boolean ${value} to ${short(dt)}`);
}

function rangeText(dt: string): string {
  const r = integerRange(dt);
  if (!r) return '';
  if (r.min !== undefined && r.max !== undefined) return ` (${r.min}..${r.max})`;
  return r.min !== undefined ? ` (>= ${r.min})` : ` (<= ${r.max})`;
}
