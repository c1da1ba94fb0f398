#!/usr/bin/env node
/**
 * Memory soak (issue 20): a real server (bench/http-worker.js, its own process) under a mixed
 * read/write load — `--connections` (default 16) keep-alive connections, `--write-share` (default
 * 0.2) of the requests single-fact Turtle inserts into the `writes` ledger, the rest SPARQL point
 * queries on the BSBM data — for `--duration` seconds (default 300; the issue asks for 1800).
 * Every `--sample` seconds (default 10) it records the server's RSS, heap and ArrayBuffer bytes as
 * they are (no forced GC) and its /stats/memory report (caches against their budgets, dictionary
 * bytes). The result says whether RSS flattened: the growth per commit over the second half, the
 * last third's average against the first third's and its own growth per commit, and the peak
 * against `--budget-mb` (default: the configured total, `--memory-limit` of --server-args or its
 * default; docs/memory.md). The server process gets the V8 heap flags the `ledgraph` launcher
 * derives from that total, as `ledgraph server` would, unless --node-args sizes the heap itself.
 *
 *   npm run bench -- soak --products 265 --duration 1800
 *   options: --server-args="--leaf-cache-bytes 64MiB" (server flags), --root DIR (another build),
 *            --node-args="--max-old-space-size=256" (the server process's V8 flags, replacing the
 *            launcher's heap sizing when they size the heap),
 *            --live (after each sample, force full GCs and record the live heap, ArrayBuffers and
 *            RSS too: what the server really retains, apart from V8's garbage headroom),
 *            --snapshots (heap snapshots after a third of the run and at the end, in bench/out/,
 *            for `node bench/heap-diff.js A B`: what the retained heap grew by, per kind of object)
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BENCH_DIR, ROOT_DIR, emitResult, log, parseArgs, toMB } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const duration = Number(args.duration ?? 300);
const sampleSec = Number(args.sample ?? 10);
const connections = Number(args.connections ?? 16);
const writeShare = Number(args['write-share'] ?? 0.2);
const live = args.live === true || args.live === 'true';
const snapshots = args.snapshots === true || args.snapshots === 'true';

const workerArgs = ['--stream-rows', '0'];
if (args.data) workerArgs.push('--data', String(args.data));
if (typeof args.root === 'string') workerArgs.push('--root', args.root);
if (typeof args['server-args'] === 'string') workerArgs.push(`--server-args=${args['server-args']}`);
// The server process is started as `ledgraph server` starts it (bin/ledgraph.cjs): V8's heap sized
// from --memory-limit (in --server-args, or the default), unless --node-args sizes it.
const plan = await import(join(typeof args.root === 'string' ? args.root : ROOT_DIR, 'dist/server/memory-plan.js')).catch(() => null);
const serverFlags = typeof args['server-args'] === 'string' ? args['server-args'].split(/\s+/).filter(Boolean) : [];
const memoryLimit = plan ? plan.memoryLimitOf(serverFlags, {}) : null;
const userNodeArgs = typeof args['node-args'] === 'string' ? args['node-args'].split(/\s+/).filter(Boolean) : [];
const nodeArgs = plan && memoryLimit && !plan.setsHeapSize(userNodeArgs) ? [...userNodeArgs, ...plan.heapFlags(memoryLimit)] : userNodeArgs;
const budgetMB = args['budget-mb'] !== undefined ? Number(args['budget-mb']) : memoryLimit ? toMB(memoryLimit) : null;
const worker = fork(join(BENCH_DIR, 'http-worker.js'), workerArgs, { execArgv: ['--expose-gc', ...nodeArgs], env: { ...process.env, ...(plan ? plan.launchEnv(process.env) : {}) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const replies = [];
let ready;
const readyP = new Promise((ok, fail) => {
  worker.on('message', (m) => { if (m.type === 'ready') { ready = m; ok(m); } else replies.shift()?.(m); });
  worker.on('exit', (code) => fail(new Error(`http-worker exited with code ${code}`)));
});
const ask = (msg) => new Promise((ok) => { replies.push(ok); worker.send(msg); });

let commits = 0;
let queries = 0;

/** The mixed load for `seconds`: each request is an insert with probability writeShare, else a point query. */
function mixed(seconds) {
  const base = new URL(ready.api).pathname;
  const { subjects } = ready;
  return autocannon({
    url: ready.api, connections, duration: seconds,
    requests: [{
      setupRequest(req) {
        if (Math.random() < writeShare) {
          const n = ++commits;
          return { ...req, method: 'POST', path: `${base}/insert/writes`, headers: { 'content-type': 'text/turtle' }, body: `<http://example.org/w/${n}> <http://example.org/value> ${n} .` };
        }
        const s = subjects[(queries++ * 7919) % subjects.length];
        return {
          ...req, method: 'POST', path: `${base}/query/bsbm`,
          headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
          body: `SELECT ?label WHERE { <${s}> <http://www.w3.org/2000/01/rdf-schema#label> ?label }`,
        };
      },
    }],
  });
}

/** One sample: process memory, the server's memory report, and the commits so far. */
async function sample(t0) {
  const m = await ask({ type: 'mem' });
  let report = null;
  try {
    const r = await fetch(`${ready.api}/stats/memory`);
    if (r.status === 200) report = await r.json(); else await r.body?.cancel(); // an older build has no /stats/memory
  } catch { /* ditto */ }
  const writes = report?.ledgers?.find((l) => l.ledger === 'writes:main');
  const g = live ? await ask({ type: 'gc' }) : null;
  const dictBytes = report?.ledgers?.reduce((a, l) => a + l.dict_bytes, 0);
  return {
    sec: Math.round((performance.now() - t0) / 1000), commits,
    rssMB: toMB(m.rss), heapMB: toMB(m.heapUsed), arrayBuffersMB: toMB(m.arrayBuffers),
    ...(g ? { liveHeapMB: toMB(g.heapUsed), liveArrayBuffersMB: toMB(g.arrayBuffers), rssAfterGcMB: toMB(g.rss) } : {}),
    leafCacheMB: report ? toMB(report.leaf_cache.bytes) : null,
    dictMB: dictBytes != null ? toMB(dictBytes) : null,
    writesTerms: writes?.terms ?? null,
    commitCacheMB: report?.commit_cache ? toMB(report.commit_cache.bytes) : null,
    dictPagesHeldMB: report?.dict_pages_held ? toMB(report.dict_pages_held.bytes) : null,
    writesDictPageMB: writes ? toMB(writes.dict_page_bytes) : null,
    writesAbsentLookups: writes?.dict_absent_lookups ?? null,
  };
}

/** Least-squares slope of y over x. */
function slope(xs, ys) {
  const n = xs.length;
  if (n < 2) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n, my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) { num += (xs[i] - mx) * (ys[i] - my); den += (xs[i] - mx) ** 2; }
  return den === 0 ? null : num / den;
}

try {
  await readyP;
  log(`soak: node ${nodeArgs.join(' ') || '(no flags)'}; configured total ${budgetMB ?? '?'} MB`);
  log(`soak: server ready; ${connections} connections, ${Math.round(writeShare * 100)}% inserts, ${duration} s, a sample every ${sampleSec} s`);
  const t0 = performance.now();
  const start = await sample(t0);
  const samples = [start];
  let requests = 0, non2xx = 0, errors = 0, timeouts = 0;
  const latencies = [];
  for (let done = 0; done < duration; done += sampleSec) {
    const r = await mixed(Math.min(sampleSec, duration - done));
    requests += r.requests.total; non2xx += r.non2xx; errors += r.errors; timeouts += r.timeouts;
    latencies.push(r.latency.p99);
    const s = await sample(t0);
    samples.push(s);
    log(`soak: ${JSON.stringify(s)}`);
    const first = done < duration / 3 && done + sampleSec >= duration / 3;
    if (snapshots && (first || done + sampleSec >= duration)) {
      const file = join(BENCH_DIR, 'out', `soak-heap-${s.sec}s-${s.commits}.heapsnapshot`);
      log(`soak: heap snapshot ${(await ask({ type: 'snapshot', file })).file}`);
    }
  }
  const afterGc = await ask({ type: 'gc' });
  worker.send({ type: 'stop' });
  const rss = samples.map((s) => s.rssMB);
  const third = Math.max(1, Math.floor(samples.length / 3));
  const avg = (xs) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10;
  const half = samples.slice(Math.floor(samples.length / 2));
  const kbPerCommit = slope(half.map((s) => s.commits), half.map((s) => s.rssMB * 1024));
  const last = samples.slice(-third);
  const lastThirdKbPerCommit = slope(last.map((s) => s.commits), last.map((s) => s.rssMB * 1024));
  const heapKbPerCommit = slope(half.map((s) => s.commits), half.map((s) => s.heapMB * 1024));
  // The term dictionary is data, not a cache: its share of the growth is reported apart.
  const dictKbPerCommit = half.every((s) => s.dictMB != null) ? slope(half.map((s) => s.commits), half.map((s) => s.dictMB * 1024)) : null;
  const round2 = (x) => (x == null ? null : Math.round(x * 100) / 100);
  const peak = Math.max(...rss);
  emitResult({
    suite: 'soak', durationSec: duration, connections, writeShare, serverArgs: args['server-args'] ?? null, nodeArgs: nodeArgs.join(' ') || null, root: args.root ?? null,
    requests, commits, requestsPerSec: Math.round(requests / duration), non2xx, errors, timeouts, worstP99Ms: Math.max(...latencies),
    rssMB: { start: start.rssMB, peak, firstThirdAvg: avg(rss.slice(0, third)), lastThirdAvg: avg(rss.slice(-third)), end: rss[rss.length - 1], afterGc: toMB(afterGc.rss), heapAfterGc: toMB(afterGc.heapUsed), arrayBuffersAfterGc: toMB(afterGc.arrayBuffers) },
    secondHalf: {
      rssKBPerCommit: round2(kbPerCommit), heapKBPerCommit: round2(heapKbPerCommit), dictKBPerCommit: round2(dictKbPerCommit),
      rssKBPerCommitBesidesDict: kbPerCommit != null && dictKbPerCommit != null ? round2(kbPerCommit - dictKbPerCommit) : null,
    },
    lastThird: { rssKBPerCommit: round2(lastThirdKbPerCommit), rssMin: Math.min(...last.map((s) => s.rssMB)), rssMax: Math.max(...last.map((s) => s.rssMB)) },
    budgetMB, belowBudget: budgetMB == null ? null : peak <= budgetMB,
    samples,
  });
} catch (e) {
  worker.kill();
  emitResult({ suite: 'soak', status: 'error', error: e instanceof Error ? e.message : String(e) });
  process.exitCode = 1;
}
