/**
 * Replication over a connection that fails (issue 10, "idempotent and resumable"): a clone whose
 * pack stream is cut midway, or has a byte flipped on the way, leaves no ledger, record or object
 * behind (into a server or a storage directory); a push whose answer is lost is sent again with its Idempotency-Key and gets the
 * stored success; a push refused because the remote moved on is resolved by a pull. Real servers
 * on loopback, a proxy in front of one of them that loses or cuts responses.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/server/cli.js';
import { PACK_CONTENT_TYPE } from '../../src/core/pack/frames.js';
import { startFlakyProxy, type FlakyProxy } from '../support/flaky-proxy.js';
import { postJson, type TestServer } from '../support/server.js';
import { json } from '../server/helpers.js';
import { insert, log, startReplServer, storageToken, update } from './helpers.js';

let a: TestServer, b: TestServer;
let work: string, config: string, tok: string;
const proxies: FlakyProxy[] = [];

async function cli(...argv: string[]): Promise<{ code: number | null; out: string; err: string }> {
  let out = '', err = '';
  const code = await main([...argv, '--config', config], {}, { out: (t) => { out += t; }, err: (t) => { err += t; } });
  return { code, out, err };
}

/** Every object file under a storage directory. */
async function objects(dir: string): Promise<string[]> {
  const root = join(dir, 'objects');
  const out: string[] = [];
  for (const d of await readdir(root).catch(() => [] as string[])) for (const f of await readdir(join(root, d))) out.push(f);
  return out.sort();
}

/**
 * Run `act`, then wait until `srv` has deleted the record of `ledgerId` that a restore created
 * meanwhile (its rollback): the server may learn that the client went away after the client is done.
 */
async function rolledBack<T>(srv: TestServer, ledgerId: string, act: () => Promise<T>): Promise<T> {
  let deleted!: () => void;
  const done = new Promise<void>((ok) => { deleted = ok; });
  const stop = srv.conn.ns.subscribe((c) => { if (c.ledger_id === ledgerId && c.kind === 'delete') deleted(); });
  try {
    const r = await act();
    await Promise.race([done, new Promise((_, fail) => setTimeout(() => fail(new Error(`no rollback of ${ledgerId} seen`)), 15_000))]);
    return r;
  } finally { stop(); }
}

/** Wait until `f` holds (a server finishes rolling back after the client went away). */
async function eventually(f: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Where the largest Data frame's payload starts in a pack stream, and its length. */
function largestPayload(bytes: Uint8Array): { start: number; length: number } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let best = { start: 0, length: 0 };
  for (let p = 5; p < bytes.length;) {
    const type = bytes[p]!;
    if (type === 0xff) break;
    if (type === 0x01) {
      const cl = dv.getUint16(p + 1, true);
      const n = dv.getUint32(p + 3 + cl, true);
      if (n > best.length) best = { start: p + 3 + cl + 4, length: n };
      p += 3 + cl + 4 + n;
    } else p += 5 + dv.getUint32(p + 1, true);
  }
  return best;
}

async function head(srv: TestServer, ledger: string): Promise<{ t: number; commitId: string }> {
  const i = await json<{ t: number; commitId: string }>(await fetch(`${srv.api}/info/${ledger}`));
  return { t: i.t, commitId: i.commitId };
}

beforeAll(async () => {
  [a, b] = await Promise.all([startReplServer(), startReplServer()]);
  work = await mkdtemp(join(tmpdir(), 'ledgraph-failures-'));
  config = join(work, 'remotes.json');
  tok = await storageToken();
  await json(await postJson(`${a.api}/create`, { ledger: 'hr' }), 201);
  for (let i = 0; i < 6; i++) await insert(a, 'hr', { '@id': `ex:p${i}`, 'ex:name': `Person ${i}`, 'ex:note': 'x'.repeat(400) });
  await json(await postJson(`${a.api}/reindex`, { ledger: 'hr' }));
  await update(a, 'hr', 'PREFIX ex: <http://example.org/> DELETE DATA { ex:p0 ex:name "Person 0" }');
  for (const [n, s] of [['a', a], ['b', b]] as const) expect((await cli('remote', 'add', n, s.url, '--token', tok)).code).toBe(0);
});
afterAll(async () => {
  for (const p of proxies) await p.close();
  await Promise.all([a.close(), b.close()]);
  await rm(work, { recursive: true, force: true });
});

describe('a clone cut midway or tampered with on the way', () => {
  it('leaves no ledger, record or object on the receiving server or in the storage directory', async () => {
    const h = await json<{ commitId: string; indexId: string }>(await fetch(`${a.api}/info/hr`));
    const full = await postJson(`${a.api}/pack/hr`, { protocol: 'ledgraph-pack-v1', want: [h.commitId], include_indexes: true, want_index_root_id: h.indexId }, { Authorization: `Bearer ${tok}`, Accept: PACK_CONTENT_TYPE });
    const size = (await full.arrayBuffer()).byteLength;
    expect(size).toBeGreaterThan(4000);
    const proxy = await startFlakyProxy(a.url, { cut: { match: (m, p) => m === 'POST' && p.includes('/pack/'), afterBytes: Math.floor(size / 2) } });
    proxies.push(proxy);
    expect((await cli('remote', 'add', 'acut', proxy.url, '--token', tok)).code).toBe(0);

    const before = await objects(b.dir);
    const r = await rolledBack(b, 'hr:main', () => cli('clone', 'acut', 'hr', '--to', 'b'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('acut');
    expect(r.err).toContain('hr');
    expect(r.err).toMatch(/packing hr on remote acut: the connection failed after \d+ bytes/);
    await eventually(async () => (await objects(b.dir)).length === before.length && (await b.conn.ns.get('hr:main')) === null);
    expect(await objects(b.dir)).toEqual(before);
    expect(await b.conn.ns.get('hr:main')).toBeNull();
    expect(await json(await fetch(`${b.api}/exists/hr`))).toEqual({ ledger: 'hr:main', exists: false });

    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-cut-dir-'));
    try {
      const d = await cli('clone', 'acut', 'hr', '--storage-path', dir);
      expect(d.code).toBe(2);
      expect(d.err).toMatch(/packing hr on remote acut: the connection failed after \d+ bytes/);
      expect(await objects(dir)).toEqual([]);
      expect(await readdir(join(dir, 'ns')).catch(() => [])).toEqual([]);
    } finally { await rm(dir, { recursive: true, force: true }); }

    // One byte flipped in the largest object on the way: the frame fails its CID, the clone stores nothing.
    const bytes = new Uint8Array(await (await postJson(`${a.api}/pack/hr`, { protocol: 'ledgraph-pack-v1', want: [h.commitId], include_indexes: true, want_index_root_id: h.indexId }, { Authorization: `Bearer ${tok}`, Accept: PACK_CONTENT_TYPE })).arrayBuffer());
    const big = largestPayload(bytes);
    const tamper = await startFlakyProxy(a.url, { flip: { match: (m, p) => m === 'POST' && p.includes('/pack/'), at: big.start + (big.length >> 1) } });
    proxies.push(tamper);
    expect((await cli('remote', 'add', 'abad', tamper.url, '--token', tok)).code).toBe(0);
    const t = await rolledBack(b, 'hr:main', () => cli('clone', 'abad', 'hr', '--to', 'b'));
    expect(t.code).toBe(2);
    expect(t.err).toContain('the bytes do not match CID');
    await eventually(async () => (await objects(b.dir)).length === before.length && (await b.conn.ns.get('hr:main')) === null);
    expect(await objects(b.dir)).toEqual(before);
    expect(await b.conn.ns.get('hr:main')).toBeNull();

    // Nothing is left in the way: the same clone over a sound connection succeeds.
    expect((await cli('clone', 'a', 'hr', '--to', 'b')).code).toBe(0);
    expect(await log(b, 'hr')).toEqual(await log(a, 'hr'));
  });
});

describe('a push whose answer is lost', () => {
  it('is sent again with its Idempotency-Key and gets the stored success; a rerun finds the remote up to date', async () => {
    await insert(b, 'hr', { '@id': 'ex:q1', 'ex:name': 'Q1' });
    await insert(b, 'hr', { '@id': 'ex:q2', 'ex:name': 'Q2' });
    const proxy = await startFlakyProxy(a.url, { loseAnswerOf: (m, p) => m === 'POST' && p.includes('/push/') });
    proxies.push(proxy);
    expect((await cli('remote', 'add', 'alose', proxy.url, '--token', tok)).code).toBe(0);
    const r = await cli('push', 'alose', 'hr', '--from', 'b');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ ledger: 'hr:main', accepted: 2, head: { t: (await head(b, 'hr')).t } });
    expect(proxy.seen.filter((s) => s === 'POST /v1/ledgraph/push/hr')).toHaveLength(2);
    expect(await head(a, 'hr')).toEqual(await head(b, 'hr'));
    expect(await log(a, 'hr')).toEqual(await log(b, 'hr'));
    expect((await cli('push', 'alose', 'hr', '--from', 'b')).out).toBe(`hr: alose is up to date at t ${(await head(a, 'hr')).t}\n`);
  });

  it('is refused with 409 when the remote moved on meanwhile, and a pull resolves it', async () => {
    await insert(a, 'hr', { '@id': 'ex:r1', 'ex:name': 'R1' });
    const r = await cli('push', 'a', 'hr', '--from', 'b');
    expect(r.code).toBe(2);
    expect(r.err).toContain('pushing to hr on remote a: its head');
    expect(r.err).toContain('HTTP 409');
    expect(JSON.parse((await cli('pull', 'a', 'hr', '--to', 'b')).out)).toMatchObject({ accepted: 1 });
    expect(await head(b, 'hr')).toEqual(await head(a, 'hr'));
    expect((await cli('push', 'a', 'hr', '--from', 'b')).out).toMatch(/^hr: a is up to date at t \d+\n$/);
  });
});
