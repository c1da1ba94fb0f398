/**
 * The e2e and peer-bench static server (e2e/static-server.js): content-hashed `/assets/*` are
 * immutable, as the transaction server serves the explorer's, so a page reload (the browser peer's
 * reopen figure) takes them from the HTTP cache; the rest is `no-store`; nothing outside the root.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JS module without declarations
import { serveStatic } from '../../e2e/static-server.js';

describe('e2e/static-server.js', () => {
  let dir = '';
  let site: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lg-static-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), '<!doctype html>');
    await writeFile(join(dir, 'ledgraph-peer.js'), 'export {};');
    await writeFile(join(dir, 'assets', 'worker-AbC123xy.js'), 'self.x = 1;');
    site = await serveStatic(dir);
  });
  afterAll(async () => {
    await site.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves hashed assets immutable for a year', async () => {
    const r = await fetch(`${site.url}/assets/worker-AbC123xy.js`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await r.text()).toBe('self.x = 1;');
  });

  it('serves the page and the unhashed library entry no-store', async () => {
    for (const [path, body] of [['/index.html', '<!doctype html>'], ['/', '<!doctype html>'], ['/ledgraph-peer.js', 'export {};']]) {
      const r = await fetch(`${site.url}${path}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(await r.text()).toBe(body);
    }
  });

  it('answers 404 for missing files and paths outside the root', async () => {
    for (const path of ['/assets/missing.js', '/assets/', '/%2e%2e/%2e%2e/etc/passwd']) {
      const r = await fetch(`${site.url}${path}`);
      expect(r.status).toBe(404);
      await r.body?.cancel();
    }
  });
});
