import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { defaultServerConfig } from './config.js';
import { loadExplorer } from './explorer.js';
import { createLogger } from './log.js';
import { startServer } from './main.js';

describe('web explorer static files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ledgraph-explorer-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>x</title>');
    await writeFile(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    await writeFile(join(dir, 'secret.txt'), 'no');
    await writeFile(join(dir, 'sw.js'), 'self.x = 1');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('serves index.html no-cache with an ETag and hashed assets immutable', async () => {
    const app = createApp(defaultServerConfig(), { version: 't', explorer: await loadExplorer(dir) });
    const index = await app.request('/');
    expect(index.status).toBe(200);
    expect(index.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('Cache-Control')).toBe('no-cache');
    expect(await index.text()).toBe('<!doctype html><title>x</title>');
    const again = await app.request('/', { headers: { 'If-None-Match': index.headers.get('ETag')! } });
    expect(again.status).toBe(304);
    const js = await app.request('/assets/index-abc123.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
    expect(await js.text()).toBe('console.log(1)');
  });

  it('serves the offline service worker at /sw.js, revalidated on every check', async () => {
    const app = createApp(defaultServerConfig(), { version: 't', explorer: await loadExplorer(dir) });
    const sw = await app.request('/sw.js');
    expect(sw.status).toBe(200);
    expect(sw.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8');
    expect(sw.headers.get('Cache-Control')).toBe('no-cache');
    expect(await sw.text()).toBe('self.x = 1');
  });

  it('answers 404 outside assets/, for unknown types and for missing files', async () => {
    const app = createApp(defaultServerConfig(), { version: 't', explorer: await loadExplorer(dir) });
    expect((await app.request('/assets/..%2Fsecret.txt')).status).toBe(404);
    expect((await app.request('/assets/%2e%2e/index.html')).status).toBe(404);
    expect((await app.request('/assets/nope.js')).status).toBe(404);
    expect((await app.request('/secret.txt')).status).toBe(404);
  });

  it('is absent when the build is missing or the explorer is off', async () => {
    expect(await loadExplorer(join(dir, 'missing'))).toBeNull();
    const app = createApp(defaultServerConfig(), { version: 't', explorer: null });
    const r = await app.request('/');
    expect(r.status).toBe(404);
    expect((await app.request('/health')).status).toBe(200);
  });

  it('starts without a build and says so in the listening line; serves / with one', async () => {
    for (const [explorerDir, enabled, want, status] of [
      [join(dir, 'missing'), true, /^not built \(.*missing; run npm run build:web\)$/, 404],
      [dir, true, /^http:\/\/127\.0\.0\.1:\d+\/$/, 200],
      [dir, false, /^disabled$/, 404],
    ] as const) {
      const lines: string[] = [];
      const log = createLogger('info', (l) => { lines.push(l); });
      const s = await startServer({ ...defaultServerConfig(), memory: true, port: 0, explorerEnabled: enabled }, { version: 't', log, explorerDir });
      try {
        const listening = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'ledgraph listening')!;
        expect(listening['explorer']).toMatch(want);
        expect((await fetch(`${s.url}/`)).status).toBe(status);
      } finally {
        await s.close(0);
      }
    }
  });
});
