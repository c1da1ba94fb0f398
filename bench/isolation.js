#!/usr/bin/env node
/**
 * Isolation bench (`npm run bench -- isolation`, or `node bench/isolation.js`): does one hostile
 * request make another wait? A real Ledgraph server (this file re-forked with `--serve`: its own
 * process, ../dist, file storage in a temp dir, 10,000 triples) answers a second client's point
 * queries, one after another, first alone and then while aggressors run, each in a loop (sent
 * again as soon as its previous answer comes back):
 *
 *   cross   SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l } — 10^16 rows,
 *           runs until the server's query timeout (--query-timeout-ms, 5000 here);
 *   nest    a query of 5,000 nested `{ }` groups (a parse-depth attack);
 *   regex   REGEX on a 30-character string with the catastrophic pattern "^(a+)+$", per fact;
 *   update  a 20,000-triple INSERT DATA (1.3 MB of text), then the same triples as DELETE DATA, in turn
 *           (not in the default set: its commits make the ledger's novelty churn; ask for it);
 *   bigquery a 1 MiB SELECT (a VALUES block of 60,000 strings; the default --max-query-bytes);
 *   template a `DELETE { 10,000 triples } INSERT { 10,000 triples } WHERE { one pattern }`;
 *   manyops  5,000 `INSERT DATA { one triple }` operations separated by `;`;
 *   bigunion a 1 MiB SELECT of UNION branches, each `{ BIND("u…" AS ?x) }`.
 * With `--parse`, no server: the large texts are parsed in this process (the server's sliced entry
 * points) and the longest event-loop hold of each parse is reported, in wall time and, since the
 * box is shared, in CPU time between two turns of the loop (the longest step, load-independent).
 *
 * Reported per phase: point-query count, p50 / p99 / max latency in ms, failures (non-200 or
 * network errors), and the server's event-loop delay (perf_hooks, 1 ms resolution: how long the
 * loop was held at a time, what a request arriving at a random moment waits); per aggressor: requests, statuses, mean duration. Then, with the aggressors
 * cut off by the client (sockets closed mid-query), the latency of the next point query: the
 * server must not still be busy with abandoned work; and, measured inside the server, how long
 * after the cut no query execution is left running (the cancellation latency). Acceptance (issue 20): p99 ≤ 50 ms with the
 * aggressors and no failure.
 *
 * Flags: --duration <s> per phase (10), --aggressors <list> (cross,nest,regex; also update, insert, bigquery, template, manyops, bigunion), --parse, --triples <n>
 * (10000), --update-triples <n> (20000; the server's reindex_max_bytes is 64 MiB so a 50,000-triple commit fits), --query-timeout-ms <ms> (5000),
 * --server-node-args=<a,b> (Node flags for the server process, e.g. --cpu-prof,--cpu-prof-dir=DIR). Prints one JSON result line on stdout.
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ROOT_DIR, emitResult, log, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const TRIPLES = Number(args.triples ?? 10_000);
const TIMEOUT_MS = Number(args['query-timeout-ms'] ?? 5000);
const EX = 'http://example.org/';

/** The server process: start, load, report `ready` over IPC, stop on `stop`. */
async function serve() {
  const { startLedgraphServer } = await import(join(ROOT_DIR, 'dist/server/main.js'));
  const { defaultServerConfig } = await import(join(ROOT_DIR, 'dist/server/config.js'));
  const { silentLogger } = await import(join(ROOT_DIR, 'dist/server/log.js'));
  const dir = await mkdtemp(join(tmpdir(), 'lg-isolation-bench-'));
  const config = { ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: dir, memory: false, queryTimeoutMs: TIMEOUT_MS, reindexMaxBytes: 64 * 1024 * 1024 };
  const server = await startLedgraphServer(config, { version: 'bench', log: silentLogger });
  const conn = server.state.conn;
  await conn.create('iso');
  async function* facts() {
    let s = '';
    for (let i = 0; i < TRIPLES; i++) s += `<${EX}s${i}> <${EX}p${i % 10}> "value ${i}" .\n`;
    yield s;
  }
  await conn.bulkLoad('iso:main', facts());
  await conn.idle();
  const { runningQueries } = await import(join(ROOT_DIR, 'dist/core/query/engine.js'));
  const stop = async () => { await server.close(1000).catch(() => {}); await rm(dir, { recursive: true, force: true }); process.exit(0); };
  /** Reply once no query execution is left running: how long that took after the parent cut its clients off. */
  const drain = () => {
    const t0 = performance.now();
    const poll = () => {
      if (runningQueries() === 0) process.send({ type: 'drained', ms: Math.round((performance.now() - t0) * 100) / 100 });
      else if (performance.now() - t0 > 10_000) process.send({ type: 'drained', ms: null, running: runningQueries() });
      else setTimeout(poll, 1);
    };
    poll();
  };
  // How long the event loop is held at a time: what a request arriving at a random moment waits for.
  const eld = monitorEventLoopDelay({ resolution: 1 });
  eld.enable();
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  process.on('message', (m) => {
    if (m.type === 'stop') void stop();
    else if (m.type === 'drain') drain();
    else if (m.type === 'eld-reset') { eld.reset(); process.send({ type: 'eld-reset' }); }
    else if (m.type === 'eld') process.send({ type: 'eld', p50: ms(eld.percentile(50)), p99: ms(eld.percentile(99)), max: ms(eld.max) });
  });
  process.on('disconnect', () => void stop());
  process.send({ type: 'ready', api: server.url + config.apiBaseUrl });
}

/** A SPARQL POST to /query/iso. */
function sparql(api, text, signal) {
  return fetch(`${api}/query/iso`, { method: 'POST', headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' }, body: text, signal });
}

/** A SPARQL UPDATE POST to /update/iso. */
function sparqlUpdate(api, text, signal) {
  return fetch(`${api}/update/iso`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: text, signal });
}

const UPDATE_TRIPLES = Number(args['update-triples'] ?? 20_000);
/** The update aggressor's triples (1.3 MB of text), inserted and deleted in turn so the ledger keeps its size. */
const bigData = () => {
  let s = '';
  for (let i = 0; i < UPDATE_TRIPLES; i++) s += `<${EX}big${i}> <${EX}q${i % 10}> "big value ${i}" .\n`;
  return s;
};
/** A query of about 1 MiB (the default --max-query-bytes): a VALUES block of 60,000 strings. */
const bigQuery = () => {
  const vals = [];
  for (let i = 0; i < 60_000; i++) vals.push(`"v${i}"`);
  return `SELECT ?x WHERE { } LIMIT 1 VALUES ?x { ${vals.join(' ')} }`;
};

/** 20,000 template triples: DELETE of 10,000 absent triples, INSERT of 10,000 (the same each time), one solution. */
const bigTemplate = () => {
  const half = UPDATE_TRIPLES / 2;
  let del = '', ins = '';
  for (let i = 0; i < half; i++) del += `<${EX}tpl${i}> <${EX}q${i % 10}> "old ${i}" .\n`;
  for (let i = 0; i < half; i++) ins += `<${EX}tpl${i}> <${EX}q${i % 10}> ?o .\n`;
  return `DELETE {\n${del}} INSERT {\n${ins}} WHERE { <${EX}s1> <${EX}p1> ?o }`;
};
const MANY_OPS = 5000;
/** 5,000 small operations separated by `;` (the same triples each time, so the ledger keeps its size). */
const manyOps = () => {
  const ops = [];
  for (let i = 0; i < MANY_OPS; i++) ops.push(`INSERT DATA { <${EX}op${i}> <${EX}q${i % 10}> "op ${i}" }`);
  return ops.join(' ;\n');
};
/** A query of about 1 MiB made of UNION branches, each a BIND: no triple pattern, so only --max-query-operators refuses it, after its sliced parse and translation. */
const bigUnion = () => {
  const branches = [];
  for (let i = 0, n = 0; n < 1_000_000; i++) {
    const b = `{ BIND("u${i}" AS ?x) }`;
    branches.push(b);
    n += b.length + 7; // and ' UNION '
  }
  return `SELECT ?x WHERE { ${branches.join(' UNION ')} } LIMIT 1`;
};

/** Each aggressor: one request, given the loop's request number (`k`). */
const AGGRESSORS = {
  cross: (api, signal) => sparql(api, 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }', signal),
  nest: (api, signal) => sparql(api, 'SELECT * WHERE ' + '{ '.repeat(5000) + '?s ?p ?o ' + '} '.repeat(5000), signal),
  regex: (api, signal) => sparql(api, `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER REGEX("${'a'.repeat(30)}!", "^(a+)+$") }`, signal),
  // A 20,000-triple INSERT DATA, then the same as DELETE DATA (parse, stage and commit each time).
  update: (api, signal, k) => sparqlUpdate(api, `${k % 2 ? 'DELETE' : 'INSERT'} DATA {\n${UPDATE_DATA ??= bigData()}}`, signal),
  // POST /insert of --update-triples N-Triples, new subjects each time (a large insert's path: stage-runs.ts).
  insert: (api, signal, k) => fetch(`${api}/insert/iso`, { method: 'POST', headers: { 'content-type': 'application/n-triples' }, body: (UPDATE_DATA ??= bigData()).replaceAll(`<${EX}big`, `<${EX}ins${k}-`), signal }),
  bigquery: (api, signal) => sparql(api, BIG_QUERY ??= bigQuery(), signal),
  template: (api, signal) => sparqlUpdate(api, TEMPLATE ??= bigTemplate(), signal),
  manyops: (api, signal) => sparqlUpdate(api, MANY ??= manyOps(), signal),
  bigunion: (api, signal) => sparql(api, UNION ??= bigUnion(), signal),
};
let UPDATE_DATA, BIG_QUERY, TEMPLATE, MANY, UNION;

/**
 * `--parse`: in this process, no server: each large text is parsed by the server's sliced entry
 * point while the event-loop delay is sampled; reports the longest hold (the parse's longest step
 * plus timer jitter), wall and CPU time. Isolates the parser from staging and committing.
 */
async function parseHolds() {
  const { parseSparqlSliced } = await import(join(ROOT_DIR, 'dist/core/query/sparql/parse.js'));
  const { parseSparqlUpdateSliced } = await import(join(ROOT_DIR, 'dist/core/query/sparql/update.js'));
  const cases = {
    'insert-data-20k': () => parseSparqlUpdateSliced(`INSERT DATA {\n${bigData()}}`),
    'template-20k': () => parseSparqlUpdateSliced(bigTemplate()),
    'ops-5000': () => parseSparqlUpdateSliced(manyOps()),
    'values-1mib': () => parseSparqlSliced(bigQuery()),
    'union-1mib': () => parseSparqlSliced(bigUnion()),
  };
  const out = {};
  for (const [name, run] of Object.entries(cases)) {
    const rows = [];
    for (let k = 0; k < 5; k++) {
      await new Promise((r) => setTimeout(r, 20));
      const eld = monitorEventLoopDelay({ resolution: 1 });
      eld.enable();
      // A turn taken by setImmediate after every step: the CPU time between two turns is the
      // longest step in CPU time, which the box's load (other processes) does not inflate.
      let last = process.cpuUsage(), maxStepCpu = 0, ticking = true;
      const tick = () => {
        const now = process.cpuUsage(), d = (now.user - last.user + now.system - last.system) / 1000;
        if (d > maxStepCpu) maxStepCpu = d;
        last = now;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const t0 = performance.now(), c0 = process.cpuUsage();
      let status = 'ok';
      try { await run(); } catch (e) { status = e instanceof Error ? e.message.slice(0, 120) : String(e); }
      const c = process.cpuUsage(c0);
      ticking = false;
      await new Promise((r) => setTimeout(r, 5));
      eld.disable();
      rows.push({ maxHoldMs: r2(eld.max / 1e6), maxStepCpuMs: r2(maxStepCpu), wallMs: r2(performance.now() - t0), cpuMs: r2((c.user + c.system) / 1000), status });
    }
    out[name] = { maxHoldMs: Math.max(...rows.map((r) => r.maxHoldMs)), maxStepCpuMs: Math.max(...rows.map((r) => r.maxStepCpuMs)), runs: rows };
    log(`isolation --parse: ${name}: longest hold ${out[name].maxHoldMs} ms wall, longest step ${out[name].maxStepCpuMs} ms CPU (per run: ${rows.map((r) => `step ${r.maxStepCpuMs} ms, ${r.wallMs} ms wall, ${r.cpuMs} ms CPU`).join('; ')}) ${rows[0].status}`);
  }
  emitResult({ status: 'ok', mode: 'parse', cases: out });
  process.exit(0);
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const r2 = (x) => (x == null ? null : Math.round(x * 100) / 100);

/** Point queries one after another for `ms`; latencies and failures. */
async function pointQueries(api, ms) {
  const lat = [];
  const failures = [];
  const end = performance.now() + ms;
  let k = 0;
  while (performance.now() < end) {
    const i = (k++ * 7919) % TRIPLES;
    const t0 = performance.now();
    try {
      const r = await sparql(api, `SELECT ?o WHERE { <${EX}s${i}> <${EX}p${i % 10}> ?o }`);
      const body = await r.json();
      const ok = r.status === 200 && body.results.bindings.length === 1 && body.results.bindings[0].o.value === `value ${i}`;
      if (!ok) failures.push(`status ${r.status}`);
    } catch (e) {
      failures.push(e instanceof Error ? `${e.message} (${e.cause?.code ?? e.cause?.message ?? ''})` : String(e));
    }
    lat.push(performance.now() - t0);
  }
  lat.sort((a, b) => a - b);
  return { count: lat.length, p50: r2(percentile(lat, 50)), p99: r2(percentile(lat, 99)), max: r2(lat.at(-1)), failures: failures.length, failureSamples: failures.slice(0, 3) };
}

/** Send one aggressor again and again until `stop` aborts; returns what came back. */
async function aggressorLoop(api, name, stop) {
  const out = { requests: 0, statuses: {}, totalMs: 0 };
  while (!stop.aborted) {
    const t0 = performance.now();
    let status;
    try {
      const r = await AGGRESSORS[name](api, stop, out.requests);
      await r.arrayBuffer();
      status = String(r.status);
    } catch (e) {
      status = stop.aborted ? 'cut by client' : 'error: ' + (e instanceof Error ? e.message : String(e));
    }
    out.requests++;
    out.totalMs += performance.now() - t0;
    out.statuses[status] = (out.statuses[status] ?? 0) + 1;
  }
  return { requests: out.requests, statuses: out.statuses, meanMs: Math.round(out.totalMs / Math.max(1, out.requests)) };
}

async function main() {
  const duration = Number(args.duration ?? 10) * 1000;
  const names = String(args.aggressors ?? 'cross,nest,regex').split(',').map((s) => s.trim()).filter((s) => AGGRESSORS[s]);
  const child = fork(fileURLToPath(import.meta.url), ['--serve', '--triples', String(TRIPLES), '--query-timeout-ms', String(TIMEOUT_MS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: args['server-node-args'] ? String(args['server-node-args']).split(',') : [] });
  const ready = await new Promise((ok, fail) => {
    child.on('message', (m) => { if (m.type === 'ready') ok(m); });
    child.on('exit', (code) => fail(new Error(`server exited with code ${code}`)));
  });
  const api = ready.api;
  const ask = (type) => new Promise((ok) => { const on = (m) => { if (m.type === type) { child.off('message', on); ok(m); } }; child.on('message', on); child.send({ type }); });
  await pointQueries(api, 1000); // warm-up
  log(`isolation: point queries alone for ${duration / 1000} s`);
  await ask('eld-reset');
  const alone = await pointQueries(api, duration);
  alone.serverEventLoopDelayMs = await ask('eld');
  log(`isolation: point queries with aggressors ${names.join(', ')} for ${duration / 1000} s`);
  const ac = new AbortController();
  const loops = names.map((n) => aggressorLoop(api, n, ac.signal));
  await new Promise((r) => setTimeout(r, 200)); // let them start
  await ask('eld-reset');
  const loaded = await pointQueries(api, duration);
  loaded.serverEventLoopDelayMs = await ask('eld');
  ac.abort();
  // In the server: time from the cut until no execution is left running (cancellation latency, bounded above).
  const drained = new Promise((ok) => child.on('message', (m) => { if (m.type === 'drained') ok(m); }));
  child.send({ type: 'drain' });
  const aggressors = Object.fromEntries((await Promise.all(loops)).map((r, i) => [names[i], r]));
  const drainedMsg = await drained;
  // Right after the client cut every aggressor off: is the server free at once?
  let afterCut;
  const t0 = performance.now();
  try {
    const r = await sparql(api, `SELECT ?o WHERE { <${EX}s1> <${EX}p1> ?o }`);
    await r.arrayBuffer();
    afterCut = r.status === 200 ? r2(performance.now() - t0) : `status ${r.status}`;
  } catch (e) {
    afterCut = 'failed: ' + (e instanceof Error ? `${e.message} (${e.cause?.code ?? e.cause?.message ?? ''})` : String(e));
  }
  const serverExit = child.exitCode ?? child.signalCode;
  child.send({ type: 'stop' });
  const result = {
    status: 'ok', triples: TRIPLES, queryTimeoutMs: TIMEOUT_MS, durationS: duration / 1000, aggressorNames: names,
    alone, withAggressors: loaded, aggressors, executionsStoppedAfterCutMs: drainedMsg.ms, firstPointQueryAfterCutMs: afterCut, ...(serverExit != null ? { serverExit } : {}),
    acceptance: { p99LimitMs: 50, p99WithAggressors: loaded.p99, failures: loaded.failures, pass: loaded.p99 != null && loaded.p99 <= 50 && loaded.failures === 0 },
  };
  log(`isolation: alone p50 ${alone.p50} ms p99 ${alone.p99} ms; with aggressors p50 ${loaded.p50} ms p99 ${loaded.p99} ms max ${loaded.max} ms, failures ${loaded.failures}`);
  emitResult(result);
  process.exit(0);
}

if (args.serve) await serve();
else if (args.parse) await parseHolds();
else await main();
