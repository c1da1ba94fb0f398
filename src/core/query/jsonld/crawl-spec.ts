/**
 * The selection of a graph crawl (jsonld-query.md §3.1): `["*", "@id", "schema:name",
 * {"ex:knows": [...]}, "reverseTerm"]` parsed against the query's context into expanded IRIs.
 */
import { badRequest } from '../../errors.js';
import type { ActiveContext } from '../../rdf/jsonld-context.js';
import { rdf } from '../../rdf/vocab.js';
import { isVariableString } from './expr.js';
import { isObject } from './util.js';
import { quote } from '../../excerpt.js';

/** One selected property of a crawl node. */
export interface PropSelection {
  /** Expanded property IRI (rdf:type for `@type`). */
  iri: string;
  /** Incoming edges (a `@reverse` term): the subjects pointing at the node. */
  reverse: boolean;
  /** Output key for reverse terms (the term as written); forward keys are compacted from `iri`. */
  key?: string;
  /** Explicit nested selection: referenced nodes are expanded with it. */
  sub?: CrawlSpec;
}

export interface CrawlSpec {
  /** `"*"`: every forward property plus `@id`. */
  all: boolean;
  /** `"@id"` (or an alias) selected. */
  id: boolean;
  props: PropSelection[];
}

/** Parse a crawl SPEC list (a single item is accepted as a one-element list). */
export function parseCrawlSpec(raw: unknown, ctx: ActiveContext): CrawlSpec {
  const spec: CrawlSpec = { all: false, id: false, props: [] };
  const items = Array.isArray(raw) ? raw : [raw];
  for (const item of items) {
    if (typeof item === 'string') {
      addProp(spec, item, undefined, ctx);
      continue;
    }
    if (isObject(item)) {
      const keys = Object.keys(item);
      if (keys.length === 0) throw badRequest('an empty object is not a crawl selection item');
      for (const k of keys) addProp(spec, k, parseCrawlSpec(item[k], ctx), ctx);
      continue;
    }
    throw badRequest(`invalid crawl selection item ${quote(item)}: expected "*", a property or {property: [...]}`);
  }
  return spec;
}

function addProp(spec: CrawlSpec, key: string, sub: CrawlSpec | undefined, ctx: ActiveContext): void {
  if (key === '*') {
    if (sub) throw badRequest('"*" cannot have a nested selection');
    spec.all = true;
    return;
  }
  if (isVariableString(key)) throw badRequest(`variables are not allowed in a crawl selection (got ${key})`);
  const kw = ctx.keyword(key);
  if (kw === '@id') {
    if (sub) throw badRequest('@id cannot have a nested selection');
    spec.id = true;
    return;
  }
  if (kw === '@type') { push(spec, { iri: rdf.type, reverse: false, ...(sub ? { sub } : {}) }); return; }
  if (kw !== undefined || key.startsWith('@')) throw badRequest(`${key} cannot be selected in a graph crawl`);
  const def = ctx.termDefinition(key);
  if (def?.path !== undefined) throw badRequest(`path alias ${key} cannot be selected in a graph crawl; use it in where`);
  if (def?.reverse) { push(spec, { iri: def.id!, reverse: true, key, ...(sub ? { sub } : {}) }); return; }
  if (def && def.id === null) throw badRequest(`term ${key} is mapped to null and cannot be selected`);
  push(spec, { iri: ctx.expandIri(key, true), reverse: false, ...(sub ? { sub } : {}) });
}

function push(spec: CrawlSpec, p: PropSelection): void {
  const i = spec.props.findIndex((x) => x.iri === p.iri && x.reverse === p.reverse);
  // A later explicit sub-selection wins over a plain mention of the same property.
  if (i >= 0) { if (p.sub) spec.props[i] = p; return; }
  spec.props.push(p);
}
