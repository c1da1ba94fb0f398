/**
 * `GET /events` over real HTTP (replication.md §10, http-api.md §4.9, auth.md §6): two servers share
 * one storage directory, writes go through one, the subscriber listens on the other, so every event
 * seen came through the NameService change feed (file watching), not an in-process shortcut.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultServerConfig, type ServerConfig } from '../../src/server/config.js';
import { silentLogger } from '../../src/server/log.js';
import { startLedgraphServer, type LedgraphServer } from '../../src/server/main.js';
import { signerA, signerB, token, DID_A } from '../auth/helpers.js';
import { postJson, startTestServer, type TestServer } from '../support/server.js';
import { bundleForNode } from '../support/bundle.js';
import { subscribe, type SseEvent } from '../support/sse.js';
import { CTX, expectError, json, until } from './helpers.js';

/** A second server over an existing storage directory (not deleted on close). */
async function sibling(dir: string, over: Partial<ServerConfig> = {}): Promise<LedgraphServer & { api: string }> {
  const config: ServerConfig = { ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: dir, ...over };
  const s = await startLedgraphServer(config, { version: 'test', log: silentLogger });
  return Object.assign(s, { api: s.url + config.apiBaseUrl });
}

const isRecord = (ledger: string, commitT?: number) => (e: SseEvent) =>
  e.event === 'ns-record' && e.data.resource_id === ledger && (commitT === undefined || (e.data.record as { commit_t: number }).commit_t === commitT);

describe('GET /events across two servers on one storage directory', () => {
  let a: TestServer;
  let b: Awaited<ReturnType<typeof sibling>>;

  beforeAll(async () => {
    a = await startTestServer();
    for (const l of ['zeta', 'alpha', 'mid']) expect((await postJson(`${a.api}/create`, { ledger: l })).status).toBe(201);
    b = await sibling(a.dir, { eventsKeepAliveMs: 150 });
  });
  afterAll(async () => {
    await b.close(0);
    await a.close();
  });

  it('sends the snapshot sorted by id, then every commit made through the other server', async () => {
    const sub = await subscribe(`${b.api}/events?all=true`);
    try {
      expect(sub.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(sub.response.headers.get('cache-control')).toBe('no-cache, no-transform');
      await sub.waitFor(isRecord('zeta:main'));
      const snap = sub.events.slice(0, 3);
      expect(snap.map((e) => e.data.resource_id)).toEqual(['alpha:main', 'mid:main', 'zeta:main']);
      const rec = (await (await fetch(`${a.api}/ledgers`)).json() as { ledger: string; commit_id: string }[]).find((l) => l.ledger === 'alpha:main')!;
      const first = snap[0]!;
      expect(first.event).toBe('ns-record');
      expect(first.id).toBe('ledger:alpha:main:0:0');
      expect(first.data).toEqual({
        action: 'ns-record', kind: 'ledger', resource_id: 'alpha:main', emitted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        record: {
          ledger_id: 'alpha:main', name: 'alpha', branch: 'main', commit_head_id: rec.commit_id, commit_t: 0,
          index_head_id: null, index_t: 0, default_context: null, config_id: null, retracted: false,
        },
      });

      const receipt = await json<{ t: number; commit_id: string }>(await postJson(`${a.api}/insert/mid`, { '@context': CTX, '@id': 'ex:x', 'ex:p': 1 }));
      const live = await sub.waitFor(isRecord('mid:main', 1));
      expect(live.id).toBe('ledger:mid:main:1:0');
      expect((live.data.record as { commit_head_id: string }).commit_head_id).toBe(receipt.commit_id);
      await json(await postJson(`${a.api}/insert/mid`, { '@context': CTX, '@id': 'ex:y', 'ex:p': 2 }));
      await sub.waitFor(isRecord('mid:main', 2));
    } finally {
      sub.close();
    }
  });

  it('reports an index publish as ns-record with the new index head', async () => {
    const sub = await subscribe(`${b.api}/events?ledger=mid`);
    try {
      await sub.waitFor(isRecord('mid:main'));
      const r = await json<{ index_id: string; index_t: number }>(await postJson(`${a.api}/reindex`, { ledger: 'mid' }));
      const e = await sub.waitFor((x) => isRecord('mid:main')(x) && (x.data.record as { index_t: number }).index_t === r.index_t);
      expect(e.id).toBe(`ledger:mid:main:2:${r.index_t}`);
      expect((e.data.record as { index_head_id: string }).index_head_id).toBe(r.index_id);
    } finally {
      sub.close();
    }
  });

  it('filters by ledger (bare names mean :main); graph-source subscriptions get keep-alives only', async () => {
    const one = await subscribe(`${b.api}/events?ledger=alpha&ledger=zeta:main`);
    const gs = await subscribe(`${b.api}/events?graph-source=search:main`);
    try {
      await one.waitFor(isRecord('zeta:main'));
      await json(await postJson(`${a.api}/insert/mid`, { '@context': CTX, '@id': 'ex:z', 'ex:p': 3 }));
      await json(await postJson(`${a.api}/insert/alpha`, { '@context': CTX, '@id': 'ex:z', 'ex:p': 3 }));
      await one.waitFor(isRecord('alpha:main', 1));
      expect(one.events.map((e) => e.data.resource_id)).toEqual(['alpha:main', 'zeta:main', 'alpha:main']);
      await gs.waitForComment((c) => c === 'keep-alive');
      expect(gs.events).toEqual([]);
    } finally {
      one.close();
      gs.close();
    }
  });

  it('sends ns-retracted when the ledger is dropped through the other server', async () => {
    expect((await postJson(`${a.api}/create`, { ledger: 'gone' })).status).toBe(201);
    expect((await postJson(`${a.api}/create`, { ledger: 'purged' })).status).toBe(201);
    const sub = await subscribe(`${b.api}/events?ledger=gone&ledger=purged`);
    try {
      await sub.waitFor(isRecord('purged:main'));
      const before = Date.now();
      await json(await postJson(`${a.api}/drop`, { ledger: 'gone' }));
      const e = await sub.waitFor((x) => x.event === 'ns-retracted');
      expect(e.data).toEqual({ action: 'ns-retracted', kind: 'ledger', resource_id: 'gone:main', emitted_at: expect.any(String) });
      const ms = Number(/^ledger:gone:main:retracted:(\d+)$/.exec(e.id!)![1]);
      expect(ms).toBeGreaterThanOrEqual(before);
      await json(await postJson(`${a.api}/drop`, { ledger: 'purged', hard: true }));
      await sub.waitFor((x) => x.event === 'ns-retracted' && x.data.resource_id === 'purged:main');
      // A reconnecting client gets a fresh snapshot without the dropped ledgers.
      const again = await subscribe(`${b.api}/events?ledger=gone&ledger=purged&ledger=alpha`);
      await again.waitFor(isRecord('alpha:main'));
      await again.waitForComment((c) => c === 'keep-alive');
      expect(again.events.map((x) => x.data.resource_id)).toEqual(['alpha:main']);
      again.close();
    } finally {
      sub.close();
    }
  });

  it('sends keep-alive comments', async () => {
    const sub = await subscribe(`${b.api}/events?ledger=alpha`);
    try {
      await sub.waitForComment((c) => c === 'keep-alive');
    } finally {
      sub.close();
    }
  });

  it('refuses a request that subscribes to nothing or names a bad id', async () => {
    await expectError(await fetch(`${b.api}/events`), 400, 'err:db/BadRequest', 'subscribe with all=true');
    await expectError(await fetch(`${b.api}/events?ledger=a%20b`), 400, 'err:db/BadRequest', 'not a name:branch id');
    await expectError(await fetch(`${b.api}/events?all=yes`), 400, 'err:db/BadRequest');
  });

  it('forgets subscribers whose clients went away', async () => {
    const subs = await Promise.all([1, 2, 3].map(() => subscribe(`${b.api}/events?all=true`)));
    await Promise.all(subs.map((s) => s.waitFor(isRecord('alpha:main'))));
    expect(b.state.events.size).toBeGreaterThanOrEqual(3);
    for (const s of subs) s.close();
    await until(() => b.state.events.size === 0);
  });

  it('ends open streams when the server shuts down', async () => {
    const c = await sibling(a.dir);
    const sub = await subscribe(`${c.api}/events?all=true`);
    await sub.waitFor(isRecord('alpha:main'));
    const t0 = Date.now();
    await c.close();
    await sub.ended;
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

describe('GET /events with the writer in another OS process', () => {
  it('reports commits and drops made by a `ledgraph server` child process on the same storage directory', async () => {
    const work = await mkdtemp(join(tmpdir(), 'ledgraph-events-'));
    await bundleForNode(join(import.meta.dirname, 'cli-child.ts'), join(work, 'cli.mjs'));
    const srv = await startTestServer();
    const child = spawn(process.execPath, [join(work, 'cli.mjs'), 'server', '--listen-addr', '127.0.0.1:0', '--storage-path', srv.dir, '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const lines: Record<string, unknown>[] = [];
      createInterface({ input: child.stdout! }).on('line', (l) => { try { lines.push(JSON.parse(l) as Record<string, unknown>); } catch { /* not JSON */ } });
      await until(() => lines.some((l) => l.msg === 'ledgraph listening') || child.exitCode !== null, 20_000);
      const other = `${lines.find((l) => l.msg === 'ledgraph listening')!.url as string}/v1/ledgraph`;
      const sub = await subscribe(`${srv.api}/events?all=true`);
      try {
        expect((await postJson(`${other}/create`, { ledger: 'proc' })).status).toBe(201);
        await sub.waitFor(isRecord('proc:main', 0));
        const receipt = await json<{ commit_id: string }>(await postJson(`${other}/insert/proc`, { '@context': CTX, '@id': 'ex:a', 'ex:p': 1 }));
        const e = await sub.waitFor(isRecord('proc:main', 1));
        expect((e.data.record as { commit_head_id: string }).commit_head_id).toBe(receipt.commit_id);
        await json(await postJson(`${other}/drop`, { ledger: 'proc' }));
        await sub.waitFor((x) => x.event === 'ns-retracted' && x.data.resource_id === 'proc:main');
      } finally {
        sub.close();
      }
    } finally {
      child.kill('SIGKILL');
      await srv.close();
      await rm(work, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('GET /events auth', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      config: { eventsAuthMode: 'required', eventsAuthTrustedIssuers: [DID_A], eventsAuthAudience: 'peers', eventsKeepAliveMs: 100 },
    });
    for (const l of ['hr', 'payroll']) expect((await postJson(`${srv.api}/create`, { ledger: l })).status).toBe(201);
  });
  afterAll(() => srv.close());

  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

  it('401 without a token, with a bad audience, an untrusted issuer or no events claim', async () => {
    await expectError(await fetch(`${srv.api}/events?all=true`), 401, 'err:db/Unauthorized', 'Bearer token required');
    const wrongAud = await token(await signerA(), { aud: 'other', 'ledgraph.events.all': true });
    await expectError(await fetch(`${srv.api}/events?all=true`, { headers: bearer(wrongAud) }), 401, 'err:db/Unauthorized');
    const untrusted = await token(await signerB(), { aud: 'peers', 'ledgraph.events.all': true });
    await expectError(await fetch(`${srv.api}/events?all=true`, { headers: bearer(untrusted) }), 401, 'err:db/Unauthorized', 'Untrusted issuer');
    const noClaim = await token(await signerA(), { aud: 'peers', 'ledgraph.ledger.read.all': true });
    await expectError(await fetch(`${srv.api}/events?all=true`, { headers: bearer(noClaim) }), 401, 'err:db/Unauthorized', 'token authorizes no resources');
  });

  it('events.all sees everything; a narrower token is silently narrowed', async () => {
    const all = await subscribe(`${srv.api}/events?all=true`, bearer(await token(await signerA(), { aud: ['x', 'peers'], 'ledgraph.events.all': true })));
    await all.waitFor(isRecord('payroll:main'));
    expect(all.events.map((e) => e.data.resource_id)).toEqual(['hr:main', 'payroll:main']);
    all.close();

    const hrOnly = bearer(await token(await signerA(), { aud: 'peers', 'ledgraph.events.ledgers': ['hr'] }));
    const narrowed = await subscribe(`${srv.api}/events?all=true`, hrOnly);
    const explicit = await subscribe(`${srv.api}/events?ledger=payroll&ledger=hr`, hrOnly);
    const outside = await subscribe(`${srv.api}/events?ledger=payroll`, hrOnly);
    try {
      await narrowed.waitFor(isRecord('hr:main'));
      await explicit.waitFor(isRecord('hr:main'));
      await json(await postJson(`${srv.api}/insert/payroll`, { '@context': CTX, '@id': 'ex:s', 'ex:p': 1 }));
      await json(await postJson(`${srv.api}/insert/hr`, { '@context': CTX, '@id': 'ex:s', 'ex:p': 1 }));
      await narrowed.waitFor(isRecord('hr:main', 1));
      await explicit.waitFor(isRecord('hr:main', 1));
      await outside.waitForComment((c) => c === 'keep-alive');
      for (const s of [narrowed, explicit]) expect(s.events.map((e) => e.data.resource_id)).toEqual(['hr:main', 'hr:main']);
      expect(outside.events).toEqual([]);
    } finally {
      narrowed.close();
      explicit.close();
      outside.close();
    }
  });
});

describe('GET /events on a peer', () => {
  it('answers 404', async () => {
    const srv = await startTestServer({ config: { role: 'peer', txServerUrl: 'http://127.0.0.1:1' } });
    try {
      await expectError(await fetch(`${srv.api}/events?all=true`), 404, 'err:db/LedgerNotFound');
    } finally {
      await srv.close();
    }
  });
});
