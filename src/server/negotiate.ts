/**
 * Response format negotiation for the query endpoints (http-api.md §4.5–§4.7): the `Accept`
 * header (q-values, wildcards), the `format=` query parameter that overrides it, and the output
 * options carried by `Ledgraph-Output-Format`, `Ledgraph-Normalize-Arrays` and `Ledgraph-Max-Bytes`
 * (agent JSON via `Accept: application/vnd.ledgraph.agent+json`).
 */
import { badRequest, LedgraphError } from '../core/errors.js';

/** Every response format a query endpoint can produce. */
export type ResultFormat =
  | 'json' | 'jsonld' | 'agent'
  | 'sparql-json' | 'sparql-xml' | 'csv' | 'tsv'
  | 'turtle' | 'ntriples' | 'nquads' | 'trig' | 'rdfxml';

/** The Content-Type each format is sent with. */
export const MEDIA_TYPE: Record<ResultFormat, string> = {
  json: 'application/json',
  jsonld: 'application/ld+json',
  agent: 'application/vnd.ledgraph.agent+json',
  'sparql-json': 'application/sparql-results+json',
  'sparql-xml': 'application/sparql-results+xml',
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  turtle: 'text/turtle; charset=utf-8',
  ntriples: 'application/n-triples',
  nquads: 'application/n-quads',
  trig: 'application/trig',
  rdfxml: 'application/rdf+xml',
};

/** Media types (and common synonyms) in an Accept header, by format. */
const BY_MEDIA: Record<string, ResultFormat> = {
  'application/json': 'json',
  'application/ld+json': 'jsonld',
  'application/vnd.ledgraph.agent+json': 'agent',
  'application/sparql-results+json': 'sparql-json',
  'application/sparql-results+xml': 'sparql-xml',
  'application/xml': 'sparql-xml',
  'text/xml': 'sparql-xml',
  'text/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'text/turtle': 'turtle',
  'application/x-turtle': 'turtle',
  // Turtle is N3 without N3's extensions; SPARQLWrapper's N3 asks for these.
  'text/n3': 'turtle',
  'text/rdf+n3': 'turtle',
  'application/n3': 'turtle',
  'application/n-triples': 'ntriples',
  'text/plain': 'ntriples',
  'application/n-quads': 'nquads',
  'text/x-nquads': 'nquads',
  'application/trig': 'trig',
  'application/rdf+xml': 'rdfxml',
};

/** Short names accepted by `format=` (a full media type is accepted too). */
const BY_NAME: Record<string, ResultFormat> = {
  json: 'json',
  jsonld: 'jsonld', 'json-ld': 'jsonld',
  agent: 'agent', 'agent-json': 'agent',
  'sparql-json': 'sparql-json', srj: 'sparql-json', 'sparql-results+json': 'sparql-json',
  'sparql-xml': 'sparql-xml', srx: 'sparql-xml', xml: 'sparql-xml',
  csv: 'csv', tsv: 'tsv',
  turtle: 'turtle', ttl: 'turtle', n3: 'turtle',
  ntriples: 'ntriples', 'n-triples': 'ntriples', nt: 'ntriples',
  nquads: 'nquads', 'n-quads': 'nquads', nq: 'nquads',
  trig: 'trig',
  rdfxml: 'rdfxml', 'rdf+xml': 'rdfxml', rdf: 'rdfxml', 'rdf-xml': 'rdfxml',
};

/** The format named by a `format=` parameter value (short name or media type); 400 when unknown. */
export function formatFromParam(value: string): ResultFormat {
  const v = value.trim().toLowerCase();
  const f = BY_NAME[v] ?? BY_MEDIA[v.split(';')[0]!.trim()];
  if (!f) throw badRequest(`unknown format "${value}": use one of ${[...new Set(Object.values(BY_NAME))].join(', ')} or a media type`);
  return f;
}

/** One media range of an Accept header. */
interface Range { type: string; q: number; pos: number }

/** The media ranges of an Accept header (`*∕*` and `type/*` included; malformed entries skipped). */
function acceptRanges(accept: string): Range[] {
  const out: Range[] = [];
  accept.split(',').forEach((part, pos) => {
    const [essence, ...params] = part.split(';');
    const type = essence!.trim().toLowerCase();
    if (!/^([a-z0-9!#$&^_.+-]+|\*)\/([a-z0-9!#$&^_.+-]+|\*)$/.test(type) || type.startsWith('*/') && type !== '*/*') return;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    out.push({ type, q: Number.isFinite(q) ? Math.min(1, q) : 0, pos });
  });
  return out;
}

/**
 * The media type to answer with, from `offered` (server preference first; the head is the
 * default) and an Accept header, per RFC 9110 §12.5.1: each offered type takes the q of the most
 * specific range matching it; the highest q wins, ties going to the more specific range, then to
 * the range listed first, then to the server's order. q=0 excludes. 406 when nothing is acceptable.
 */
export function chooseMediaType(accept: string | undefined | null, offered: readonly string[]): string {
  if (!accept || !accept.trim()) return offered[0]!;
  const ranges = acceptRanges(accept);
  let best: { type: string; q: number; spec: number; pos: number } | null = null;
  for (const o of offered) {
    const main = o.split('/')[0];
    let hit: { q: number; spec: number; pos: number } | null = null;
    for (const r of ranges) {
      const spec = r.type === o ? 2 : r.type === `${main}/*` ? 1 : r.type === '*/*' ? 0 : -1;
      if (spec >= 0 && (!hit || spec > hit.spec)) hit = { q: r.q, spec, pos: r.pos };
    }
    if (!hit || hit.q <= 0) continue;
    if (!best || hit.q > best.q || (hit.q === best.q && (hit.spec > best.spec || (hit.spec === best.spec && hit.pos < best.pos)))) {
      best = { type: o, ...hit };
    }
  }
  if (!best) {
    throw new LedgraphError(406, 'err:db/NotAcceptable', `none of the accepted media types (${accept.trim()}) can express this result; available: ${offered.join(', ')}`);
  }
  return best.type;
}

/**
 * Pick the response format: `format=` wins over Accept; `supported` lists what this result can be
 * written as, server preference first (its head is the default when Accept is absent or a
 * wildcard). Synonyms such as `application/xml` and `text/plain` are offered after the
 * canonical types. 406 when nothing acceptable is supported.
 *
 * As clients such as SPARQLWrapper send it (always `format=xml` unless told otherwise): `xml` on a
 * graph result means RDF/XML, and a `format=` that cannot express this result leaves the choice
 * to Accept instead of failing.
 */
export function negotiateFormat(accept: string | undefined | null, formatParam: string | undefined | null, supported: readonly ResultFormat[]): ResultFormat {
  if (formatParam) {
    let f = formatFromParam(formatParam);
    if (f === 'sparql-xml' && !supported.includes(f) && supported.includes('rdfxml')) f = 'rdfxml';
    if (supported.includes(f)) return f;
  }
  // Callers pass a few constant lists; a list is keyed by identity, else by its contents.
  let byAccept = chosenByList.get(supported);
  if (!byAccept) {
    const listKey = supported.join(',');
    byAccept = chosenByKey.get(listKey);
    if (!byAccept) {
      if (chosenByKey.size >= 64) chosenByKey.delete(chosenByKey.keys().next().value!);
      chosenByKey.set(listKey, byAccept = new Map());
    }
    chosenByList.set(supported, byAccept);
  }
  const key = accept ?? '';
  const hit = byAccept.get(key);
  if (hit) return hit;
  const canonical = supported.map((f) => MEDIA_TYPE[f].split(';')[0]!);
  const synonyms = Object.keys(BY_MEDIA).filter((m) => supported.includes(BY_MEDIA[m]!) && !canonical.includes(m));
  const f = BY_MEDIA[chooseMediaType(accept, [...canonical, ...synonyms])]!;
  // Clients repeat the same few Accept headers; remember the answers (not the 406s, which throw).
  if (byAccept.size >= 256) byAccept.delete(byAccept.keys().next().value!);
  byAccept.set(key, f);
  return f;
}

/** Negotiated formats by supported list, then by Accept header. */
const chosenByKey = new Map<string, Map<string, ResultFormat>>();
const chosenByList = new WeakMap<readonly ResultFormat[], Map<string, ResultFormat>>();

/** True when the format names one of the JSON output forms of JSON-LD queries. */
export function isJsonFormat(f: ResultFormat): boolean {
  return f === 'json' || f === 'jsonld' || f === 'agent';
}

/** Output options shared by every query language (§4.7 "Output formatting over HTTP"). */
export interface OutputOptions {
  /** `Ledgraph-Output-Format`: `json` keeps per-language defaults, `typed-json` selects typed JSON. */
  outputFormat?: 'json' | 'typed-json';
  /** `Ledgraph-Normalize-Arrays: true` wraps single values in arrays. */
  normalizeArrays?: boolean;
  /** `Ledgraph-Max-Bytes`: the byte budget of agent JSON. */
  maxBytes?: number;
}

/** Read the output headers; an unknown output format or a malformed boolean/integer is a 400. */
export function outputOptions(headers: Headers): OutputOptions {
  const out: OutputOptions = {};
  const fmt = headers.get('ledgraph-output-format');
  if (fmt !== null) {
    const v = fmt.trim().toLowerCase();
    if (v !== 'json' && v !== 'typed-json') throw badRequest(`invalid Ledgraph-Output-Format "${fmt}": use json or typed-json`);
    out.outputFormat = v;
  }
  const norm = headers.get('ledgraph-normalize-arrays');
  if (norm !== null) out.normalizeArrays = parseBoolHeader('Ledgraph-Normalize-Arrays', norm);
  const maxBytes = headers.get('ledgraph-max-bytes');
  if (maxBytes !== null) {
    const v = maxBytes.trim();
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) <= 0) {
      throw badRequest(`invalid Ledgraph-Max-Bytes "${maxBytes}": expected a positive integer`);
    }
    out.maxBytes = Number(v);
  }
  return out;
}

/** A `true`/`false` header value (case-insensitive); anything else is a 400. */
export function parseBoolHeader(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw badRequest(`invalid ${name} "${value}": expected true or false`);
}
