#!/usr/bin/env node
// The `ledgraph` command's launcher. CommonJS so it runs before anything touches libuv's thread
// pool (an ES module entry is itself read through it), which sizes the pool once, from the
// environment: file storage fsyncs a commit group's files side by side, and the default 4 threads
// would take them four at a time. UV_THREADPOOL_SIZE set by the user wins.
//
// `ledgraph server` also needs V8's heap sized from --memory-limit (docs/memory.md), which only
// node's own command line can do (v8.setFlagsFromString is too late for the heap limit). So the
// launcher runs the server as a child node with --max-old-space-size/--max-semi-space-size,
// unless NODE_OPTIONS or this node's flags already size the heap (the user's choice stands). The
// child runs in its own process group, so a terminal's Ctrl-C reaches it once, through us: every
// terminating signal is forwarded, and the child's exit code (or signal) becomes ours. If we die
// without forwarding (kill -9), the child sees its IPC channel close and shuts down gracefully.
// The child also gets glibc's mmap threshold fixed (memory-plan.ts launchEnv: freed large blocks
// go back to the system instead of staying resident).
process.env.UV_THREADPOOL_SIZE ??= '16';

const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const entry = join(__dirname, 'ledgraph.js');
const args = process.argv.slice(2);

async function launch() {
  const nodeFlags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)];
  if (args.includes('--help') || args.includes('-h') || process.env.LEDGRAPH_NO_RELAUNCH === '1') return null;
  if (args[0] === 'load') return loadLaunch(nodeFlags);
  if (args[0] !== 'server') return null;
  let plan;
  try {
    plan = await import(pathToFileURL(join(__dirname, '../dist/server/memory-plan.js')).href);
  } catch {
    return null; // not built: bin/ledgraph.js says so
  }
  if (plan.setsHeapSize(nodeFlags)) return null;
  const total = plan.memoryLimitOf(args.slice(1), process.env);
  if (total === null) return null; // an invalid --memory-limit: the server's flag parser reports it
  return { execArgv: [...process.execArgv, ...plan.heapFlags(total)], env: plan.launchEnv(process.env) };
}

/**
 * `ledgraph load` allocates a few short-lived objects per statement: with V8's default 16 MiB
 * semi-space the young generation is scavenged (and survivors copied) several hundred times a
 * load. 32 MiB halves that: ≈ 1.2 s less CPU for 1M triples, ≈ +45 MB peak RSS (bench/RESULTS.md,
 * "Bulk load, round three"). The load's parsing worker gets the same size (load-threads.ts).
 * An initial heap of 512 MiB lets the old generation grow through the load (the dictionary's keys)
 * with fewer full collections: 27 → 12 in a traced 1M-triple load, ≈ 7 % less CPU, peak RSS not
 * higher (bench/RESULTS.md, "Bulk load, round four").
 */
const LOAD_SEMI_SPACE_MIB = 32;
const LOAD_INITIAL_HEAP_MIB = 512;

async function loadLaunch(nodeFlags) {
  let plan;
  try {
    plan = await import(pathToFileURL(join(__dirname, '../dist/server/memory-plan.js')).href);
  } catch {
    return null;
  }
  if (plan.setsHeapSize(nodeFlags)) return null;
  // In the terminal's process group: `-` may read a terminal, which a background group may not.
  return { execArgv: [...process.execArgv, `--max-semi-space-size=${LOAD_SEMI_SPACE_MIB}`, `--initial-heap-size=${LOAD_INITIAL_HEAP_MIB}`], env: {}, detached: false };
}

launch().then((how) => {
  if (!how) return import('./ledgraph.js');
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, [...how.execArgv, entry, ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: how.detached ?? true,
    env: { ...process.env, ...how.env, LEDGRAPH_LAUNCHED: '1' },
  });
  const forward = (signal) => { try { child.kill(signal); } catch { /* already gone */ } };
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2']) process.on(s, forward);
  child.on('error', (e) => { process.stderr.write(`ledgraph: cannot start the server process: ${e.message}\n`); process.exit(1); });
  child.on('exit', (code, signal) => {
    if (signal) {
      // Die the same way, so a supervisor sees what the server saw.
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2']) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
});
