/**
 * The long HTTP fuzz run (`npm run fuzz -- --minutes N`): a server child on file storage, C
 * concurrent fast-check loops over every target (full LONG_BOUNDS), a health probe every few
 * seconds, a progress line every minute, and a JSON report with counts and every failing input
 * (the original and the shrunk one). A server that dies is recorded and restarted.
 */
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from './child-server.js';
import { FUZZ_SERVER_FLAGS, Tally, describeRequest, health, isFailure, prepare, send, type Sent } from './http-harness.js';
import { targets, type FuzzRequest, type TargetContext } from './http-targets.js';
import { LONG_BOUNDS } from './mutate.js';

export interface HttpRunOptions {
  serverBundle: string;
  minutes: number;
  seed: number;
  concurrency: number;
  timeoutMs: number;
  /** A server failing every health probe this long is killed and restarted (recorded). */
  stuckMs: number;
  /** Requests slower than this are counted as slow (not failures). */
  slowMs: number;
  out: string;
  batch: number;
}

const API = '/v1/ledgraph';

interface Finding { at: string; target: string; outcome: string; status: number; ms: number; excerpt: string; original: unknown; shrunk?: unknown }

/** Run the long HTTP fuzz; returns the process exit code (0 when the property held throughout). */
export async function runHttpFuzz(o: HttpRunOptions): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'ledgraph-fuzz-'));
  const started = new Date();
  const deadline = Date.now() + o.minutes * 60_000;
  const tally = new Tally();
  const findings: Finding[] = [];
  const unhealthy: { at: string; why: string }[] = [];
  const crashes: { at: string; exit: string; stderr: string }[] = [];
  const latencies: number[] = [];
  let slow = 0;
  const loads: number[][] = [loadavg()];
  let srv: ChildServer = await startChildServer(o.serverBundle, dir, FUZZ_SERVER_FLAGS);
  let ctx: TargetContext = await prepare(srv.url, API);
  let restarting: Promise<void> | undefined;
  let stopping = false;

  let expectedExit = false;
  const watchExit = (s: ChildServer) => void s.exited.then(async (exit) => {
    if (Date.now() >= deadline || stopping) return;
    down = true;
    if (!expectedExit) { generation++; crashes.push({ at: new Date().toISOString(), exit, stderr: s.stderr().slice(-4000) }); }
    expectedExit = false;
    restarting = (async () => {
      srv = await startChildServer(o.serverBundle, dir, FUZZ_SERVER_FLAGS);
      watchExit(srv);
      ctx = await prepare(srv.url, API);
      down = false;
    })();
    await restarting;
    restarting = undefined;
  });
  watchExit(srv);

  const hangs: Finding[] = [];
  let generation = 0;
  let seq = 0;
  const inFlight = new Map<number, { r: FuzzRequest; started: number }>();
  // While the server is frozen, the request that froze it is among those in flight: snapshots
  // of them (oldest first) at the first hang of an episode and when the watchdog kills. Bodies
  // are kept up to 4,000 characters so the culprit can be replayed (most are far shorter).
  const suspects: { at: string; when: string; inFlight: unknown[] }[] = [];
  let down = false;
  const snapshot = (when: string) => {
    const last = suspects[suspects.length - 1];
    if (suspects.length >= 60 || (when === 'hang' && last && Date.now() - Date.parse(last.at) < 30_000)) return;
    suspects.push({ at: new Date().toISOString(), when, inFlight: [...inFlight.values()].sort((a, b) => a.started - b.started).slice(0, 8)
      .map((x) => ({ started: new Date(x.started).toISOString(), request: describeRequest(x.r, 4000) })) });
  };
  const finding = (target: string, r: FuzzRequest, s: Sent): Finding =>
    ({ at: new Date().toISOString(), target, outcome: s.outcome, status: s.status, ms: s.ms, excerpt: s.excerpt, original: describeRequest(r) });
  const arbs = () => targets(ctx, LONG_BOUNDS);
  const names = Object.keys(arbs());
  // Slow requests with their start times: while the server is frozen every request is slow, and
  // the earliest-started of a cluster is the likely cause (kept whole enough to replay).
  const slowExamples: { started: string; ms: number; status: number; request: unknown }[] = [];
  const record = (r: FuzzRequest, s: Sent) => {
    tally.add(r, s);
    latencies.push(s.ms);
    if (s.ms > o.slowMs) {
      slow++;
      if (slowExamples.length < 200) slowExamples.push({ started: new Date(Date.now() - s.ms).toISOString(), ms: s.ms, status: s.status, request: describeRequest(r, 2000) });
    }
  };

  async function worker(w: number): Promise<void> {
    for (let i = 0; Date.now() < deadline; i++) {
      if (restarting) await restarting;
      const name = names[(w + i) % names.length]!;
      const seed = (o.seed + w * 1_000_003 + i * 7919) | 0;
      let original: { r: FuzzRequest; s: Sent } | undefined;
      const details = await fc.check(fc.asyncProperty(arbs()[name]!, async (r) => {
        const gen = generation;
        const id = seq++;
        inFlight.set(id, { r, started: Date.now() });
        const s = await send(srv.url, r, o.timeoutMs, [dir]);
        inFlight.delete(id);
        // Requests in flight when the watchdog killed a frozen server (or sent while it was down)
        // were cut by us.
        if ((gen !== generation || down) && (s.outcome === 'dropped' || s.outcome === 'hang')) s.outcome = 'cut-by-restart';
        record(r, s);
        // A hang is recorded as it is, not shrunk: while the server is frozen every request
        // hangs, so shrinking would only find the shortest victim. The requests in flight
        // before it are the suspects.
        if (s.outcome === 'hang') {
          hangs.push(finding(name, r, s));
          snapshot('hang');
          return true;
        }
        if (isFailure(s)) { original ??= { r, s }; return false; }
        return true;
      }), { numRuns: o.batch, seed, interruptAfterTimeLimit: Math.max(30_000, o.timeoutMs * 3), markInterruptAsFailure: false });
      if (original) {
        const shrunk = details.counterexample?.[0] as FuzzRequest | undefined;
        findings.push({ ...finding(name, original.r, original.s), ...(shrunk ? { shrunk: describeRequest(shrunk) } : {}) });
        const bad = await health(srv.url, API);
        if (bad) unhealthy.push({ at: new Date().toISOString(), why: bad });
        await save();
      }
    }
  }

  // A server that fails every probe for `stuckMs` is frozen: record it, kill it and start a new
  // one on the same storage, so the run goes on measuring.
  let failingSince = 0;
  const stuckRestarts: { at: string; frozenMs: number }[] = [];
  const probe = setInterval(() => {
    if (restarting) return;
    void health(srv.url, API, 5000).then((bad) => {
      if (!bad) { failingSince = 0; return; }
      if (restarting) return;
      unhealthy.push({ at: new Date().toISOString(), why: bad });
      failingSince ||= Date.now();
      if (Date.now() - failingSince >= o.stuckMs) {
        stuckRestarts.push({ at: new Date().toISOString(), frozenMs: Date.now() - failingSince });
        failingSince = 0;
        expectedExit = true;
        generation++;
        down = true;
        snapshot('watchdog kill');
        void srv.kill();
      }
    });
  }, 5_000);
  const progress = setInterval(() => {
    loads.push(loadavg());
    process.stdout.write(`fuzz: ${((Date.now() - started.getTime()) / 60_000).toFixed(1)} min, ${tally.requests} requests, ${JSON.stringify(tally.byOutcome)}, findings ${findings.length}, hangs ${hangs.length}, restarts ${stuckRestarts.length}, load ${loadavg()[0]!.toFixed(2)}\n`);
  }, 60_000);

  function report() {
    const sorted = [...latencies].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
    return {
      kind: 'http-fuzz', started: started.toISOString(), finished: new Date().toISOString(), minutes: o.minutes, seed: o.seed,
      concurrency: o.concurrency, timeoutMs: o.timeoutMs, bounds: LONG_BOUNDS, requests: tally.requests,
      byOutcome: tally.byOutcome, byStatus: tally.byStatus, byTarget: tally.byTarget,
      latencyMs: { p50: q(0.5), p99: q(0.99), max: q(1) }, slowOverMs: { ms: o.slowMs, count: slow }, slowest: tally.slowest,
      loadavg: { start: loads[0], samples: loads.length, max1m: Math.max(...loads.map((l) => l[0]!)), end: loadavg() },
      unhealthyProbes: unhealthy.length, stuckRestarts, crashes, hangs: hangs.length, findings, hangExamples: hangs.slice(0, 50), freezeSuspects: suspects, unhealthy: unhealthy.slice(0, 100),
      slowExamples: [...slowExamples].sort((a, b) => a.started.localeCompare(b.started)),
    };
  }
  async function save() { await writeFile(o.out, JSON.stringify(report(), null, 1)); }

  try {
    await Promise.all(Array.from({ length: o.concurrency }, (_, w) => worker(w)));
  } finally {
    stopping = true;
    clearInterval(probe);
    clearInterval(progress);
    const bad = await health(srv.url, API);
    if (bad) unhealthy.push({ at: new Date().toISOString(), why: `at the end: ${bad}` });
    await save();
    await srv.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const r = report();
  process.stdout.write(`fuzz: done: ${r.requests} requests in ${o.minutes} min; outcomes ${JSON.stringify(r.byOutcome)}; statuses ${JSON.stringify(r.byStatus)}; `
    + `latency p50 ${r.latencyMs.p50} ms p99 ${r.latencyMs.p99} ms max ${r.latencyMs.max} ms; findings ${findings.length}; hangs ${hangs.length}; unhealthy probes ${unhealthy.length}; `
    + `frozen-server restarts ${stuckRestarts.length}; crashes ${crashes.length}; report ${o.out}\n`);
  return findings.length || hangs.length || unhealthy.length || crashes.length ? 1 : 0;
}
