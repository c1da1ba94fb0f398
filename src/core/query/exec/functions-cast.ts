/**
 * XSD constructor casts (SPARQL 1.1 §17.5, XPath F&O §19): xsd:integer(?x), xsd:string(?x), ...
 * The §17.5 table covers string, boolean, the numerics and dateTime; the other XSD types
 * (bounded integers, date, time, g-types, durations, derived strings) follow XPath's casting
 * rules. Results are in XSD 1.0 canonical lexical form, also when the input already has the
 * target datatype (docs/sparql.md "Numeric results"); an impossible cast is an ExprError.
 */
import {
  XSDT, canonicalLexical, durationType, integerRange, isKnownDatatype, isValidLexical, numericKind, parseDoubleLexical, shortestFloatExponential, temporalType,
} from '../../rdf/datatypes.js';
import { decFromNumber, decParse, decToCanonical, decTrunc } from '../../rdf/decimal.js';
import { ExprError } from '../../rdf/expr-error.js';
import { type TemporalType, formatDuration, formatTemporal, parseTemporal } from '../../rdf/temporal.js';
import type { Literal, Term } from '../../rdf/terms.js';
import {
  type LiteralValue, type NumericValue, booleanLiteral, doubleLiteral, floatLiteral, isIllTyped, numericToXPathString,
  numericLiteral, parseLiteral, typedLiteral,
} from '../../rdf/values.js';
import { XSD } from '../../rdf/vocab.js';
import { type FunctionDef, def, show } from './functions-common.js';

/** Temporal types each temporal target may be cast from (besides strings). */
const TEMPORAL_SOURCES: Record<TemporalType, readonly TemporalType[]> = {
  dateTime: ['dateTime', 'date'], date: ['dateTime', 'date'], time: ['dateTime', 'time'],
  gYear: ['dateTime', 'date', 'gYear'], gYearMonth: ['dateTime', 'date', 'gYearMonth'],
  gMonth: ['dateTime', 'date', 'gMonth'], gMonthDay: ['dateTime', 'date', 'gMonthDay'], gDay: ['dateTime', 'date', 'gDay'],
};

function fail(target: string, t: Term): never {
  throw new ExprError(`cannot cast ${show(t)} to xsd:${target.slice(XSD.length)}`);
}

/** The value as XPath casts it to xsd:string. */
function valueToString(v: LiteralValue, lit: Literal): string {
  switch (v.kind) {
    case 'string': return v.value;
    case 'boolean': return v.value ? 'true' : 'false';
    case 'integer': case 'decimal': case 'float': case 'double': return numericToXPathString(v);
    default: return canonicalLexical(lit.datatype.value, lit.value);
  }
}

function toInteger(v: NumericValue | { kind: 'boolean'; value: boolean }): bigint | undefined {
  switch (v.kind) {
    case 'boolean': return v.value ? 1n : 0n;
    case 'integer': return v.big;
    case 'decimal': return decTrunc(v);
    default: return Number.isFinite(v.num) ? BigInt(Math.trunc(v.num)) : undefined;
  }
}

/** XPath whitespace facet for derived string types: replace for normalizedString, collapse for the rest. */
function whitespace(dt: string, s: string): string {
  if (dt === XSDT.string || dt === XSDT.anyURI) return s;
  if (dt === XSDT.normalizedString) return s.replace(/[\t\n\r]/g, ' ');
  return s.replace(/[\t\n\r ]+/g, ' ').trim();
}

/**
 * Cast `t` to the XSD datatype `target`; throws ExprError when XPath forbids the cast or the
 * value does not fit (e.g. "1.5" to xsd:integer, 300 to xsd:byte, NaN to xsd:decimal).
 */
export function castTo(target: string, t: Term): Literal {
  if (t.termType === 'BlankNode') fail(target, t);
  if (t.termType === 'NamedNode') {
    // Only string-like targets accept an IRI (its text).
    if (target === XSDT.string || target === XSDT.anyURI) return typedLiteral(t.value, target);
    fail(target, t);
  }
  if (isIllTyped(t)) fail(target, t);
  const v = parseLiteral(t);
  if (!v) {
    // A literal without a value model here (custom datatype, rdf:JSON, ...) keeps only its text.
    if (target === XSDT.string) return typedLiteral(t.value, target);
    fail(target, t);
  }
  if (v.kind === 'string' && v.lang !== '' && target !== XSDT.string) fail(target, t);
  const fromString = v.kind === 'string';
  // Casting from a string parses the target's lexical space after whitespace collapsing.
  const lex = fromString ? v.value.trim() : '';
  const nk = numericKind(target);

  if (nk === 'integer') {
    let b: bigint | undefined;
    if (fromString) b = /^[+-]?[0-9]+$/.test(lex) ? BigInt(lex) : undefined;
    else if (v.kind === 'boolean' || v.kind === 'integer' || v.kind === 'decimal' || v.kind === 'float' || v.kind === 'double') b = toInteger(v);
    const r = integerRange(target)!;
    if (b === undefined || (r.min !== undefined && b < r.min) || (r.max !== undefined && b > r.max)) fail(target, t);
    return typedLiteral(b.toString(), target);
  }
  if (nk === 'decimal') {
    switch (v.kind) {
      case 'string': { const d = decParse(lex); if (!d) fail(target, t); return typedLiteral(decToCanonical(d), target); }
      case 'boolean': return typedLiteral(v.value ? '1.0' : '0.0', target);
      case 'integer': return typedLiteral(v.big.toString() + '.0', target);
      case 'decimal': return typedLiteral(decToCanonical(v), target);
      case 'float': case 'double':
        if (!Number.isFinite(v.num)) fail(target, t);
        // The shortest digits of the float/double (float 1.1 -> 1.1, not 1.10000002384185791015625).
        return typedLiteral(decToCanonical(v.kind === 'float' ? decParse(shortestFloatExponential(v.num), true)! : decFromNumber(v.num)), target);
      default: fail(target, t);
    }
  }
  if (nk === 'double' || nk === 'float') {
    let n: number | undefined;
    switch (v.kind) {
      case 'string': n = parseDoubleLexical(lex); break;
      case 'boolean': n = v.value ? 1 : 0; break;
      case 'integer': n = Number(v.big); break;
      case 'decimal': n = Number(decToCanonical(v)); break;
      case 'float': case 'double': n = v.num; break;
    }
    if (n === undefined) fail(target, t);
    // Through numericLiteral, so the next reader (an operator, an aggregate) gets the value unparsed.
    return numericLiteral({ kind: nk, num: n });
  }
  if (target === XSDT.boolean) {
    switch (v.kind) {
      case 'string':
        if (lex === 'true' || lex === '1') return booleanLiteral(true);
        if (lex === 'false' || lex === '0') return booleanLiteral(false);
        return fail(target, t);
      case 'boolean': return booleanLiteral(v.value);
      case 'integer': return booleanLiteral(v.big !== 0n);
      case 'decimal': return booleanLiteral(v.mant !== 0n);
      case 'float': case 'double': return booleanLiteral(v.num !== 0 && !Number.isNaN(v.num));
      default: return fail(target, t);
    }
  }
  const tt = temporalType(target);
  if (tt) {
    if (fromString) {
      if (!isValidLexical(target, lex)) fail(target, t);
      return typedLiteral(canonicalLexical(target, lex), target);
    }
    if (v.kind !== 'temporal' || !TEMPORAL_SOURCES[tt].includes(v.type)) fail(target, t);
    if (target === XSDT.dateTimeStamp && v.tz === undefined) fail(target, t);
    // Roll 24:00:00 over first so the date parts are those of the next day.
    const from = v.hour === 24 ? parseTemporal(v.type, formatTemporal(v))! : v;
    return typedLiteral(formatTemporal({ ...from, type: tt }), target);
  }
  const du = durationType(target);
  if (du) {
    if (fromString) {
      if (!isValidLexical(target, lex)) fail(target, t);
      return typedLiteral(canonicalLexical(target, lex), target);
    }
    if (v.kind !== 'duration') fail(target, t);
    const months = du === 'dayTimeDuration' ? 0 : v.months;
    const seconds = du === 'yearMonthDuration' ? { mant: 0n, scale: 0 } : v.seconds;
    return typedLiteral(formatDuration({ type: du, months, seconds }), target);
  }
  // xsd:string and the types derived from it, anyURI, hexBinary, base64Binary: via the string value.
  if (target === XSDT.hexBinary || target === XSDT.base64Binary || target === XSDT.anyURI) {
    if (!fromString || !isValidLexical(target, lex)) fail(target, t);
    return typedLiteral(target === XSDT.hexBinary ? lex.toUpperCase() : lex, target);
  }
  const s = whitespace(target, valueToString(v, t));
  if (!isValidLexical(target, s)) fail(target, t);
  return typedLiteral(s, target);
}

/** XSD datatypes usable as cast functions (every XSD datatype of the registry). */
export function isCastTarget(iri: string): boolean {
  return iri.startsWith(XSD) && isKnownDatatype(iri);
}

/** The registry entry for a cast to `iri`. */
export function castFunction(iri: string): FunctionDef {
  return def(1, 1, ([a]) => castTo(iri, a!));
}
