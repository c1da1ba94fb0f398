#!/usr/bin/env node
/**
 * The server side of the HTTP bench (bench/http.js forks this file): a real Ledgraph server from
 * ../dist on a loopback port over file storage in a temp directory, with three ledgers —
 * `bsbm` (the BSBM data, point queries), `writes` (single-fact inserts) and `stream` (N generated
 * facts for the streaming run) — loaded before it reports ready. It runs in its own process so
 * its memory is measured apart from the load generator; the parent asks for samples over IPC.
 *
 * IPC: → {type: 'ready', url, api, subjects, streamRows} once listening;
 *      ← {type: 'mem'} → {type: 'mem', rss, heapUsed, external};
 *      ← {type: 'gc'} → full GCs, then a 'mem' reply;
 *      ← {type: 'cpu'} → {type: 'cpu', user, system} (process.cpuUsage(), µs);
 *      ← {type: 'profile-start'} → V8 CPU profiler on, {type: 'profile'};
 *      ← {type: 'profile-stop', file} → the .cpuprofile written to `file`, {type: 'profile', file};
 *      ← {type: 'mix', reps} → the BSBM explore mix (24 queries) run in process on the `bsbm` ledger
 *        `reps` times after one untimed pass: {type: 'mix', times: [ms...], rows: [per query]};
 *      ← {type: 'idle'} → waits for background index jobs, then {type: 'idle'};
 *      ← {type: 'stop'} → close and exit.
 * `--stream-rows 0` skips the streaming ledger. `--server-args '<flags>'` passes `ledgraph server`
 * flags (e.g. memory budgets) through the real flag parser; `--root DIR` runs the build in DIR/dist
 * (another checkout, for before/after comparisons).
 */
import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { ROOT_DIR, labelledSubjects, log, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const data = args.data ?? join(ROOT_DIR, 'bench/data/bsbm-2825.nt');
const streamRows = Number(args['stream-rows'] ?? 1_000_000);

const root = typeof args.root === 'string' ? args.root : ROOT_DIR;
const { startLedgraphServer } = await import(join(root, 'dist/server/main.js'));
const { defaultServerConfig, parseServerArgs } = await import(join(root, 'dist/server/config.js'));
const { silentLogger } = await import(join(root, 'dist/server/log.js'));

const dir = await mkdtemp(join(tmpdir(), 'lg-http-bench-'));
const flags = typeof args['server-args'] === 'string' ? args['server-args'].split(/\s+/).filter(Boolean) : [];
const base = flags.length ? parseServerArgs(flags).config : defaultServerConfig();
const config = { ...base, host: '127.0.0.1', port: 0, storagePath: dir, memory: false };
const server = await startLedgraphServer(config, { version: 'bench', log: silentLogger });
const conn = server.state.conn;

/** N-Triples of the streaming ledger, in chunks. */
async function* generated(n) {
  const CHUNK = 10_000;
  for (let i = 0; i < n; i += CHUNK) {
    let s = '';
    for (let j = i; j < Math.min(n, i + CHUNK); j++) s += `<http://example.org/item/${j}> <http://example.org/label> "item number ${j}" .\n`;
    yield s;
  }
}

let t0 = performance.now();
await conn.create('bsbm');
let subjects = [];
let products = [];
if (existsSync(data)) {
  const r = await conn.bulkLoad('bsbm:main', createReadStream(data));
  subjects = await labelledSubjects(data, 5000);
  // Products (≈30 facts each): the subjects of the ≈30-row point query.
  products = (await labelledSubjects(data, 60_000)).filter((s) => /\/Product\d+$/.test(s));
  log(`http-worker: loaded ${data} (${r.triples} triples) in ${Math.round(performance.now() - t0)} ms`);
} else {
  await conn.bulkLoad('bsbm:main', generated(100_000));
  for (let i = 0; i < 5000; i++) subjects.push(`http://example.org/item/${i * 17}`);
  products = subjects;
  log(`http-worker: ${data} not found; loaded 100,000 generated facts`);
}
await conn.create('writes');
if (streamRows > 0) {
  t0 = performance.now();
  await conn.create('stream');
  await conn.bulkLoad('stream:main', generated(streamRows));
  log(`http-worker: generated the ${streamRows.toLocaleString('en-US')}-fact stream ledger in ${Math.round(performance.now() - t0)} ms`);
}
await conn.idle();

const mem = () => {
  const m = process.memoryUsage();
  return { type: 'mem', rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
};

/**
 * The explore mix in process, as the query bench runs it (querySparql on the ledger's head Db,
 * every row read): one untimed pass, then `reps` timed passes.
 */
async function inProcessMix(reps) {
  const params = data.replace(/\.nt$/, '.params.json');
  if (!existsSync(params)) return { times: [], rows: [] };
  const { loadQueries } = await import('./queries.js');
  const { querySparql } = await import(join(root, 'dist/core/query/engine.js'));
  const { mix } = loadQueries(params);
  const once = async () => {
    const db = await conn.db('bsbm:main');
    const rows = [];
    for (const q of mix) {
      const res = await querySparql(q.text, { view: db });
      let n = 0;
      if (res.type === 'boolean') n = 1;
      else for await (const _ of res.type === 'quads' ? res.quads : res.rows) n++;
      rows.push(n);
    }
    return rows;
  };
  const rows = await once();
  const times = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await once();
    times.push(performance.now() - t0);
  }
  return { times, rows, queries: mix.map((q) => q.text) };
}

/** The inspector session of a running CPU profile, if any. */
let profiler = null;

process.on('message', async (msg) => {
  if (msg.type === 'mem') process.send(mem());
  else if (msg.type === 'cpu') process.send({ type: 'cpu', ...process.cpuUsage() });
  else if (msg.type === 'profile-start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 500 });
    await profiler.post('Profiler.start');
    process.send({ type: 'profile' });
  } else if (msg.type === 'profile-stop') {
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    profiler = null;
    await writeFile(msg.file, JSON.stringify(profile));
    process.send({ type: 'profile', file: msg.file });
  }
  else if (msg.type === 'mix') process.send({ type: 'mix', ...(await inProcessMix(msg.reps)) });
  else if (msg.type === 'idle') { await conn.idle(); process.send({ type: 'idle' }); }
  else if (msg.type === 'snapshot') {
    // A heap snapshot (after full GCs, so it holds what the server retains) for bench/heap-diff.js.
    for (let i = 0; i < 3; i++) { global.gc?.(); await new Promise((r) => setTimeout(r, 20)); }
    process.send({ type: 'snapshot', file: writeHeapSnapshot(msg.file) });
  }
  else if (msg.type === 'gc') {
    for (let i = 0; i < 3; i++) { global.gc?.(); await new Promise((r) => setTimeout(r, 20)); }
    process.send(mem());
  } else if (msg.type === 'stop') {
    await server.close(1000);
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  }
});
process.on('disconnect', () => { void rm(dir, { recursive: true, force: true }).finally(() => process.exit(0)); });

process.send({ type: 'ready', url: server.url, api: server.url + config.apiBaseUrl, subjects, products, streamRows });
