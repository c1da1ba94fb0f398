#!/usr/bin/env node
/**
 * How long one big write holds the event loop (issue 20, isolation): in process, a file-storage
 * ledger holding --base triples takes one insert of N triples (already parsed, so the figure is the
 * write pipeline's own: staging, novelty, encoding, hashing, blobs, publishing), while a timer
 * chain records the longest gap between its turns. Also the wall and CPU time of the write.
 *
 *   node bench/commit-stall.js [--triples 20000,50000] [--base 10000] [--reps 3] [--dist DIR]
 *
 * --dist points at another build (e.g. main's) to measure before and after on the same box.
 * Prints one JSON line: per size, the median and max of the longest gaps over --reps writes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT_DIR, emitResult, log, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const DIST = resolve(String(args.dist ?? join(ROOT_DIR, 'dist')));
const SIZES = String(args.triples ?? '20000,50000').split(',').map(Number);
const BASE = Number(args.base ?? 10_000);
const REPS = Number(args.reps ?? 3);
const EX = 'http://example.org/';

const { Connection } = await import(join(DIST, 'core/ledger/connection.js'));
const { openFileStorage } = await import(join(DIST, 'storage/index.js'));
const { namedNode, literal, defaultGraph } = await import(join(DIST, 'core/rdf/terms.js'));

const quads = (n, tag) => Array.from({ length: n }, (_, i) => ({
  subject: namedNode(`${EX}${tag}/s${i}`), predicate: namedNode(`${EX}p${i % 10}`), object: literal(`${tag} value ${i}`), graph: defaultGraph,
}));

/** The longest gap (ms) between turns of a timer chain while `work` runs. */
async function longestGap(work) {
  let last = performance.now(), max = 0, on = true;
  // Also the process CPU spent between two turns: on a shared box a gap in wall time is partly
  // the wait for a core; the CPU between turns is the work the loop could not be interrupted in
  // (all threads: GC helpers and the thread pool count too).
  let lastCpu = process.cpuUsage(), maxCpu = 0;
  const tick = () => {
    const now = performance.now();
    if (now - last > max) max = now - last;
    last = now;
    const cpu = process.cpuUsage();
    const d = (cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000;
    if (d > maxCpu) maxCpu = d;
    lastCpu = cpu;
    if (on) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const cpu0 = process.cpuUsage(), t0 = performance.now();
  await work();
  const wall = performance.now() - t0, cpu = process.cpuUsage(cpu0);
  on = false;
  return { gapMs: Math.round(max * 10) / 10, cpuGapMs: Math.round(maxCpu * 10) / 10, wallMs: Math.round(wall), cpuMs: Math.round((cpu.user + cpu.system) / 1000) };
}

const dir = await mkdtemp(join(tmpdir(), 'lg-commit-stall-'));
const out = { suite: 'commit-stall', dist: DIST, base: BASE, reps: REPS, loadavgAtStart: loadavg()[0], sizes: {} };
try {
  // Big enough for a 50,000-triple commit's novelty (the server flag --reindex-max-bytes).
  const conn = new Connection(await openFileStorage(dir), { reindexMaxBytes: 256 * 1024 * 1024, reindexMinBytes: 512 * 1024 * 1024 });
  await conn.create('s');
  await conn.transact('s', { kind: 'insert', quads: quads(BASE, 'base'), meta: [], opts: {} });
  let k = 0;
  for (const n of SIZES) {
    const runs = [];
    for (let r = 0; r < REPS; r++) {
      const tag = `w${k++}`;
      const req = { kind: 'insert', quads: quads(n, tag), meta: [], opts: {} };
      // As the server passes an N-Triples body: tx-id and transaction blob from the text.
      const body = req.quads.map((q) => `<${q.subject.value}> <${q.predicate.value}> "${q.object.value}" .\n`).join('');
      const ctx = { contentType: 'application/n-triples', body, rawBody: new TextEncoder().encode(body) };
      runs.push(await longestGap(() => conn.transact('s', req, ctx)));
    }
    const gaps = runs.map((x) => x.gapMs).sort((a, b) => a - b);
    const cpuGaps = runs.map((x) => x.cpuGapMs).sort((a, b) => a - b);
    out.sizes[n] = { runs, medianGapMs: gaps[Math.floor(gaps.length / 2)], maxGapMs: gaps[gaps.length - 1], medianCpuGapMs: cpuGaps[Math.floor(cpuGaps.length / 2)], maxCpuGapMs: cpuGaps[cpuGaps.length - 1] };
    log(`commit-stall: ${n} triples: longest gap median ${out.sizes[n].medianGapMs} ms, max ${out.sizes[n].maxGapMs} ms; CPU between two turns median ${out.sizes[n].medianCpuGapMs} ms, max ${out.sizes[n].maxCpuGapMs} ms; ${JSON.stringify(runs)}`);
  }
  await conn.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
out.loadavgAtEnd = loadavg()[0];
emitResult(out);
