/**
 * bin/ledgraph.cjs, the `ledgraph` command: `ledgraph server` runs as a child node whose V8 heap
 * is sized from --memory-limit (unless node flags size it), with signals forwarded and the child's
 * exit code or signal passed on. Real processes, loopback, memory storage.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { heapFlags, memoryPlan } from '../../src/server/memory-plan.js';
import { until } from './helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const LAUNCHER = join(ROOT, 'bin/ledgraph.cjs');
const MiB = 1024 * 1024;

beforeAll(() => {
  // The launcher runs the compiled server (dist/, built by `npm ci`'s prepare); build it if missing.
  if (!existsSync(join(ROOT, 'dist/server/memory-plan.js'))) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
}, 120_000);

interface Launched { proc: ChildProcess; lines: Record<string, unknown>[]; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }

function launch(args: string[], env: Record<string, string | undefined> = {}): Launched {
  const base = { ...process.env };
  delete base.NODE_OPTIONS;
  for (const k of Object.keys(base)) if (k.startsWith('LEDGRAPH_')) delete base[k];
  const proc = spawn(process.execPath, [LAUNCHER, 'server', '--memory', '--port', '0', '--no-explorer-enabled', ...args], {
    env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: proc.stdout! }).on('line', (l) => { try { lines.push(JSON.parse(l)); } catch { /* not a log line */ } });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) => proc.on('exit', (code, signal) => ok({ code, signal })));
  return { proc, lines, exit };
}

async function listening(l: Launched): Promise<{ url: string; pid: number; heap: number }> {
  await until(() => l.lines.some((x) => x.msg === 'ledgraph listening'), 30_000);
  const line = l.lines.find((x) => x.msg === 'ledgraph listening')!;
  return { url: String(line.url), pid: Number(line.pid), heap: Number(line.heap_size_limit) };
}

/** V8's heap_size_limit for old space + young generation flags (V8 adds a little for itself). */
function expectHeapLimit(heap: number, total: number): void {
  const p = memoryPlan(total);
  expect(heap).toBeGreaterThanOrEqual((p.oldSpaceMiB + 2 * p.semiSpaceMiB) * MiB);
  expect(heap).toBeLessThanOrEqual((p.oldSpaceMiB + 3 * p.semiSpaceMiB + 2) * MiB);
}

function cmdline(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

describe('bin/ledgraph.cjs', () => {
  it('starts the server with V8 heap flags from --memory-limit, reports them, and forwards SIGTERM for a graceful exit 0', async () => {
    const l = launch(['--memory-limit', '300MiB']);
    const { url, pid, heap } = await listening(l);
    expect(pid).not.toBe(l.proc.pid);
    expect(cmdline(pid)).toEqual(expect.arrayContaining(heapFlags(300 * MiB)));
    expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_MMAP_THRESHOLD_=131072');
    expectHeapLimit(heap, 300 * MiB);
    const r = await fetch(`${url}/v1/ledgraph/stats/memory`);
    const report = await r.json() as { limits: Record<string, number> };
    expect(report.limits.memory_limit).toBe(300 * MiB);
    expect(report.limits.heap_size_limit).toBe(heap);
    expect(report.limits.leaf_cache).toBe(75 * MiB);
    l.proc.kill('SIGTERM');
    expect(await l.exit).toEqual({ code: 0, signal: null });
    expect(l.lines.map((x) => x.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
  }, 60_000);

  it('sizes the heap from LEDGRAPH_MEMORY_LIMIT and the default, and forwards SIGINT', async () => {
    const l = launch([], { LEDGRAPH_MEMORY_LIMIT: '1GiB' });
    expectHeapLimit((await listening(l)).heap, 1024 * MiB);
    l.proc.kill('SIGINT');
    expect(await l.exit).toEqual({ code: 0, signal: null });
    expect(l.lines.find((x) => x.msg === 'shutting down')?.signal).toBe('SIGINT');

    const d = launch([]);
    expectHeapLimit((await listening(d)).heap, 512 * MiB);
    d.proc.kill('SIGTERM');
    expect((await d.exit).code).toBe(0);
  }, 60_000);

  it('leaves the heap to NODE_OPTIONS when it sizes it, running the server in its own process', async () => {
    const l = launch(['--memory-limit', '300MiB'], { NODE_OPTIONS: '--max-old-space-size=400' });
    const { pid, heap } = await listening(l);
    expect(pid).toBe(l.proc.pid);
    expect(heap).toBeGreaterThanOrEqual(400 * MiB);
    l.proc.kill('SIGTERM');
    expect((await l.exit).code).toBe(0);
  }, 60_000);

  it("passes the server's exit code on", async () => {
    const l = launch(['--max-in-flight', 'many']);
    expect(await l.exit).toEqual({ code: 2, signal: null });
  }, 60_000);

  it('dies by the signal that killed the server', async () => {
    const l = launch([]);
    const { pid } = await listening(l);
    process.kill(pid, 'SIGKILL');
    expect(await l.exit).toEqual({ code: null, signal: 'SIGKILL' });
  }, 60_000);

  it('the server shuts down when the launcher is killed without passing a signal on', async () => {
    const l = launch([]);
    const { pid } = await listening(l);
    l.proc.kill('SIGKILL');
    await l.exit;
    await until(() => l.lines.some((x) => x.msg === 'stopped'), 20_000);
    await until(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, 20_000);
  }, 60_000);

  /**
   * `query` over 2,000 triples under --memory-limit 256MiB (113 MB of V8 heap) must be stopped with
   * 503 by the memory guard, counted once, logged, and the server must keep serving.
   */
  async function stoppedForMemory(query: string): Promise<void> {
    const l = launch(['--memory-limit', '256MiB', '--query-timeout-ms', '120000']);
    const { url } = await listening(l);
    const api = `${url}/v1/ledgraph`;
    expect((await fetch(`${api}/create`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ledger":"g"}' })).status).toBe(201);
    let nt = '';
    for (let i = 0; i < 2000; i++) nt += `<http://ex.org/s${i}> <http://ex.org/p> "v${i}" .\n`;
    expect((await fetch(`${api}/insert/g`, { method: 'POST', headers: { 'content-type': 'application/n-triples' }, body: nt })).status).toBe(200);
    const sparql = (q: string) => fetch(`${api}/query/g`, { method: 'POST', headers: { 'content-type': 'application/sparql-query' }, body: q });
    const heavy = await sparql(query);
    expect(heavy.status).toBe(503);
    expect(heavy.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await heavy.json()).toMatchObject({ '@type': 'err:system/InternalError', error: expect.stringMatching(/short of memory/) });
    const stats = await (await fetch(`${api}/stats/memory`)).json() as { caches: { queries_stopped_for_memory: number; memory_pressure_episodes: number } };
    expect(stats.caches.queries_stopped_for_memory).toBe(1);
    expect(stats.caches.memory_pressure_episodes).toBe(1);
    // The guard collects and lifts the pressure by itself; the next query is answered.
    let small: Response | undefined;
    for (let i = 0; i < 50; i++) {
      small = await sparql('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }');
      if (small.status === 200) break;
      await small.body?.cancel();
      await new Promise((ok) => setTimeout(ok, 200));
    }
    expect(small!.status).toBe(200);
    expect(JSON.stringify(await small!.json())).toContain('"2000"');
    expect(l.lines.some((x) => x.msg === 'memory pressure: stopping running queries, refusing new ones with 503')).toBe(true);
    l.proc.kill('SIGTERM');
    expect((await l.exit).code).toBe(0);
  }

  it('a query that outgrows the heap headroom gets 503 and the server keeps serving (memory-guard.ts)', async () => {
    // A 4,000,000-row cross product sorted in memory: its sort keys alone pass the 96 MiB old space.
    await stoppedForMemory('SELECT ?a ?b WHERE { ?a <http://ex.org/p> ?x . ?b <http://ex.org/p> ?y } ORDER BY ?x ?y');
  }, 180_000);

  it('a GROUP BY with 4,000,000 groups gets 503 the same way', async () => {
    await stoppedForMemory('SELECT ?a ?b (COUNT(*) AS ?n) WHERE { ?a <http://ex.org/p> ?x . ?b <http://ex.org/p> ?y } GROUP BY ?a ?b');
  }, 180_000);

  it('runs `ledgraph load` in a child node with a 32 MiB semi-space, passing stdin, stdout and exit codes through', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledgraph-launch-load-'));
    try {
      const run = (args: string[], stdin: string) => new Promise<{ code: number | null; out: string; err: string; semi: boolean }>((ok) => {
        const base = { ...process.env };
        delete base.NODE_OPTIONS;
        for (const k of Object.keys(base)) if (k.startsWith('LEDGRAPH_')) delete base[k];
        const proc = spawn(process.execPath, [LAUNCHER, 'load', ...args, '--storage-path', dir], { env: base, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '', err = '', semi = false;
        // The child node is ours while it runs: its command line carries the flag.
        const look = setInterval(() => {
          try {
            for (const pid of execFileSync('pgrep', ['-P', String(proc.pid)], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
              if (cmdline(Number(pid)).includes('--max-semi-space-size=32')) semi = true;
            }
          } catch { /* no child (yet or any more) */ }
        }, 20);
        proc.stdout!.on('data', (d) => (out += d));
        proc.stderr!.on('data', (d) => (err += d));
        proc.on('close', (code) => { clearInterval(look); ok({ code, out, err, semi }); });
        // Held open a moment, so the child is there to be seen.
        proc.stdin!.write(stdin);
        setTimeout(() => proc.stdin!.end(), 300);
      });
      const good = await run(['kb', '-', '--format', 'n-triples'], '<http://a.example/s> <http://a.example/p> "x" .\n');
      expect(good.code).toBe(0);
      expect(JSON.parse(good.out)).toMatchObject({ ledger_id: 'kb:main', statements: 1, triples: 1, commits: 1 });
      expect(good.semi).toBe(true);
      const bad = await run(['kb', '-', '--format', 'n-triples'], '<http://a.example/s> <http://a.example/p> .\n');
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/^ledgraph: stdin: N-Triples syntax error at line 1, column 43: expected an object$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
