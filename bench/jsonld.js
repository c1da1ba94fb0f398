#!/usr/bin/env node
/**
 * JSON-LD query bench (`npm run bench -- jsonld` once registered): the six core BSBM shapes
 * (C1..C6 of the shared workload) written as JSON-LD queries, against their SPARQL text, on the
 * same Ledgraph ledger in one process. Both run through their service entry points and end where
 * the HTTP server's query route ends, at the response body's bytes (--consume bytes, the default):
 * SPARQL runSparql then the SPARQL JSON writer the route uses (writeSparqlJsonChunked, which reads
 * the solutions a batch at a time), JSON-LD runJsonLdQuery then JSON.stringify of its result, as
 * the route does, each text encoded to UTF-8 as the socket write does (SPARQL chunk by chunk, as
 * the route's byte stream; JSON-LD whole). So the ratio is the cost of the JSON-LD front end,
 * shaping and serialisation over SPARQL's, as a client sees it less the HTTP exchange.
 * --consume text stops at the text (the SPARQL chunks joined into a string that is never
 * flattened, so its per-character cost is left out while JSON-LD's JSON.stringify pays it: this
 * favoured SPARQL and is why bytes is the default). --consume objects stops each side
 * one step earlier, at its response value unserialised (SPARQL: SPARQL-JSON binding objects,
 * read a batch at a time as the writer reads them; JSON-LD: its shaped result).
 * Acceptance: each JSON-LD median within 1.05x of the SPARQL median (issue 18; issue 4 asked for
 * 1.2x). CPU-time medians (process.cpuUsage) and 10th percentiles are reported beside the wall
 * medians: on a shared box other sessions only ever add wall time.
 *
 *   node bench/jsonld.js [--data bench/data/bsbm-265.nt] [--reps 101] [--warmup 1000] [--warmup-min-seconds 3] [--warmup-seconds 5] [--only C1,C2] [--consume bytes|text|objects] [--order random|abba] [--seed N]
 *
 * Needs dist/ (npx tsc -p tsconfig.build.json). Prints one JSON line with the results.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { bsbmData, fromDist, loadLedgraphInMemory, parseArgs } from './measure.js';
import { loadQueries } from './queries.js';

const args = parseArgs(process.argv.slice(2));
const REPS = Number(args.reps ?? 101);
// Steady state, as a server sees it: up to 1,000 untimed calls per side first (fewer when they
// take over --warmup-seconds, 5 s, which only the slow analytic shapes reach). 200 was not enough:
// per-call times kept falling until about 1,000 calls (C2, BSBM 265: 0.10 ms after 200 calls,
// 0.04 ms from about 1,000 on), and V8 was still compiling both sides' and the shared engine's
// functions with TurboFan during the timed runs, on background threads whose CPU time
// process.cpuUsage charges to whichever side was running then. With 10, C1 (timed first) caught
// the JSON-LD service's setup code not yet optimised: 3-8 µs more per call.
// And for at least --warmup-min-seconds (3 s): TurboFan compiles on a background thread, and on a
// loaded box (load average 12-15 on 2 cores) its jobs wait, so 1,000 calls of a 25 µs shape (C1:
// 50 ms of calls) ended with code still unoptimised, the JSON-LD side, with more functions of its
// own, more so: C1 measured 1.19-1.30 after 1,000 warm-up pairs and 1.00-1.05 after 4 s (both
// sides faster: SPARQL 0.026 -> 0.022 ms, JSON-LD 0.031-0.035 -> 0.023 ms), same build, same hour.
const WARMUP = Number(args.warmup ?? 1000);
const WARMUP_MS = 1000 * Number(args['warmup-seconds'] ?? 5);
const WARMUP_MIN_MS = Math.min(WARMUP_MS, 1000 * Number(args['warmup-min-seconds'] ?? 3));
const LEDGER = 'bench:main';

const { data, params } = bsbmData(args.data);
const { runSparql } = await fromDist('core/query/sparql-service.js');
const { runJsonLdQuery } = await fromDist('core/query/jsonld/service.js');
const { bindingToSparqlJson, writeSparqlJsonChunked } = await fromDist('core/query/results/sparql-json.js');
const CONSUME = String(args.consume ?? 'bytes');
if (CONSUME !== 'bytes' && CONSUME !== 'text' && CONSUME !== 'objects') throw new Error('--consume is bytes, text or objects');
const utf8 = new TextEncoder();
const { core } = loadQueries(params);
const sparqlOf = new Map(core.map((q) => [q.name, q.text]));

/** The shared prefixes as a JSON-LD context. */
const context = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#', rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#', dc: 'http://purl.org/dc/elements/1.1/',
  foaf: 'http://xmlns.com/foaf/0.1/', rev: 'http://purl.org/stuff/rev#',
  bsbm: 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/',
  'bsbm-inst': 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/',
};
const product = params.ProductXYZ;

/** C1..C6 in JSON-LD, each the same query as the shared .rq template. */
const JSONLD = {
  C1: { select: ['?p', '?o'], where: { '@id': product, '?p': '?o' } },
  C2: {
    select: ['?review', '?name'],
    where: [{ '@id': '?review', 'bsbm:reviewFor': { '@id': product }, 'rev:reviewer': '?reviewer' }, { '@id': '?reviewer', 'foaf:name': '?name' }],
  },
  C3: {
    select: ['?product', '?label', '?n1', '?n2'],
    where: [
      { '@id': '?product', '@type': 'bsbm:Product', 'rdfs:label': '?label', 'bsbm:producer': '?producer', 'bsbm:productPropertyNumeric1': '?n1', 'bsbm:productPropertyNumeric2': '?n2' },
      ['filter', '(and (> ?n1 1000) (< ?n2 500))'],
    ],
  },
  C4: { select: ['?review', '?date'], where: { '@id': '?review', 'bsbm:reviewDate': '?date' }, orderBy: [['desc', '?date'], '?review'], limit: 10 },
  C5: {
    select: ['?product', '(as (count ?review) ?n)'], where: { '@id': '?review', 'bsbm:reviewFor': '?product' },
    groupBy: '?product', orderBy: [['desc', '?n'], '?product'], limit: 10,
  },
  C6: {
    select: ['?product', '?label', '?n4'],
    where: [{ '@id': '?product', '@type': 'bsbm:Product', 'rdfs:label': '?label' }, ['optional', { '@id': '?product', 'bsbm:productPropertyNumeric4': '?n4' }]],
  },
};

const { conn, receipt, loadSeconds } = await loadLedgraphInMemory(data, LEDGER);

/** The SPARQL side: the response body (text) or the SPARQL-JSON binding objects; returns the count of either. */
async function sparqlOnce(text) {
  const { result } = await runSparql(conn, text, { ledger: LEDGER });
  if (CONSUME === 'bytes') {
    let n = 0;
    for await (const chunk of writeSparqlJsonChunked(result)) n += utf8.encode(chunk).length;
    return n;
  }
  if (CONSUME === 'text') {
    let body = '';
    for await (const chunk of writeSparqlJsonChunked(result)) body += chunk;
    return body.length;
  }
  const out = [];
  const vars = result.variables;
  for await (const rows of result.batches) for (const row of rows) out.push(bindingToSparqlJson(row, vars));
  return out.length;
}

const texts = new WeakMap();
/** The JSON-LD side: the response body (text) or the shaped result; returns the count of either. */
async function jsonldOnce(body) {
  // Both languages start from query text, as they arrive over HTTP (the SPARQL text is ready too).
  let text = texts.get(body);
  if (!text) texts.set(body, (text = JSON.stringify({ '@context': context, ...body })));
  const { result } = await runJsonLdQuery(conn, text, { ledger: LEDGER });
  if (CONSUME === 'bytes') return utf8.encode(JSON.stringify(result)).length;
  if (CONSUME === 'text') return JSON.stringify(result).length;
  return Array.isArray(result) ? result.length : 1;
}

/** Rows of each side, counted once untimed (the timed runs count bytes in text mode). */
async function rowCounts(sparqlText, body) {
  const { result } = await runSparql(conn, sparqlText, { ledger: LEDGER });
  let n = 0;
  for await (const _ of result.rows) n++;
  const { result: shaped } = await runJsonLdQuery(conn, JSON.stringify({ '@context': context, ...body }), { ledger: LEDGER });
  return [n, Array.isArray(shaped) ? shaped.length : 1];
}

// Collections, by start time, to charge each to the timed call it fell in (reported per side).
const gcs = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) gcs.push([e.startTime, e.duration]); }).observe({ entryTypes: ['gc'] });

/**
 * Which runner goes first in each pair. --order abba (the old protocol) alternates strictly; a
 * query that triggers a young-generation collection every few calls (C5: one per ≈4 calls, each
 * side allocating alike) then meets it at a fixed phase of the a-b-b-a cycle, i.e. always on the
 * same side, and that side's median carries the collection. --order random (the default) draws
 * each pair's order from a seeded generator, so collections fall on either side by chance.
 */
const ORDER = String(args.order ?? 'random');
if (ORDER !== 'random' && ORDER !== 'abba') throw new Error('--order is random or abba');
let seed = Number(args.seed ?? 0x9e3779b9) >>> 0;
/** xorshift32: the same order sequence in every run of the same --seed. */
function coin() {
  seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
  return (seed & 1) === 0;
}

/** Median ms of each of two runners, run alternately (warm-up first) so drift and GC hit both alike. */
async function timePair(a, b) {
  const start = performance.now();
  for (let i = 0; ; i++) {
    const t = performance.now();
    // Stop after WARMUP pairs once WARMUP_MIN_MS have passed; slow shapes stop at WARMUP_MS (200 pairs at least).
    if ((i >= WARMUP && t - start >= WARMUP_MIN_MS) || (i >= 200 && t - start >= WARMUP_MS)) break;
    await a(); await b();
  }
  const ms = [[], []], cpu = [[], []], spans = [[], []];
  const counts = [0, 0];
  for (let i = 0; i < REPS; i++) {
    const first = ORDER === 'abba' ? i % 2 : coin() ? 0 : 1;
    for (const k of [first, 1 - first]) {
      const c0 = process.cpuUsage();
      const t = performance.now();
      counts[k] = await (k === 0 ? a() : b());
      const t1 = performance.now();
      ms[k].push(t1 - t);
      spans[k].push([t, t1]);
      const c = process.cpuUsage(c0);
      cpu[k].push((c.user + c.system) / 1000);
    }
  }
  await new Promise((r) => setTimeout(r, 10)); // the observer's entries arrive asynchronously
  const sorted = (xs) => [...xs].sort((x, y) => x - y);
  // To 10 ns: a point shape takes 17 µs, and medians rounded to the µs made its ratio 1.00 or 1.06
  // and nothing between (bench/RESULTS.md, branch `jldc`).
  const median = (xs) => +sorted(xs)[xs.length >> 1].toFixed(5);
  const p10 = (xs) => +sorted(xs)[Math.floor((xs.length - 1) / 10)].toFixed(5);
  /** Collections that started inside one of this side's timed calls, and their total ms. */
  const gcOf = (k) => {
    const mine = gcs.filter(([s]) => spans[k].some(([t0, t1]) => s >= t0 && s < t1));
    return { gcCount: mine.length, gcMs: +mine.reduce((x, [, d]) => x + d, 0).toFixed(2) };
  };
  const result = [0, 1].map((k) => ({ medianMs: median(ms[k]), cpuMs: median(cpu[k]), p10Ms: p10(ms[k]), count: counts[k], ...gcOf(k) }));
  gcs.length = 0;
  return result;
}

// --only C1,C2: a subset (for profiling one shape with --cpu-prof and many --reps).
const only = args.only ? new Set(String(args.only).split(',')) : undefined;
const queries = [];
for (const name of Object.keys(JSONLD).filter((n) => !only || only.has(n))) {
  const [sparqlRows, jsonldRows] = await rowCounts(sparqlOf.get(name), JSONLD[name]);
  if (sparqlRows !== jsonldRows) throw new Error(`${name}: SPARQL returned ${sparqlRows} rows, JSON-LD ${jsonldRows}`);
  const [sparql, jsonld] = await timePair(() => sparqlOnce(sparqlOf.get(name)), () => jsonldOnce(JSONLD[name]));
  sparql.rows = sparqlRows;
  const ratio = +(jsonld.medianMs / sparql.medianMs).toFixed(2);
  const cpuRatio = +(jsonld.cpuMs / sparql.cpuMs).toFixed(2);
  const p10Ratio = +(jsonld.p10Ms / sparql.p10Ms).toFixed(2);
  process.stderr.write(`${name}: sparql ${sparql.medianMs} ms, json-ld ${jsonld.medianMs} ms (x${ratio}; cpu x${cpuRatio}; p10 x${p10Ratio}), ${sparql.rows} rows; gc in timed calls ${sparql.gcCount} / ${jsonld.gcCount} (${sparql.gcMs} / ${jsonld.gcMs} ms)\n`);
  queries.push({
    name, rows: sparql.rows, sparqlMs: sparql.medianMs, jsonldMs: jsonld.medianMs, ratio,
    sparqlCpuMs: sparql.cpuMs, jsonldCpuMs: jsonld.cpuMs, cpuRatio, sparqlP10Ms: sparql.p10Ms, jsonldP10Ms: jsonld.p10Ms, p10Ratio,
    sparqlGc: sparql.gcCount, jsonldGc: jsonld.gcCount, sparqlGcMs: sparql.gcMs, jsonldGcMs: jsonld.gcMs,
  });
}
await conn.close();
const result = {
  suite: 'jsonld', data, triples: receipt.triples, loadSeconds: +loadSeconds.toFixed(1), reps: REPS, consume: CONSUME, order: ORDER,
  queries, maxRatio: Math.max(...queries.map((q) => q.ratio)), maxCpuRatio: Math.max(...queries.map((q) => q.cpuRatio)),
};
result.pass = queries.every((q) => q.ratio <= 1.05);
console.log(JSON.stringify(result));
