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
 *   options: --server-args="<flags>", --node-args="<V8 flags>", --settle SEC (second breakdown after
 *            SEC seconds idle, default 35: past the dictionary pages' 30 s grace window)
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

/** One breakdown of the server's RSS by owner, each byte counted once (after full GCs). */
async function breakdown(api) {
  await ask({ type: 'gc' });
  const report = await (await fetch(`${api}/stats/memory`)).json();
  const kernel = procStatus(worker.pid);
  const p = report.process;
  const sum = (f) => report.ledgers.reduce((a, l) => a + f(l), 0);
  const spaces = report.heap_spaces;
  const caches = {
    leafCache: report.leaf_cache.bytes,
    dictPagesHeld: report.dict_pages_held.bytes,
    dictFiltersFingerprintsDelta: sum((l) => l.dict_bytes),
    novelty: sum((l) => l.novelty_bytes),
    termCaches: sum((l) => l.term_cache_bytes),
    commitCache: report.commit_cache.bytes,
    parseCache: report.caches.parse_cache_bytes,
  };
  // The leaf cache holds decoded index leaves (typed arrays: ArrayBuffers, charged exactly) and
  // decoded dictionary pages (JavaScript strings: heap); the pages held for their grace window are
  // among the latter (the same objects), so they are not counted again.
  const leafArrayBuffers = Math.min(caches.leafCache, p.array_buffers);
  const leafHeap = caches.leafCache - leafArrayBuffers;
  const heapStructures = caches.dictFiltersFingerprintsDelta + caches.novelty + caches.termCaches + caches.commitCache + caches.parseCache;
  const rows = {
    'leaf cache: index leaves (ArrayBuffers)': leafArrayBuffers,
    'leaf cache: dictionary pages (heap)': leafHeap,
    'dictionary page filters, fingerprints, delta (heap)': caches.dictFiltersFingerprintsDelta,
    'novelty (heap)': caches.novelty,
    'term caches (heap)': caches.termCaches,
    'commit-envelope cache (heap)': caches.commitCache,
    'parse caches (heap)': caches.parseCache,
    'V8 heap, everything else used (code, module graph, closures, request state)': p.heap_used - leafHeap - heapStructures,
    'V8 heap committed, not in use (semi-spaces, fragmentation)': p.heap_total - p.heap_used,
    'other ArrayBuffers': p.array_buffers - leafArrayBuffers,
    'other external memory (not ArrayBuffers)': p.external - p.array_buffers,
    'file-backed pages (node binary, shared libraries, ICU)': kernel.RssFile ?? 0,
    'native, anonymous (V8 internals, malloc, thread stacks, libuv)': p.rss - p.heap_total - p.external - (kernel.RssFile ?? 0),
  };
  return { process: p, kernel, limits: report.limits, caches, heapSpaces: spaces, rows, ledgers: report.ledgers.map((l) => ({ ledger: l.ledger, terms: l.terms })) };
}

const mb = (x) => (x == null ? '—' : toMB(x).toFixed(1));
function print(label, b) {
  log(`memory: ${label}: RSS ${mb(b.process.rss)} MB (peak ${mb(b.kernel.VmHWM)}); V8 heap ${mb(b.process.heap_used)} used of ${mb(b.process.heap_total)} committed, limit ${mb(b.limits.heap_size_limit)}`);
  for (const [k, v] of Object.entries(b.rows)) log(`memory:   ${mb(v).padStart(7)} MB  ${k}`);
  for (const [k, v] of Object.entries(b.heapSpaces)) if (v.size > 0) log(`memory:   V8 ${k}: ${mb(v.used)} MB used of ${mb(v.size)}`);
}

try {
  const r = await ready;
  await ask({ type: 'idle' });
  const afterLoad = await breakdown(r.api);
  print('after load + GC', afterLoad);
  // The dictionary pages the load touched are held for a 30 s grace window; after it only the
  // leaf cache's budget keeps them.
  const settle = Number(args.settle ?? 35);
  await new Promise((ok) => setTimeout(ok, settle * 1000));
  const settled = await breakdown(r.api);
  print(`${settle} s later + GC`, settled);
  worker.send({ type: 'stop' });
  emitResult({ suite: 'memory', memoryLimit, nodeArgs: nodeArgs.join(' '), afterLoad, settled, settleSec: settle });
} catch (e) {
  worker.kill();
  emitResult({ suite: 'memory', status: 'error', error: e instanceof Error ? e.message : String(e) });
  process.exitCode = 1;
}
