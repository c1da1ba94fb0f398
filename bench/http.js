#!/usr/bin/env node
/**
 * HTTP bench (`npm run bench -- http`): a real Ledgraph server (bench/http-worker.js, its own
 * process, file storage in a temp dir, the BSBM ledger loaded) against the floor of this runtime —
 * a bare `node:http` server (bench/http-floor.js, its own process) answering with the very response
 * bytes Ledgraph sent — measured in the same run, phase by phase, interleaved round by round so a
 * change in the box's load hits both sides. The load generator is this process (separate from both
 * servers): a keep-alive `node:http` Agent with one socket for the single-client phases, autocannon
 * (pipelining 1) for the 16-connection phases.
 *
 * Phases (`--phases`, comma-separated; all by default; issue 18 "The HTTP path" targets in brackets):
 *   point   ≈30-row point query (`SELECT ?p ?o WHERE { <product> ?p ?o }`, SPARQL JSON): one client,
 *           p50 against the floor's p50 [≤ 1.5×]; then 16 connections, requests/s [≥ 8,000/s] and
 *           the floor's requests/s;
 *   label   the 1-row `rdfs:label` point query of issue 5 at 16 connections (the figure the README
 *           carried before; `query` is an alias);
 *   write   one client, durable `INSERT DATA` of 8 triples (`POST /update/writes`), p50 [≤ 4 ms],
 *           against a floor that appends the body to a file and fdatasyncs it before answering;
 *   insert  16 connections of single-fact Turtle inserts (`POST /insert/writes`, each one commit),
 *           commits/s [≥ 1,500/s], against the same fsync floor at 16 connections;
 *   mix     the BSBM explore mix (24 queries) over HTTP, one client, sequentially, against the same
 *           mix in process in the server [HTTP ≤ 1.5 × (in process + 24 × floor p50)], rows compared;
 *   soak    point queries (default 60 s) with the server's RSS and heap sampled every second;
 *   stream  a streaming SELECT of every fact of a generated 1,000,000-fact ledger (/stream/query),
 *           twice (cold, warm), with the server's RSS sampled throughout.
 *
 * Every phase reports the server's CPU time per request (process.cpuUsage() in the server around
 * the phase; steadier than requests/s on a shared box) and the load average around it.
 *
 * Flags: --data <bsbm.nt> (run.js passes it), --duration <s> per 16-connection phase and system
 * (10, split over the rounds), --single <s> per single-client phase and system (6, split over the
 * rounds), --rounds <n> floor/Ledgraph alternations (3), --mix-reps <n> (5), --soak <s> (60),
 * --connections <n> (16), --stream-rows <n> (1000000), --phases <list>, --profile <file> (a V8 CPU
 * profile of the server during the first phase of --phases that runs load), --server-args, --root
 * (passed to the worker), --base-root <dir> (a second Ledgraph server running the build in <dir>,
 * e.g. a worktree of main, measured in the same rounds as the floor and this build — floor, base,
 * this build, round by round — for the point and label phases: an old/new comparison in one run on
 * a shared box). Prints one JSON result line on stdout, a summary table on stderr.
 */
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BENCH_DIR, emitResult, log, median, parseArgs, toMB } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const duration = Number(args.duration ?? 10);
const singleSeconds = Number(args.single ?? 6);
const rounds = Math.max(1, Number(args.rounds ?? 3));
const mixReps = Math.max(1, Number(args['mix-reps'] ?? 5));
const soakSeconds = Number(args.soak ?? 60);
const connections = Number(args.connections ?? 16);
// Reads before writes: the writes leave index jobs running that would share the CPU with the reads.
const phaseList = String(args.phases ?? 'point,label,mix,write,insert,soak,stream').split(',').map((p) => p.trim()).map((p) => (p === 'query' ? 'label' : p));
const phases = new Set(phaseList);
const streamRows = phases.has('stream') ? Number(args['stream-rows'] ?? 1_000_000) : 0;
const profileFile = typeof args.profile === 'string' ? args.profile : null;
const TARGETS = {
  pointP50OverFloor: 1.5, pointQueriesPerSec: 8000, writeP50Ms: 4, commitsPerSec: 1500, mixOverInProcessPlusFloor: 1.5,
  // issue 5's, for the 1-row label query
  labelQueriesPerSec: 3000,
};
const CLIENT = 'load generator: bench/http.js process (apart from both servers); one client = node:http keep-alive Agent (1 socket), 16 connections = autocannon (pipelining 1)';

/** A forked child speaking request/reply over IPC (replies come in order). */
function child(file, childArgs) {
  // Both servers get the thread pool `ledgraph` (bin/ledgraph.cjs) starts with.
  const env = { ...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? '16' };
  const proc = fork(join(BENCH_DIR, file), childArgs, { execArgv: ['--expose-gc'], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const replies = [];
  let readyMsg;
  const ready = new Promise((ok, fail) => {
    proc.on('message', (m) => {
      if (m.type === 'ready') { readyMsg = m; ok(m); } else replies.shift()?.(m);
    });
    proc.on('exit', (code) => fail(new Error(`${file} exited with code ${code}`)));
  });
  return {
    proc, ready, get info() { return readyMsg; },
    ask: (msg) => new Promise((ok) => { replies.push(ok); proc.send(msg); }),
  };
}

const workerArgs = ['--stream-rows', String(streamRows), ...(args.data ? ['--data', String(args.data)] : [])];
if (typeof args['server-args'] === 'string') workerArgs.push('--server-args', args['server-args']);
if (typeof args.root === 'string') workerArgs.push('--root', args.root);
const worker = child('http-worker.js', workerArgs);
const floor = child('http-floor.js', []);
const baseRoot = typeof args['base-root'] === 'string' ? args['base-root'] : null;
/** The comparison build's server (--base-root), or null. */
const base = baseRoot ? child('http-worker.js', [...workerArgs.filter((a, i, xs) => a !== '--root' && xs[i - 1] !== '--root'), '--root', baseRoot]) : null;

/** Ask the worker for a memory sample (`gc: true` runs full GCs first). */
const memory = (gc = false) => worker.ask({ type: gc ? 'gc' : 'mem' });
/** A process's CPU time (user + system) so far, in µs. */
const cpuOf = async (c) => { const u = await c.ask({ type: 'cpu' }); return u.user + u.system; };
/** A target's user and system CPU time (µs) apart. */
const cpuSplitOf = (c) => c.ask({ type: 'cpu' });
const load1 = () => Math.round(loadavg()[0] * 100) / 100;
const r2 = (x) => (x == null ? null : Math.round(x * 100) / 100);
const r3 = (x) => (x == null ? null : Math.round(x * 1000) / 1000);

// ---------------------------------------------------------------------------------------------
// One client: a keep-alive node:http Agent with a single socket.

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Send one request and read the whole response. */
function send(base, { method = 'POST', path, headers, body }) {
  return new Promise((ok, fail) => {
    const u = new URL(path, base);
    const req = request({ agent, host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: { ...headers, 'content-length': Buffer.byteLength(body ?? '') } }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** Latencies (ms) of sequential requests from `make(i)` for `seconds`; a non-2xx answer is counted. */
async function sequential(base, make, seconds, state) {
  const lat = [];
  let non2xx = 0;
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const r = make(state.i++);
    const t0 = performance.now();
    const res = await send(base, r);
    lat.push(performance.now() - t0);
    if (res.status < 200 || res.status > 299) non2xx++;
  }
  return { lat, non2xx };
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const latencySummary = (lat) => ({ requests: lat.length, p50: r3(pct(lat, 0.5)), p90: r3(pct(lat, 0.9)), p99: r3(pct(lat, 0.99)), mean: r3(lat.reduce((a, b) => a + b, 0) / lat.length) });

/**
 * One client against Ledgraph and the floor, alternating in `rounds` rounds of seconds/rounds each
 * (floor first), the floor answering with `floorReply`. Latencies pooled per side.
 */
async function singleClient(name, make, floorReply) {
  await floor.ask({ type: 'set', ...floorReply });
  const per = singleSeconds / rounds;
  const lg = { lat: [], non2xx: 0 }, fl = { lat: [], non2xx: 0 }, bs = { lat: [], non2xx: 0 };
  const state = { i: 0 }, fstate = { i: 0 }, bstate = { i: 0 };
  const la = [load1()];
  let lgCpu = 0, flCpu = 0, bsCpu = 0;
  const withBase = base && name !== 'INSERT DATA (8 triples)';
  for (let r = 0; r < rounds; r++) {
    let c = await cpuOf(floor);
    const f = await sequential(floor.info.url, make, per, fstate);
    flCpu += (await cpuOf(floor)) - c;
    if (withBase) {
      c = await cpuOf(base);
      const b = await sequential(base.info.url, make, per, bstate);
      bsCpu += (await cpuOf(base)) - c;
      bs.lat.push(...b.lat); bs.non2xx += b.non2xx;
    }
    c = await cpuOf(worker);
    const l = await sequential(worker.info.url, make, per, state);
    lgCpu += (await cpuOf(worker)) - c;
    fl.lat.push(...f.lat); fl.non2xx += f.non2xx;
    lg.lat.push(...l.lat); lg.non2xx += l.non2xx;
  }
  la.push(load1());
  const out = {
    ledgraph: { ...latencySummary(lg.lat), non2xx: lg.non2xx, serverCpuUsPerRequest: Math.round(lgCpu / lg.lat.length) },
    floor: { ...latencySummary(fl.lat), non2xx: fl.non2xx, serverCpuUsPerRequest: Math.round(flCpu / fl.lat.length) },
    loadavg1: la,
  };
  out.p50Ratio = r2(out.ledgraph.p50 / out.floor.p50);
  out.cpuRatio = r2(out.ledgraph.serverCpuUsPerRequest / out.floor.serverCpuUsPerRequest);
  if (withBase) {
    out.base = { ...latencySummary(bs.lat), non2xx: bs.non2xx, serverCpuUsPerRequest: Math.round(bsCpu / bs.lat.length) };
    out.baseP50Ratio = r2(out.base.p50 / out.floor.p50);
  }
  const baseNote = withBase ? `; base p50 ${out.base.p50} ms (${out.baseP50Ratio}x), ${out.base.serverCpuUsPerRequest} µs CPU/request` : '';
  log(`http: ${name}, one client: ledgraph p50 ${out.ledgraph.p50} ms (${out.ledgraph.requests} req), floor p50 ${out.floor.p50} ms (${out.floor.requests} req): ${out.p50Ratio}x; server CPU/request ${out.ledgraph.serverCpuUsPerRequest} µs vs ${out.floor.serverCpuUsPerRequest} µs${baseNote}; load ${la.join(' → ')}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// 16 connections: autocannon.

function cannon(base, seconds, make) {
  let i = 0;
  return autocannon({
    url: base, connections, duration: seconds, pipelining: 1,
    requests: [{
      method: 'POST', path: '/',
      setupRequest(req) {
        const r = make(i++);
        req.method = r.method ?? 'POST'; req.path = new URL(r.path, base).pathname; req.headers = r.headers; req.body = r.body;
        return req;
      },
    }],
  });
}

/** autocannon against one target for `seconds`, with the target's CPU time over it. */
async function measuredCannon(target, seconds, make) {
  const before = await cpuSplitOf(target);
  const r = await cannon(target.info.url, seconds, make);
  const after = await cpuSplitOf(target);
  return { r, cpuUs: after.user + after.system - before.user - before.system, sysUs: after.system - before.system };
}

/** Sum autocannon runs into one figure. */
function pooled(runs) {
  const total = runs.reduce((a, x) => a + x.r.requests.total, 0);
  const seconds = runs.reduce((a, x) => a + x.r.duration, 0);
  const cpu = runs.reduce((a, x) => a + x.cpuUs, 0);
  const sys = runs.reduce((a, x) => a + x.sysUs, 0);
  return {
    requestsPerSec: Math.round(total / seconds), requests: total,
    latencyMs: { p50: median(runs.map((x) => x.r.latency.p50)), p99: Math.max(...runs.map((x) => x.r.latency.p99)) },
    serverCpuUsPerRequest: total ? Math.round(cpu / total) : null,
    // The kernel's part (socket reads and writes): the same work for the floor and Ledgraph.
    serverSystemCpuUsPerRequest: total ? Math.round(sys / total) : null,
    non2xx: runs.reduce((a, x) => a + x.r.non2xx, 0), errors: runs.reduce((a, x) => a + x.r.errors, 0), timeouts: runs.reduce((a, x) => a + x.r.timeouts, 0),
  };
}

/** 16 connections against the floor and Ledgraph, alternating in rounds (floor first). */
async function manyClients(name, make, floorReply, { floorToo = true } = {}) {
  if (floorToo) await floor.ask({ type: 'set', ...floorReply });
  const per = Math.max(1, duration / rounds);
  const lg = [], fl = [], bs = [];
  const withBase = base && name !== 'single-fact commits';
  const la = [load1()];
  for (let r = 0; r < rounds; r++) {
    if (floorToo) fl.push(await measuredCannon(floor, per, make));
    if (withBase) bs.push(await measuredCannon(base, per, make));
    lg.push(await measuredCannon(worker, per, make));
  }
  la.push(load1());
  const out = { ledgraph: pooled(lg), loadavg1: la };
  if (withBase) out.base = pooled(bs);
  if (floorToo) {
    out.floor = pooled(fl);
    out.throughputRatio = r2(out.ledgraph.requestsPerSec / out.floor.requestsPerSec);
    out.cpuRatio = r2(out.ledgraph.serverCpuUsPerRequest / out.floor.serverCpuUsPerRequest);
  }
  const baseNote = withBase ? `; base ${out.base.requestsPerSec}/s (${out.base.serverCpuUsPerRequest} µs CPU/req, ${out.base.serverSystemCpuUsPerRequest} system, non-2xx ${out.base.non2xx})` : '';
  log(`http: ${name}, ${connections} connections: ledgraph ${out.ledgraph.requestsPerSec}/s (p50 ${out.ledgraph.latencyMs.p50} ms, ${out.ledgraph.serverCpuUsPerRequest} µs CPU/req (${out.ledgraph.serverSystemCpuUsPerRequest} system), non-2xx ${out.ledgraph.non2xx})${floorToo ? `, floor ${out.floor.requestsPerSec}/s (${out.floor.serverCpuUsPerRequest} µs CPU/req, ${out.floor.serverSystemCpuUsPerRequest} system): ${out.throughputRatio}x` : ''}${baseNote}; load ${la.join(' → ')}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Requests

const RDFS_LABEL = 'http://www.w3.org/2000/01/rdf-schema#label';
const SPARQL_JSON = { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' };
const api = () => new URL(worker.info.api).pathname;

/** The ≈30-row point query on product i. */
const pointReq = (i) => {
  const p = worker.info.products;
  return { path: `${api()}/query/bsbm`, headers: SPARQL_JSON, body: `SELECT ?p ?o WHERE { <${p[(i * 7919) % p.length]}> ?p ?o }` };
};
/** The 1-row label query of issue 5 on subject i. */
const labelReq = (i) => {
  const s = worker.info.subjects;
  return { path: `${api()}/query/bsbm`, headers: SPARQL_JSON, body: `SELECT ?label WHERE { <${s[(i * 7919) % s.length]}> <${RDFS_LABEL}> ?label }` };
};
/** A durable INSERT DATA of 8 triples (one subject, 8 properties), the i-th of its kind. */
const writeReq = (i) => {
  const s = `<http://example.org/d/${process.pid}-${i}>`;
  const body = `INSERT DATA { ${s} a <http://example.org/Doc> ; <http://example.org/n> ${i} ; <http://example.org/title> "document ${i}" ; <http://example.org/lang> "en" ; `
    + `<http://example.org/size> ${i * 7 % 1000} ; <http://example.org/flag> true ; <http://example.org/ref> <http://example.org/d/${i >> 1}> ; <http://example.org/note> "eight triples" }`;
  return { path: `${api()}/update/writes`, headers: { 'content-type': 'application/sparql-update' }, body };
};
/** A single-fact Turtle insert (one commit). */
const insertReq = (i) => ({
  path: `${api()}/insert/writes`, headers: { 'content-type': 'text/turtle' },
  body: `<http://example.org/w/${process.pid}-${i}> <http://example.org/value> ${i} .`,
});

/** Ledgraph's answer to `req` as a floor reply (same status, headers and body). */
async function recorded(req, fsync = false) {
  const r = await send(worker.info.url, req);
  if (r.status !== 200) throw new Error(`recording the floor reply: ${req.path} answered ${r.status}: ${r.body.toString().slice(0, 200)}`);
  return { status: r.status, headers: r.headers, body: r.body.toString('base64'), fsync, bytes: r.body.length };
}

// ---------------------------------------------------------------------------------------------
// The explore mix over HTTP against in process

async function mixPhase(floorP50) {
  const inproc = await worker.ask({ type: 'mix', reps: 1 });
  if (!inproc.queries?.length) return { status: 'skipped', reason: 'no BSBM params file' };
  // DESCRIBE and CONSTRUCT answer N-Triples (one line a triple), the rest SPARQL JSON.
  const qreq = (text) => ({ path: `${api()}/query/bsbm`, headers: { ...SPARQL_JSON, accept: 'application/sparql-results+json, application/n-triples;q=0.9' }, body: text });
  // Untimed pass: every row count must equal the in-process one.
  const rows = [];
  for (const text of inproc.queries) {
    const r = await send(worker.info.url, qreq(text));
    if (r.status !== 200) throw new Error(`explore mix over HTTP: ${r.status} ${r.body.toString().slice(0, 200)}`);
    if (String(r.headers['content-type']).startsWith('application/n-triples')) rows.push(r.body.toString().split('\n').filter((l) => l.trim()).length);
    else {
      const j = JSON.parse(r.body.toString());
      rows.push(j.boolean !== undefined ? 1 : j.results.bindings.length);
    }
  }
  const mismatches = rows.map((n, i) => (n === inproc.rows[i] ? null : { query: i, http: n, inProcess: inproc.rows[i] })).filter(Boolean);
  // Alternating: one timed mix in process (after an untimed one), one over HTTP, `mixReps` times.
  const times = [], inTimes = [...inproc.times];
  for (let k = 0; k < mixReps; k++) {
    if (k > 0) inTimes.push(...(await worker.ask({ type: 'mix', reps: 1 })).times);
    const t0 = performance.now();
    for (const text of inproc.queries) await send(worker.info.url, qreq(text));
    times.push(performance.now() - t0);
  }
  const httpMs = median(times), inMs = median(inTimes);
  const bound = inMs + inproc.queries.length * floorP50;
  const out = {
    queries: inproc.queries.length, httpMedianMs: r2(httpMs), inProcessMedianMs: r2(inMs), floorP50Ms: floorP50,
    inProcessPlusFloorMs: r2(bound), ratio: r2(httpMs / bound), overInProcess: r2(httpMs / inMs), rowsEqual: mismatches.length === 0, mismatches,
    loadavg1: load1(),
  };
  log(`http: explore mix: over HTTP ${out.httpMedianMs} ms, in process ${out.inProcessMedianMs} ms + 24 × floor ${floorP50} ms = ${out.inProcessPlusFloorMs} ms: ${out.ratio}x; rows equal: ${out.rowsEqual}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Soak and stream (issue 5)

async function soak(seconds) {
  const start = await memory(true);
  const samples = [];
  const timer = setInterval(() => { void memory().then((m) => samples.push(m)); }, 1000);
  const r = pooled([await measuredCannon(worker, seconds, labelReq)]);
  clearInterval(timer);
  const end = await memory(true);
  const rss = samples.map((s) => s.rss);
  const third = Math.max(1, Math.floor(rss.length / 3));
  const avg = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    seconds, ...r,
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
  const r = await fetch(`${worker.info.api}/stream/query/stream`, {
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

// ---------------------------------------------------------------------------------------------

/** Run `fn`, with a server CPU profile around it when this is the phase --profile asked for. */
let profiled = false;
async function maybeProfiled(fn) {
  if (!profileFile || profiled) return fn();
  profiled = true;
  await worker.ask({ type: 'profile-start' });
  const out = await fn();
  log(`http: server CPU profile in ${(await worker.ask({ type: 'profile-stop', file: profileFile })).file}`);
  return out;
}

/** The summary table (stderr). */
function table(res) {
  const rows = [];
  const met = (ok) => (ok == null ? '—' : ok ? 'met' : 'not met');
  if (res.point) {
    rows.push(['point query (≈30 rows), 1 client, p50 ms', res.point.single.ledgraph.p50, res.point.single.floor.p50, res.point.single.p50Ratio + 'x', '≤ 1.5x floor', met(res.meets.pointP50)]);
    rows.push(['point query, 16 conn, req/s', res.point.many.ledgraph.requestsPerSec, res.point.many.floor.requestsPerSec, res.point.many.throughputRatio + 'x', '≥ 8,000/s', met(res.meets.pointQueriesPerSec)]);
  }
  if (res.label) rows.push(['label query (1 row), 16 conn, req/s', res.label.ledgraph.requestsPerSec, res.label.floor.requestsPerSec, res.label.throughputRatio + 'x', '≥ 3,000/s (issue 5)', met(res.meets.labelQueriesPerSec)]);
  if (res.write) rows.push(['INSERT DATA 8 triples, 1 client, p50 ms', res.write.ledgraph.p50, res.write.floor.p50, res.write.p50Ratio + 'x', '≤ 4 ms', met(res.meets.writeP50)]);
  if (res.insert) rows.push(['single-fact commits, 16 conn, /s', res.insert.ledgraph.requestsPerSec, res.insert.floor.requestsPerSec, res.insert.throughputRatio + 'x', '≥ 1,500/s', met(res.meets.commitsPerSec)]);
  if (res.mix?.httpMedianMs) rows.push(['explore mix over HTTP, ms', res.mix.httpMedianMs, `${res.mix.inProcessMedianMs} + 24×${res.mix.floorP50Ms}`, res.mix.ratio + 'x', '≤ 1.5x (in process + floor)', met(res.meets.mix)]);
  const head = ['phase', 'ledgraph', 'floor', 'ratio', 'target', 'status'];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
  log(['', `HTTP (issue 18); floor = bare node:http replaying Ledgraph's bytes (fsync floor for writes); ${CLIENT}`, line(head), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)].join('\n'));
}

try {
  await Promise.all([worker.ready, floor.ready, base?.ready]);
  log(`http: server ready at ${worker.info.url}, floor at ${floor.info.url}; ${worker.info.products.length} products, ${worker.info.subjects.length} labelled subjects; ${connections} connections; ${CLIENT}`);
  const res = { suite: 'http', client: CLIENT, connections, durationSec: duration, singleSec: singleSeconds, rounds, targets: TARGETS, loadavgAtStart: loadavg() };
  // Warm-up (JIT, leaf cache) of both paths.
  for (const w of base ? [worker, base] : [worker]) {
    await cannon(w.info.url, 2, pointReq);
    await cannon(w.info.url, 1, labelReq);
  }
  let floorP50 = null;
  for (const phase of phaseList) {
    if (phase === 'point') {
      const reply = await recorded(pointReq(0));
      res.point = await maybeProfiled(async () => ({
        responseBytes: reply.bytes,
        single: await singleClient('point query', pointReq, reply),
        many: await manyClients('point query', pointReq, reply),
      }));
      floorP50 = res.point.single.floor.p50;
    } else if (phase === 'label') {
      res.label = await maybeProfiled(async () => manyClients('label query', labelReq, await recorded(labelReq(0))));
    } else if (phase === 'write') {
      const reply = await recorded(writeReq(-1), true);
      res.write = await maybeProfiled(() => singleClient('INSERT DATA (8 triples)', writeReq, reply));
    } else if (phase === 'insert') {
      const reply = await recorded(insertReq(-1), true);
      const out = await maybeProfiled(() => manyClients('single-fact commits', insertReq, reply));
      res.insert = { ...out, commitsPerSec: out.ledgraph.requestsPerSec };
    } else if (phase === 'mix') {
      await worker.ask({ type: 'idle' }); // no index job of an earlier phase competes with either side
      if (floorP50 == null) {
        const reply = await recorded(pointReq(0));
        await floor.ask({ type: 'set', ...reply });
        const fl = await sequential(floor.info.url, pointReq, 2, { i: 0 });
        floorP50 = r3(pct(fl.lat, 0.5));
      }
      res.mix = await mixPhase(floorP50);
    } else if (phase === 'soak') {
      log(`http: soak (label queries), ${soakSeconds} s`);
      res.soak = await soak(soakSeconds);
      log(`http: ${JSON.stringify(res.soak.serverMemoryMB)}`);
    } else if (phase === 'stream') {
      // Twice: the first pass also fills the leaf cache; the second shows what streaming itself holds.
      log(`http: streaming ${streamRows.toLocaleString('en-US')} rows (cold, then warm)`);
      const cold = await streamAll();
      log(`http: ${JSON.stringify(cold)}`);
      const warm = await streamAll();
      log(`http: ${JSON.stringify(warm)}`);
      res.stream = { cold, warm };
    } else log(`http: unknown phase ${phase} (skipped)`);
  }
  res.meets = {
    pointP50: res.point ? res.point.single.p50Ratio <= TARGETS.pointP50OverFloor : undefined,
    pointQueriesPerSec: res.point ? res.point.many.ledgraph.requestsPerSec >= TARGETS.pointQueriesPerSec && res.point.many.ledgraph.non2xx === 0 : undefined,
    labelQueriesPerSec: res.label ? res.label.ledgraph.requestsPerSec >= TARGETS.labelQueriesPerSec && res.label.ledgraph.non2xx === 0 : undefined,
    writeP50: res.write ? res.write.ledgraph.p50 <= TARGETS.writeP50Ms && res.write.ledgraph.non2xx === 0 : undefined,
    commitsPerSec: res.insert ? res.insert.commitsPerSec >= TARGETS.commitsPerSec && res.insert.ledgraph.non2xx === 0 : undefined,
    mix: res.mix?.ratio != null ? res.mix.ratio <= TARGETS.mixOverInProcessPlusFloor && res.mix.rowsEqual : undefined,
  };
  res.loadavgAtEnd = loadavg();
  table(res);
  worker.proc.send({ type: 'stop' });
  floor.proc.send({ type: 'stop' });
  base?.proc.send({ type: 'stop' });
  agent.destroy();
  emitResult(res);
} catch (e) {
  worker.proc.kill();
  floor.proc.kill();
  base?.proc.kill();
  agent.destroy();
  emitResult({ suite: 'http', status: 'error', error: e instanceof Error ? e.message : String(e) });
  process.exitCode = 1;
}
