#!/usr/bin/env node
/**
 * Where the memory goes after a load (issue 18, docs/memory.md): a real server process
 * (bench/http-worker.js, file storage) loads and indexes the BSBM ledger (pc = 2825: ≈ 1M triples),
 * is left idle, gets full GCs, and its RSS is broken down by owner from `GET /stats/memory` (cache
 * and structure estimates, V8's heap spaces) and the kernel's view of the process
 * (/proc/<pid>/status: anonymous vs file-backed pages). The server runs with the V8 heap flags the
 * `ledgraph` launcher derives from the default --memory-limit (or --server-args' one), as a user's
 * `ledgraph server` would; --node-args replaces them.
 *
 *   npm run bench -- memory            (pc = 2825)
 *   options: --server-args="<flags>", --node-args="<V8 flags>"
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, ROOT_DIR, emitResult, log, parseArgs, toMB } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const plan = await import(join(ROOT_DIR, 'dist/server/memory-plan.js'));
const serverFlags = typeof args['server-args'] === 'string' ? args['server-args'].split(/\s+/).filter(Boolean) : [];
const memoryLimit = plan.memoryLimitOf(serverFlags, {});
const userNodeArgs = typeof args['node-args'] === 'string' ? args['node-args'].split(/\s+/).filter(Boolean) : [];
const nodeArgs = memoryLimit && !plan.setsHeapSize(userNodeArgs) ? [...userNodeArgs, ...plan.heapFlags(memoryLimit)] : userNodeArgs;

const workerArgs = ['--stream-rows', '0'];
if (args.data) workerArgs.push('--data', String(args.data));
if (serverFlags.length) workerArgs.push(`--server-args=${serverFlags.join(' ')}`);
const worker = fork(join(BENCH_DIR, 'http-worker.js'), workerArgs, { execArgv: ['--expose-gc', ...nodeArgs], env: { ...process.env, ...(plan ? plan.launchEnv(process.env) : {}) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const replies = [];
const ready = new Promise((ok, fail) => {
  worker.on('message', (m) => { if (m.type === 'ready') ok(m); else replies.shift()?.(m); });
  worker.on('exit', (code) => fail(new Error(`http-worker exited with code ${code}`)));
});
const ask = (msg) => new Promise((ok) => { replies.push(ok); worker.send(msg); });

/** The kernel's RSS split of a process, bytes. */
function procStatus(pid) {
  const out = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const m = /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]] = Number(m[2]) * 1024;
  }
  return out;
}

try {
  const r = await ready;
  await ask({ type: 'idle' });
  await ask({ type: 'gc' });
  const report = await (await fetch(`${r.api}/stats/memory`)).json();
  const kernel = procStatus(worker.pid);
  const p = report.process;
  const sum = (f) => report.ledgers.reduce((a, l) => a + f(l), 0);
  const spaces = report.heap_spaces;
  const spaceUsed = (name) => spaces[name]?.used ?? 0;
  // Owners, each once: the leaf cache's decoded leaves and pages are ArrayBuffers (exact); the
  // per-structure heap estimates are docs/memory.md's; V8's own rest is the heap minus them.
  const caches = {
    leafCache: report.leaf_cache.bytes,
    dictPagesHeld: report.dict_pages_held.bytes,
    dictFiltersFingerprintsDelta: sum((l) => l.dict_bytes),
    novelty: sum((l) => l.novelty_bytes),
    termCaches: sum((l) => l.term_cache_bytes),
    commitCache: report.commit_cache.bytes,
    parseCache: report.caches.parse_cache_bytes,
  };
  const heapEstimated = caches.dictPagesHeld + caches.dictFiltersFingerprintsDelta + caches.novelty + caches.termCaches + caches.commitCache + caches.parseCache;
  const breakdown = {
    rss: p.rss,
    leafCacheArrayBuffers: Math.min(caches.leafCache, p.array_buffers),
    otherArrayBuffers: Math.max(0, p.array_buffers - caches.leafCache),
    externalNotArrayBuffers: p.external - p.array_buffers,
    heapLedgraphStructures: heapEstimated,
    heapOther: p.heap_used - heapEstimated,
    heapCommittedUnused: p.heap_total - p.heap_used,
    codeSpace: spaceUsed('code_space'),
    fileBacked: kernel.RssFile ?? null,
    nativeRest: p.rss - p.heap_total - p.external - (kernel.RssFile ?? 0),
  };
  const mb = (x) => (x == null ? '—' : toMB(x).toFixed(1));
  log(`memory: after load + idle + GC: RSS ${mb(p.rss)} MB (kernel: anonymous ${mb(kernel.RssAnon)}, file-backed ${mb(kernel.RssFile)}); heap used ${mb(p.heap_used)} of ${mb(p.heap_total)} committed, limit ${mb(report.limits.heap_size_limit)}; ArrayBuffers ${mb(p.array_buffers)}`);
  for (const [k, v] of Object.entries(caches)) log(`memory:   ${k.padEnd(30)} ${mb(v).padStart(8)} MB`);
  for (const [k, v] of Object.entries(spaces)) log(`memory:   V8 ${k.padEnd(27)} ${mb(v.used).padStart(8)} MB used of ${mb(v.size)}`);
  worker.send({ type: 'stop' });
  emitResult({
    suite: 'memory', memoryLimit, nodeArgs: nodeArgs.join(' '), ledgers: report.ledgers.map((l) => ({ ledger: l.ledger, terms: l.terms })),
    process: p, kernel, limits: report.limits, caches, heapSpaces: spaces, breakdown,
  });
} catch (e) {
  worker.kill();
  emitResult({ suite: 'memory', status: 'error', error: e instanceof Error ? e.message : String(e) });
  process.exitCode = 1;
}
