#!/usr/bin/env node
/**
 * Issue 18's bulk-load figures (run by `npm run bench -- load` after the engine workers; prints one
 * JSON line):
 *
 *   node --expose-gc bench/load-cli.js --data FILE.nt [--root DIR] [--chunk 50000] [--phases empty,existing,insert]
 *     [--server-node-args=--cpu-prof,--cpu-prof-dir=DIR]   (Node flags for the insert phase's server)
 *
 *   empty     `ledgraph load bench FILE.nt --storage-path DIR` into a new ledger, as a user runs it
 *             (a child process: start-up, parse, commits, index, fsyncs; wall time until it exits)
 *   single    the same command with --no-worker (parsing on the main thread) into another empty
 *             ledger: what the worker threads change, in the same run
 *   existing  the same command with a second ≈1M-triple file (FILE's instance IRIs moved to
 *             .../instances2/, so every triple is new) into the ledger the first run left
 *   insert    a server (`ledgraph server`, file storage, --reindex-max-bytes 256MiB so a 50,000-triple
 *             commit is admitted) and FILE sent as sequential POST /insert requests of --chunk lines
 *             of N-Triples each (the file's bytes cut at newlines, the next piece read while the
 *             server commits one: the client costs ≈0.2 s of CPU, not the ≈1.6 s that reading it
 *             line by line into strings did); wall time until the last receipt, and until POST
 *             /reindex has everything indexed
 *
 * Each figure is triples added / wall seconds; run.js divides them by oxigraph's in-memory load
 * rate measured in the same run. The load average is sampled before and after every phase.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { CID } from 'multiformats/cid';
import { StreamParser } from 'n3';
import { BENCH_DIR, ROOT_DIR, dirSize, emitResult, errorMessage, log, parseArgs, toMB } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const data = resolve(String(args.data));
const root = resolve(String(args.root ?? join(BENCH_DIR, 'data', 'load-cli')));
const chunk = Number(args.chunk ?? 50_000);
const phases = new Set(String(args.phases ?? 'parse,empty,single,existing,insert').split(','));
// Node flags for the insert phase's server, e.g. `--server-node-args=--cpu-prof,--cpu-prof-dir=/tmp/p`.
const serverNodeArgs = args['server-node-args'] ? String(args['server-node-args']).split(',') : [];
// The insert phase's route: `insert` (default) or `load` (POST /load per request: the bulk path, for comparison).
const insertRoute = String(args['insert-route'] ?? 'insert');
const CLI = join(ROOT_DIR, 'bin', 'ledgraph.js');
const CPU_REPORT = new URL('./cpu-report.js', import.meta.url).href;
// The node flags bin/ledgraph.cjs launches `ledgraph load` with (LOAD_SEMI_SPACE_MIB, LOAD_INITIAL_HEAP_MIB there): the
// command runs bin/ledgraph.js directly so that cpu-report.js sees the loading process itself.
const LOAD_NODE_FLAGS = ['--max-semi-space-size=32', '--initial-heap-size=512'];
const INST = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/';
const load1 = () => Math.round(loadavg()[0] * 10) / 10;

/** FILE with its instance IRIs moved to a second namespace (cached beside FILE). */
async function secondFile() {
  const out = data.replace(/\.nt$/, '-b.nt');
  if (existsSync(out)) return out;
  log(`load-cli: writing ${out}`);
  const w = createWriteStream(out + '.tmp');
  const rl = createInterface({ input: createReadStream(data), crlfDelay: Infinity });
  for await (const line of rl) if (!w.write(line.replaceAll(INST, INST.replace('instances/', 'instances2/')) + '\n')) await once(w, 'drain');
  w.end();
  await once(w, 'finish');
  const { renameSync } = await import('node:fs');
  renameSync(out + '.tmp', out);
  return out;
}

/** Run the CLI; resolves with wall seconds and its parsed stdout JSON. */
function cli(argv) {
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...(argv[0] === 'load' ? LOAD_NODE_FLAGS : []), '--import', CPU_REPORT, CLI, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      if (code !== 0) return fail(new Error(`ledgraph ${argv.join(' ')} exited ${code}: ${err.trim().split('\n').pop()}`));
      const cpu = /bench-cpu (\{.*\})/.exec(err);
      const u = cpu ? JSON.parse(cpu[1]) : null;
      ok({ seconds, cpuSeconds: u ? round((u.user + u.system) / 1e6) : null, result: JSON.parse(out) });
    });
  });
}

/** Object files under a storage directory by kind (codec of their CID): count and MB on disk. */
function diskByKind(dir) {
  const KIND = { 0x300001: 'commit', 0x300002: 'txn', 0x300003: 'indexRoot', 0x300004: 'indexBranch', 0x300005: 'indexLeaf', 0x300006: 'dict', 0x30000a: 'indexSummary' };
  const out = {};
  const objects = join(dir, 'objects');
  if (!existsSync(objects)) return out;
  for (const shard of readdirSync(objects)) {
    for (const name of readdirSync(join(objects, shard))) {
      let kind = 'other';
      try { kind = KIND[CID.parse(name).code] ?? 'other'; } catch { /* a temp file */ }
      const e = (out[kind] ??= { files: 0, MB: 0 });
      e.files++;
      e.MB += statSync(join(objects, shard, name)).size / 1e6;
    }
  }
  for (const e of Object.values(out)) e.MB = Math.round(e.MB * 10) / 10;
  return out;
}

/**
 * The parse floor, in this process: the file through the bulk path's N-Triples reader into a sink
 * that only counts (no dictionary, no sort, no commit), and through n3's StreamParser (what
 * Turtle/TriG loads and POST /insert bodies use), each timed with its CPU.
 */
async function parsePhase() {
  const { readDocument } = await import('../dist/core/transact/bulk-sources.js');
  const time = async (fn) => {
    const c0 = process.cpuUsage(), t0 = performance.now();
    const n = await fn();
    const c = process.cpuUsage(c0);
    const seconds = (performance.now() - t0) / 1000;
    return { statements: n, seconds: round(seconds), cpuSeconds: round((c.user + c.system) / 1e6), triplesPerSec: Math.round(n / seconds) };
  };
  const reader = await time(async () => {
    let n = 0;
    // A sink that only counts: strings (a key's first spelling) and ids are made, nothing numbered or kept.
    await readDocument(createReadStream(data), 'n-triples', undefined, { add() { n++; }, row() { n++; }, fresh: () => 0, keyId: () => 0, graphId: () => 0 });
    return n;
  });
  const n3 = await time(() => new Promise((ok, fail) => {
    let n = 0;
    const parser = new StreamParser({ format: 'N-Triples' });
    parser.on('data', () => { n++; }).on('error', fail).on('end', () => ok(n));
    createReadStream(data).pipe(parser);
  }));
  const r = { ntriplesReader: reader, n3StreamParser: n3 };
  log(`load-cli: parse floor: ${JSON.stringify(r)}`);
  return r;
}

async function loadPhase(name, file, dir, extra = []) {
  const before = load1();
  log(`load-cli: ${name}: ledgraph load bench ${file} ${extra.join(' ')}`);
  const { seconds, cpuSeconds, result } = await cli(['load', 'bench', file, '--storage-path', dir, ...extra]);
  const r = { triples: result.triples, statements: result.statements, commits: result.commits, t: result.t, seconds: round(seconds), cpuSeconds, triplesPerSec: Math.round(result.triples / seconds), loadavg: [before, load1()], diskMB: toMB(dirSize(dir).bytes), diskBytes: dirSize(dir).bytes, diskByKind: diskByKind(dir) };
  log(`load-cli: ${name}: ${JSON.stringify(r)}`);
  return r;
}

const round = (x) => Math.round(x * 1000) / 1000;

/** CPU seconds (user + system, all threads) a live process has used, from /proc; null elsewhere. */
function procCpuSeconds(pid, task = null) {
  try {
    const f = readFileSync(task === null ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`, 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return round((Number(fields[11]) + Number(fields[12])) / 100); // utime, stime in clock ticks (100/s)
  } catch {
    return null;
  }
}

/** A server on a fresh directory; resolves with its API base, its CPU so far and a stop function. */
async function startServer(dir) {
  const child = spawn(process.execPath, [...serverNodeArgs, CLI, 'server', '--port', '0', '--storage-path', dir, '--reindex-max-bytes', '256MiB', '--reindex-min-bytes', '16MiB', '--body-limit', '256MiB', '--no-explorer-enabled'], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Keep reading its log lines for good: a full stdout pipe would stall the server.
  const rl = createInterface({ input: child.stdout });
  return new Promise((ok, fail) => {
    rl.on('line', (line) => {
      try {
        const m = JSON.parse(line);
        if (m.msg === 'ledgraph listening') ok({ api: m.url + m.api_base_url, cpuSeconds: () => procCpuSeconds(child.pid), mainCpuSeconds: () => procCpuSeconds(child.pid, child.pid), stop: async () => { child.kill('SIGTERM'); await once(child, 'exit'); } });
      } catch { /* not a log line */ }
    });
    child.on('exit', (code) => fail(new Error(`server exited (${code}) before listening`)));
  });
}

/**
 * FILE's bytes in pieces of `lines` whole lines each (the last may have fewer), cut at newlines
 * without decoding: the client's own cost stays a small part of what the insert phase measures.
 */
async function* linePieces(file, lines) {
  let parts = [], count = 0;
  for await (const buf of createReadStream(file, { highWaterMark: 4 << 20 })) {
    let from = 0;
    for (let at = buf.indexOf(10, from); at >= 0; at = buf.indexOf(10, at + 1)) {
      if (++count < lines) continue;
      parts.push(buf.subarray(from, at + 1));
      yield Buffer.concat(parts);
      parts = [];
      count = 0;
      from = at + 1;
    }
    if (from < buf.length) parts.push(buf.subarray(from));
  }
  if (parts.length) {
    const rest = Buffer.concat(parts);
    yield rest[rest.length - 1] === 10 ? rest : Buffer.concat([rest, Buffer.from('\n')]);
  }
}

async function insertPhase(dir) {
  const before = load1();
  const srv = await startServer(dir);
  try {
    const post = async (path, body, type) => {
      const res = await fetch(srv.api + path, { method: 'POST', headers: { 'Content-Type': type }, body });
      if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
      return res.json();
    };
    await post('/create', JSON.stringify({ ledger: 'bench' }), 'application/json');
    log(`load-cli: insert: POST /${insertRoute} of ${chunk} triples each`);
    const cpu0 = srv.cpuSeconds(), main0 = srv.mainCpuSeconds();
    const t0 = performance.now();
    let requests = 0, added = 0, last = null;
    const send = async (body) => {
      last = await post(`/${insertRoute}/bench`, body, 'application/n-triples');
      added += last.flakes_added ?? last.triples;
      if (++requests % 5 === 0) log(`load-cli: insert: ${requests} requests, ${added} triples, ${round((performance.now() - t0) / 1000)} s`);
    };
    // The next piece is read while the server commits this one, as a streaming loader would.
    const pieces = linePieces(data, chunk);
    let next = pieces.next();
    for (;;) {
      const piece = await next;
      if (piece.done) break;
      next = pieces.next();
      await send(piece.value);
    }
    const committed = (performance.now() - t0) / 1000;
    const cpuCommitted = srv.cpuSeconds() - cpu0, mainCommitted = srv.mainCpuSeconds() - main0;
    // Then POST /reindex (waits for a running index job, indexes what novelty is left): the time
    // until everything is in the index, which novelty below --reindex-min-bytes never triggers by itself.
    const ri = await post('/reindex', JSON.stringify({ ledger: 'bench' }), 'application/json');
    if (ri.index_t < last.t) throw new Error(`reindex reached t ${ri.index_t}, not ${last.t}`);
    const indexed = (performance.now() - t0) / 1000;
    const cpuIndexed = srv.cpuSeconds() - cpu0;
    const r = { triples: added, requests, seconds: round(committed), cpuSeconds: round(cpuCommitted), mainThreadCpuSeconds: round(mainCommitted), indexedCpuSeconds: round(cpuIndexed), triplesPerSec: Math.round(added / committed), indexedSeconds: round(indexed), indexedTriplesPerSec: Math.round(added / indexed), loadavg: [before, load1()] };
    log(`load-cli: insert: ${JSON.stringify(r)}`);
    return r;
  } finally {
    await srv.stop();
  }
}

async function main() {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const out = { suite: 'load-cli', status: 'ok', data, ntBytes: statSync(data).size, chunk, loadavgAtStart: loadavg() };
  const dir = join(root, 'cli');
  if (phases.has('parse')) out.parse = await parsePhase();
  if (phases.has('empty') || phases.has('existing')) out.empty = await loadPhase('empty', data, dir);
  if (phases.has('single')) out.single = await loadPhase('single', data, join(root, 'single'), ['--no-worker']);
  if (phases.has('existing')) out.existing = await loadPhase('existing', await secondFile(), dir);
  if (phases.has('insert')) out.insert = await insertPhase(join(root, 'server'));
  out.loadavgAtEnd = loadavg();
  if (!args.keep) rmSync(root, { recursive: true, force: true });
  emitResult(out);
}

main().catch((err) => {
  emitResult({ suite: 'load-cli', status: 'error', error: errorMessage(err) });
  log(err?.stack ?? String(err));
  process.exit(1);
});
