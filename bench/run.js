#!/usr/bin/env node
/**
 * Benchmark entry point: `npm run bench -- <suite> [options]` (= node --expose-gc bench/run.js).
 *
 *   suites     load | query | bi | churn | jsonld | policy | http | point-cpu | isolation | peer | replication | storage | graphql | cypher | shacl | dict | memory | soak | all (all but soak)
 *   soak: --duration SEC (default 300), --sample SEC, --connections N, --write-share F,
 *         --budget-mb MB, --server-args="<server flags>", --node-args="<V8 flags>", --root DIR (see bench/soak.js)
 *   isolation: --duration SEC, --aggressors a,b (see bench/isolation.js)
 *   --products N     BSBM product count (default 2825, ≈1M triples; 265 ≈ 100k)
 *   --reps N         load: processes per engine (default 3, median reported);
 *                    query: timed runs per query (default 7, minimum 5 unless --quick)
 *   --warmup N       query: untimed runs per query before timing (default 3)
 *   --engines a,b    subset of oxigraph,n3,ledgraph (default all three)
 *   --seed S         generator seed (default the generator's)
 *   --no-cli         load: skip bench/load-cli.js (ledgraph load, a 2nd 1M into it, POST /insert chunks)
 *   --load-phases P  load: only these phases of bench/load-cli.js (e.g. parse,empty,existing; default all)
 *   --chunk N        load: triples per POST /insert request in load-cli.js (default 50,000)
 *   --no-build       skip `npx tsc -p tsconfig.build.json` before the ledgraph workers
 *   --timeout SEC    kill a worker after SEC seconds (default 3600)
 *   --only C1,E-Q2   query suite: only these queries (no mix)
 *
 * Every (engine, suite, repetition) runs in its own child process, one after another; each worker
 * prints one JSON line that this script collects. The data file is generated on first use and
 * cached in bench/data/ (git-ignored). Results are printed as a table with Ledgraph / reference
 * ratios and written to bench/out/<suite>-<date>.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, ROOT_DIR, median, packageVersion, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const suite = args._[0] ?? 'load';
const SUITES = { load: 'load-worker.js', query: 'query-worker.js', bi: 'query-worker.js' };
/**
 * Suites that measure Ledgraph against itself or with their own comparison inside one script
 * (churn: head reads before/after history; jsonld: JSON-LD vs SPARQL queries, then JSON-LD inserts
 * against the build this branch forked from; policy: restricted vs unrestricted; http: a server
 * under load; replication: export, import, clone and pull between two servers against `cp -r`;
 * isolation: point queries beside hostile queries, on its own generated 10,000 triples; branches:
 * fork, merge and a head query on an old fork; storage: the explore mix and single-fact commits/s on
 * file, S3 (s3rver) and PostgreSQL-nameservice backends; dict: the paged term dictionary's hot paths
 * against the same dictionary held all in memory, as main's was; memory: RSS after the load broken
 * down by owner, bench/memory.js); point-cpu: the server's CPU per point query without HTTP,
 * stage by stage, optionally against a base build (bench/point-cpu.js).
 * Each script prints one JSON result line; a suite may run several scripts.
 */
const SCRIPT_SUITES = {
  churn: 'churn.js', jsonld: ['jsonld.js', 'jsonld-insert.js'], policy: 'policy.js', http: 'http.js', peer: 'peer.js', soak: 'soak.js',
  replication: 'replication.js', isolation: 'isolation.js', branches: 'branches.js', graphql: 'graphql.js', storage: 'storage.js', cypher: 'cypher.js',
  shacl: 'shacl.js', dict: 'dict.js', memory: 'memory.js', 'point-cpu': 'point-cpu.js',
};
/** Script suites `all` leaves out (long by design; run them by name). */
const LONG_SUITES = new Set(['soak']);
/** Script suites that make their own data (no BSBM file needed). */
const OWN_DATA = new Set(['isolation', 'shacl', 'dict']);
if (suite !== 'all' && !SUITES[suite] && !SCRIPT_SUITES[suite]) {
  console.error(`unknown suite "${suite}" (expected ${[...Object.keys(SUITES), ...Object.keys(SCRIPT_SUITES)].join(', ')}, all)`);
  process.exit(2);
}
// The peer suite is specified on the ≈100k-triple ledger (issue 12).
const products = Number(args.products ?? (suite === 'peer' ? 265 : 2825));
// The BI suite has no n3 + Comunica anchor to show, so it compares with oxigraph only by default.
const engines = String(args.engines ?? (suite === 'bi' ? 'oxigraph,ledgraph' : 'oxigraph,n3,ledgraph')).split(',').map((s) => s.trim()).filter(Boolean);
const timeoutSec = Number(args.timeout ?? 3600);
const DATA_DIR = join(BENCH_DIR, 'data');
const OUT_DIR = join(BENCH_DIR, 'out');
const REFERENCES = ['oxigraph', 'n3'];

function ensureData() {
  const prefix = join(DATA_DIR, `bsbm-${products}`);
  const nt = `${prefix}.nt`;
  const params = `${prefix}.params.json`;
  let ok = existsSync(nt) && existsSync(params);
  if (ok) {
    const meta = JSON.parse(readFileSync(params, 'utf8'))._meta ?? {};
    if (args.seed !== undefined && meta.seed !== Number(args.seed)) ok = false;
  }
  if (!ok) {
    console.error(`bench: generating ${nt}`);
    const genArgs = [join(BENCH_DIR, 'bsbm', 'generate.js'), '--products', String(products), '--out', prefix];
    if (args.seed !== undefined) genArgs.push('--seed', String(args.seed));
    const r = spawnSync(process.execPath, genArgs, { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('data generation failed');
  }
  return { nt, params, meta: JSON.parse(readFileSync(params, 'utf8'))._meta ?? {} };
}

let buildResult = null;
function buildLedgraph() {
  if (buildResult) return buildResult;
  if (args['no-build']) return (buildResult = { status: 'skipped' });
  console.error('bench: npx tsc -p tsconfig.build.json');
  const t0 = performance.now();
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const seconds = Math.round((performance.now() - t0) / 100) / 10;
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  if (r.status !== 0) {
    const lines = output.split('\n');
    console.error(`bench: tsc reported errors (${lines.length} lines); the ledgraph workers use whatever dist/ holds:`);
    console.error(lines.slice(0, 15).join('\n'));
  }
  return (buildResult = { status: r.status === 0 ? 'ok' : 'errors', seconds, errorLines: r.status === 0 ? 0 : output.split('\n').length });
}

/**
 * The environment `ledgraph server` runs in: the launcher (bin/ledgraph.cjs) gives the server
 * glibc's fixed mmap threshold (memory-plan.ts launchEnv), so blocks a load frees go back to the
 * system. The load suite's in-process Ledgraph load stands for a server loading the file, so it
 * runs with the same setting (without it, RSS after the load keeps 200-300 MB glibc holds).
 */
async function serverEnv() {
  try {
    const plan = await import(join(ROOT_DIR, 'dist/server/memory-plan.js'));
    return { ...process.env, ...plan.launchEnv(process.env) };
  } catch {
    return process.env;
  }
}

function runWorker(worker, workerArgs, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', join(BENCH_DIR, worker), ...workerArgs], {
      cwd: ROOT_DIR,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      console.error(`bench: ${worker} ${workerArgs.join(' ')} exceeded ${timeoutSec}s; killing it`);
      child.kill('SIGKILL');
    }, timeoutSec * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = out.trim().split('\n').reverse();
      for (const line of lines) {
        try {
          const obj = JSON.parse(line);
          obj.exitCode = code;
          return resolve(obj);
        } catch { /* not the result line */ }
      }
      resolve({ status: 'error', error: `worker exited (${signal ?? code}) without a result line`, exitCode: code });
    });
  });
}

// ---------------------------------------------------------------------------------------------
const fmt = (x, d = 1) => (x == null || Number.isNaN(x) ? '—' : Number(x).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));
const fmtInt = (x) => (x == null ? '—' : Math.round(x).toLocaleString('en-US'));
/** A worker's status and error without saying the status twice. */
const describe = (r) => (!r ? 'no result' : r.error ? (r.error.startsWith(r.status) ? r.error : `${r.status}: ${r.error}`) : r.status);
const ratio = (a, b) => (a == null || b == null || b === 0 ? null : a / b);

function table(headers, rows) {
  const w = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
  return [line(headers), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)].join('\n');
}

async function runLoad(data) {
  const reps = Math.max(1, Number(args.reps ?? 3));
  const runs = {};
  for (const engine of engines) {
    if (engine === 'ledgraph') buildLedgraph();
    runs[engine] = [];
    for (let rep = 1; rep <= reps; rep++) {
      console.error(`bench: load ${engine} (${rep}/${reps})`);
      const wargs = ['--engine', engine, '--data', data.nt, '--expect', String(data.meta.triples ?? '')];
      if (engine === 'ledgraph') wargs.push('--storage', join(DATA_DIR, `ledgraph-${products}-load`));
      const r = await runWorker(SUITES.load, wargs, engine === 'ledgraph' ? await serverEnv() : process.env);
      runs[engine].push(r);
      if (r.status !== 'ok') {
        console.error(`bench: load ${engine}: ${describe(r)}`);
        break; // a missing engine or a failure will not change on repetition
      }
    }
  }
  const summary = {};
  for (const [engine, rs] of Object.entries(runs)) {
    const ok = rs.filter((r) => r.status === 'ok');
    if (ok.length === 0) {
      summary[engine] = { status: rs[0]?.status ?? 'error', error: rs[0]?.error };
      continue;
    }
    const m = (k) => median(ok.map((r) => r[k]).filter((v) => v != null));
    summary[engine] = {
      status: 'ok', version: ok[0].version, runs: ok.length, triples: ok[0].triples,
      seconds: m('seconds'), cpuSeconds: m('cpuSeconds'), triplesPerSec: m('triplesPerSec'),
      rssAfterLoadMB: m('rssAfterLoadMB'), peakRssMB: m('peakRssMB'), diskMB: m('diskMB'),
    };
  }
  const rows = engines.map((e) => {
    const s = summary[e];
    if (s.status !== 'ok') return [e, '—', '—', '—', '—', '—', '—', '—', s.status];
    return [`${e} ${s.version ?? ''}`.trim(), fmtInt(s.triples), fmt(s.seconds, 2), fmt(s.cpuSeconds, 2), fmtInt(s.triplesPerSec), fmtInt(s.rssAfterLoadMB), fmtInt(s.peakRssMB), s.diskMB == null ? '—' : fmtInt(s.diskMB), 'measured'];
  });
  console.log(`\nLoad, pc=${products} (${fmtInt(data.meta.triples)} triples), median of ${Math.max(1, Number(args.reps ?? 3))} process(es) per engine`);
  console.log(table(['engine', 'triples', 'wall s', 'cpu s', 'triples/s', 'RSS MB', 'peak MB', 'disk MB', 'status'], rows));
  const lg = summary.ledgraph;
  const ratios = {};
  if (lg?.status === 'ok') {
    const rrows = [];
    for (const ref of REFERENCES) {
      const s = summary[ref];
      if (s?.status !== 'ok') continue;
      ratios[ref] = { seconds: ratio(lg.seconds, s.seconds), cpuSeconds: ratio(lg.cpuSeconds, s.cpuSeconds), rssAfterLoad: ratio(lg.rssAfterLoadMB, s.rssAfterLoadMB), peakRss: ratio(lg.peakRssMB, s.peakRssMB) };
      rrows.push([`ledgraph / ${ref}`, fmt(ratios[ref].seconds, 2), fmt(ratios[ref].cpuSeconds, 2), fmt(ratios[ref].rssAfterLoad, 2), fmt(ratios[ref].peakRss, 2)]);
    }
    if (rrows.length) console.log('\n' + table(['ratio (lower is better)', 'wall', 'cpu', 'RSS', 'peak'], rrows));
  } else if (engines.includes('ledgraph')) {
    console.log(`\nledgraph: ${describe(lg)} (no ratios)`);
  }
  const cli = engines.includes('ledgraph') && !args['no-cli'] ? await runLoadCli(data, summary.oxigraph) : undefined;
  return { runs, summary, ratios, cli };
}

/**
 * Issue 18's bulk-load targets (bench/load-cli.js): `ledgraph load` into an empty ledger (>= 1.0x
 * oxigraph's in-memory load rate), a second 1M into it (>= 0.7x), and sequential POST /insert of
 * 50,000-triple requests (>= 0.5x), all as ratios to oxigraph's rate from this run.
 */
async function runLoadCli(data, ox) {
  console.error('bench: load-cli (ledgraph load, second 1M, POST /insert chunks)');
  // --load-phases picks load-cli.js's phases (default: all of them), e.g. parse,empty,existing.
  const r = await runWorker('load-cli.js', ['--data', data.nt, ...(args.chunk ? ['--chunk', String(args.chunk)] : []), ...(args['load-phases'] ? ['--phases', String(args['load-phases'])] : [])]);
  if (r.status !== 'ok') {
    console.log(`\nload-cli: ${describe(r)}`);
    return r;
  }
  const oxRate = ox?.status === 'ok' ? ox.triplesPerSec : null;
  const rows = [
    ['ledgraph load, empty ledger', r.empty, 1.0],
    ['ledgraph load, 2nd 1M into it', r.existing, 0.7],
    [`POST /insert, ${r.chunk} per request`, r.insert, 0.5],
  ].filter(([, x]) => x).map(([name, x, target]) => {
    const q = ratio(x.triplesPerSec, oxRate);
    r.ratios = { ...(r.ratios ?? {}), [name]: q };
    // The same ratio by CPU time (the box is shared; CPU moves less with the other sessions).
    const oxCpuRate = ox?.status === 'ok' && ox.cpuSeconds ? ox.triples / ox.cpuSeconds : null;
    const qc = x.cpuSeconds && oxCpuRate ? (x.triples / x.cpuSeconds) / oxCpuRate : null;
    r.cpuRatios = { ...(r.cpuRatios ?? {}), [name]: qc };
    return [name, fmtInt(x.triples), fmt(x.seconds, 2), fmt(x.cpuSeconds, 2), fmtInt(x.triplesPerSec), fmt(q, 2), fmt(qc, 2), `>= ${fmt(target, 1)}`, q == null ? '—' : q >= target ? 'met' : 'not met', `${x.loadavg[0]} / ${x.loadavg[1]}`];
  });
  console.log(`\nBulk load (issue 18), rates against oxigraph's in-memory ${fmtInt(oxRate)} triples/s (${fmt(ox?.cpuSeconds, 2)} s CPU) from this run`);
  console.log(table(['path', 'triples', 'wall s', 'cpu s', 'triples/s', 'x oxigraph', 'x oxigraph by CPU', 'target', 'status', 'load avg before / after'], rows));
  if (r.insert) console.log(`POST /insert until the background index caught up: ${fmt(r.insert.indexedSeconds, 2)} s (${fmtInt(r.insert.indexedTriplesPerSec)} triples/s)`);
  const oxCpu = ox?.status === 'ok' ? ox.cpuSeconds : null;
  for (const [name, x] of Object.entries(r.parse ?? {})) {
    console.log(`parse floor, ${name}: ${fmt(x.seconds, 2)} s wall, ${fmt(x.cpuSeconds, 2)} s CPU (${oxCpu ? fmt(x.cpuSeconds / oxCpu, 2) + "× oxigraph's whole-load CPU" : 'no oxigraph CPU'})`);
  }
  const nt = r.ntBytes ?? null;
  for (const [name, x] of [['empty', r.empty], ['2nd 1M', r.existing]]) {
    if (!x?.diskByKind) continue;
    const kinds = Object.entries(x.diskByKind).sort((a, b) => b[1].MB - a[1].MB).map(([k, v]) => `${k} ${fmt(v.MB, 1)} MB (${v.files})`).join(', ');
    console.log(`disk after ${name}: ${fmt(x.diskBytes / 1e6, 1)} MB${nt ? ` = ${fmt(x.diskBytes / nt, 2)}× the N-Triples file (${fmt(nt / 1e6, 1)} MB)` : ''}: ${kinds}`);
  }
  return r;
}

/** Query suites: which query set the worker runs and what its mix row says. */
const QUERY_SETS = { query: { set: 'explore', mix: 'explore mix (24)' }, bi: { set: 'bi', mix: 'BI mix (8)' } };

async function runQuery(data, suiteName = 'query') {
  const qs = QUERY_SETS[suiteName];
  const reps = Math.max(args.quick ? 1 : 5, Number(args.reps ?? 7));
  const warmup = Math.max(1, Number(args.warmup ?? 3));
  const results = {};
  for (const engine of engines) {
    if (engine === 'ledgraph') buildLedgraph();
    console.error(`bench: ${suiteName} ${engine}`);
    const wargs = ['--engine', engine, '--data', data.nt, '--params', data.params, '--reps', String(reps), '--warmup', String(warmup), '--set', qs.set];
    if (args.only) wargs.push('--only', String(args.only));
    if (engine === 'ledgraph') wargs.push('--storage', join(DATA_DIR, `ledgraph-${products}`));
    results[engine] = await runWorker(SUITES.query, wargs);
    if (results[engine].status !== 'ok' && results[engine].status !== 'anchor') {
      console.error(`bench: query ${engine}: ${describe(results[engine])}`);
    }
  }
  const measured = engines.filter((e) => results[e].status === 'ok');
  const names = [];
  for (const e of measured) for (const q of results[e].queries) if (!names.includes(q.name)) names.push(q.name);
  if (names.length === 0) for (const n of Object.keys(results.n3?.anchor?.queries ?? {})) names.push(n);
  const get = (e, name) => results[e].queries?.find((q) => q.name === name);
  const mismatches = [];
  const headers = ['query'];
  for (const e of engines) {
    const r = results[e];
    if (r.status === 'ok') headers.push(`${e} ms`, `${e} rows`);
    else if (r.status === 'anchor') headers.push(`${e}+comunica ms (recorded anchor, 1M)`);
  }
  const lgOk = results.ledgraph?.status === 'ok';
  const refsMeasured = REFERENCES.filter((r) => results[r]?.status === 'ok');
  if (lgOk) for (const ref of refsMeasured) headers.push(`ledgraph/${ref}`);
  const ratios = {};
  const rows = names.map((name) => {
    const row = [name];
    const counts = new Map();
    for (const e of engines) {
      const r = results[e];
      if (r.status === 'ok') {
        const q = get(e, name);
        row.push(q?.status === 'error' ? 'ERROR' : fmt(q?.medianMs, 2), q?.count ?? '—');
        if (q && q.count != null) counts.set(e, q.count);
      } else if (r.status === 'anchor') row.push(fmt(r.anchor.queries[name], 2));
    }
    if (new Set(counts.values()).size > 1) mismatches.push({ query: name, counts: Object.fromEntries(counts) });
    else {
      // Query sets that report row digests (bi) must agree on the rows themselves, in order.
      const digests = new Map(engines.filter((e) => get(e, name)?.digest).map((e) => [e, get(e, name).digest]));
      if (new Set(digests.values()).size > 1) mismatches.push({ query: name, counts: Object.fromEntries(counts), digests: Object.fromEntries(digests) });
    }
    if (lgOk) {
      for (const ref of refsMeasured) {
        const x = ratio(get('ledgraph', name)?.medianMs, get(ref, name)?.medianMs);
        (ratios[ref] ??= {})[name] = x;
        row.push(x == null ? '—' : fmt(x, 2));
      }
    }
    return row;
  });
  const mixRow = [qs.mix];
  for (const e of engines) {
    const r = results[e];
    if (r.status === 'ok') mixRow.push(fmt(r.mix?.medianMs, 1), r.mix?.count ?? '—');
    else if (r.status === 'anchor') mixRow.push(fmt(r.anchor.mix, 1));
  }
  if (lgOk) for (const ref of refsMeasured) {
    const x = ratio(results.ledgraph.mix?.medianMs, results[ref].mix?.medianMs);
    (ratios[ref] ??= {}).mix = x;
    mixRow.push(x == null ? '—' : fmt(x, 2));
  }
  if (!args.only) rows.push(mixRow);
  console.log(`\nQueries, pc=${products} (${fmtInt(data.meta.triples)} triples), median of ${reps} timed runs after ${warmup} warm-up runs`);
  console.log(table(headers, rows));
  for (const e of engines) {
    const r = results[e];
    if (r.status === 'anchor') console.log(`${e}: ${r.note}`);
    else if (r.status !== 'ok') console.log(`${e}: ${describe(r)}`);
  }
  const acceptance = !lgOk ? null : suiteName === 'bi' ? biAcceptance(ratios, names) : queryAcceptance(ratios, names);
  if (acceptance) for (const line of acceptance.lines) console.log(line);
  if (mismatches.length) {
    console.log('\n!!!!!!!! RESULT MISMATCH between engines !!!!!!!!');
    for (const m of mismatches) console.log(`  ${m.query}: ${Object.entries(m.counts).map(([e, c]) => `${e}=${c}`).join(', ')}${m.digests ? ` (same count, different rows: ${Object.entries(m.digests).map(([e, d]) => `${e} ${d}`).join(', ')})` : ''}`);
  }
  return { results, ratios, mismatches, acceptance };
}

/**
 * Issue 3's targets from same-run ratios: the explore mix within 5x oxigraph, no query worse than
 * 10x oxigraph, every query at least 10x faster than n3 + Comunica (ratio <= 0.1).
 */
function queryAcceptance(ratios, names) {
  const lines = ['', 'Acceptance (same-run ratios):'];
  const out = { lines };
  /** The query with the largest ratio in `r`, or null. */
  const largest = (r) => names.reduce((w, n) => (r[n] != null && (w === null || r[n] > r[w]) ? n : w), null);
  const ox = ratios.oxigraph;
  if (ox) {
    const worst = largest(ox);
    out.mixVsOxigraph = ox.mix ?? null;
    out.worstVsOxigraph = worst && { query: worst, ratio: ox[worst] };
    lines.push(`  explore mix / oxigraph = ${fmt(ox.mix, 2)} (target <= 5): ${ox.mix != null && ox.mix <= 5 ? 'met' : 'NOT met'}`);
    if (worst) lines.push(`  worst query / oxigraph = ${worst} ${fmt(ox[worst], 2)} (target <= 10): ${ox[worst] <= 10 ? 'met' : 'NOT met'}`);
  }
  const n3 = ratios.n3;
  if (n3) {
    const slowest = largest(n3);
    out.slowestVsComunica = slowest && { query: slowest, ratio: n3[slowest], speedup: 1 / n3[slowest] };
    if (slowest) lines.push(`  least speed-up over n3 + Comunica = ${slowest} ${fmt(1 / n3[slowest], 1)}x (target >= 10x): ${n3[slowest] <= 0.1 ? 'met' : 'NOT met'}`);
  }
  return out;
}

/** Issue 18's target from same-run ratios: every BI query at most 1.0x oxigraph in process. */
function biAcceptance(ratios, names) {
  const lines = ['', 'Acceptance (same-run ratios):'];
  const ox = ratios.oxigraph ?? {};
  const over = names.filter((n) => ox[n] == null || ox[n] > 1);
  lines.push(`  BI queries / oxigraph <= 1.0: ${names.length - over.length}/${names.length} met${over.length ? ` (not: ${over.map((n) => `${n} ${fmt(ox[n], 2)}`).join(', ')})` : ''}`);
  lines.push(`  BI mix / oxigraph = ${fmt(ox.mix, 2)}`);
  return { lines, met: names.length - over.length, of: names.length, over };
}

/** Run a script suite (ledgraph only; one or more scripts) and print each result line. */
async function runScript(name, data) {
  const scripts = [SCRIPT_SUITES[name]].flat();
  const results = [];
  for (const script of scripts) {
    if (!existsSync(join(BENCH_DIR, script))) {
      console.log(`\n== ${name}: bench/${script} is not in this tree yet`);
      results.push({ status: 'missing' });
      continue;
    }
    if (!args['no-build']) buildLedgraph();
    console.log(`\n== ${name} (bench/${script})`);
    // The suite's own options (e.g. soak --duration) follow the suite name; they go through unchanged.
    const suiteArgs = process.argv.slice(3);
    const r = await runWorker(script, data.nt ? ['--data', data.nt, '--params', data.params, '--products', String(products), ...suiteArgs] : suiteArgs);
    console.log(JSON.stringify(r, null, 2));
    results.push(r);
  }
  return { results: results.length === 1 ? results[0] : results };
}

async function main() {
  const data = suite !== 'all' && OWN_DATA.has(suite) ? { nt: null, params: null, meta: {} } : ensureData();
  const started = new Date();
  const env = {
    node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemMB: Math.round(totalmem() / 1048576),
    loadavgAtStart: loadavg(), oxigraph: packageVersion('oxigraph'), n3: packageVersion('n3'),
    git: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT_DIR, encoding: 'utf8' }).stdout?.trim() || null,
  };
  const suites = suite === 'all' ? [...Object.keys(SUITES), ...Object.keys(SCRIPT_SUITES).filter((s) => !LONG_SUITES.has(s))] : [suite];
  mkdirSync(OUT_DIR, { recursive: true });
  for (const s of suites) {
    const result = s === 'load' ? await runLoad(data) : QUERY_SETS[s] ? await runQuery(data, s) : await runScript(s, data);
    const stamp = started.toISOString().replace(/:/g, '-').replace(/\..*$/, '');
    const file = join(OUT_DIR, `${s}-${stamp}.json`);
    const doc = { suite: s, started: started.toISOString(), products, data: { file: data.nt, ...data.meta }, env, build: buildResult, ...result };
    writeFileSync(file, JSON.stringify(doc, null, 2) + '\n');
    console.log(`\nwritten ${file}`);
  }
}

main().catch((err) => {
  console.error(err?.stack ?? String(err));
  process.exit(1);
});
