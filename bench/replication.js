#!/usr/bin/env node
/**
 * Replication bench (`npm run bench -- replication`): two real servers (bench/repl-server.js, each
 * its own process and file storage, storage proxy on), server A holding the BSBM ledger. The
 * `ledgraph` command-line client runs as a child process for each step, as a user would run it:
 *
 *   1. `cp -r` of A's storage directory (the physical floor of copying the ledger);
 *   2. `ledgraph export bsbm <file> --from a` (a .flpack archive with indexes, over POST /pack);
 *   3. `ledgraph import <file> bsbm-imported --to b` (POST /import);
 *   4. `ledgraph clone a bsbm --to b` (one pack with indexes from A, streamed into B's /import);
 *   5. 1,000 single-fact commits on A, then `ledgraph pull a bsbm --to b` (GET /commits pages,
 *      one POST /push) into B's clone, opened beforehand as on a server that serves it.
 *
 * Each step reports its wall time, the client's CPU time and peak RSS (/usr/bin/time), and per
 * server the RSS growth over the step (peak during the step minus RSS after GC before it) and the
 * CPU time it spent (steadier than wall time on a shared box). Acceptance
 * (issue 10): export and import ≤ 15 s each, clone ≤ 20 s, the pull ≤ 2 s, server RSS growth
 * ≤ 150 MB in every step. A clone is checked to have A's head. Prints one JSON result line.
 *
 * Flags: --data <bsbm.nt> (run.js passes it), --commits <n> (1000), --profile (servers and the CLI
 * run with --cpu-prof; profiles in bench/out/), --keep (leave the temp directory).
 */
import { fork, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, ROOT_DIR, dirSize, log, parseArgs, toMB } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const data = String(args.data ?? join(ROOT_DIR, 'bench/data/bsbm-2825.nt'));
const commits = Number(args.commits ?? 1000);
const LIMITS = { exportS: 15, importS: 15, cloneS: 20, pullS: 2, serverRssGrowthMB: 150 };
const BIN = join(ROOT_DIR, 'bin/ledgraph.js');
if (!existsSync(data)) throw new Error(`BSBM data not found: ${data} (npm run bench -- replication generates it)`);

const work = await mkdtemp(join(tmpdir(), 'lg-repl-bench-'));
const config = join(work, 'remotes.json');
const profDir = join(BENCH_DIR, 'out');

/** Run the CLI; resolves with wall seconds, the client's peak RSS and its output. */
function cli(argv) {
  return new Promise((resolve, reject) => {
    const timeFile = join(work, 'time.txt');
    const t0 = performance.now();
    const prof = args.profile ? ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-name', `replication-cli-${argv[0]}-${Date.now()}.cpuprofile`] : [];
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, process.execPath, ...prof, BIN, ...argv, '--config', config], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      if (code !== 0) return reject(new Error(`ledgraph ${argv.join(' ')} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
      const [user, sys, kb] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      resolve({ seconds, clientCpuSeconds: +(user + sys).toFixed(2), clientPeakRssMB: toMB(kb * 1024), out: out.trim(), err: err.trim() });
    });
    child.on('error', reject);
  });
}

/** Start a server worker; resolves once it is ready. */
function startServer(name, storage, issuer, withData) {
  const execArgv = ['--expose-gc', ...(args.profile ? ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-name', `replication-${name}-${Date.now()}.cpuprofile`] : [])];
  const wargs = ['--storage', storage, '--issuer', issuer, ...(withData ? ['--data', data] : [])];
  const child = fork(join(BENCH_DIR, 'repl-server.js'), wargs, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const replies = [];
  return new Promise((ok, fail) => {
    child.on('message', (m) => {
      if (m.type === 'ready') ok({ name, storage, child, ...m, ask: (msg) => new Promise((r) => { replies.push(r); child.send(msg); }) });
      else replies.shift()?.(m);
    });
    child.on('exit', (code) => fail(new Error(`server ${name} exited with code ${code}`)));
  });
}

/** Run `step` with both servers' peaks reset before and read after. */
async function measured(servers, step) {
  const base = {}, cpu0 = {};
  const cpu = async (s) => { const c = await s.ask({ type: 'cpu' }); return (c.user + c.system) / 1e6; };
  for (const s of servers) { base[s.name] = (await s.ask({ type: 'mark' })).rss; cpu0[s.name] = await cpu(s); }
  const r = await step();
  const growth = {};
  for (const s of servers) {
    const p = await s.ask({ type: 'peak' });
    growth[s.name] = { rssBeforeMB: toMB(base[s.name]), peakMB: toMB(p.peak), growthMB: toMB(p.peak - base[s.name]), cpuSeconds: +((await cpu(s)) - cpu0[s.name]).toFixed(2) };
  }
  return { ...r, servers: growth };
}

const result = { suite: 'replication', data, loadavgAtStart: loadavg(), limits: LIMITS };
let a, b;
try {
  mkdirSync(profDir, { recursive: true });
  // A storage token the servers trust (the CLI's own keygen and token create).
  const keys = JSON.parse(spawnSync(process.execPath, [BIN, 'token', 'keygen'], { encoding: 'utf8' }).stdout);
  const token = spawnSync(process.execPath, [BIN, 'token', 'create', '--key', keys.private_key, '--storage-all'], { encoding: 'utf8' }).stdout.trim();
  log('replication: starting server A (bulk load of the BSBM ledger) and server B');
  [a, b] = await Promise.all([
    startServer('a', join(work, 'a'), keys.did, true),
    startServer('b', join(work, 'b'), keys.did, false),
  ]);
  const head = await a.ask({ type: 'info', ledger: 'bsbm:main' });
  const size = dirSize(join(work, 'a'));
  result.ledger = { t: head.t, indexT: head.indexT, loadSeconds: +(a.loadMs / 1000).toFixed(2), storageMB: toMB(size.bytes), files: size.files };
  for (const [n, s] of [['a', a], ['b', b]]) spawnSync(process.execPath, [BIN, 'remote', 'add', n, s.url, '--token', token, '--config', config]);

  log('replication: cp -r');
  spawnSync('sync');
  let t0 = performance.now();
  const cp = spawnSync('cp', ['-r', join(work, 'a'), join(work, 'a-copy')]);
  if (cp.status !== 0) throw new Error(`cp -r failed: ${cp.stderr}`);
  result.cpR = { seconds: +((performance.now() - t0) / 1000).toFixed(2) };
  await rm(join(work, 'a-copy'), { recursive: true, force: true });

  log('replication: export');
  const file = join(work, 'bsbm.flpack');
  result.export = await measured([a], () => cli(['export', 'bsbm', file, '--from', 'a']));
  result.export.archiveMB = toMB(statSync(file).size);

  log('replication: import');
  result.import = await measured([b], () => cli(['import', file, 'bsbm-imported', '--to', 'b']));
  result.import.response = JSON.parse(result.import.out);

  log('replication: clone');
  result.clone = await measured([a, b], () => cli(['clone', 'a', 'bsbm', '--to', 'b']));
  const cloned = await b.ask({ type: 'info', ledger: 'bsbm:main' });
  result.clone.sameHead = cloned.commitId === head.commitId;

  log(`replication: ${commits} single-fact commits on A, then pull`);
  result.commitsOnA = await a.ask({ type: 'commits', ledger: 'bsbm:main', n: commits });
  // B serves the clone it received: its ledger is open, as on any server in use (the cost of
  // opening it, once, is reported apart and not counted in the pull).
  result.openCloneOnB = await b.ask({ type: 'open', ledger: 'bsbm:main' });
  result.pull = await measured([a, b], () => cli(['pull', 'a', 'bsbm', '--to', 'b']));
  result.pull.response = JSON.parse(result.pull.out);
  const [ha, hb] = [await a.ask({ type: 'info', ledger: 'bsbm:main' }), await b.ask({ type: 'info', ledger: 'bsbm:main' })];
  result.pull.sameHead = ha.commitId === hb.commitId && hb.t === head.t + commits;
  // The CLI's own start-up (node, module loading) is part of every step above; shown for reference.
  t0 = performance.now();
  spawnSync(process.execPath, [BIN, '--version']);
  result.cliStartupSeconds = +((performance.now() - t0) / 1000).toFixed(2);

  for (const k of ['export', 'import', 'clone', 'pull']) {
    delete result[k].out;
    delete result[k].err;
    result[k].seconds = +result[k].seconds.toFixed(2);
    result[k].vsCpR = +(result[k].seconds / result.cpR.seconds).toFixed(2);
  }
  const growth = (k) => Math.max(...Object.values(result[k].servers).map((s) => s.growthMB));
  result.acceptance = {
    export: result.export.seconds <= LIMITS.exportS,
    import: result.import.seconds <= LIMITS.importS,
    clone: result.clone.seconds <= LIMITS.cloneS && result.clone.sameHead,
    pull: result.pull.seconds <= LIMITS.pullS && result.pull.sameHead,
    serverRss: ['export', 'import', 'clone', 'pull'].every((k) => growth(k) <= LIMITS.serverRssGrowthMB),
  };
  result.pass = Object.values(result.acceptance).every(Boolean);
  result.loadavgAtEnd = loadavg();
} catch (e) {
  result.status = 'error';
  result.error = e instanceof Error ? e.message : String(e);
} finally {
  for (const s of [a, b]) {
    if (!s || s.child.exitCode !== null) continue;
    const gone = new Promise((r) => s.child.once('exit', r));
    s.child.send({ type: 'stop' });
    await gone;
  }
  if (!args.keep) await rm(work, { recursive: true, force: true });
}
if (result.pass !== undefined) {
  const row = (k, limit) => {
    const r = result[k];
    const growth = Object.entries(r.servers).map(([n, g]) => `${n} +${g.growthMB} MB`).join(', ');
    const cpu = Object.entries(r.servers).map(([n, g]) => `${n} ${g.cpuSeconds}`).join(', ');
    return `${k.padEnd(7)} ${String(r.seconds).padStart(6)} s  (limit ${limit} s, ${r.vsCpR}x cp -r)  server RSS growth ${growth}  CPU s: ${cpu}, client ${r.clientCpuSeconds}  client peak ${r.clientPeakRssMB} MB`;
  };
  // On stderr: run.js keeps the worker's stdout for its result line.
  const print = (t) => process.stderr.write(t + '\n');
  print(`\nReplication, ${result.ledger.t} commits / ${result.ledger.storageMB} MB on disk (${result.ledger.files} files); cp -r ${result.cpR.seconds} s; load average ${result.loadavgAtStart.map((x) => x.toFixed(1)).join(' ')}`);
  print([row('export', LIMITS.exportS), row('import', LIMITS.importS), row('clone', LIMITS.cloneS), row('pull', LIMITS.pullS)].join('\n'));
  print(`acceptance: ${Object.entries(result.acceptance).map(([k, v]) => `${k} ${v ? 'met' : 'NOT met'}`).join(', ')}`);
}
console.log(JSON.stringify(result));
