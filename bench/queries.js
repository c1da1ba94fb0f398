/**
 * The BSBM-shaped query workload: templates from /work/shared/bench/queries (each already starts
 * with the shared prefixes of prefixes.rq) with their %Name% placeholders filled from a
 * <data>.params.json written by bench/bsbm/generate.js.
 *
 *   import { loadQueries } from './queries.js';
 *   const { core, explore, mix } = loadQueries(params);   // each [{ name, text }]
 *
 * Placeholder kinds: IRIs (ProductXYZ, ProductType, ProductFeature1..3, ProductFeatureAbsent,
 * OfferXYZ, ReviewXYZ) become <...>; x, y, y3 are plain integers; currentDate is an xsd:dateTime
 * literal (the templates declare the xsd: prefix).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Where the templates live: $BENCH_QUERIES, the shared workload folder, or bench/queries. */
export function queriesDir() {
  const candidates = [process.env.BENCH_QUERIES, '/work/shared/bench/queries', join(HERE, 'queries')];
  for (const c of candidates) if (c && existsSync(join(c, 'C1-point-lookup.rq'))) return resolve(c);
  throw new Error(`query templates not found (looked in ${candidates.filter(Boolean).join(', ')})`);
}

const IRI_PARAMS = new Set([
  'ProductXYZ', 'ProductType', 'ProductFeature1', 'ProductFeature2', 'ProductFeature3',
  'ProductFeatureAbsent', 'OfferXYZ', 'ReviewXYZ',
]);
const INT_PARAMS = new Set(['x', 'y', 'y3']);

/** The SPARQL text for one parameter value. */
export function formatParam(name, value) {
  if (value === undefined || value === null) throw new Error(`query parameter ${name} is missing from params.json`);
  if (IRI_PARAMS.has(name)) {
    const s = String(value);
    if (/[<>"{}|^`\\\s]/.test(s)) throw new Error(`parameter ${name} is not a valid IRI: ${s}`);
    return `<${s}>`;
  }
  if (INT_PARAMS.has(name)) {
    if (!Number.isInteger(Number(value))) throw new Error(`parameter ${name} must be an integer, got ${value}`);
    return String(Number(value));
  }
  if (name === 'currentDate') {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(String(value))) throw new Error(`currentDate must be xsd:dateTime lexical, got ${value}`);
    return `"${value}"^^xsd:dateTime`;
  }
  throw new Error(`unknown query parameter ${name}`);
}

/** Replace every %Name% in a template; an unknown or missing name is an error, never left in. */
export function instantiate(template, params) {
  return template.replace(/%([A-Za-z0-9_]+)%/g, (_, name) => formatParam(name, params[name]));
}

/** The shared prefixes are part of every template; check instead of prepending twice. */
function withPrefixes(text, prefixes) {
  const first = prefixes.split('\n').find((l) => l.trim() !== '');
  return text.includes(first) ? text : `${prefixes.trimEnd()}\n${text}`;
}

const CORE = [
  ['C1', 'C1-point-lookup.rq'],
  ['C2', 'C2-two-hop-join.rq'],
  ['C3', 'C3-star-filter.rq'],
  ['C4', 'C4-order-by-limit.rq'],
  ['C5', 'C5-group-by-count.rq'],
  ['C6', 'C6-optional.rq'],
];
const EXPLORE = ['1', '2', '3', '4', '5', '7', '8', '9', '10', '11', '12'].map((n) => [`E-Q${n}`, `E-Q${n}.rq`]);
/** BSBM explore mix: 24 queries (README). */
export const MIX_SEQUENCE = [1, 2, 2, 3, 2, 2, 4, 2, 2, 5, 7, 7, 7, 7, 8, 9, 9, 8, 9, 9, 10, 10, 11, 12];

/** Load and instantiate every query; params is the parsed params.json object or its path. */
export function loadQueries(params, dir = queriesDir()) {
  const p = typeof params === 'string' ? JSON.parse(readFileSync(params, 'utf8')) : params;
  const prefixes = readFileSync(join(dir, 'prefixes.rq'), 'utf8');
  const files = new Set(readdirSync(dir));
  const build = ([name, file]) => {
    if (!files.has(file)) throw new Error(`missing query template ${join(dir, file)}`);
    const text = instantiate(withPrefixes(readFileSync(join(dir, file), 'utf8'), prefixes), p);
    return { name, text };
  };
  const core = CORE.map(build);
  const explore = EXPLORE.map(build);
  const byName = new Map(explore.map((q) => [q.name, q]));
  const mix = MIX_SEQUENCE.map((n) => byName.get(`E-Q${n}`));
  return { core, explore, mix };
}
