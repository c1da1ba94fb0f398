/**
 * GET /stats/memory over real HTTP (issue 20, docs/memory.md): the caches report what they hold
 * against the budgets the flags set, and every loaded ledger its dictionary, term cache and novelty.
 */
import { getHeapStatistics } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { EX, json } from './helpers.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ config: { leafCacheBytes: 1024 * 1024, termCacheBytes: 64 * 1024, parseCacheBytes: 3 * 1024 * 1024, idempotencyCacheBytes: 4096 } });
  await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'mem' }) });
  let ttl = '';
  for (let i = 0; i < 200; i++) ttl += `<${EX}s${i}> <${EX}p> "value ${i}" .\n`;
  const r = await fetch(`${srv.api}/insert/mem`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: ttl });
  expect(r.status).toBe(200);
  await srv.conn.reindex('mem');
  const q = await fetch(`${srv.api}/query/mem`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query' }, body: `SELECT (COUNT(*) AS ?n) WHERE { ?s <${EX}p> ?o }` });
  expect(q.status).toBe(200);
});
afterAll(() => srv.close());

interface Report {
  limits: Record<string, number>;
  process: { rss: number; heap_used: number };
  heap_spaces: Record<string, { used: number; size: number }>;
  caches: { parse_cache_limit_bytes: number; idempotency_cache_limit_bytes: number; queries_executing: number; queries_queued: number };
  leaf_cache: { bytes: number; leaves: number; limit_bytes: number };
  dict_pages_held: { bytes: number; limit_bytes: number };
  commit_cache: { bytes: number; limit_bytes: number };
  root_headers: { bytes: number; headers: number; limit_bytes: number };
  term_cache_limit_bytes_per_ledger: number;
  ledgers: {
    ledger: string; terms: number; dict_bytes: number; dict_page_bytes: number; term_cache_bytes: number; novelty_bytes: number; novelty_encoded_bytes: number;
    dict_absent_lookups: { lookups: number; bloom_candidate_pages: number; pages_read: number };
  }[];
}

describe('GET /stats/memory', () => {
  it('reports caches against the configured budgets and each loaded ledger', async () => {
    const m = await json<Report>(await fetch(`${srv.api}/stats/memory`));
    // The configured total and the budgets as configured; V8's real heap limit beside them.
    expect(m.limits).toEqual({
      memory_limit: 512 * 1024 * 1024, heap_size_limit: getHeapStatistics().heap_size_limit, leaf_cache: 1024 * 1024,
      term_cache_per_ledger: 64 * 1024, commit_cache: 16 * 1024 * 1024, parse_cache: 3 * 1024 * 1024, idempotency_cache: 4096,
      loaded_ledgers: 64,
    });
    expect((m as unknown as { loaded_ledgers: unknown }).loaded_ledgers).toEqual({ count: 1, unloaded_since_start: 0 });
    expect(m.heap_spaces.old_space!.used).toBeGreaterThan(0);
    expect(m.heap_spaces.code_space!.used).toBeGreaterThan(0);
    expect(m.leaf_cache.limit_bytes).toBe(1024 * 1024);
    expect(m.leaf_cache.leaves).toBeGreaterThan(0);
    expect(m.leaf_cache.bytes).toBeGreaterThan(0);
    expect(m.leaf_cache.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(m.term_cache_limit_bytes_per_ledger).toBe(64 * 1024);
    expect(m.caches).toMatchObject({ parse_cache_limit_bytes: 3 * 1024 * 1024, idempotency_cache_limit_bytes: 4096, queries_executing: 0, queries_queued: 0 });
    const mem = m.ledgers.find((l) => l.ledger === 'mem:main')!;
    // 200 subjects and 200 literals, one predicate, plus the commit metadata terms.
    expect(mem.terms).toBeGreaterThan(401);
    // Indexed: the keys are in dictionary pages (held while in use, then by the leaf cache's
    // budget); what stays for good is the page filters and the terms since the index.
    expect(mem.dict_page_bytes).toBeGreaterThan(200 * `${EX}s0`.length);
    expect(mem.dict_bytes).toBeLessThan(mem.dict_page_bytes);
    expect(mem.term_cache_bytes).toBeLessThanOrEqual(64 * 1024);
    // Indexed: novelty is empty.
    expect([mem.novelty_bytes, mem.novelty_encoded_bytes]).toEqual([0, 0]);
    expect(m.process.rss).toBeGreaterThan(m.process.heap_used);
    // Pages held for the grace window count against a quarter of the leaf cache's budget.
    expect(m.dict_pages_held.limit_bytes).toBe(256 * 1024);
    expect(m.dict_pages_held.bytes).toBeGreaterThanOrEqual(mem.dict_page_bytes);
    // The commit envelopes of the two commits (create, insert), under --commit-cache-bytes.
    expect(m.commit_cache.limit_bytes).toBe(16 * 1024 * 1024);
    expect(m.commit_cache.bytes).toBeGreaterThan(2 * 200);
    expect(m.commit_cache.bytes).toBeLessThan(2 * 500);
    // Headers of the index roots written so far, each charged 512 + 88 bytes per dictionary blob, within 4 MiB.
    expect(m.root_headers.limit_bytes).toBe(4 * 1024 * 1024);
    expect(m.root_headers.headers).toBeGreaterThan(0);
    expect(m.root_headers.bytes).toBeGreaterThanOrEqual(m.root_headers.headers * (512 + 2 * 88));
    expect(m.root_headers.bytes).toBeLessThanOrEqual(m.root_headers.limit_bytes);
  });

  it('counts the new terms of a write as absent lookups that read no page', async () => {
    const before = (await json<Report>(await fetch(`${srv.api}/stats/memory`))).ledgers.find((l) => l.ledger === 'mem:main')!;
    const r = await fetch(`${srv.api}/insert/mem`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: `<${EX}new> <${EX}p> "a new value" .\n` });
    expect(r.status).toBe(200);
    const after = (await json<Report>(await fetch(`${srv.api}/stats/memory`))).ledgers.find((l) => l.ledger === 'mem:main')!;
    expect(after.dict_absent_lookups.lookups).toBeGreaterThanOrEqual(before.dict_absent_lookups.lookups + 2);
    expect(after.dict_absent_lookups.pages_read).toBe(0);
    expect(after.dict_page_bytes).toBe(before.dict_page_bytes);
  });
});

describe('GET /stats/memory under admin auth', () => {
  it('needs an admin credential (it names every loaded ledger), while /stats stays open', async () => {
    const locked = await startTestServer({ config: { adminAuthMode: 'required', adminAuthTrustedIssuers: ['did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'] } });
    try {
      const r = await fetch(`${locked.api}/stats/memory`);
      expect(r.status).toBe(401);
      expect(((await r.json()) as Record<string, unknown>)['@type']).toBe('err:db/Unauthorized');
      expect((await fetch(`${locked.api}/stats`)).status).toBe(200);
    } finally {
      await locked.close();
    }
  });
});

describe('bodies parsed whole under the memory total', () => {
  it('refuses a JSON body over 1/32 of --memory-limit with 413 before parsing it, and still parses smaller ones', async () => {
    const big = JSON.stringify({ '@context': {}, '@graph': [{ '@id': 'http://ex.org/s', 'http://ex.org/p': 'x'.repeat(16 * 1024 * 1024 + 10) }] });
    const r = await fetch(`${srv.api}/insert/mem`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: big });
    expect(r.status).toBe(413);
    const body = await r.json() as { '@type': string; error: string };
    expect(body['@type']).toBe('err:db/PayloadTooLarge');
    expect(body.error).toMatch(/more than 16 MiB that is parsed whole .* raise --memory-limit/);
    const ok = await fetch(`${srv.api}/insert/mem`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ '@id': 'http://ex.org/small', 'http://ex.org/p': 'y' }) });
    expect(ok.status).toBe(200);
    const update = `INSERT DATA { <http://ex.org/u> <http://ex.org/p> "${'z'.repeat(16 * 1024 * 1024 + 10)}" }`;
    const u = await fetch(`${srv.api}/update/mem`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-update' }, body: update });
    expect(u.status).toBe(413);
    expect(((await u.json()) as { '@type': string })['@type']).toBe('err:db/PayloadTooLarge');
  });
});
