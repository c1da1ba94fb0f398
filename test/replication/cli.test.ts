/**
 * The replication commands end to end against three real servers on their own file storage:
 * remote add/list/remove, clone (byte-identical), pull, push, export → import under a new name,
 * clone into a storage directory, progress on stderr and errors naming remote, ledger and status.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/server/cli.js';
import { postJson, startTestServer, type TestServer } from '../support/server.js';
import { json } from '../server/helpers.js';
import { answers, insert, log, startReplServer, storageToken, update } from './helpers.js';

let a: TestServer, b: TestServer, c: TestServer;
let work: string;
let config: string;

async function cli(...argv: string[]): Promise<{ code: number | null; out: string; err: string }> {
  let out = '', err = '';
  const code = await main([...argv, ...(argv[0] === 'remote' ? [] : ['--config', config])], { LEDGRAPH_CLI_CONFIG: config }, {
    out: (t) => { out += t; }, err: (t) => { err += t; },
  });
  return { code, out, err };
}

async function ok(...argv: string[]): Promise<string> {
  const r = await cli(...argv);
  expect(r.code, r.err).toBe(0);
  return r.out;
}

async function same(x: TestServer, xl: string, y: TestServer, yl: string): Promise<void> {
  const ix = await json<{ t: number; commitId: string }>(await fetch(`${x.api}/info/${xl}`));
  const iy = await json<{ t: number; commitId: string }>(await fetch(`${y.api}/info/${yl}`));
  expect(iy.commitId).toBe(ix.commitId);
  expect(await log(y, yl)).toEqual(await log(x, xl));
  const ts = Array.from({ length: ix.t + 1 }, (_, i) => i);
  expect(await answers(y, yl, ts)).toEqual(await answers(x, xl, ts));
}

const HR_CONTEXT = { ex: 'http://example.org/' };

beforeAll(async () => {
  [a, b, c] = await Promise.all([startReplServer(), startReplServer(), startReplServer()]);
  work = await mkdtemp(join(tmpdir(), 'ledgraph-cli-'));
  config = join(work, 'remotes.json');
  await json(await postJson(`${a.api}/create`, { ledger: 'hr', '@context': HR_CONTEXT }), 201);
  await insert(a, 'hr', { '@id': 'ex:alice', 'ex:name': 'Alice' });
  await insert(a, 'hr', { '@id': 'ex:bob', 'ex:name': 'Bob', 'ex:knows': { '@id': 'ex:alice' } });
  await json(await postJson(`${a.api}/reindex`, { ledger: 'hr' }));
  await update(a, 'hr', 'PREFIX ex: <http://example.org/> DELETE DATA { ex:alice ex:name "Alice" } ; INSERT DATA { ex:alice ex:name "Alicia" }');
  const tok = await storageToken();
  for (const [name, srv] of [['a', a], ['b', b], ['c', c]] as const) await ok('remote', 'add', name, srv.url, '--token', tok, '--config', config);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), c.close()]);
  await rm(work, { recursive: true, force: true });
});

describe('ledgraph remote', () => {
  it('adds, lists and removes remotes in a mode-600 file', async () => {
    expect(await ok('remote', 'list', '--config', config)).toBe(`a\t${a.url}\t(token)\nb\t${b.url}\t(token)\nc\t${c.url}\t(token)\n`);
    expect((await stat(config)).mode & 0o777).toBe(0o600);
    await ok('remote', 'add', 'tmp', 'http://127.0.0.1:1', '--config', config);
    await ok('remote', 'remove', 'tmp', '--config', config);
    expect(await ok('remote', 'list', '--config', config)).not.toContain('tmp');
  });
});

describe('clone, pull, push between three servers', () => {
  it('clone is byte-identical: same commit CIDs, /log and answers at every t', async () => {
    const r = await cli('clone', 'a', 'hr', '--to', 'b');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ ledger: 'hr:main', t: 3 });
    expect(r.err).toMatch(/^clone hr from a: \d+\/\d+ objects, [\d.]+ (B|KiB), /m);
    await same(a, 'hr', b, 'hr');
    // The stored default context comes along.
    expect((await json<Record<string, unknown>>(await fetch(`${b.api}/context/hr`)))['@context']).toEqual(HR_CONTEXT);
  });

  it('pull brings the remote\'s new commits; push sends local ones back; a third server follows', async () => {
    await insert(a, 'hr', { '@id': 'ex:carol', 'ex:name': 'Carol', 'ex:knows': { '@id': 'ex:bob' } });
    expect(await ok('fetch', 'a', 'hr', '--to', 'b')).toBe(`hr: a is 1 commits ahead (t 3 → 4)\n`);
    expect(JSON.parse(await ok('pull', 'a', 'hr', '--to', 'b'))).toMatchObject({ accepted: 1, head: { t: 4 } });
    await same(a, 'hr', b, 'hr');
    expect(await ok('pull', 'a', 'hr', '--to', 'b')).toBe('hr: up to date at t 4\n');
    await insert(b, 'hr', { '@id': 'ex:dan', 'ex:name': 'Dan' });
    await update(b, 'hr', 'PREFIX ex: <http://example.org/> DELETE DATA { ex:bob ex:knows ex:alice }');
    expect(JSON.parse(await ok('push', 'a', 'hr', '--from', 'b'))).toMatchObject({ ledger: 'hr:main', accepted: 2, head: { t: 6 } });
    await same(b, 'hr', a, 'hr');
    await ok('clone', 'b', 'hr', '--to', 'c');
    await insert(a, 'hr', { '@id': 'ex:erin', 'ex:name': 'Erin' });
    await ok('pull', 'a', 'hr', '--to', 'b');
    await ok('pull', 'b', 'hr', '--to', 'c');
    await same(a, 'hr', c, 'hr');
    // A replaced default context travels with the next pull.
    const next = { ...HR_CONTEXT, schema: 'http://schema.org/' };
    expect((await fetch(`${a.api}/context/hr`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ '@context': next }) })).status).toBe(200);
    await ok('pull', 'a', 'hr', '--to', 'b');
    expect((await json<Record<string, unknown>>(await fetch(`${b.api}/context/hr`)))['@context']).toEqual(next);
  });

  it('push refuses when the remote has commits the local ledger lacks; errors name remote, ledger, status', async () => {
    await insert(a, 'hr', { '@id': 'ex:fay', 'ex:name': 'Fay' });
    await insert(b, 'hr', { '@id': 'ex:gus', 'ex:name': 'Gus' });
    const r = await cli('push', 'a', 'hr', '--from', 'b');
    expect(r.code).toBe(2);
    expect(r.err).toContain('on remote');
    expect(r.err).toContain('hr');
    expect(r.err).toContain('HTTP 409');
    const missing = await cli('pull', 'a', 'nope', '--to', 'b');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/nope/);
  });
});

describe('export and import', () => {
  it('exports from a server and from a storage directory, imports under a new name', async () => {
    const fromServer = join(work, 'hr.flpack');
    const e = await cli('export', 'hr', fromServer, '--from', 'a');
    expect(e.code, e.err).toBe(0);
    expect(e.err).toMatch(/^export hr: /m);
    const imp = JSON.parse(await ok('import', fromServer, 'hr-copy', '--to', 'c')) as { ledger: string };
    expect(imp.ledger).toBe('hr-copy:main');
    await same(a, 'hr', c, 'hr-copy');
    const fromDir = join(work, 'hr-dir.flpack');
    await ok('export', 'hr', fromDir, '--storage-path', a.dir);
    await ok('import', fromDir, 'hr-dir', '--to', 'c');
    await same(a, 'hr', c, 'hr-dir');
    const again = await cli('import', fromDir, 'hr-dir', '--to', 'c');
    expect(again.code).toBe(2);
    expect(again.err).toContain('HTTP 409');
  });

  it('clones into a storage directory that a server then serves', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-clone-dir-'));
    try {
      const r = await cli('clone', 'a', 'hr', '--storage-path', dir);
      expect(r.code, r.err).toBe(0);
      const d = await startTestServer({ config: { storagePath: dir } });
      try {
        await same(a, 'hr', d, 'hr');
        expect((await json<Record<string, unknown>>(await fetch(`${d.api}/context/hr`)))['@context']).toEqual((await json<Record<string, unknown>>(await fetch(`${a.api}/context/hr`)))['@context']);
      } finally { await d.close(); }
    } finally { await rm(dir, { recursive: true, force: true }); }
  });
});
