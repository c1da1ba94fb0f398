/**
 * Cypher values (cypher.md §4, §8): Integer is a bigint, Float a number, Decimal and temporal
 * values are tagged; nodes, relationships and paths carry their RDF identities. Conversion from
 * stored terms, Cypher's ordering and equality, and the JSON form of results.
 */
import type { Term } from '../../rdf/terms.js';
import { RDF, XSD } from '../../rdf/vocab.js';
import { compareCodePoints } from '../../rdf/compare.js';

export interface NodeV { t: 'node'; id: Term }
export interface RelV { t: 'rel'; start: Term; type: string; end: Term; reifier: Term | null }
export interface PathV { t: 'path'; nodes: NodeV[]; rels: RelV[] }
export interface DecimalV { t: 'decimal'; lex: string }
export interface TemporalV { t: 'temporal'; dt: 'date' | 'dateTime' | 'time' | 'duration'; lex: string }
export type Value = null | boolean | bigint | number | string | Value[] | MapV | NodeV | RelV | PathV | DecimalV | TemporalV;
/** Maps keep insertion order (map literals keep their key order, §8). */
export interface MapV { t: 'map'; m: Map<string, Value> }

export const mapV = (entries: [string, Value][]): MapV => ({ t: 'map', m: new Map(entries) });

const INT_TYPES = new Set(['integer', 'long', 'int', 'short', 'byte', 'nonNegativeInteger', 'positiveInteger', 'nonPositiveInteger', 'negativeInteger', 'unsignedLong', 'unsignedInt', 'unsignedShort', 'unsignedByte'].map((x) => XSD + x));
const I64 = 2n ** 63n;

/** The Cypher value of a stored literal (§4 "Read as"); IRIs and blank nodes are nodes. */
export function fromTerm(term: Term): Value {
  if (term.termType !== 'Literal') return { t: 'node', id: term };
  const dt = term.datatype.value;
  const v = term.value;
  if (INT_TYPES.has(dt)) {
    try { const b = BigInt(v.trim()); return b >= -I64 && b < I64 ? b : v; } catch { return v; }
  }
  if (dt === XSD + 'double' || dt === XSD + 'float') {
    const s = v.trim();
    return s === 'INF' ? Infinity : s === '-INF' ? -Infinity : s === 'NaN' ? NaN : Number(s);
  }
  if (dt === XSD + 'decimal') return { t: 'decimal', lex: v };
  if (dt === XSD + 'boolean') return v === 'true' || v === '1';
  if (dt === XSD + 'date' || dt === XSD + 'dateTime' || dt === XSD + 'time' || dt === XSD + 'duration') {
    return { t: 'temporal', dt: dt.slice(XSD.length) as TemporalV['dt'], lex: v };
  }
  if (dt === RDF + 'JSON') { try { return fromJson(JSON.parse(v)); } catch { return v; } }
  return v;
}

function fromJson(j: unknown): Value {
  if (j === null || typeof j === 'boolean' || typeof j === 'string') return j;
  if (typeof j === 'number') return Number.isInteger(j) ? BigInt(j) : j;
  if (Array.isArray(j)) return j.map(fromJson);
  return mapV(Object.entries(j as Record<string, unknown>).map(([k, x]) => [k, fromJson(x)]));
}

/** A parameter value (JSON) as a Cypher value. */
export const fromParam = fromJson;

export function isNum(v: Value): v is bigint | number | DecimalV {
  return typeof v === 'bigint' || typeof v === 'number' || (typeof v === 'object' && v !== null && !Array.isArray(v) && v.t === 'decimal');
}
export const toNumber = (v: bigint | number | DecimalV): number => (typeof v === 'object' ? Number(v.lex) : Number(v));

/** The type rank of ORDER BY over mixed types: list < temporal < string < boolean < number (§5). */
function rank(v: Value): number {
  if (Array.isArray(v)) return 0;
  if (typeof v === 'string') return 2;
  if (typeof v === 'boolean') return 3;
  if (isNum(v)) return 4;
  if (v !== null && typeof v === 'object' && v.t === 'temporal') return 1;
  if (v !== null && typeof v === 'object' && v.t === 'node') return 5;
  return 6;
}

/** Total order for ORDER BY and sorting (nulls last). */
export function orderCompare(a: Value, b: Value): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const ra = rank(a), rb = rank(b);
  if (ra !== rb) return ra - rb;
  const c = compare(a, b);
  if (c !== null) return c;
  return String(jsonOf(a)).localeCompare(String(jsonOf(b)));
}

/** `<` style comparison: null when the types are unrelated or a side is null. */
export function compare(a: Value, b: Value): number | null {
  if (a === null || b === null) return null;
  if (isNum(a) && isNum(b)) {
    if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    const x = toNumber(a), y = toNumber(b);
    if (Number.isNaN(x) || Number.isNaN(y)) return null;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  // by Unicode code point, as SPARQL's ORDER BY (so compiled and clause-by-clause reads order alike)
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compare(a[i]!, b[i]!);
      if (c === null || c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b) && a.t === 'temporal' && b.t === 'temporal' && a.dt === b.dt) {
    return a.lex < b.lex ? -1 : a.lex > b.lex ? 1 : 0;
  }
  if (typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b) && a.t === 'node' && b.t === 'node') {
    return a.id.termType === b.id.termType && a.id.value === b.id.value ? 0 : null;
  }
  return null;
}

/** Cypher `=`: null if either side is null (or a list holds null where it matters), false for unrelated types. */
export function equals(a: Value, b: Value): boolean | null {
  if (a === null || b === null) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    let sawNull = false;
    for (let i = 0; i < a.length; i++) {
      const e = equals(a[i]!, b[i]!);
      if (e === false) return false;
      if (e === null) sawNull = true;
    }
    return sawNull ? null : true;
  }
  if (typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    if (a.t === 'map' && b.t === 'map') {
      if (a.m.size !== b.m.size) return false;
      for (const [k, v] of a.m) { if (!b.m.has(k)) return false; const e = equals(v, b.m.get(k)!); if (e !== true) return e; }
      return true;
    }
    if (a.t === 'rel' && b.t === 'rel') return keyOf(a) === keyOf(b);
    if (a.t === 'path' && b.t === 'path') return keyOf(a) === keyOf(b);
  }
  const c = compare(a, b);
  return c === null ? false : c === 0;
}

/** A string key identifying a value (DISTINCT, grouping). */
export function keyOf(v: Value): string {
  if (v === null) return 'n';
  if (typeof v === 'bigint') return 'i' + v;
  if (typeof v === 'number') return Number.isInteger(v) ? 'i' + v : 'f' + v;
  if (typeof v === 'string') return 's' + JSON.stringify(v);
  if (typeof v === 'boolean') return 'b' + v;
  if (Array.isArray(v)) return '[' + v.map(keyOf).join(',') + ']';
  switch (v.t) {
    case 'node': return 'N' + v.id.termType[0] + v.id.value;
    case 'rel': return `R${v.start.value} ${v.type} ${v.end.value} ${v.reifier?.value ?? ''}`;
    case 'path': return 'P' + v.nodes.map(keyOf).join('|') + v.rels.map(keyOf).join('|');
    case 'decimal': return 'i' + v.lex;
    case 'temporal': return 'T' + v.dt + v.lex;
    case 'map': return '{' + [...v.m].map(([k, x]) => JSON.stringify(k) + ':' + keyOf(x)).join(',') + '}';
  }
}

/** Renders node identities and relationship type names in results. */
export interface Renderer { nodeId(t: Term): string; name(iri: string): string }

const SAFE = 2n ** 53n - 1n, NEG_SAFE = -SAFE;

/** The JSON form of a value in a result row (§8). */
export function jsonOf(v: Value, r?: Renderer): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return v >= NEG_SAFE && v <= SAFE ? Number(v) : v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? v : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (Array.isArray(v)) return v.map((x) => jsonOf(x, r));
  const id = (t: Term) => (r ? r.nodeId(t) : t.value);
  switch (v.t) {
    case 'node': return r ? r.nodeId(v.id) : v.id.value;
    case 'rel': return { start: id(v.start), type: v.type, end: id(v.end) };
    case 'path': return v.nodes.map((n) => id(n.id));
    case 'decimal': return v.lex;
    case 'temporal': return v.lex;
    case 'map': return Object.fromEntries([...v.m].map(([k, x]) => [k, jsonOf(x, r)]));
  }
}
