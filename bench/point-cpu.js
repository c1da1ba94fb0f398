#!/usr/bin/env node
/**
 * The CPU of one HTTP point query inside the server, without HTTP (issue 18): `npm run bench --
 * point-cpu`. A Ledgraph server from dist/ over file storage in a temp directory loads the BSBM
 * file into ledger `bsbm` (as bench/http-worker.js does); then the ≈30-row point query
 * `SELECT ?p ?o WHERE { <product> ?p ?o }` runs over the products in bench/http.js's order
 * (`(i * 7919) % products.length`) along the exact path of the server's fast path
 * (fast-query.ts → routes/query.ts runSparqlCall → runSparql → sparqlJsonBytes → chunksBody),
 * from query text to response bytes, one query after another.
 *
 * Per round and build: user and system CPU µs per query (process.cpuUsage), bytes allocated per
 * query (v8.GCProfiler: heap growth plus what each GC freed), and a split of the same queries run
 * stage by stage through the core functions (wall µs, which is CPU here: nothing waits):
 *   parse    parseSparqlCached (a parse-cache hit after warm-up)
 *   prepare  resolveDataset + executeQuery (prepare: runtime, plan)
 *   execute  pulling the plan's id batches without writing them
 *   writer   sparqlJsonBytes drained, minus `execute`
 *
 * Flags: --data <bsbm.nt>, --queries N per round (default: every product once), --rounds N timed
 * rounds (5), --warmup N untimed rounds (2), --root DIR (the build in DIR/dist), --base-root DIR (a
 * second build, e.g. a worktree of main, in its own process, its rounds alternating with this
 * build's: an old/new comparison in one run on a shared box), --profile FILE (a V8 CPU profile of
 * each build's last timed round of the server path, FILE-<build>.cpuprofile). Prints one JSON line on stdout and a
 * table on stderr.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GCProfiler } from 'node:v8';
import { ROOT_DIR, emitResult, labelledSubjects, log, median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const data = args.data ?? join(ROOT_DIR, 'bench/data/bsbm-2825.nt');

if (args.child) await child();
else await parent();

// ---------------------------------------------------------------------------------------------
// Parent: one child per build, rounds alternating

async function parent() {
  const rounds = Math.max(1, Number(args.rounds ?? 5));
  const warmup = Math.max(0, Number(args.warmup ?? 2));
  const builds = [['new', typeof args.root === 'string' ? args.root : ROOT_DIR]];
  if (typeof args['base-root'] === 'string') builds.unshift(['base', args['base-root']]);
  const self = fileURLToPath(import.meta.url);
  const kids = [];
  // One after another: two loads at once would only slow each other down.
  for (const [name, root] of builds) {
    const cp = fork(self, ['--child', '--root', root, '--data', data, ...(args.queries ? ['--queries', String(args.queries)] : [])], {
      execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const k = { name, root, cp, waiting: null };
    cp.on('message', (m) => { const w = k.waiting; k.waiting = null; w?.(m); });
    cp.on('exit', (code) => { if (k.waiting) { const w = k.waiting; k.waiting = null; w({ type: 'error', error: `child exited (${code})` }); } });
    k.ask = (msg) => new Promise((ok) => { k.waiting = ok; cp.send(msg); });
    const ready = await new Promise((ok) => { k.waiting = ok; });
    if (ready.type !== 'ready') throw new Error(`${name}: ${ready.error ?? 'not ready'}`);
    log(`point-cpu: ${name} (${root}) ready: ${ready.products} products, ${ready.triples} triples`);
    k.products = ready.products;
    kids.push(k);
  }
  const load = [loadavg()];
  for (let r = 0; r < warmup; r++) for (const k of kids) await k.ask({ type: 'round' });
  const results = Object.fromEntries(kids.map((k) => [k.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const k of kids) {
      const prof = typeof args.profile === 'string' && r === rounds - 1 ? `${args.profile.replace(/\.cpuprofile$/, '')}-${k.name}.cpuprofile` : undefined;
      const res = await k.ask({ type: 'round', ...(prof ? { profile: prof } : {}) });
      if (res.type !== 'round') throw new Error(`${k.name}: ${res.error}`);
      results[k.name].push(res);
    }
    log(`point-cpu: round ${r + 1}/${rounds}: ${kids.map((k) => `${k.name} ${results[k.name].at(-1).userUs.toFixed(1)} µs user/query`).join(', ')}`);
  }
  load.push(loadavg());
  for (const k of kids) { await k.ask({ type: 'stop' }); }
  const summary = {};
  for (const k of kids) {
    const rs = results[k.name];
    const m = (f) => median(rs.map(f));
    summary[k.name] = {
      root: k.root, queries: rs[0].queries, bytes: rs[0].bytes,
      userUs: m((x) => x.userUs), systemUs: m((x) => x.systemUs), allocBytes: m((x) => x.allocBytes), gcs: m((x) => x.gcs), hitRate: rs[0].hitRate == null ? null : m((x) => x.hitRate),
      split: Object.fromEntries(Object.keys(rs[0].split).map((s) => [s, m((x) => x.split[s])])),
      splitUserUs: m((x) => x.splitUserUs),
      rounds: rs.map((x) => Math.round(x.userUs * 10) / 10),
    };
  }
  const fmt = (x, d = 1) => (x == null ? '—' : x.toFixed(d));
  const names = kids.map((k) => k.name);
  const rows = [
    ['user CPU µs/query (server path)', ...names.map((n) => fmt(summary[n].userUs))],
    ['system CPU µs/query', ...names.map((n) => fmt(summary[n].systemUs))],
    ['allocated bytes/query', ...names.map((n) => fmt(summary[n].allocBytes, 0))],
    ['term bytes ring hit rate %', ...names.map((n) => fmt(summary[n].hitRate))],
    ['GCs per 1,000 queries', ...names.map((n) => fmt(summary[n].gcs * 1000 / summary[n].queries, 2))],
    ...Object.keys(summary[names[0]].split).map((s) => [`  split: ${s} µs`, ...names.map((n) => fmt(summary[n].split[s], 2))]),
    ['  split: user CPU µs/query', ...names.map((n) => fmt(summary[n].splitUserUs))],
  ];
  const ratio = summary.base ? summary.new.userUs / summary.base.userUs : null;
  log(`\nPoint query CPU in process (${summary.new.queries} queries per round, median of ${rounds} rounds, ${summary.new.bytes} bytes for product 0); load ${load[0].map((x) => x.toFixed(2)).join(' ')} → ${load[1].map((x) => x.toFixed(2)).join(' ')}`);
  const w = [34, ...names.map(() => 12)];
  log(['', ...names].map((c, i) => String(c).padStart(i ? w[i] : 0).padEnd(i ? 0 : w[0])).join(''));
  for (const r of rows) log(r.map((c, i) => (i ? String(c).padStart(w[i]) : String(c).padEnd(w[0]))).join(''));
  if (ratio !== null) log(`new / base user CPU: ${ratio.toFixed(3)} (${((1 - ratio) * 100).toFixed(1)} % less)`);
  emitResult({ status: 'ok', suite: 'point-cpu', date: new Date().toISOString(), loadavg: load, summary, newOverBase: ratio });
}

// ---------------------------------------------------------------------------------------------
// Child: one build, a loaded ledger, rounds on request

async function child() {
  const root = typeof args.root === 'string' ? args.root : ROOT_DIR;
  const imp = (p) => import(join(root, 'dist', p));
  const { startLedgraphServer } = await imp('server/main.js');
  const { defaultServerConfig } = await imp('server/config.js');
  const { silentLogger } = await imp('server/log.js');
  const { runSparqlCall, chunksBody } = await imp('server/routes/query.js');
  const { releaseSparqlJsonBytes, sparqlJsonBytes } = await imp('core/query/results/sparql-json-bytes.js');
  const { termBytes } = await imp('core/query/results/term-bytes.js');
  const { parseSparqlCached } = await imp('core/query/sparql-service.js');
  const { resolveDataset } = await imp('core/query/dataset.js');
  const { executeQuery } = await imp('core/query/engine.js');

  if (!existsSync(data)) { process.send({ type: 'error', error: `${data} not found (run npm run bench -- http once to generate it)` }); process.exit(1); }
  const dir = await mkdtemp(join(tmpdir(), 'lg-point-cpu-'));
  const config = { ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: dir, memory: false };
  const server = await startLedgraphServer(config, { version: 'bench', log: silentLogger });
  const conn = server.state.conn;
  await conn.create('bsbm');
  const loaded = await conn.bulkLoad('bsbm:main', createReadStream(data));
  const products = (await labelledSubjects(data, 60_000)).filter((s) => /\/Product\d+$/.test(s));
  await conn.idle();
  const n = Math.min(Number(args.queries ?? products.length), products.length);
  const texts = Array.from({ length: n }, (_, i) => `SELECT ?p ?o WHERE { <${products[(i * 7919) % products.length]}> ?p ?o }`);

  const ctx = { config, conn };
  const NO_HEADERS = { get: () => null };
  const AUTH = { group: 'data', mode: 'none', tokenPresent: false };
  /** The fast path's request abort without a socket: one controller for every request (the server pools them too; none aborts here), the deadline not armed. */
  const ac = new AbortController();
  const abort = () => ({ signal: ac.signal, expireAt() {}, dispose() {} });
  const silent = () => silentLogger;
  /** One query along the server's path; the body's byte count. */
  const serverPath = async (text) => {
    const input = { lang: 'sparql', text, defaultGraphUris: [], namedGraphUris: [] };
    return runSparqlCall(ctx, input, { accept: undefined, formatParam: undefined, headers: NO_HEADERS, auth: AUTH, pathLedger: 'bsbm', abort, bytes: true },
      async (chunks) => {
        const out = await chunksBody(chunks, silent, () => true);
        const len = out.length;
        if (out instanceof Uint8Array) releaseSparqlJsonBytes(out);
        return len;
      });
  };
  const first = await serverPath(texts[0]);

  /** The stages of one query through the core functions; `write` false pulls the id batches without writing. */
  const staged = async (text, write, t) => {
    const a = performance.now();
    const q = parseSparqlCached(text);
    const b = performance.now();
    const ds = await resolveDataset(conn, {}, { defaultLedger: 'bsbm' });
    const res = await executeQuery(q, { view: ds.view, defaultGraphs: ds.defaultGraphs, namedGraphs: ds.namedGraphs, resolveGraph: ds.resolveGraph, deadline: Date.now() + 60_000, signal: ac.signal });
    const c = performance.now();
    if (write) {
      for await (const chunk of sparqlJsonBytes(res)) releaseSparqlJsonBytes(chunk);
    } else {
      for await (const _ of res.ids.batches) { /* rows pulled, not written */ }
    }
    const d = performance.now();
    t.parse += b - a; t.prepare += c - b; t[write ? 'write' : 'execute'] += d - c;
  };

  let session = null;
  /** A V8 CPU profile of the server-path loop (--profile FILE: the last timed round of this build). */
  const profiler = async (what, file) => {
    const { Session } = await import('node:inspector/promises');
    if (what === 'start') {
      session = new Session();
      session.connect();
      if (process.env.HEAP_PROFILE) { await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }); return; }
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
      return;
    }
    const { profile } = process.env.HEAP_PROFILE ? await session.post('HeapProfiler.stopSampling') : await session.post('Profiler.stop');
    session.disconnect();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, JSON.stringify(profile));
  };

  process.on('message', async (msg) => {
    try {
      if (msg.type === 'stop') { await server.close(1000); await rm(dir, { recursive: true, force: true }); process.exit(0); }
      if (msg.type !== 'round') return;
      // No forced GC first: a full GC just before a round made its queries cost 2.5x (steady state is what a server sees).
      const prof = new GCProfiler();
      prof.start();
      const heap0 = process.memoryUsage().heapUsed;
      const tb = termBytes(), hits0 = tb.hits ?? 0, misses0 = tb.misses ?? 0;
      if (msg.profile) await profiler('start');
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < n; i++) await serverPath(texts[i]);
      const cpu = process.cpuUsage(cpu0);
      if (msg.profile) await profiler('stop', msg.profile);
      const heap1 = process.memoryUsage().heapUsed;
      // Builds without the counters report no rate.
      const lookups = (tb.hits ?? 0) - hits0 + (tb.misses ?? 0) - misses0;
      const hitRate = tb.hits === undefined || lookups === 0 ? null : ((tb.hits - hits0) / lookups) * 100;
      const stats = prof.stop();
      let freed = 0;
      for (const s of stats.statistics) freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
      // The split: the same queries stage by stage (writing), then pulling only.
      const t = { parse: 0, prepare: 0, execute: 0, write: 0 };
      const t2 = { parse: 0, prepare: 0, execute: 0, write: 0 };
      const scpu0 = process.cpuUsage();
      for (let i = 0; i < n; i++) await staged(texts[i], true, t);
      const scpu = process.cpuUsage(scpu0);
      for (let i = 0; i < n; i++) await staged(texts[i], false, t2);
      const us = (ms) => (ms * 1000) / n;
      process.send({
        type: 'round', queries: n, bytes: first,
        userUs: cpu.user / n, systemUs: cpu.system / n, allocBytes: (heap1 - heap0 + freed) / n, gcs: stats.statistics.length, hitRate,
        split: { parse: us(t.parse), prepare: us(t.prepare), execute: us(t2.execute), writer: us(t.write - t2.execute) },
        splitUserUs: scpu.user / n,
      });
    } catch (e) {
      process.send({ type: 'error', error: e instanceof Error ? e.stack : String(e) });
    }
  });
  log(`point-cpu child: loaded ${loaded.triples} triples into ${dir}`);
  process.send({ type: 'ready', products: products.length, triples: loaded.triples });
}
