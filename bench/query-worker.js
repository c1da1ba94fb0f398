#!/usr/bin/env node
/**
 * One query-suite measurement in its own process (run by bench/run.js; needs --expose-gc):
 *
 *   node --expose-gc bench/query-worker.js --engine oxigraph|n3|ledgraph --data FILE.nt
 *        --params FILE.params.json [--reps 7] [--warmup 3] [--storage DIR] [--only C1,E-Q2]
 *        [--set explore|bi]
 *
 * Loads the data once (ledgraph: reuses the ledger bulk-loaded earlier into --storage when its
 * marker file matches the data file, else bulk-loads it once and writes the marker), then one
 * untimed pass over all the queries (as BSBM's driver warms up with query mixes), then per
 * query `warmup` untimed runs (default 3: the JavaScript engines' JIT and every engine's caches
 * reach their steady state; oxigraph, compiled to WASM, needs none but gets the same) and `reps`
 * timed runs with every result consumed and counted; reports the
 * median, min and max ms and the result count. The explore mix (24 queries in BSBM order) is timed
 * as a whole the same way. For n3 without an installed SPARQL engine it reports the README's
 * recorded anchor figures, labelled as such (status "anchor"), never as measurements.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EngineUnavailable, openEngine } from './engines.js';
import { cpuSeconds, emitResult, errorMessage, log, median, parseArgs, rssAfterGc, toMB } from './measure.js';
import { loadBiQueries } from './bi-queries.js';
import { loadQueries } from './queries.js';

const args = parseArgs(process.argv.slice(2));
const engineName = args.engine;
const data = args.data ? resolve(args.data) : null;
const paramsPath = args.params ? resolve(args.params) : data?.replace(/\.nt$/, '.params.json');
const storageDir = args.storage ? resolve(args.storage) : null;
const reps = Math.max(1, Number(args.reps ?? 7));
const warmup = Math.max(1, Number(args.warmup ?? 3));
const only = args.only ? new Set(String(args.only).split(',')) : null;
/** explore: the core shapes, the explore queries and the 24-query explore mix; bi: the BI queries and their mix. */
const set = String(args.set ?? 'explore');
/** The BI queries' answers are compared row by row across engines, not only counted. */
const checkRows = set === 'bi';
const MIX_LABEL = { explore: 'explore mix (24 queries)', bi: 'BI mix (8 queries)' };

/** README reference figures (n3 2.13.12 Store + Comunica 5.4.1, 2 vCPU, ≈1M triples), in ms. */
export const N3_COMUNICA_ANCHOR = {
  source: '/work/shared/bench/README.md, "Reference figures on this machine kind" (n3 2.13.12 Store + Comunica 5.4.1, 999,222 triples)',
  load: { triplesPerSec: 93899, rssAfterLoadMB: 1035, peakRssMB: 1766 },
  queries: {
    C1: 8.76, C2: 20.1, C3: 234, C4: 1055, C5: 703, C6: 339,
    'E-Q1': 19.9, 'E-Q2': 27.9, 'E-Q3': 37.0, 'E-Q4': 41.2, 'E-Q5': 321, 'E-Q7': 170, 'E-Q8': 71.9,
    'E-Q9': 184, 'E-Q10': 63.4, 'E-Q11': 1.17, 'E-Q12': 12.6,
  },
  mix: 2287,
};

const round = (x, d = 3) => (x == null ? null : Math.round(x * 10 ** d) / 10 ** d);

async function timeQuery(engine, q) {
  // The first warm-up run also yields the rows (as comparable keys) for run.js's cross-engine check.
  let warm = await engine.query(q.text, { rows: checkRows });
  const digest = warm.rows ? createHash('sha1').update(warm.rows.join('\n')).digest('hex').slice(0, 12) : undefined;
  for (let i = 1; i < warmup; i++) warm = await engine.query(q.text);
  const times = [];
  const counts = new Set([warm.count]);
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const r = await engine.query(q.text);
    times.push(performance.now() - t0);
    counts.add(r.count);
  }
  const out = {
    name: q.name,
    kind: warm.kind,
    count: warm.count,
    medianMs: round(median(times)),
    minMs: round(Math.min(...times)),
    maxMs: round(Math.max(...times)),
    runs: times.length,
  };
  if (digest) out.digest = digest;
  if (counts.size > 1) out.unstableCount = [...counts];
  return out;
}

async function timeMix(engine, mix) {
  const runOnce = async () => {
    let count = 0;
    for (const q of mix) count += (await engine.query(q.text)).count;
    return count;
  };
  const count = await runOnce();
  const times = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await runOnce();
    times.push(performance.now() - t0);
  }
  return { name: MIX_LABEL[set], count, medianMs: round(median(times)), minMs: round(Math.min(...times)), maxMs: round(Math.max(...times)), runs: times.length };
}

/** Ledgraph: reuse a ledger loaded before when the marker names this very data file. */
function markerMatches(marker) {
  if (!existsSync(marker)) return false;
  try {
    const m = JSON.parse(readFileSync(marker, 'utf8'));
    const st = statSync(data);
    return m.data === data && m.bytes === st.size && m.mtimeMs === st.mtimeMs;
  } catch {
    return false;
  }
}

async function main() {
  if (!engineName || !data) throw new Error('usage: query-worker.js --engine NAME --data FILE.nt --params FILE.params.json');
  const base = { suite: 'query', engine: engineName, data, node: process.version, pid: process.pid, reps };
  if (!MIX_LABEL[set]) throw new Error(`unknown query set ${set} (expected explore or bi)`);
  const { queries: all, mix } = set === 'bi' ? (({ bi, mix }) => ({ queries: bi, mix }))(loadBiQueries(paramsPath)) : (({ core, explore, mix }) => ({ queries: [...core, ...explore], mix }))(loadQueries(paramsPath));
  const queries = all.filter((q) => !only || only.has(q.name));

  let engine;
  try {
    engine = await openEngine(engineName, { storageDir });
  } catch (err) {
    if (err instanceof EngineUnavailable) return emitResult({ ...base, status: err.status, error: err.message });
    throw err;
  }
  if (engineName === 'n3' && !(await engine.sparqlEngine())) {
    return emitResult({
      ...base,
      status: 'anchor',
      version: engine.version,
      note: 'recorded anchor, not measured: no SPARQL engine for n3 is installed (needs e.g. @comunica/query-sparql-rdfjs)',
      anchor: N3_COMUNICA_ANCHOR,
    });
  }

  const load = {};
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    if (engineName === 'ledgraph') {
      const marker = join(storageDir, '.bench-loaded.json');
      if (markerMatches(marker)) {
        log(`  [ledgraph] reusing the ledger in ${storageDir}`);
        await engine.reopen();
        load.reused = true;
      } else {
        rmSync(storageDir, { recursive: true, force: true });
        log(`  [ledgraph] bulk-loading ${data} into ${storageDir}`);
        await engine.load(data);
        const st = statSync(data);
        writeFileSync(marker, JSON.stringify({ data, bytes: st.size, mtimeMs: st.mtimeMs, receipt: engine.receipt ?? null }, null, 2));
        load.reused = false;
      }
    } else {
      log(`  [${engineName}] loading ${data}`);
      await engine.load(data);
    }
  } catch (err) {
    const status = err instanceof EngineUnavailable ? err.status : 'error';
    return emitResult({ ...base, status, error: errorMessage(err) });
  }
  load.seconds = round((performance.now() - t0) / 1000);
  load.cpuSeconds = round(cpuSeconds(cpu0));
  load.triples = await engine.size();
  load.rssAfterLoadMB = toMB((await rssAfterGc()).rss);

  // One untimed pass over every query first, as BSBM's own driver warms up with query mixes:
  // the first query timed should not pay for compiling code paths the others share.
  for (const q of queries) await engine.query(q.text).catch(() => null);
  const results = [];
  for (const q of queries) {
    try {
      const r = await timeQuery(engine, q);
      log(`  [${engineName}] ${q.name}: ${r.medianMs} ms, ${r.count} results`);
      results.push(r);
    } catch (err) {
      log(`  [${engineName}] ${q.name}: ERROR ${errorMessage(err)}`);
      results.push({ name: q.name, status: 'error', error: errorMessage(err) });
    }
  }
  let mixResult = null;
  if (!only) {
    try {
      mixResult = await timeMix(engine, mix);
      log(`  [${engineName}] mix: ${mixResult.medianMs} ms`);
    } catch (err) {
      mixResult = { name: MIX_LABEL[set], status: 'error', error: errorMessage(err) };
    }
  }
  await engine.close();
  emitResult({ ...base, status: 'ok', version: engine.version, description: engine.description, load, queries: results, mix: mixResult });
}

main().then(
  () => process.exit(0),
  (err) => {
    emitResult({ suite: 'query', engine: engineName, status: 'error', error: errorMessage(err) });
    log(err?.stack ?? String(err));
    process.exit(1);
  },
);
