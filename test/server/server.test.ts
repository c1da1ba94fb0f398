/**
 * Cross-cutting server behaviour over real HTTP: request ids and trace context in responses and log
 * lines, CORS, graceful shutdown (in process and through the CLI on SIGTERM), and durability across
 * a restart on the same storage directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultServerConfig } from '../../src/server/config.js';
import { silentLogger } from '../../src/server/log.js';
import { startLedgraphServer } from '../../src/server/main.js';
import { bundleForNode } from '../support/bundle.js';
import { createLedger, postJson, startTestServer, type TestServer } from '../support/server.js';
import { CTX, EX, expectError, json, triples, until } from './helpers.js';

describe('request ids, trace context and logs', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await startTestServer({ captureLogs: true }); });
  afterAll(async () => { await srv.close(); });

  it('echoes X-Request-ID, generates one otherwise, and puts it and the trace in every log line of the request', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const r = await postJson(`${srv.api}/create`, { ledger: 'logs' }, { 'X-Request-ID': 'req-7', traceparent });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-request-id')).toBe('req-7');
    const mine = srv.logs.filter((l) => l.request_id === 'req-7');
    expect(mine.map((l) => l.msg)).toEqual(['ledger created', 'request']);
    for (const l of mine) expect(l).toMatchObject({ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' });
    expect(mine[1]).toMatchObject({ level: 'info', method: 'POST', path: '/v1/ledgraph/create', status: 201 });

    const w = await postJson(`${srv.api}/insert/logs`, { '@context': CTX, '@id': 'ex:a', 'ex:p': 1 }, { traceparent: 'garbage' });
    const id = w.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const tx = srv.logs.find((l) => l.request_id === id && l.msg === 'transaction');
    expect(tx).toMatchObject({ level: 'info', ledger: 'logs:main', kind: 'insert', t: 1, flakes_added: 1, flakes_retracted: 0 });
    expect(tx).not.toHaveProperty('trace_id');

    const bad = await fetch(`${srv.api}/info/nope`, { headers: { 'X-Request-ID': 'req-404' } });
    expect(bad.headers.get('x-request-id')).toBe('req-404');
    await expectError(bad, 404, 'err:db/LedgerNotFound');
  });
});

describe('CORS', () => {
  it('answers any origin when --cors-enabled, and not otherwise', async () => {
    const on = await startTestServer({ config: { corsEnabled: true } });
    const off = await startTestServer();
    try {
      const pre = await fetch(`${on.api}/insert/x`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      const r = await fetch(`${on.api}/ledgers`, { headers: { Origin: 'https://app.example' } });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-expose-headers')).toContain('X-Request-ID');
      expect(r.headers.get('access-control-expose-headers')).toContain('Content-Range');
      const n = await fetch(`${off.api}/ledgers`, { headers: { Origin: 'https://app.example' } });
      expect(n.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await on.close();
      await off.close();
    }
  });
});

describe('graceful shutdown in process', () => {
  it('stops accepting, finishes the in-flight write, then closes the engine; the data survives a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-shutdown-'));
    const config = { ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: dir };
    try {
      const s = await startLedgraphServer(config, { version: 't', log: silentLogger });
      const api = s.url + config.apiBaseUrl;
      expect((await postJson(`${api}/create`, { ledger: 'keep' })).status).toBe(201);
      const ledger = await s.state.conn.ledger('keep');
      let release!: () => void;
      const held = ledger.lock.run(() => new Promise<void>((ok) => { release = ok; }));
      const events: string[] = [];
      const write = postJson(`${api}/insert/keep`, { '@context': CTX, '@id': 'ex:a', 'ex:p': 1 }).then((r) => { events.push('write'); return r; });
      await until(() => s.state.admission.inFlight === 1);
      const closing = s.close(10_000).then(() => { events.push('closed'); });
      await new Promise((ok) => setTimeout(ok, 50));
      await expect(fetch(`${s.url}/health`)).rejects.toThrow();
      expect(events).toEqual([]);
      release();
      await held;
      expect((await json<{ t: number }>(await write)).t).toBe(1);
      await closing;
      expect(events).toEqual(['write', 'closed']);

      const again = await startLedgraphServer(config, { version: 't', log: silentLogger });
      try {
        const srv = { api: again.url + config.apiBaseUrl } as TestServer;
        expect(await triples(srv, 'keep')).toEqual([`<${EX}a> <${EX}p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`]);
      } finally {
        await again.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the ledgraph CLI', () => {
  let work: string;
  let child: ChildProcess | null = null;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'ledgraph-cli-'));
    await bundleForNode(join(import.meta.dirname, 'cli-child.ts'), join(work, 'cli.mjs'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await rm(work, { recursive: true, force: true });
  });

  it('serves with --listen-addr and --storage-path, logs JSON lines, and on SIGTERM finishes the in-flight request and exits 0', async () => {
    const dir = join(work, 'data');
    child = spawn(process.execPath, [join(work, 'cli.mjs'), 'server', '--listen-addr', '127.0.0.1:0', '--storage-path', dir, '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: Record<string, unknown>[] = [];
    createInterface({ input: child.stdout! }).on('line', (l) => { lines.push(JSON.parse(l) as Record<string, unknown>); });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    const exited = new Promise<number | null>((ok) => child!.on('exit', (code) => ok(code)));
    await until(() => lines.some((l) => l.msg === 'ledgraph listening') || child!.exitCode !== null);
    const start = lines.find((l) => l.msg === 'ledgraph listening');
    expect(start, stderr).toMatchObject({ level: 'info', storage: 'file', role: 'transaction' });
    const api = `${start!.url as string}/v1/ledgraph`;

    expect((await postJson(`${api}/create`, { ledger: 'cli' }, { 'X-Request-ID': 'cli-create' })).status).toBe(201);
    await until(() => lines.some((l) => l.request_id === 'cli-create' && l.msg === 'request'));

    // A write whose body is still arriving when SIGTERM lands.
    let ctl!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start(c) { ctl = c; } });
    const enc = new TextEncoder();
    const pending = fetch(`${api}/insert/cli`, { method: 'POST', headers: { 'Content-Type': 'text/turtle', 'X-Request-ID': 'cli-slow' }, body, duplex: 'half' } as RequestInit);
    ctl.enqueue(enc.encode(`<${EX}a> <${EX}p> `));
    await new Promise((ok) => setTimeout(ok, 100));
    child.kill('SIGTERM');
    await until(() => lines.some((l) => l.msg === 'shutting down'));
    ctl.enqueue(enc.encode('1 .\n'));
    ctl.close();
    const res = await pending;
    expect(res.status).toBe(200);
    expect((await res.json() as { t: number }).t).toBe(1);
    expect(await exited).toBe(0);
    expect(lines.find((l) => l.msg === 'shutting down')).toMatchObject({ level: 'info', signal: 'SIGTERM' });
    expect(lines.find((l) => l.request_id === 'cli-slow' && l.msg === 'transaction')).toMatchObject({ ledger: 'cli:main', t: 1 });
    expect(lines.at(-1)).toMatchObject({ level: 'info', msg: 'stopped' });
    for (const l of lines) expect(typeof l.time).toBe('string');
  });

  it('prints one line and exits 2 when the port is taken', async () => {
    const srv = await startTestServer();
    try {
      const port = new URL(srv.url).port;
      const p = spawn(process.execPath, [join(work, 'cli.mjs'), 'server', '--listen-addr', `127.0.0.1:${port}`, '--memory'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      p.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
      const code = await new Promise<number | null>((ok) => p.on('exit', (c) => ok(c)));
      expect(code).toBe(2);
      expect(err).toBe(`ledgraph: port ${port} is already in use\n`);
    } finally {
      await srv.close();
    }
  });
});
