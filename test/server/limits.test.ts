/**
 * Capacity and limit statuses over real HTTP (http-api.md §7, §8): body limit 413 (declared and
 * streamed), novelty 413/503, admission control 503 with Retry-After, and 409 after the pipeline's
 * retries are exhausted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { CTX, EX, expectError, json, until } from './helpers.js';

describe('body limit', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await startTestServer({ config: { bodyLimit: 1000 } }); await createLedger(srv, 'lim'); });
  afterAll(async () => { await srv.close(); });

  it('refuses a declared body over --body-limit with 413 and stages nothing', async () => {
    const big = `<${EX}a> <${EX}p> "${'x'.repeat(1200)}" .`;
    await expectError(await postText(`${srv.api}/insert/lim`, 'text/turtle', big), 413, 'err:db/PayloadTooLarge', 'exceeds the body limit of 1000 bytes');
    expect((await json<{ t: number }>(await fetch(`${srv.api}/info/lim`))).t).toBe(0);
    const ok = await postText(`${srv.api}/insert/lim`, 'text/turtle', `<${EX}a> <${EX}p> "small" .`);
    expect(ok.status).toBe(200);
  });

  it('refuses a streamed (chunked) body once it passes the limit', async () => {
    const chunk = new TextEncoder().encode(`<${EX}a> <${EX}p> "${'y'.repeat(400)}" .\n`);
    const body = new ReadableStream<Uint8Array>({
      start(ctl) { for (let i = 0; i < 4; i++) ctl.enqueue(chunk); ctl.close(); },
    });
    const r = await fetch(`${srv.api}/insert/lim`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body, duplex: 'half' } as RequestInit);
    await expectError(r, 413, 'err:db/PayloadTooLarge');
    expect((await json<{ t: number }>(await fetch(`${srv.api}/info/lim`))).t).toBe(1);
  });
});

describe('novelty limits', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ config: { indexingEnabled: false, reindexMinBytes: 100, reindexMaxBytes: 3000 } });
    await createLedger(srv, 'nov');
  });
  afterAll(async () => { await srv.close(); });

  it('answers 413 err:db/NoveltyDeltaTooLarge without Retry-After for a transaction too large on its own', async () => {
    const r = await postJson(`${srv.api}/insert/nov`, { '@context': CTX, '@id': 'ex:big', 'ex:text': 'z'.repeat(4000) });
    await expectError(r, 413, 'err:db/NoveltyDeltaTooLarge', 'reindex_max_bytes');
    expect(r.headers.get('retry-after')).toBeNull();
  });

  it('answers 503 err:db/NoveltyAtMax with Retry-After once novelty is full, and accepts writes after /reindex', async () => {
    let res: Response | null = null;
    for (let i = 0; i < 100; i++) {
      const r = await postJson(`${srv.api}/insert/nov`, { '@context': CTX, '@id': `ex:n${i}`, 'ex:text': 'w'.repeat(300) });
      if (r.status !== 200) { res = r; break; }
    }
    expect(res).not.toBeNull();
    expect(res!.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    await expectError(res!, 503, 'err:db/NoveltyAtMax', 'novelty is at capacity');
    await json(await postJson(`${srv.api}/reindex`, { ledger: 'nov' }));
    expect((await postJson(`${srv.api}/insert/nov`, { '@context': CTX, '@id': 'ex:after', 'ex:text': 'ok' })).status).toBe(200);
  });
});

describe('admission control and conflicts', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await startTestServer({ config: { maxInFlight: 1 } }); await createLedger(srv, 'adm'); });
  afterAll(async () => { await srv.close(); });

  it('answers 503 err:system/InternalError with a jittered Retry-After beyond --max-in-flight', async () => {
    const ledger = await srv.conn.ledger('adm');
    let release!: () => void;
    // Hold the ledger's write lock so the first write stays admitted and in flight.
    const held = ledger.lock.run(() => new Promise<void>((ok) => { release = ok; }));
    const first = postJson(`${srv.api}/insert/adm`, { '@context': CTX, '@id': 'ex:first', 'ex:p': 1 });
    await until(() => srv.server.state.admission.inFlight === 1, 5000);
    const second = await postJson(`${srv.api}/insert/adm`, { '@context': CTX, '@id': 'ex:second', 'ex:p': 1 });
    expect(second.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    await expectError(second, 503, 'err:system/InternalError', 'too many write operations in flight (limit 1)');
    const create = await postJson(`${srv.api}/create`, { ledger: 'adm2' });
    await expectError(create, 503, 'err:system/InternalError');
    release();
    await held;
    expect((await json<{ t: number }>(await first)).t).toBe(1);
    // Reads are not admission-controlled.
    expect((await fetch(`${srv.api}/info/adm`)).status).toBe(200);
  });

  it('answers 409 err:db/CommitConflict when the head keeps moving through every retry', async () => {
    const ns = srv.conn.ns;
    const cas = ns.compareAndSet.bind(ns);
    let attempts = 0;
    ns.compareAndSet = async () => { attempts++; return false; };
    try {
      await expectError(await postJson(`${srv.api}/insert/adm`, { '@context': CTX, '@id': 'ex:c', 'ex:p': 1 }), 409, 'err:db/CommitConflict', 'gave up after 16 attempts');
      expect(attempts).toBe(16);
    } finally {
      ns.compareAndSet = cas;
    }
    expect((await postJson(`${srv.api}/insert/adm`, { '@context': CTX, '@id': 'ex:c', 'ex:p': 1 })).status).toBe(200);
  });
});
