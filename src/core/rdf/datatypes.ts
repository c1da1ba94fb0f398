/**
 * The XSD datatype registry: which datatypes are numeric / temporal / boolean / string, their
 * lexical spaces, canonical forms and numeric type promotion (XSD 1.1 Part 2, XPath F&O §B.1).
 */
import { LedgraphError } from '../errors.js';
import { decParse, decToCanonical } from './decimal.js';
import { type DurationType, type TemporalType, formatDuration, formatTemporal, parseDuration, parseTemporal } from './temporal.js';
import { RDF, XSD, rdf } from './vocab.js';

/** Every XSD datatype IRI the engine knows, by local name. */
export const XSDT = {
  string: XSD + 'string', normalizedString: XSD + 'normalizedString', token: XSD + 'token',
  language: XSD + 'language', Name: XSD + 'Name', NCName: XSD + 'NCName', NMTOKEN: XSD + 'NMTOKEN',
  ID: XSD + 'ID', IDREF: XSD + 'IDREF', ENTITY: XSD + 'ENTITY', anyURI: XSD + 'anyURI',
  boolean: XSD + 'boolean',
  decimal: XSD + 'decimal', integer: XSD + 'integer', float: XSD + 'float', double: XSD + 'double',
  long: XSD + 'long', int: XSD + 'int', short: XSD + 'short', byte: XSD + 'byte',
  nonNegativeInteger: XSD + 'nonNegativeInteger', positiveInteger: XSD + 'positiveInteger',
  nonPositiveInteger: XSD + 'nonPositiveInteger', negativeInteger: XSD + 'negativeInteger',
  unsignedLong: XSD + 'unsignedLong', unsignedInt: XSD + 'unsignedInt',
  unsignedShort: XSD + 'unsignedShort', unsignedByte: XSD + 'unsignedByte',
  dateTime: XSD + 'dateTime', dateTimeStamp: XSD + 'dateTimeStamp', date: XSD + 'date', time: XSD + 'time',
  gYear: XSD + 'gYear', gYearMonth: XSD + 'gYearMonth', gMonth: XSD + 'gMonth', gMonthDay: XSD + 'gMonthDay', gDay: XSD + 'gDay',
  duration: XSD + 'duration', dayTimeDuration: XSD + 'dayTimeDuration', yearMonthDuration: XSD + 'yearMonthDuration',
  hexBinary: XSD + 'hexBinary', base64Binary: XSD + 'base64Binary',
} as const;

/** Inclusive bounds of an integer-derived datatype (undefined = unbounded on that side). */
export interface IntegerRange { min?: bigint; max?: bigint }

const I64 = 2n ** 63n;
/** The xsd:integer family with the value range each member admits. */
export const INTEGER_TYPES: ReadonlyMap<string, IntegerRange> = new Map<string, IntegerRange>([
  [XSDT.integer, {}],
  [XSDT.long, { min: -I64, max: I64 - 1n }],
  [XSDT.int, { min: -(2n ** 31n), max: 2n ** 31n - 1n }],
  [XSDT.short, { min: -32768n, max: 32767n }],
  [XSDT.byte, { min: -128n, max: 127n }],
  [XSDT.nonNegativeInteger, { min: 0n }],
  [XSDT.positiveInteger, { min: 1n }],
  [XSDT.nonPositiveInteger, { max: 0n }],
  [XSDT.negativeInteger, { max: -1n }],
  [XSDT.unsignedLong, { min: 0n, max: 2n ** 64n - 1n }],
  [XSDT.unsignedInt, { min: 0n, max: 2n ** 32n - 1n }],
  [XSDT.unsignedShort, { min: 0n, max: 65535n }],
  [XSDT.unsignedByte, { min: 0n, max: 255n }],
]);

/** The four primitive numeric kinds in promotion order. */
export type NumericKind = 'integer' | 'decimal' | 'float' | 'double';
const RANK: Record<NumericKind, number> = { integer: 0, decimal: 1, float: 2, double: 3 };
const KIND_IRI: Record<NumericKind, string> = { integer: XSDT.integer, decimal: XSDT.decimal, float: XSDT.float, double: XSDT.double };

/** Temporal datatypes (dateTimeStamp is a dateTime that must carry a timezone). */
const TEMPORAL: ReadonlyMap<string, TemporalType> = new Map<string, TemporalType>([
  [XSDT.dateTime, 'dateTime'], [XSDT.dateTimeStamp, 'dateTime'], [XSDT.date, 'date'], [XSDT.time, 'time'],
  [XSDT.gYear, 'gYear'], [XSDT.gYearMonth, 'gYearMonth'], [XSDT.gMonth, 'gMonth'],
  [XSDT.gMonthDay, 'gMonthDay'], [XSDT.gDay, 'gDay'],
]);
const DURATION: ReadonlyMap<string, DurationType> = new Map<string, DurationType>([
  [XSDT.duration, 'duration'], [XSDT.dayTimeDuration, 'dayTimeDuration'], [XSDT.yearMonthDuration, 'yearMonthDuration'],
]);
/** Datatypes whose values are strings (XPath compares them as xs:string; anyURI promotes to string). */
const STRING_TYPES: ReadonlySet<string> = new Set([
  XSDT.string, XSDT.normalizedString, XSDT.token, XSDT.language, XSDT.Name, XSDT.NCName, XSDT.NMTOKEN,
  XSDT.ID, XSDT.IDREF, XSDT.ENTITY, XSDT.anyURI,
]);

/** The primitive numeric kind of a datatype, or undefined when not numeric. */
export function numericKind(dt: string): NumericKind | undefined {
  if (dt === XSDT.decimal) return 'decimal';
  if (dt === XSDT.double) return 'double';
  if (dt === XSDT.float) return 'float';
  return INTEGER_TYPES.has(dt) ? 'integer' : undefined;
}
/** Is dt one of the XSD numeric datatypes (incl. every integer-derived one)? */
export function isNumericDatatype(dt: string): boolean { return numericKind(dt) !== undefined; }
/** Is dt xsd:integer or derived from it? */
export function isIntegerDatatype(dt: string): boolean { return INTEGER_TYPES.has(dt); }
/** The value range of an integer-derived datatype. */
export function integerRange(dt: string): IntegerRange | undefined { return INTEGER_TYPES.get(dt); }
/** The temporal type of a date/time datatype. */
export function temporalType(dt: string): TemporalType | undefined { return TEMPORAL.get(dt); }
/** The duration type of a duration datatype. */
export function durationType(dt: string): DurationType | undefined { return DURATION.get(dt); }
/** Is dt a date/time or duration datatype? */
export function isTemporalDatatype(dt: string): boolean { return TEMPORAL.has(dt) || DURATION.has(dt); }
/** Is dt xsd:boolean? */
export function isBooleanDatatype(dt: string): boolean { return dt === XSDT.boolean; }
/** Is dt xsd:string or a datatype derived from it (or anyURI)? */
export function isStringDatatype(dt: string): boolean { return STRING_TYPES.has(dt); }
/** Is dt a datatype whose lexical space this registry checks? */
export function isKnownDatatype(dt: string): boolean {
  return isNumericDatatype(dt) || TEMPORAL.has(dt) || DURATION.has(dt) || STRING_TYPES.has(dt)
    || dt === XSDT.boolean || dt === XSDT.hexBinary || dt === XSDT.base64Binary
    || dt === rdf.langString || dt === rdf.JSON || dt === RDF + 'XMLLiteral' || dt === RDF + 'HTML';
}

/** The primitive kind two numeric operands promote to (integer < decimal < float < double). */
export function promoteNumeric(a: NumericKind, b: NumericKind): NumericKind {
  return RANK[a] >= RANK[b] ? a : b;
}
/** The datatype IRI of a primitive numeric kind. */
export function numericKindIri(k: NumericKind): string { return KIND_IRI[k]; }

const INTEGER_RE = /^[+-]?[0-9]+$/;
const DECIMAL_RE = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;
const DOUBLE_RE = /^(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN)$/;
const LANGUAGE_RE = /^[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*$/;
const NAME_START = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHAR = NAME_START + '\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040';
const NCNAME_RE = new RegExp(`^[${NAME_START}][${NAME_CHAR}]*$`, 'u');
const NAME_RE = new RegExp(`^[:${NAME_START}][:${NAME_CHAR}]*$`, 'u');
const NMTOKEN_RE = new RegExp(`^[:${NAME_CHAR}]+$`, 'u');
const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Parse a float/double lexical form (INF, -INF, NaN included). */
export function parseDoubleLexical(lex: string): number | undefined {
  if (!DOUBLE_RE.test(lex)) return undefined;
  if (lex === 'INF' || lex === '+INF') return Infinity;
  if (lex === '-INF') return -Infinity;
  if (lex === 'NaN') return NaN;
  return Number(lex);
}

/** Is `lex` in the lexical space of `dt`? Unknown datatypes accept anything. */
export function isValidLexical(dt: string, lex: string): boolean {
  const range = INTEGER_TYPES.get(dt);
  if (range) {
    if (!INTEGER_RE.test(lex)) return false;
    const v = BigInt(lex);
    return (range.min === undefined || v >= range.min) && (range.max === undefined || v <= range.max);
  }
  const tt = TEMPORAL.get(dt);
  if (tt) {
    const v = parseTemporal(tt, lex);
    return v !== undefined && (dt !== XSDT.dateTimeStamp || v.tz !== undefined);
  }
  const du = DURATION.get(dt);
  if (du) return parseDuration(du, lex) !== undefined;
  switch (dt) {
    case XSDT.decimal: return DECIMAL_RE.test(lex);
    case XSDT.double: case XSDT.float: return DOUBLE_RE.test(lex);
    case XSDT.boolean: return lex === 'true' || lex === 'false' || lex === '1' || lex === '0';
    case XSDT.normalizedString: return !/[\r\n\t]/.test(lex);
    case XSDT.token: return !/[\r\n\t]|^ | $| {2}/.test(lex);
    case XSDT.language: return LANGUAGE_RE.test(lex);
    case XSDT.Name: return NAME_RE.test(lex);
    case XSDT.NCName: case XSDT.ID: case XSDT.IDREF: case XSDT.ENTITY: return NCNAME_RE.test(lex);
    case XSDT.NMTOKEN: return NMTOKEN_RE.test(lex);
    case XSDT.hexBinary: return HEX_RE.test(lex);
    case XSDT.base64Binary: return BASE64_RE.test(lex.replace(/ /g, ''));
    case rdf.JSON:
      try { JSON.parse(lex); return true; } catch { return false; }
    default: return true;
  }
}

/** XSD canonical double: one digit before the point, at least one after, E exponent ("1.0E0"). */
export function canonicalDouble(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'INF';
  if (n === -Infinity) return '-INF';
  if (n === 0) return Object.is(n, -0) ? '-0.0E0' : '0.0E0';
  return expForm(n.toExponential());
}

/** The shortest decimal digits that read back as the same float32 value (e.g. 0.1f -> "1e-1"). */
export function shortestFloatExponential(n: number): string {
  for (let p = 0; p < 9; p++) {
    const s = n.toExponential(p);
    if (Math.fround(Number(s)) === n) return s;
  }
  return n.toExponential(8);
}

/** XSD canonical float (value must already be float32-representable, see Math.fround). */
export function canonicalFloat(n: number): string {
  if (!Number.isFinite(n) || n === 0) return canonicalDouble(n);
  return expForm(shortestFloatExponential(n));
}

function expForm(jsExp: string): string {
  // Slices, not split + Number: one call per double made (casts, SUM), so it shows in aggregations.
  const at = jsExp.indexOf('e');
  const m = jsExp.slice(0, at);
  const e = jsExp.charCodeAt(at + 1) === 43 /* + */ ? jsExp.slice(at + 2) : jsExp.slice(at + 1);
  return (m.includes('.') ? m : m + '.0') + 'E' + e;
}

/**
 * The canonical lexical form of `lex` in `dt` (used for cast and arithmetic results; stored terms
 * keep the form they were written in). Unknown datatypes return `lex` unchanged.
 * Throws 400 err:db/BadRequest when `lex` is not in the datatype's lexical space.
 */
export function canonicalLexical(dt: string, lex: string): string {
  if (!isValidLexical(dt, lex)) throw new LedgraphError(400, 'err:db/BadRequest', `invalid lexical form ${JSON.stringify(lex)} for datatype <${dt}>`);
  if (INTEGER_TYPES.has(dt)) return BigInt(lex).toString();
  const tt = TEMPORAL.get(dt);
  if (tt) return formatTemporal(parseTemporal(tt, lex)!);
  const du = DURATION.get(dt);
  if (du) return formatDuration(parseDuration(du, lex)!);
  switch (dt) {
    case XSDT.decimal: return decToCanonical(decParse(lex)!);
    case XSDT.double: return canonicalDouble(parseDoubleLexical(lex)!);
    case XSDT.float: return canonicalFloat(Math.fround(parseDoubleLexical(lex)!));
    case XSDT.boolean: return lex === '1' || lex === 'true' ? 'true' : 'false';
    case XSDT.hexBinary: return lex.toUpperCase();
    default: return lex;
  }
}
