#!/usr/bin/env node
/**
 * Profile one BI or explore query on the ledger the query suite loaded (bench/data/ledgraph-<pc>):
 *
 *   node bench/query-profile.js BI-Q4 [runs=3] [--explain] [--profile] [--products 2825]
 *
 * Runs the query once untimed, then `runs` times timed; --explain prints the physical plan,
 * --profile writes bench/out/<name>.cpuprofile covering only the timed runs (V8 inspector), so
 * opening the ledger does not crowd the profile. Needs `npx tsc -p tsconfig.build.json` first.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadBiQueries } from './bi-queries.js';
import { LEDGER_ID } from './engines.js';
import { BENCH_DIR, ROOT_DIR, parseArgs } from './measure.js';
import { loadQueries } from './queries.js';

const args = parseArgs(process.argv.slice(2));
const [name, runsArg] = args._;
const runs = Number(runsArg ?? 3);
const products = Number(args.products ?? 2825);
const params = join(BENCH_DIR, 'data', `bsbm-${products}.params.json`);
// LEDGRAPH_DIST: a build elsewhere (A/B comparisons while a benchmark uses dist/).
const dist = (rel) => import(pathToFileURL(join(process.env.LEDGRAPH_DIST ?? join(ROOT_DIR, 'dist'), rel)).href);

const { bi } = loadBiQueries(params);
const { core, explore } = loadQueries(params);
const q = [...bi, ...core, ...explore].find((x) => x.name === name);
if (!q) throw new Error(`no query ${name}`);
const { Connection } = await dist('core/ledger/connection.js');
const { openFileStorage } = await dist('storage/index.js');
const { querySparql, explainQuery } = await dist('core/query/engine.js');
const { parseSparql } = await dist('core/query/sparql/parse.js');
const conn = new Connection(await openFileStorage(join(BENCH_DIR, 'data', `ledgraph-${products}`)), { leafCacheBytes: 1024 * 1024 * 1024 });
const db = await conn.db(LEDGER_ID);
const once = async () => {
  const res = await querySparql(q.text, { view: db });
  let n = 0;
  for await (const _ of res.rows) n++;
  return n;
};
await once();
// After the first run: the dictionary pages the plan's constants live on are loaded by then.
if (args.explain) console.log(explainQuery(parseSparql(q.text), { view: db }));
const session = new Session();
session.connect();
if (args.profile) { await session.post('Profiler.enable'); await session.post('Profiler.start'); }
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const n = await once();
  const c = process.cpuUsage(c0);
  // CPU time as well: on a shared box wall time mostly measures the other sessions.
  console.log(`${name}: ${n} rows, ${(performance.now() - t0).toFixed(1)} ms, cpu ${((c.user + c.system) / 1000).toFixed(1)} ms`);
}
if (args.profile) {
  const { profile } = await session.post('Profiler.stop');
  mkdirSync(join(BENCH_DIR, 'out'), { recursive: true });
  const file = join(BENCH_DIR, 'out', `${name}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  console.log(`written ${file}`);
}
await conn.close();
