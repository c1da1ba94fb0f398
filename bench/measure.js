/**
 * Shared helpers of the benchmark workers: argument parsing, memory measurement (RSS sampling,
 * forced GC, VmHWM), directory sizes, package versions, and the one JSON result line a worker
 * prints on stdout (run.js reads the last line that parses as JSON; progress goes to stderr).
 */
import { createReadStream, existsSync, readFileSync, readdirSync, lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT_DIR = dirname(BENCH_DIR);

/** `--key value` / `--flag` pairs into an object (numbers stay strings; callers convert). */
export function parseArgs(argv) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out[a.slice(2)] = argv[++i];
      else out[a.slice(2)] = true;
    } else out._.push(a);
  }
  return out;
}

export const MB = 1024 * 1024;
export const toMB = (bytes) => (bytes == null ? null : Math.round((bytes / MB) * 10) / 10);

/** Peak resident set (VmHWM) and current RSS from /proc/self/status, in bytes; null elsewhere. */
export function procStatus() {
  try {
    const text = readFileSync('/proc/self/status', 'utf8');
    const kb = (key) => {
      const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
      return m ? Number(m[1]) * 1024 : null;
    };
    return { vmHwm: kb('VmHWM'), vmRss: kb('VmRSS') };
  } catch {
    return { vmHwm: null, vmRss: null };
  }
}

/** Samples process RSS every `ms` (only while the event loop turns; VmHWM covers blocking calls). */
export function startRssSampler(ms = 50) {
  let peak = process.memoryUsage().rss;
  let samples = 1;
  const timer = setInterval(() => {
    const rss = process.memoryUsage().rss;
    samples++;
    if (rss > peak) peak = rss;
  }, ms);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const rss = process.memoryUsage().rss;
      if (rss > peak) peak = rss;
      return { sampledPeak: peak, samples };
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

/** Full GCs (needs --expose-gc), with turns of the event loop for finalizers; then the RSS. */
export async function rssAfterGc(rounds = 4) {
  if (typeof global.gc !== 'function') throw new Error('run the worker with node --expose-gc');
  for (let i = 0; i < rounds; i++) {
    global.gc();
    await tick();
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
}

/** Apparent size (sum of file sizes) and allocated bytes (st_blocks * 512) under a directory. */
export function dirSize(dir) {
  let bytes = 0;
  let allocated = 0;
  let files = 0;
  if (!existsSync(dir)) return { bytes, allocated, files };
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) stack.push(p);
      else {
        files++;
        bytes += st.size;
        allocated += st.blocks * 512;
      }
    }
  }
  return { bytes, allocated, files };
}

/** Version of an installed package (from its package.json), or null. */
export function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(join(ROOT_DIR, 'node_modules', name, 'package.json'), 'utf8')).version ?? null;
  } catch {
    return null;
  }
}

/** The project's own version and git head, for labelling ledgraph results. */
export function ledgraphVersion() {
  let version = null;
  try {
    version = JSON.parse(readFileSync(join(ROOT_DIR, 'package.json'), 'utf8')).version;
  } catch { /* ignore */ }
  return version;
}

/** Print the worker's single result line and leave. */
export function emitResult(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

export function log(msg) {
  process.stderr.write(`${msg}\n`);
}

export function median(xs) {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** CPU seconds (user + system, all threads of this process) since `since` (process.cpuUsage()). */
export function cpuSeconds(since) {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
}

/** A short message for an error (no stack unless asked). */
export function errorMessage(err) {
  if (err == null) return String(err);
  const code = err.code ? ` [${err.code}]` : '';
  return `${err.message ?? String(err)}${code}`;
}

/** Import a module of the built engine (dist/; run `npx tsc -p tsconfig.build.json` first). */
export const fromDist = (rel) => import(join(ROOT_DIR, 'dist', rel));

/** The BSBM N-Triples file named by `--data` (default bsbm-265) and its parameters; a clear error when missing. */
export function bsbmData(dataArg) {
  const data = dataArg ?? join(ROOT_DIR, 'bench/data/bsbm-265.nt');
  const paramsFile = data.replace(/\.nt$/, '.params.json');
  if (!existsSync(data) || !existsSync(paramsFile)) {
    throw new Error(`BSBM data not found: ${data} (+ .params.json); generate it with node bench/bsbm/generate.js --products 265 --out bench/data/bsbm-265`);
  }
  return { data, params: JSON.parse(readFileSync(paramsFile, 'utf8')) };
}

/** A memory-backed Ledgraph connection with `data` bulk-loaded into `ledger`; reports the load time on stderr. */
export async function loadLedgraphInMemory(data, ledger, opts = {}) {
  const { Connection } = await fromDist('core/ledger/connection.js');
  const { openMemoryStorage } = await fromDist('storage/index.js');
  const conn = new Connection(openMemoryStorage(), { indexingEnabled: false, ...opts });
  await conn.create(ledger);
  const t0 = performance.now();
  const receipt = await conn.bulkLoad(ledger, createReadStream(data));
  const loadSeconds = (performance.now() - t0) / 1000;
  process.stderr.write(`loaded ${data} in ${loadSeconds.toFixed(1)} s\n`);
  return { conn, receipt, loadSeconds };
}

const RDFS_LABEL = 'http://www.w3.org/2000/01/rdf-schema#label';

/** Up to `max` subjects that carry an rdfs:label in the N-Triples file (point-query targets). */
export async function labelledSubjects(file, max) {
  const { createInterface } = await import('node:readline');
  const out = [];
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.includes(RDFS_LABEL)) continue;
    const m = /^<([^>]+)> <([^>]+)>/.exec(line);
    if (m && m[2] === RDFS_LABEL) out.push(m[1]);
    if (out.length >= max) break;
  }
  rl.close();
  return out;
}
