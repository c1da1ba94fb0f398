/**
 * Term comparison for SPARQL: `=` (RDFterm-equal plus value equality, §17.4.1.7 / §17.3),
 * `<`-family ordering of values (§17.3 operator mapping), and the ORDER BY total order (§15.1).
 */
import { ExprError } from './expr-error.js';
import { type Term, termEquals } from './terms.js';
import { compareDuration, compareTemporal, durationEquals, durationSortKey, temporalSortKey } from './temporal.js';
import { type LiteralValue, compareNumeric, parseLiteral } from './values.js';

/** Compare strings by Unicode code point (JS `<` compares UTF-16 code units, which differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (D800-DFFF) encode code points above every BMP character, including E000-FFFF.
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function describe(t: Term): string {
  switch (t.termType) {
    case 'NamedNode': return '<' + t.value + '>';
    case 'BlankNode': return '_:' + t.value;
    case 'Literal': return JSON.stringify(t.value) + (t.language ? '@' + t.language : '^^<' + t.datatype.value + '>');
  }
}

/**
 * SPARQL `=` (§17.3 operator mapping, else RDFterm-equal §17.4.1.7, open world): literals of one
 * known value space compare by value (1 = 1.0, "a" = "a"^^xsd:string); IRIs and blank nodes are
 * equal when they are the same term, and never equal a literal. Two literals that are the same
 * term are equal. Any other pair of literals is an ExprError, since `=` cannot know they differ:
 * different value spaces (1 = "1"), language-tagged strings that are not the same term ("a"@en =
 * "b"@en, "a"@en = "a"), unknown datatypes and ill-typed literals, and date/times whose timezone
 * makes the comparison indeterminate. `!=` is its negation, so it errs on the same pairs.
 */
export function valueEquals(a: Term, b: Term): boolean {
  if (a.termType !== 'Literal' || b.termType !== 'Literal') return termEquals(a, b);
  const va = parseLiteral(a), vb = parseLiteral(b);
  if (va && vb) {
    const eq = valuesEqual(va, vb, a, b);
    if (eq !== undefined) return eq;
  }
  if (termEquals(a, b)) return true;
  throw new ExprError(`cannot decide ${describe(a)} = ${describe(b)}`);
}

/**
 * `=` with closed-world answers for known datatypes (the JSON-LD query language's, decided in
 * jsonld-query.md §5): literals of different known value spaces, or language-tagged strings
 * that differ, are unequal rather than an error. Unknown datatypes and ill-typed literals still
 * err as in valueEquals.
 */
export function closedValueEquals(a: Term, b: Term): boolean {
  if (a.termType === 'Literal' && b.termType === 'Literal') {
    const va = parseLiteral(a), vb = parseLiteral(b);
    if (va && vb) return valuesEqual(va, vb, a, b) ?? false;
  }
  return valueEquals(a, b);
}

/** Value equality within one value space; undefined when the operator table has no row for the pair. */
function valuesEqual(va: LiteralValue, vb: LiteralValue, a: Term, b: Term): boolean | undefined {
  switch (va.kind) {
    case 'integer': case 'decimal': case 'float': case 'double':
      return (vb.kind === 'integer' || vb.kind === 'decimal' || vb.kind === 'float' || vb.kind === 'double')
        ? compareNumeric(va, vb) === 0 : undefined;
    case 'string':
      if (vb.kind !== 'string') return undefined;
      // Language-tagged strings have no row of their own: only the same term is known to be equal.
      if (va.lang !== '' || vb.lang !== '') return va.value === vb.value && va.lang.toLowerCase() === vb.lang.toLowerCase() ? true : undefined;
      return va.value === vb.value;
    case 'boolean':
      return vb.kind === 'boolean' ? va.value === vb.value : undefined;
    case 'temporal': {
      if (vb.kind !== 'temporal' || va.type !== vb.type) return undefined;
      const c = compareTemporal(va, vb);
      if (c === undefined) throw new ExprError(`indeterminate comparison ${describe(a)} = ${describe(b)} (one value has no timezone)`);
      return c === 0;
    }
    case 'duration':
      return vb.kind === 'duration' ? durationEquals(va, vb) : undefined;
  }
}

/**
 * Order two terms as SPARQL's `<` family does: a negative number, 0, a positive number, or NaN
 * when the values are unordered (a NaN operand: every comparison is false). Throws ExprError when
 * the operator is not defined for the operands (IRIs, mixed value spaces, language-tagged strings,
 * unknown datatypes) or the order is indeterminate (timezone).
 */
export function valueCompare(a: Term, b: Term): number {
  const va = a.termType === 'Literal' ? parseLiteral(a) : undefined;
  const vb = b.termType === 'Literal' ? parseLiteral(b) : undefined;
  if (va && vb) {
    switch (va.kind) {
      case 'integer': case 'decimal': case 'float': case 'double':
        if (vb.kind === 'integer' || vb.kind === 'decimal' || vb.kind === 'float' || vb.kind === 'double') {
          return compareNumeric(va, vb) ?? NaN;
        }
        break;
      case 'string':
        if (vb.kind === 'string' && va.lang === '' && vb.lang === '') return compareCodePoints(va.value, vb.value);
        break;
      case 'boolean':
        if (vb.kind === 'boolean') return Number(va.value) - Number(vb.value);
        break;
      case 'temporal':
        if (vb.kind === 'temporal' && va.type === vb.type) {
          const c = compareTemporal(va, vb);
          if (c === undefined) throw new ExprError(`indeterminate comparison of ${describe(a)} and ${describe(b)} (one value has no timezone)`);
          return c;
        }
        break;
      case 'duration':
        if (vb.kind === 'duration') {
          const c = compareDuration(va, vb);
          if (c === undefined) throw new ExprError(`indeterminate comparison of durations ${describe(a)} and ${describe(b)}`);
          return c;
        }
        break;
    }
  }
  throw new ExprError(`cannot compare ${describe(a)} with ${describe(b)}`);
}

/** SPARQL `<` (throws ExprError like valueCompare). */
export function valueLess(a: Term, b: Term): boolean {
  return valueCompare(a, b) < 0;
}

// ORDER BY groups of literals; within a group literals are ordered by value.
const G_STRING = 0, G_LANG = 1, G_NUMERIC = 2, G_BOOLEAN = 3, G_TEMPORAL = 4, G_DURATION = 5, G_OTHER = 6;
const TEMPORAL_RANK = { dateTime: 0, date: 1, time: 2, gYearMonth: 3, gYear: 4, gMonthDay: 5, gMonth: 6, gDay: 7 } as const;

function group(v: LiteralValue | undefined): number {
  if (!v) return G_OTHER;
  switch (v.kind) {
    case 'string': return v.lang ? G_LANG : G_STRING;
    case 'integer': case 'decimal': case 'float': case 'double': return G_NUMERIC;
    case 'boolean': return G_BOOLEAN;
    case 'temporal': return G_TEMPORAL;
    case 'duration': return G_DURATION;
  }
}

const TERM_RANK = { BlankNode: 1, NamedNode: 2, Literal: 3 } as const;

/**
 * The ORDER BY total order (§15.1): unbound < blank nodes < IRIs < literals. Literals are grouped
 * (simple/xsd:string, language-tagged, numeric, boolean, date/time, duration, then everything
 * else) and ordered by value inside a group; where `<` is undefined or indeterminate (a missing
 * timezone is taken as Z here) ties fall back to datatype IRI and lexical form, so the order is
 * total and deterministic.
 */
export function compareForOrder(a: Term | undefined, b: Term | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  if (a.termType !== b.termType) return TERM_RANK[a.termType] - TERM_RANK[b.termType];
  if (a.termType !== 'Literal' || b.termType !== 'Literal') return compareCodePoints(a.value, b.value);
  const va = parseLiteral(a), vb = parseLiteral(b);
  const ga = group(va), gb = group(vb);
  if (ga !== gb) return ga - gb;
  let c = 0;
  if (va && vb) {
    switch (ga) {
      case G_STRING: case G_LANG: {
        const x = va as { value: string; lang: string }, y = vb as { value: string; lang: string };
        c = compareCodePoints(x.value, y.value) || compareCodePoints(x.lang, y.lang);
        break;
      }
      case G_NUMERIC: {
        const r = compareNumeric(va as never, vb as never);
        if (r === undefined) {
          const na = isNaNValue(va), nb = isNaNValue(vb);
          c = na === nb ? 0 : na ? -1 : 1; // NaN sorts before every number
        } else c = r;
        break;
      }
      case G_BOOLEAN:
        c = Number((va as { value: boolean }).value) - Number((vb as { value: boolean }).value);
        break;
      case G_TEMPORAL: {
        const x = va as Extract<LiteralValue, { kind: 'temporal' }>, y = vb as Extract<LiteralValue, { kind: 'temporal' }>;
        c = TEMPORAL_RANK[x.type] - TEMPORAL_RANK[y.type];
        if (c === 0) {
          const kx = temporalSortKey(x), ky = temporalSortKey(y);
          c = kx < ky ? -1 : kx > ky ? 1 : compareFrac(x.frac, y.frac);
        }
        break;
      }
      case G_DURATION: {
        const x = va as Extract<LiteralValue, { kind: 'duration' }>, y = vb as Extract<LiteralValue, { kind: 'duration' }>;
        const kx = durationSortKey(x), ky = durationSortKey(y);
        c = kx < ky ? -1 : kx > ky ? 1 : x.months - y.months;
        break;
      }
    }
  }
  if (c !== 0) return c < 0 ? -1 : 1;
  // Equal values (1 vs 1.0, "a" vs "a"^^xsd:token) or no value at all: datatype IRI, then lexical form.
  return compareCodePoints(a.datatype.value, b.datatype.value)
    || compareCodePoints(a.value, b.value)
    || compareCodePoints(a.language, b.language);
}

function isNaNValue(v: LiteralValue | undefined): boolean {
  return !!v && (v.kind === 'float' || v.kind === 'double') && Number.isNaN(v.num);
}

function compareFrac(a: string, b: string): number {
  const n = Math.max(a.length, b.length);
  const x = a.padEnd(n, '0'), y = b.padEnd(n, '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

