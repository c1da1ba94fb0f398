/**
 * Value rendering of JSON-LD query results (jsonld-query.md §13): RDF terms -> JSON in the
 * default compact `json` form or in `typed-json`, with IRIs compacted through the query's
 * effective context (§2.3).
 */
import type { ActiveContext } from '../../rdf/jsonld-context.js';
import { IdCells } from './id-cells.js';
import { INTEGER_TYPES } from '../../rdf/datatypes.js';
import type { Term } from '../../rdf/terms.js';
import { rdf, xsd } from '../../rdf/vocab.js';

export type OutputFormat = 'json' | 'typed-json';

/** How terms become JSON in one response. */
export interface Formatter {
  readonly format: OutputFormat;
  readonly ctx: ActiveContext;
  /** A term in a tabular row (IRIs as compacted strings in `json`). */
  cell(t: Term | undefined): unknown;
  /** A term as a property value inside a crawl node (IRIs as `{"@id"}`). */
  nodeValue(t: Term): unknown;
  /** A literal as a full value object (sub-selection on a literal property, typed-json). */
  valueObject(t: Term): Record<string, unknown>;
  /** An IRI in `@id` position (prefixes only, never `@vocab`). */
  id(t: Term): string;
  /** An IRI in property-key / `@type` / datatype position (terms, prefixes, then `@vocab`). */
  vocab(iri: string): string;
  /**
   * `cell` results by stored term id for the ids of `space` (the `json` form only: typed-json
   * cells are objects, never kept); undefined in typed-json.
   */
  cellsFor?(space: object): IdCells;
}

/**
 * Compacted `@id` strings per context and term object. Terms decoded by a dictionary are shared
 * objects, so repeated rows (and repeated queries with the same cached context) skip compaction.
 */
const idCaches = new WeakMap<ActiveContext, WeakMap<Term, string>>();
/** JSON scalars of literals in the `json` form; they depend on the term alone, not the context. */
const scalars = new WeakMap<Term, string | number | boolean>();
/**
 * Formatters per context and format. A formatter holds no per-response state, so a repeated query
 * (whose cached context is the same object) reuses one rather than building its closures again.
 */
const formatters = new WeakMap<ActiveContext, Partial<Record<OutputFormat, Formatter>>>();
/** Vocabulary IRIs (datatypes, property keys) a formatter remembers compacted. */
const VOCAB_CACHE_LIMIT = 10_000;

/** The formatter of a context and output format. */
export function formatter(ctx: ActiveContext, format: OutputFormat = 'json'): Formatter {
  // A client repeating one query (one cached context) skips the map lookup.
  if (last?.ctx === ctx && last.format === format) return last;
  let perCtx = formatters.get(ctx);
  if (!perCtx) formatters.set(ctx, perCtx = {});
  return (last = perCtx[format] ??= makeFormatter(ctx, format));
}
/** The formatter formatter returned last. */
let last: Formatter | undefined;

/** A new formatter (formatter keeps one per context and format). */
function makeFormatter(ctx: ActiveContext, format: OutputFormat): Formatter {
  let ids = idCaches.get(ctx);
  if (!ids) idCaches.set(ctx, ids = new WeakMap());
  const cache = ids;
  const id = (t: Term): string => {
    let s = cache.get(t);
    if (s === undefined) {
      s = t.termType === 'BlankNode' ? '_:' + t.value : ctx.compactIri(t.value, false);
      cache.set(t, s);
    }
    return s;
  };
  // The context caches compaction too, but under a key built per call; the IRI strings here come
  // from shared terms and keep their hash, so this lookup is the cheaper one for repeated rows.
  const vocabs = new Map<string, string>();
  const vocab = (iri: string): string => {
    let s = vocabs.get(iri);
    if (s === undefined) {
      s = ctx.compactIri(iri, true);
      if (vocabs.size < VOCAB_CACHE_LIMIT) vocabs.set(iri, s);
    }
    return s;
  };
  const valueObject = (t: Term): Record<string, unknown> => {
    if (t.termType !== 'Literal') return { '@id': id(t) };
    if (t.language) return { '@value': t.value, '@language': t.language };
    const dt = t.datatype.value;
    if (dt === rdf.JSON) return { '@value': parseJson(t.value), '@type': '@json' };
    return { '@value': typedValue(t), '@type': vocab(dt) };
  };
  const plain = (t: Term): unknown => {
    if (t.termType !== 'Literal') return undefined;
    if (t.language) return { '@value': t.value, '@language': t.language };
    const dt = t.datatype.value;
    // A string is its lexical form: no cache probe, which for large results (a table beyond the
    // CPU caches, probed once a cell) costs more than the answer it would find.
    if (dt === xsd.string) return t.value;
    const known = scalars.get(t);
    if (known !== undefined) return known;
    let v: number | boolean | string | undefined;
    switch (dt) {
      case xsd.boolean: v = booleanOf(t.value); break;
      case xsd.integer: case xsd.long: v = integerOf(t.value); break;
      case xsd.double: v = doubleOf(t.value); break;
      // Parsed JSON may be an object: never shared between results.
      case rdf.JSON: return parseJson(t.value);
    }
    if (v === undefined) return valueObject(t);
    scalars.set(t, v);
    return v;
  };
  if (format === 'typed-json') {
    return {
      format, ctx, id, vocab, valueObject,
      cell: (t) => (t === undefined ? null : valueObject(t)),
      nodeValue: (t) => valueObject(t),
    };
  }
  // The common cells answered here without a further call: this runs once a cell, in large
  // results and, for small ones, often before the JIT has optimised it.
  const cell = (t: Term | undefined): unknown => {
    if (t === undefined) return null;
    if (t.termType !== 'Literal') return cache.get(t) ?? id(t);
    if (!t.language && t.datatype.value === xsd.string) return t.value;
    return scalars.get(t) ?? plain(t);
  };
  // One cache, of the last id space asked for: another space's query starts a new one (the old
  // one lives on only in queries still shaping with it), so the bound is one cache per context.
  let cells: IdCells | undefined;
  const cellsFor = (space: object): IdCells => (cells?.space === space ? cells : (cells = new IdCells(space)));
  return {
    format, ctx, id, vocab, valueObject, cell, cellsFor,
    nodeValue: (t) => (t.termType === 'Literal' ? plain(t) : { '@id': id(t) }),
  };
}

/**
 * The JSON `@value` of a typed literal: numbers for the integer family and doubles (non-finite
 * doubles as their lexical form), booleans, otherwise the lexical form.
 */
function typedValue(t: Term & { termType: 'Literal' }): unknown {
  const dt = t.datatype.value;
  if (INTEGER_TYPES.has(dt)) return integerOf(t.value) ?? t.value;
  if (dt === xsd.double) return doubleOf(t.value) ?? t.value;
  if (dt === xsd.boolean) return booleanOf(t.value) ?? t.value;
  return t.value;
}

/** A JS number for an integer lexical form when it is exact, else undefined. */
function integerOf(lex: string): number | undefined {
  if (!/^[+-]?\d+$/.test(lex.trim())) return undefined;
  const n = Number(lex);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A JS number for a finite double; `NaN`/`INF`/`-INF` stay strings (JSON has no such numbers). */
function doubleOf(lex: string): number | string | undefined {
  const s = lex.trim();
  if (s === 'NaN' || s === 'INF' || s === '-INF' || s === '+INF') return s === '+INF' ? 'INF' : s;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined;
  return Number(s);
}

function booleanOf(lex: string): boolean | undefined {
  const s = lex.trim();
  return s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : undefined;
}

function parseJson(text: string): unknown {
  try { return JSON.parse(text) as unknown; } catch { return text; }
}
