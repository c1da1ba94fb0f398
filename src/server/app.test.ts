import { describe, expect, it } from 'vitest';
import { HTTPException } from 'hono/http-exception';
import { LedgraphError, noveltyAtMax, notFound, badRequest } from '../core/errors.js';
import { createApp, type RouteGroup } from './app.js';
import { defaultServerConfig, type ServerConfig } from './config.js';
import { mapError } from './errors.js';
import { createLogger, type Logger } from './log.js';
import { startServer } from './main.js';

function captureLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { log: createLogger('debug', (l) => lines.push(JSON.parse(l) as Record<string, unknown>)), lines };
}

function config(over: Partial<ServerConfig> = {}): ServerConfig {
  return { ...defaultServerConfig(), memory: true, ...over };
}

const failing: RouteGroup = (api) => {
  api.get('/boom', () => { throw new Error('secret internals at /src/core/x.ts:12'); });
  api.get('/busy', () => { throw noveltyAtMax('novelty at reindex_max_bytes'); });
  api.get('/nested', () => { throw new LedgraphError(400, 'err:db/BadRequest', 'outer', { cause: notFound('inner') }); });
  api.get('/http', () => { throw new HTTPException(401, { message: 'token required' }); });
  api.post('/echo', async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength }));
};

describe('createApp', () => {
  it('answers /health and the discovery document', async () => {
    const app = createApp(config(), { version: '9.9.9' });
    const h = await app.request('/health');
    expect(h.status).toBe(200);
    expect(await h.json()).toEqual({ status: 'ok', version: '9.9.9' });
    const d = await app.request('/.well-known/ledgraph.json');
    expect(await d.json()).toEqual({ version: 1, api_base_url: '/v1/ledgraph' });
  });

  it('advertises token auth in discovery when an auth mode is on', async () => {
    const app = createApp(config({ eventsAuthMode: 'required', apiBaseUrl: '/api' }), { version: '1' });
    expect(await (await app.request('/.well-known/ledgraph.json')).json()).toEqual({ version: 1, api_base_url: '/api', auth: { type: 'token' } });
  });

  it('echoes a sane X-Request-ID and generates one otherwise', async () => {
    const app = createApp(config(), { version: '1' });
    const a = await app.request('/health', { headers: { 'X-Request-ID': 'req-42' } });
    expect(a.headers.get('X-Request-ID')).toBe('req-42');
    const b = await app.request('/health', { headers: { 'X-Request-ID': 'has spaces' } });
    expect(b.headers.get('X-Request-ID')).toMatch(/^[0-9a-f-]{36}$/);
    const c = await app.request('/nowhere', { headers: { 'X-Request-ID': 'req-43' } });
    expect(c.headers.get('X-Request-ID')).toBe('req-43');
  });

  it('answers unknown routes with a 404 error body', async () => {
    const app = createApp(config(), { version: '1' });
    const r = await app.request('/v1/ledgraph/nope');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(await r.json()).toEqual({ error: 'no route for GET /v1/ledgraph/nope', status: 404, '@type': 'err:db/LedgerNotFound' });
  });

  it('mounts route groups under api_base_url and maps their errors', async () => {
    const { log, lines } = captureLogger();
    const app = createApp(config(), { version: '1', log, routes: [failing] });

    const boom = await app.request('/v1/ledgraph/boom', { headers: { 'X-Request-ID': 'r1' } });
    expect(boom.status).toBe(500);
    const text = await boom.text();
    expect(JSON.parse(text)).toEqual({ error: 'internal server error', status: 500, '@type': 'err:db/Internal' });
    expect(text).not.toContain('secret');
    expect(boom.headers.get('X-Request-ID')).toBe('r1');
    const logged = lines.find((l) => l.msg === 'unhandled error');
    expect(logged).toMatchObject({ level: 'error', request_id: 'r1', error: 'secret internals at /src/core/x.ts:12' });

    const busy = await app.request('/v1/ledgraph/busy');
    expect(busy.status).toBe(503);
    expect(busy.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect((await busy.json())['@type']).toBe('err:db/NoveltyAtMax');

    const nested = await app.request('/v1/ledgraph/nested');
    expect(await nested.json()).toEqual({
      error: 'outer', status: 400, '@type': 'err:db/BadRequest',
      cause: { error: 'inner', status: 404, '@type': 'err:db/LedgerNotFound' },
    });

    const http = await app.request('/v1/ledgraph/http');
    expect(http.status).toBe(401);
    expect(await http.json()).toEqual({ error: 'token required', status: 401, '@type': 'err:db/Unauthorized' });
  });

  it('enforces the body limit from Content-Length and while streaming', async () => {
    const app = createApp(config({ bodyLimit: 10 }), { version: '1', routes: [failing] });
    const ok = await app.request('/v1/ledgraph/echo', { method: 'POST', body: '0123456789' });
    expect(await ok.json()).toEqual({ bytes: 10 });
    const big = await app.request('/v1/ledgraph/echo', { method: 'POST', body: '0123456789a' });
    expect(big.status).toBe(413);
    expect((await big.json())['@type']).toBe('err:db/PayloadTooLarge');
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(new Uint8Array(6));
        ctl.enqueue(new Uint8Array(6));
        ctl.close();
      },
    });
    const chunked = await app.request('/v1/ledgraph/echo', { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await chunked.json())['@type']).toBe('err:db/PayloadTooLarge');
  });

  it('answers CORS when enabled', async () => {
    const app = createApp(config({ corsEnabled: true }), { version: '1' });
    const r = await app.request('/health', { headers: { Origin: 'https://elsewhere.example' } });
    expect(r.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const off = await createApp(config(), { version: '1' }).request('/health', { headers: { Origin: 'https://x.example' } });
    expect(off.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });
});

describe('mapError', () => {
  it('keeps a LedgraphError and adds Retry-After to any 503', () => {
    expect(mapError(badRequest('bad'))).toMatchObject({ status: 400, body: { error: 'bad', '@type': 'err:db/BadRequest' }, unexpected: false });
    const m = mapError(new LedgraphError(503, 'err:system/InternalError', 'too many in flight'));
    expect(m.headers['Retry-After']).toMatch(/^\d+$/);
  });

  it('hides everything else behind a 500', () => {
    expect(mapError(new TypeError('x is undefined'))).toEqual({
      status: 500, body: { error: 'internal server error', status: 500, '@type': 'err:db/Internal' }, headers: {}, unexpected: true,
    });
    expect(mapError(new LedgraphError(200, 'err:db/Weird', 'not an error status')).status).toBe(500);
  });
});

describe('startServer', () => {
  it('listens, serves /health over HTTP, and reports a busy port in one line', async () => {
    const { log, lines } = captureLogger();
    const s = await startServer(config({ port: 0 }), { version: '1.2.3', log });
    try {
      const r = await fetch(`${s.url}/health`);
      expect(await r.json()).toEqual({ status: 'ok', version: '1.2.3' });
      expect(lines[0]).toMatchObject({ level: 'info', msg: 'ledgraph listening', url: s.url, storage: 'memory' });
      await expect(startServer(config({ port: s.port }), { version: '1', log })).rejects.toThrow(`port ${s.port} is already in use`);
    } finally {
      await s.close();
    }
  });

  it('refuses an unwritable storage path', async () => {
    await expect(startServer(config({ memory: false, storagePath: '/dev/null/data', port: 0 }), { version: '1', log: captureLogger().log }))
      .rejects.toThrow('storage path /dev/null/data is not writable (ENOTDIR)');
  });
});
