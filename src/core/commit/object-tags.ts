/**
 * Object tags and lexical forms of the commit blob (replication.md §3; docs/formats.md "Commit
 * blob"): which tag a term is stored under, the canonical lexical forms a tag round-trips
 * through, and the table-independent comparisons the writer sorts flakes and metadata by.
 */
import { LedgraphError } from '../errors.js';
import type { BlankNode, Literal, NamedNode, Term } from '../rdf/terms.js';
import { ID_DATATYPE, XSD, rdf, xsd } from '../rdf/vocab.js';

/** Object tags of the flake section (§3). */
export const ObjectTag = { ref: 0, integer: 1, double: 2, string: 3, boolean: 4, lexical: 5, json: 6, vector: 7 } as const;

const LANG_STRING = rdf.langString;
const TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CANONICAL_INT = /^(0|-?[1-9][0-9]*)$/;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

/** Datatypes whose canonical lexical forms are stored as zigzag integers (tag 1). */
const INTEGER_TYPES = new Set([
  'integer', 'long', 'int', 'short', 'byte', 'nonNegativeInteger', 'nonPositiveInteger', 'positiveInteger',
  'negativeInteger', 'unsignedLong', 'unsignedInt', 'unsignedShort', 'unsignedByte',
].map((n) => XSD + n));
/** Datatypes stored as f64 (tag 2) when the lexical form round-trips. */
const DOUBLE_TYPES = new Set([xsd.double, xsd.float]);

/** A 422 for commit data that breaks the format. */
export function invalid(why: string): LedgraphError {
  return new LedgraphError(422, 'err:db/ConstraintViolation', `invalid commit: ${why}`);
}

// ---------------------------------------------------------------------------------------------
// Lexical helpers

/** The lexical form a tag-2 double decodes to: JS shortest round-trip, with XSD's INF/-INF/NaN. */
export function formatDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'INF';
  if (x === -Infinity) return '-INF';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

function parseDouble(s: string): number {
  if (s === 'INF') return Infinity;
  if (s === '-INF') return -Infinity;
  if (s === 'NaN') return NaN;
  return Number(s);
}

/** RFC 8785 (JCS) canonical JSON text of a JSON value; non-JSON values are a 422. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw invalid('JSON numbers must be finite');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return '[' + v.map(canonicalJson).join(',') + ']';
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    // Default sort compares UTF-16 code units, which is exactly the JCS key order.
    return '{' + Object.keys(o).sort().map((k) => JSON.stringify(k) + ':' + canonicalJson(o[k])).join(',') + '}';
  }
  throw invalid(`${typeof v} is not a JSON value`);
}

function isCanonicalJson(s: string): boolean {
  try {
    return canonicalJson(JSON.parse(s)) === s;
  } catch {
    return false;
  }
}

/** Order strings by Unicode code point (= UTF-8 byte order), not UTF-16 code unit. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    let x = a.charCodeAt(k);
    let y = b.charCodeAt(k);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        // Surrogates (astral code points) sort after U+E000..U+FFFF.
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

function compareNumbers(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  const an = Number.isNaN(a), bn = Number.isNaN(b);
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  const az = Object.is(a, -0), bz = Object.is(b, -0);
  return az === bz ? 0 : az ? -1 : 1;
}

/** True when `time` is RFC 3339 UTC with milliseconds, exactly as `Date#toISOString` writes it. */
export function isCommitTime(time: unknown): time is string {
  if (typeof time !== 'string' || !TIME_RE.test(time)) return false;
  const d = new Date(time);
  return !Number.isNaN(d.getTime()) && d.toISOString() === time;
}

// ---------------------------------------------------------------------------------------------
// Tag selection

/** An object value typed by its tag; `R` is how a reference (tag 0) is held. */
export type TaggedObject<R> =
  | { tag: 0; v: R }
  | { tag: 1; v: number | bigint }
  | { tag: 2; v: number }
  | { tag: 3 | 5 | 6; v: string }
  | { tag: 4; v: boolean };

/** An object before SIDs are assigned: references by IRI or `_:label`. */
export type PrepObject = TaggedObject<string>;

/**
 * Where a value sits, for error messages: a string, or an object whose \`toString\` builds it (so
 * the hot path does not build a message per flake).
 */
export type Where = string | { toString(): string };

/** The key of a subject, predicate or reference object: its IRI, or `_:label` for a blank node. */
export function nodeKey(t: NamedNode | BlankNode, at: Where): string {
  const where = at as string; // only read when throwing (a template calls an object's toString)

  if (t.termType === 'BlankNode') {
    if (typeof t.value !== 'string' || t.value === '') throw invalid(`${where}: empty blank node label`);
    return '_:' + t.value;
  }
  if (t.termType !== 'NamedNode' || typeof t.value !== 'string' || t.value === '') throw invalid(`${where}: expected an IRI or blank node`);
  // Such an "IRI" could come back as a blank node; it is not a valid absolute IRI anyway.
  if (t.value.startsWith('_:')) throw invalid(`${where}: IRI ${JSON.stringify(t.value)} looks like a blank node`);
  if (t.value === ID_DATATYPE) throw invalid(`${where}: "@id" is not an IRI`);
  return t.value;
}

/** Tag, value, datatype and language of an object term (§3 object tags). */
export function prepObject(o: Term, at: Where): { o: PrepObject; dt: string; lang: string } {
  const where = at as string; // only read when throwing (a template calls an object's toString)

  if (o.termType === 'NamedNode' || o.termType === 'BlankNode') return { o: { tag: 0, v: nodeKey(o, where) }, dt: ID_DATATYPE, lang: '' };
  if (o.termType !== 'Literal') throw invalid(`${where}: unsupported term type ${(o as { termType: string }).termType}`);
  const lit = o as Literal;
  const dt = lit.datatype?.value;
  const lex = lit.value;
  const lang = lit.language ?? '';
  if (typeof dt !== 'string' || dt === '' || dt === ID_DATATYPE || dt.startsWith('_:')) throw invalid(`${where}: bad literal datatype ${JSON.stringify(dt)}`);
  if (typeof lex !== 'string') throw invalid(`${where}: literal value must be a string`);
  if ((lang !== '') !== (dt === LANG_STRING)) throw invalid(`${where}: a language tag goes with rdf:langString and only with it`);
  return prepLiteral(lex, dt, lang);
}

/** Tag and value of a literal whose datatype and language were checked (prepObject's literal half). */
export function prepLiteral(lex: string, dt: string, lang: string): { o: PrepObject; dt: string; lang: string } {
  if (dt === xsd.string || dt === LANG_STRING) return { o: { tag: 3, v: lex }, dt, lang };
  if (INTEGER_TYPES.has(dt) && CANONICAL_INT.test(lex)) {
    // Up to 15 digits is below 2^53: plain numbers, BigInt only for the rest of the 64-bit range.
    if (lex.length <= 15) return { o: { tag: 1, v: Number(lex) }, dt, lang };
    const n = BigInt(lex);
    if (n >= I64_MIN && n <= I64_MAX) return { o: { tag: 1, v: n }, dt, lang };
  }
  if (DOUBLE_TYPES.has(dt)) {
    const d = parseDouble(lex);
    if (formatDouble(d) === lex) return { o: { tag: 2, v: d }, dt, lang };
  }
  if (dt === xsd.boolean && (lex === 'true' || lex === 'false')) return { o: { tag: 4, v: lex === 'true' }, dt, lang };
  if (dt === rdf.JSON && isCanonicalJson(lex)) return { o: { tag: 6, v: lex }, dt, lang };
  return { o: { tag: 5, v: lex }, dt, lang };
}

/** Order two prepared objects: by tag, then by value (`slow` = a string side has a unit >= U+D800). */
export function compareObjects(a: PrepObject, b: PrepObject, slow: boolean): number {
  if (a.tag !== b.tag) return a.tag - b.tag;
  switch (a.tag) {
    case 1: { const y = b.v as number | bigint; return a.v < y ? -1 : a.v > y ? 1 : 0; }
    case 2: return compareNumbers(a.v, b.v as number);
    case 4: return Number(a.v) - Number(b.v as boolean);
    default: return slow ? compareCodePoints(a.v, b.v as string) : compareFast(a.v, b.v as string);
  }
}

/** Native (UTF-16) comparison: equal to code-point order when either side has no unit >= U+D800. */
export function compareFast(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

const HI = /[\uD800-\uFFFF]/;
/** True when a string holds a UTF-16 unit >= U+D800 (only then is code-point order not native order). */
export function hasHigh(s: string): boolean { return HI.test(s); }
/** `hi` bits: which string fields of a prepared entry hold a unit >= U+D800. */
export const HI_S = 1, HI_P = 2, HI_O = 4, HI_DT = 8;

/** The `hi` bits of a prepared entry. */
export function hiBits(s: string, p: string, o: PrepObject, dt: string): number {
  return (HI.test(s) ? HI_S : 0) | (HI.test(p) ? HI_P : 0) | (typeof o.v === 'string' && HI.test(o.v) ? HI_O : 0) | (HI.test(dt) ? HI_DT : 0);
}
