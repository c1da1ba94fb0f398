/**
 * Query admission over real HTTP (issue 20): past --max-concurrent-queries a query waits in a small
 * queue, then is refused with 503, Retry-After and err:system/InternalError (http-api.md §7); a
 * permit is held until the response is done, and freed when the client goes away. Queries that
 * hold a permit without using the CPU wait for Ledgraph-Min-T, so the tests need no slow query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { EX, expectError, until } from './helpers.js';

const Q = `SELECT ?v WHERE { <${EX}x> <${EX}v> ?v } ORDER BY ?v`;

async function insert(srv: TestServer, n: number): Promise<number> {
  const r = await fetch(`${srv.api}/insert/adm`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: `<${EX}x> <${EX}v> ${n} .` });
  expect(r.status, await r.clone().text()).toBe(200);
  return ((await r.json()) as { t: number }).t;
}

function query(srv: TestServer, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${srv.api}/query/adm`, {
    method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json', ...headers }, body: Q, signal,
  });
}

const values = async (r: Response): Promise<string[]> => {
  const text = await r.text();
  expect(r.status, text).toBe(200);
  return (JSON.parse(text) as { results: { bindings: { v: { value: string } }[] } }).results.bindings.map((b) => b.v.value);
};

describe('query admission without a queue', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ config: { maxConcurrentQueries: 1, queryQueueSize: 0 } });
    await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'adm' }) });
    await insert(srv, 1);
  });
  afterAll(() => srv.close());

  it('refuses a query past the cap with 503 and Retry-After, and admits again once the holder is gone', async () => {
    const ac = new AbortController();
    const holder = query(srv, { 'Ledgraph-Min-T': '1000' }, ac.signal).catch((e: unknown) => e);
    await until(() => srv.server.state.queryGate.active === 1, 5000);
    const refused = await query(srv);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectError(refused, 503, 'err:system/InternalError', 'too many queries executing (limit 1');
    // Every query endpoint counts against the same cap.
    const streamed = await fetch(`${srv.api}/stream/query/adm`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query' }, body: Q });
    await expectError(streamed, 503, 'err:system/InternalError');
    const graph = await fetch(`${srv.api}/data/adm?default`, { headers: { Accept: 'application/n-triples' } });
    await expectError(graph, 503, 'err:system/InternalError');
    // Writes are admitted separately (--max-in-flight).
    expect(await insert(srv, 2)).toBe(2);
    ac.abort();
    await holder;
    await until(() => srv.server.state.queryGate.active === 0, 5000);
    expect(await values(await query(srv))).toEqual(['1', '2']);
  });
});

describe('query admission with a queue', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ config: { maxConcurrentQueries: 1, queryQueueSize: 1, queryQueueWaitMs: 30_000 } });
    await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'adm' }) });
    await insert(srv, 1);
  });
  afterAll(() => srv.close());

  it('lets a query wait for the permit, and refuses one that finds the queue full', async () => {
    const holder = query(srv, { 'Ledgraph-Min-T': '2' });
    await until(() => srv.server.state.queryGate.active === 1, 5000);
    const waiting = query(srv);
    await until(() => srv.server.state.queryGate.queued === 1, 5000);
    await expectError(await query(srv), 503, 'err:system/InternalError', '1 waiting');
    // The holder's Min-T is reached: it answers, and the waiting query runs after it.
    await insert(srv, 2);
    expect(await values(await holder)).toEqual(['1', '2']);
    expect(await values(await waiting)).toEqual(['1', '2']);
    expect([srv.server.state.queryGate.active, srv.server.state.queryGate.queued]).toEqual([0, 0]);
  });

  it('drops a queued query from the queue when its client goes away', async () => {
    const ac = new AbortController();
    const holder = query(srv, { 'Ledgraph-Min-T': '1000' }, ac.signal).catch((e: unknown) => e);
    await until(() => srv.server.state.queryGate.active === 1, 5000);
    const wc = new AbortController();
    const waiter = query(srv, {}, wc.signal).catch((e: unknown) => e);
    await until(() => srv.server.state.queryGate.queued === 1, 5000);
    wc.abort();
    await waiter;
    await until(() => srv.server.state.queryGate.queued === 0, 5000);
    expect(srv.server.state.queryGate.active).toBe(1);
    ac.abort();
    await holder;
    await until(() => srv.server.state.queryGate.active === 0, 5000);
  });

  it('refuses a queued query once its wait runs out', async () => {
    const gate = srv.server.state.queryGate as { waitMs: number };
    const saved = gate.waitMs;
    (gate as { waitMs: number }).waitMs = 100;
    try {
      const ac = new AbortController();
      const holder = query(srv, { 'Ledgraph-Min-T': '1000' }, ac.signal).catch((e: unknown) => e);
      await until(() => srv.server.state.queryGate.active === 1, 5000);
      const t0 = Date.now();
      await expectError(await query(srv), 503, 'err:system/InternalError');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
      ac.abort();
      await holder;
      await until(() => srv.server.state.queryGate.active === 0, 5000);
    } finally {
      (gate as { waitMs: number }).waitMs = saved;
    }
  });
});
