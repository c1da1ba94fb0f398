#!/usr/bin/env node
/**
 * HTTP load bench (`npm run bench -- http`, or `node --expose-gc bench/http.js`): a real Ledgraph
 * server (bench/http-worker.js, its own process, file storage) under autocannon load at 16
 * connections.
 *
 *   1. point queries: SPARQL `SELECT ?label WHERE { <product> rdfs:label ?label }` on random BSBM
 *      subjects, POST /query/bsbm — requests/s, p50/p99 latency (target ≥ 3,000/s);
 *   2. single-fact inserts: POST /insert/writes, one Turtle triple each, every request one
 *      commit — commits/s, p50/p99 (target ≥ 500/s);
 *   3. a soak of point queries (default 60 s) with the server's RSS and heap sampled every second
 *      (after forced GCs at both ends) to show memory stays flat;
 *   4. a streaming SELECT of every fact of a generated 1,000,000-fact ledger over
 *      /stream/query, read and counted as it arrives, with the server's RSS sampled throughout to
 *      show it streams in constant memory; run twice, since the first pass also fills the leaf
 *      cache (index leaves kept decoded) and the second shows what streaming itself holds.
 *
 * Every load phase also reports the server process's CPU time per request (user + system, from
 * process.cpuUsage() in the server around the phase): steadier than requests/s on a shared box.
 *
 * Flags: --data <bsbm.nt> (run.js passes it), --duration <s> per load phase (10), --soak <s> (60),
 * --connections <n> (16), --stream-rows <n> (1000000), --phases <list> (a comma-separated subset
 * of query,insert,soak,stream; all by default), --profile <file.cpuprofile> (a V8 CPU profile of
 * the server during the point-query phase, or the insert phase when query is not among --phases).
 * Prints one JSON result line on stdout.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BENCH_DIR, emitResult, log, parseArgs, toMB } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const duration = Number(args.duration ?? 10);
const soakSeconds = Number(args.soak ?? 60);
const connections = Number(args.connections ?? 16);
const phases = new Set(String(args.phases ?? 'query,insert,soak,stream').split(',').map((p) => p.trim()));
const streamRows = phases.has('stream') ? Number(args['stream-rows'] ?? 1_000_000) : 0;
const profileFile = typeof args.profile === 'string' ? args.profile : null;
const TARGETS = { pointQueriesPerSec: 3000, commitsPerSec: 500 };

const workerArgs = ['--stream-rows', String(streamRows), ...(args.data ? ['--data', String(args.data)] : [])];
const worker = fork(join(BENCH_DIR, 'http-worker.js'), workerArgs, { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const replies = [];
let ready;
const readyP = new Promise((ok, fail) => {
  worker.on('message', (m) => {
    if (m.type === 'ready') { ready = m; ok(m); } else replies.shift()?.(m);
  });
  worker.on('exit', (code) => fail(new Error(`http-worker exited with code ${code}`)));
});
/** Send the worker a message and wait for its reply (replies come in order). */
const ask = (msg) => new Promise((ok) => { replies.push(ok); worker.send(msg); });
/** Ask the worker for a memory sample (`gc: true` runs full GCs first). */
const memory = (gc = false) => ask({ type: gc ? 'gc' : 'mem' });
/** The server's CPU time (user + system) so far, in µs. */
const serverCpu = async () => { const c = await ask({ type: 'cpu' }); return c.user + c.system; };

/** Run a load phase, measuring the server's CPU time over it. */
async function measured(load) {
  const before = await serverCpu();
  const r = await load();
  const cpuUs = (await serverCpu()) - before;
  return { r, cpuUs };
}

const summary = ({ r, cpuUs }) => ({
  requestsPerSec: Math.round(r.requests.average),
  requests: r.requests.total,
  latencyMs: { p50: r.latency.p50, p99: r.latency.p99, mean: Math.round(r.latency.average * 100) / 100 },
  serverCpuUsPerRequest: r.requests.total ? Math.round(cpuUs / r.requests.total) : null,
  non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts,
});

function pointQueries(seconds) {
  const { subjects, api } = ready;
  let i = 0;
  return autocannon({
    url: api, connections, duration: seconds,
    requests: [{
      method: 'POST', path: `${new URL(api).pathname}/query/bsbm`,
      headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
      setupRequest(req) {
        const s = subjects[(i++ * 7919) % subjects.length];
        req.body = `SELECT ?label WHERE { <${s}> <http://www.w3.org/2000/01/rdf-schema#label> ?label }`;
        return req;
      },
    }],
  });
}

function inserts(seconds) {
  let n = 0;
  return autocannon({
    url: ready.api, connections, duration: seconds,
    requests: [{
      method: 'POST', path: `${new URL(ready.api).pathname}/insert/writes`,
      headers: { 'content-type': 'text/turtle' },
      setupRequest(req) {
        n++;
        req.body = `<http://example.org/w/${n}> <http://example.org/value> ${n} .`;
        return req;
      },
    }],
  });
}

/** Point-query load for `seconds` while sampling the server's memory once a second. */
async function soak(seconds) {
  const start = await memory(true);
  const samples = [];
  const timer = setInterval(() => { void memory().then((m) => samples.push(m)); }, 1000);
  const r = await measured(() => pointQueries(seconds));
  clearInterval(timer);
  const end = await memory(true);
  const rss = samples.map((s) => s.rss);
  const third = Math.max(1, Math.floor(rss.length / 3));
  const avg = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    seconds, ...summary(r),
    serverMemoryMB: {
      rssAfterGc: { start: toMB(start.rss), end: toMB(end.rss) },
      heapAfterGc: { start: toMB(start.heapUsed), end: toMB(end.heapUsed) },
      rssSampled: { min: toMB(Math.min(...rss)), max: toMB(Math.max(...rss)), firstThirdAvg: toMB(avg(rss.slice(0, third))), lastThirdAvg: toMB(avg(rss.slice(-third))) },
      samples: rss.length,
    },
  };
}

/** Stream every fact of the `stream` ledger as NDJSON, counting records as they arrive. */
async function streamAll() {
  const before = await memory(true);
  let peak = before.rss;
  const timer = setInterval(() => { void memory().then((m) => { if (m.rss > peak) peak = m.rss; }); }, 250);
  const t0 = performance.now();
  const r = await fetch(`${ready.api}/stream/query/stream`, {
    method: 'POST', headers: { 'content-type': 'application/sparql-query' },
    body: 'SELECT ?s ?label WHERE { ?s <http://example.org/label> ?label }',
  });
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let lines = 0, tail = '', clientPeak = process.memoryUsage().rss, chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++;
    tail = (tail + dec.decode(value, { stream: true })).slice(-4096);
    if (++chunks % 64 === 0) clientPeak = Math.max(clientPeak, process.memoryUsage().rss);
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  const after = await memory(true);
  const last = JSON.parse(tail.trim().split('\n').pop());
  return {
    status: r.status, records: lines, rows: last.rows, terminal: last.type, seconds: Math.round(seconds * 100) / 100,
    rowsPerSec: Math.round(last.rows / seconds),
    serverRssMB: { beforeAfterGc: toMB(before.rss), peakSampled: toMB(peak), afterGc: toMB(after.rss), growthDuringStream: toMB(peak - before.rss) },
    clientRssPeakMB: toMB(clientPeak),
  };
}

try {
  await readyP;
  log(`http: server ready at ${ready.url}; ${ready.subjects.length} point-query subjects; ${connections} connections`);
  let query, insert, soakResult, stream;
  if (phases.has('query') || phases.has('soak')) await pointQueries(2); // warm-up (JIT, leaf cache)
  if (phases.has('query')) {
    log(`http: point queries, ${duration} s`);
    if (profileFile) await ask({ type: 'profile-start' });
    query = summary(await measured(() => pointQueries(duration)));
    if (profileFile) log(`http: server CPU profile in ${(await ask({ type: 'profile-stop', file: profileFile })).file}`);
    log(`http: ${JSON.stringify(query)}`);
  }
  if (phases.has('insert')) {
    log(`http: single-fact inserts, ${duration} s`);
    const profileInserts = profileFile && !phases.has('query');
    if (profileInserts) await ask({ type: 'profile-start' });
    insert = summary(await measured(() => inserts(duration)));
    if (profileInserts) log(`http: server CPU profile in ${(await ask({ type: 'profile-stop', file: profileFile })).file}`);
    log(`http: ${JSON.stringify(insert)}`);
  }
  if (phases.has('soak')) {
    log(`http: soak (point queries), ${soakSeconds} s`);
    soakResult = await soak(soakSeconds);
    log(`http: ${JSON.stringify(soakResult.serverMemoryMB)}`);
  }
  if (phases.has('stream')) {
    // Twice: the first pass also fills the leaf cache; the second shows what streaming itself holds.
    log(`http: streaming ${streamRows.toLocaleString('en-US')} rows (cold, then warm)`);
    const cold = await streamAll();
    log(`http: ${JSON.stringify(cold)}`);
    const warm = await streamAll();
    log(`http: ${JSON.stringify(warm)}`);
    stream = { cold, warm };
  }
  worker.send({ type: 'stop' });
  emitResult({
    suite: 'http', connections, durationSec: duration,
    pointQuery: query, insert: insert && { ...insert, commitsPerSec: insert.requestsPerSec }, soak: soakResult, stream,
    targets: TARGETS,
    meetsTargets: {
      pointQueries: query ? query.requestsPerSec >= TARGETS.pointQueriesPerSec && query.non2xx === 0 : undefined,
      commits: insert ? insert.requestsPerSec >= TARGETS.commitsPerSec && insert.non2xx === 0 : undefined,
    },
  });
} catch (e) {
  worker.kill();
  emitResult({ suite: 'http', status: 'error', error: e instanceof Error ? e.message : String(e) });
  process.exitCode = 1;
}
