#!/usr/bin/env node
/**
 * GraphQL bench (`npm run bench -- graphql`): BSBM shapes GraphQL can express in the inferred
 * tier — a product lookup with its nested producer and features, a product's offers with their
 * vendors, a filtered product list, a filtered count — against the same queries in JSON-LD, on
 * the same Ledgraph ledger in one process, through their service entry points (GraphQL:
 * runGraphQL over the cached derived schema; JSON-LD: runJsonLdQuery). Also times schema
 * derivation cold (a fresh cache key) and cached.
 * Acceptance (issue 13): each GraphQL median within 1.3x of JSON-LD; derivation <= 100 ms cold,
 * <= 1 ms cached.
 *
 * Each query is timed in wall ms (the acceptance figure) and in CPU ms of this process (user +
 * system), which the other sessions of a shared box disturb less; GraphQL and JSON-LD runs
 * alternate, and the medians are compared.
 *
 *   node bench/graphql.js [--data bench/data/bsbm-265.nt] [--reps 51] [--warmup 20]
 *
 * Needs dist/ (npx tsc -p tsconfig.build.json). Prints one JSON line with the results.
 */
import { bsbmData, fromDist, loadLedgraphInMemory, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const REPS = Number(args.reps ?? 51);
const WARMUP = Number(args.warmup ?? 20);
const LEDGER = 'bench:main';
const BSBM = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/';
const context = { rdfs: 'http://www.w3.org/2000/01/rdf-schema#', bsbm: BSBM, dc: 'http://purl.org/dc/elements/1.1/', foaf: 'http://xmlns.com/foaf/0.1/', rev: 'http://purl.org/stuff/rev#' };

const { data, params } = bsbmData(args.data);
const { runJsonLdQuery } = await fromDist('core/query/jsonld/service.js');
const { derivedSchema, runGraphQL } = await fromDist('core/query/graphql/service.js');
const { conn, receipt } = await loadLedgraphInMemory(data, LEDGER);
const db = await conn.db(LEDGER);
const product = params.ProductXYZ;

let keyNo = 0;
const time = async (fn) => { const t = performance.now(); await fn(); return performance.now() - t; };
/** Wall and CPU ms of one run. */
const timeBoth = async (fn) => {
  const c = process.cpuUsage(), t = performance.now();
  await fn();
  const wall = performance.now() - t, u = process.cpuUsage(c);
  return [wall, (u.user + u.system) / 1000];
};
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return +s[s.length >> 1].toFixed(3); };
const cold = [], cached = [];
for (let i = 0; i < 5; i++) cold.push(await time(() => derivedSchema(`cold-${keyNo++}`, db, db, context)));
const key = 'bench';
await derivedSchema(key, db, db, context);
for (let i = 0; i < 200; i++) cached.push(await time(() => derivedSchema(key, db, db, context)));
const d = await derivedSchema(key, db, db, context);
if (!d.schema) throw new Error('empty schema');

const SHAPES = [
  { name: 'product+producer+features',
    gql: `{ product(id: "${product}") { id label producer { id label } productFeature { id label } } }`,
    jsonld: { '@context': context, selectOne: { [product]: ['@id', 'rdfs:label', { 'bsbm:producer': ['@id', 'rdfs:label'] }, { 'bsbm:productFeature': ['@id', 'rdfs:label'] }] } } },
  { name: 'offers-of-product+vendor',
    gql: `{ offers(where: {product: {EQ: "${product}"}}) { id price vendor { id label } } }`,
    jsonld: { '@context': context, select: { '?o': ['@id', 'bsbm:price', { 'bsbm:vendor': ['@id', 'rdfs:label'] }] }, where: { '@id': '?o', '@type': 'bsbm:Offer', 'bsbm:product': { '@id': product } }, orderBy: '?o' } },
  { name: 'filtered-list',
    gql: '{ products(where: {productPropertyNumeric1: {GT: 1000}}, limit: 10) { id label } }',
    jsonld: { '@context': context, select: ['?p', '?l'], where: [{ '@id': '?p', '@type': 'bsbm:Product', 'bsbm:productPropertyNumeric1': '?n', 'rdfs:label': '?l' }, ['filter', '(> ?n 1000)']], orderBy: '?p', limit: 10 } },
  { name: 'filtered-count',
    gql: '{ products_count(where: {productPropertyNumeric1: {GT: 1000}}) }',
    jsonld: { '@context': context, select: ['(count-distinct ?p)'], where: [{ '@id': '?p', '@type': 'bsbm:Product', 'bsbm:productPropertyNumeric1': '?n' }, ['filter', '(> ?n 1000)']] } },
];

const runG = async (q) => {
  const b = await runGraphQL(d, db, context, { query: q, explain: false, readOnly: false });
  if (b.errors) throw new Error(JSON.stringify(b.errors));
  return JSON.stringify(b).length;
};
const runJ = async (q) => JSON.stringify((await runJsonLdQuery(conn, q, { ledger: LEDGER })).result).length;

const queries = [];
for (const s of SHAPES) {
  for (let i = 0; i < WARMUP; i++) { await runG(s.gql); await runJ(s.jsonld); }
  const g = [], j = [], gc = [], jc = [];
  for (let i = 0; i < REPS; i++) {
    for (const which of i % 2 ? ['g', 'j'] : ['j', 'g']) {
      if (which === 'g') { const [w, c] = await timeBoth(() => runG(s.gql)); g.push(w); gc.push(c); } else { const [w, c] = await timeBoth(() => runJ(s.jsonld)); j.push(w); jc.push(c); }
    }
  }
  const q = { name: s.name, graphqlMs: median(g), jsonldMs: median(j), graphqlCpuMs: median(gc), jsonldCpuMs: median(jc) };
  q.ratio = +(q.graphqlMs / q.jsonldMs).toFixed(2);
  q.cpuRatio = +(q.graphqlCpuMs / q.jsonldCpuMs).toFixed(2);
  process.stderr.write(`${q.name}: graphql ${q.graphqlMs} ms, json-ld ${q.jsonldMs} ms (x${q.ratio}); cpu ${q.graphqlCpuMs} / ${q.jsonldCpuMs} ms (x${q.cpuRatio})\n`);
  queries.push(q);
}
await conn.close();
const result = { suite: 'graphql', data, triples: receipt.triples, reps: REPS, loadavg: (await import('node:os')).loadavg(), deriveColdMs: median(cold), deriveCachedMs: median(cached), types: d.types.size, queries };
result.pass = queries.every((q) => q.ratio <= 1.3) && result.deriveColdMs <= 100 && result.deriveCachedMs <= 1;
console.log(JSON.stringify(result));
