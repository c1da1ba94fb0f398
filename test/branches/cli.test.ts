/**
 * The branch commands end to end against real servers: branch create/list/drop, merge, rebase and
 * revert print the server's answers; push and pull carry a branch the other side lacks (created at
 * its fork point), with identical answers afterwards.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/server/cli.js';
import { postJson, type TestServer } from '../support/server.js';
import { json } from '../server/helpers.js';
import { answers, copyStorage, insert, log, startReplServer, storageToken } from '../replication/helpers.js';

let a: TestServer, b: TestServer;
let work: string, config: string;

async function cli(...argv: string[]): Promise<{ code: number | null; out: string; err: string }> {
  let out = '', err = '';
  const code = await main([...argv, '--config', config], {}, { out: (t) => { out += t; }, err: (t) => { err += t; } });
  return { code, out, err };
}
async function ok(...argv: string[]): Promise<unknown> {
  const r = await cli(...argv);
  expect(r.code, r.err).toBe(0);
  return r.out.trim().startsWith('{') || r.out.trim().startsWith('[') ? JSON.parse(r.out) : r.out;
}

beforeAll(async () => {
  [a, b] = await Promise.all([startReplServer(), startReplServer()]);
  work = await mkdtemp(join(tmpdir(), 'ledgraph-branch-cli-'));
  config = join(work, 'remotes.json');
  await json(await postJson(`${a.api}/create`, { ledger: 'inv' }), 201);
  await insert(a, 'inv', { '@id': 'ex:widget', 'ex:name': 'Widget', 'ex:stock': 10 });
  await copyStorage(a, b);
  const tok = await storageToken();
  for (const [name, srv] of [['a', a], ['b', b]] as const) await ok('remote', 'add', name, srv.url, '--token', tok);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
  await rm(work, { recursive: true, force: true });
});

describe('ledgraph branch, merge, rebase, revert', () => {
  it('drives the branch endpoints', async () => {
    expect(await ok('branch', 'create', 'a', 'inv', 'dev')).toEqual({ ledger_id: 'inv:dev', branch: 'dev', source: 'main', t: 1 });
    expect(await ok('branch', 'create', 'a', 'inv', 'old', '--at', 't:1')).toMatchObject({ t: 1 });
    expect(await ok('branch', 'list', 'a', 'inv')).toEqual([
      { branch: 'dev', ledger_id: 'inv:dev', t: 1, source: 'main' }, { branch: 'main', ledger_id: 'inv:main', t: 1 }, { branch: 'old', ledger_id: 'inv:old', t: 1, source: 'main' },
    ]);
    await insert(a, 'inv:dev', { '@id': 'ex:gadget', 'ex:name': 'Gadget' });
    await insert(a, 'inv:main', { '@id': 'ex:gizmo', 'ex:name': 'Gizmo' });
    expect(await ok('merge', 'a', 'inv', 'dev', '--strategy', 'abort')).toMatchObject({ ledger_id: 'inv:main', fast_forward: false, new_head_t: 3, commits_copied: 1, strategy: 'abort' });
    expect(await ok('rebase', 'a', 'inv', 'dev')).toMatchObject({ ledger_id: 'inv:dev', fast_forward: true, source_head_t: 3 });
    expect(await ok('revert', 'a', 'inv', 'main', '--commit', 't:2')).toMatchObject({ ledger_id: 'inv:main', new_head_t: 4, conflict_count: 0 });
    expect(await ok('branch', 'drop', 'a', 'inv', 'old')).toMatchObject({ ledger_id: 'inv:old', status: 'dropped', deferred: false });
    const bad = await cli('merge', 'a', 'inv', 'main');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('HTTP 400');
    expect((await cli('branch', '--help')).out).toContain('branch create <remote> <ledger> <branch>');
  });

  it('push and pull carry a branch the other side lacks', async () => {
    await ok('branch', 'create', 'a', 'inv', 'feature');
    await insert(a, 'inv:feature', { '@id': 'ex:bolt', 'ex:name': 'Bolt' });
    // B has main at t 1 only: pull main first so the fork point exists there.
    await ok('pull', 'a', 'inv', '--to', 'b');
    await ok('push', 'b', 'inv:feature', '--from', 'a');
    expect(await log(b, 'inv:feature')).toEqual(await log(a, 'inv:feature'));
    expect(await answers(b, 'inv:feature', [0, 1, 2, 3, 4, 5])).toEqual(await answers(a, 'inv:feature', [0, 1, 2, 3, 4, 5]));
    // Pull a branch into a storage directory that lacks it.
    const dir = join(work, 'data');
    await ok('clone', 'a', 'inv', '--storage-path', dir);
    await ok('pull', 'a', 'inv:feature', '--storage-path', dir);
    const out = await ok('fetch', 'a', 'inv:feature', '--storage-path', dir);
    expect(out).toContain('up to date at t 5');
  });
});
