/**
 * The worked example of branches.md §12 over real HTTP, step by step, with exact response bodies
 * (CIDs are taken from the commits as they are made).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CID } from 'multiformats/cid';
import { digestHex } from '../../src/core/commit/cid.js';
import { postJson, startTestServer, type TestServer } from '../support/server.js';
import { expectError, json } from '../server/helpers.js';

let srv: TestServer;
const CTX = { ex: 'http://example.org/' };
const prefix = (cid: string) => digestHex(CID.parse(cid)).slice(0, 10);

async function write(op: 'insert' | 'upsert', ledger: string, doc: Record<string, unknown>): Promise<{ t: number; commit_id: string }> {
  return json(await postJson(`${srv.api}/${op}/${ledger}`, { '@context': CTX, ...doc }));
}
async function stock(ref: string): Promise<number[]> {
  const r = await postJson(`${srv.api}/query`, { '@context': CTX, from: ref, select: '?v', where: { '@id': 'ex:widget', 'ex:stock': '?v' }, orderBy: '?v' });
  return json<number[]>(r);
}
async function subjects(ref: string): Promise<string[]> {
  const r = await postJson(`${srv.api}/query`, { '@context': CTX, from: ref, select: '?s', where: { '@id': '?s', 'ex:name': '?n' }, orderBy: '?s' });
  return json<string[]>(r);
}
const post = async (path: string, body: unknown, status = 200) => json<Record<string, unknown>>(await postJson(`${srv.api}${path}`, body), status);

beforeAll(async () => { srv = await startTestServer(); });
afterAll(async () => { await srv.close(); });

describe('branches.md §12 worked example', () => {
  it('runs every step with the documented results', async () => {
    // 1
    await json(await postJson(`${srv.api}/create`, { ledger: 'inv' }), 201);
    const m1 = await write('insert', 'inv', { '@id': 'ex:widget', 'ex:name': 'Widget', 'ex:stock': 10 });
    expect(m1.t).toBe(1);
    // 2
    expect(await post('/branch', { ledger: 'inv', branch: 'dev' }, 201)).toEqual({ ledger_id: 'inv:dev', branch: 'dev', source: 'main', t: 1 });
    // 3
    const d2 = await write('upsert', 'inv:dev', { '@id': 'ex:widget', 'ex:stock': 8 });
    const d3 = await write('insert', 'inv:dev', { '@id': 'ex:gadget', 'ex:name': 'Gadget' });
    expect([d2.t, d3.t]).toEqual([2, 3]);
    // 4
    expect(await post('/merge', { ledger: 'inv', source: 'dev' })).toEqual({
      ledger_id: 'inv:main', target: 'main', source: 'dev', fast_forward: true, new_head_t: 3, commits_copied: 2, conflict_count: 0,
    });
    expect(await stock('inv:main')).toEqual([8]);
    // 5
    const m4 = await write('upsert', 'inv:main', { '@id': 'ex:widget', 'ex:stock': 12 });
    const d4 = await write('upsert', 'inv:dev', { '@id': 'ex:widget', 'ex:stock': 5 });
    const d5 = await write('insert', 'inv:dev', { '@id': 'ex:gizmo', 'ex:name': 'Gizmo' });
    expect([m4.t, d4.t, d5.t]).toEqual([4, 4, 5]);
    // 6
    const preview = await json<Record<string, unknown>>(await fetch(`${srv.api}/merge-preview/inv?source=dev`));
    const summary = (r: { t: number; commit_id: string }, asserts: number, retracts: number) => ({
      t: r.t, commit_id: r.commit_id, time: expect.any(String), asserts, retracts, flake_count: asserts + retracts, message: null,
    });
    expect(preview).toEqual({
      source: 'dev', target: 'main', ancestor: { commit_id: d3.commit_id, t: 3 },
      ahead: { count: 2, commits: [summary(d5, 1, 0), summary(d4, 1, 1)], truncated: false },
      behind: { count: 1, commits: [summary(m4, 1, 1)], truncated: false },
      fast_forward: false,
      conflicts: { count: 1, keys: [{ s: 'ex:widget', p: 'ex:stock', g: null }], truncated: false, strategy: 'take-both' },
      mergeable: true,
    });
    // 7
    await expectError(await postJson(`${srv.api}/merge`, { ledger: 'inv', source: 'dev', strategy: 'abort' }), 409, 'err:db/CommitConflict',
      'Merge aborted: 1 conflict(s) between dev and main with abort strategy');
    expect(await stock('inv:main')).toEqual([12]);
    // 8
    expect(await post('/merge', { ledger: 'inv', source: 'dev', strategy: 'take-source' })).toEqual({
      ledger_id: 'inv:main', target: 'main', source: 'dev', fast_forward: false, new_head_t: 5, commits_copied: 2, conflict_count: 1, strategy: 'take-source',
    });
    expect(await stock('inv:main')).toEqual([5]);
    const m5 = await json<{ id: string; previous: string; asserts: number; retracts: number; flakes: unknown[] }>(await fetch(`${srv.api}/show/inv:main?commit=t:5`));
    expect(m5.previous).toBe(m4.commit_id);
    expect(m5.flakes).toEqual([
      ['ex:gizmo', 'ex:name', 'Gizmo', 'xsd:string', true],
      ['ex:widget', 'ex:stock', 5, 'xsd:integer', true],
      ['ex:widget', 'ex:stock', 12, 'xsd:integer', false],
    ]);
    // After step 8: the branch list, the log, time travel.
    expect(await json(await fetch(`${srv.api}/branch/inv`))).toEqual([
      { branch: 'dev', ledger_id: 'inv:dev', t: 5, source: 'main' }, { branch: 'main', ledger_id: 'inv:main', t: 5 },
    ]);
    const log = await json<{ count: number; commits: { t: number; commit_id: string; asserts: number; retracts: number }[] }>(await fetch(`${srv.api}/log/inv:main`));
    expect(log.count).toBe(8);
    expect(log.commits.map((c) => [c.commit_id, c.t, c.asserts, c.retracts])).toEqual([
      [m5.id, 5, 2, 1], [d5.commit_id, 5, 1, 0], [m4.commit_id, 4, 1, 1], [d4.commit_id, 4, 1, 1],
      [d3.commit_id, 3, 1, 0], [d2.commit_id, 2, 1, 1], [m1.commit_id, 1, 2, 0], [expect.any(String), 0, 0, 0],
    ]);
    expect(await stock('inv:main@t:5')).toEqual([5]);
    expect(await stock('inv:main@t:4')).toEqual([12]);
    expect(await stock('inv:main@t:3')).toEqual([8]);
    expect(await stock('inv:main@t:2')).toEqual([8]);
    expect(await stock('inv:main@t:1')).toEqual([10]);
    expect(await stock('inv:dev@t:4')).toEqual([5]);
    // History across the fork point and the merge: first-parent events in t order with their @op.
    const history = async (ledger: string) => json(await postJson(`${srv.api}/query`, {
      '@context': CTX, from: `${ledger}@t:1`, to: `${ledger}@t:latest`,
      select: ['?v', '?t', '?op'], where: { '@id': 'ex:widget', 'ex:stock': { '@value': '?v', '@t': '?t', '@op': '?op' } }, orderBy: ['?t', '?op', '?v'],
    }));
    expect(await history('inv:main')).toEqual([
      [10, 1, 'assert'], [8, 2, 'assert'], [10, 2, 'retract'], [12, 4, 'assert'], [8, 4, 'retract'], [5, 5, 'assert'], [12, 5, 'retract'],
    ]);
    expect(await history('inv:dev')).toEqual([[10, 1, 'assert'], [8, 2, 'assert'], [10, 2, 'retract'], [5, 4, 'assert'], [8, 4, 'retract']]);
    const byTime = async (ref: string) => stock(ref);
    const m4time = (await json<{ time: string }>(await fetch(`${srv.api}/show/inv:main?commit=t:4`))).time;
    expect(await byTime(`inv:main@time:${m4time}`)).toEqual([12]);
    expect(await byTime(`inv:main@commit:${prefix(m4.commit_id)}`)).toEqual([12]);
    expect(await byTime(`inv:main@commit:${d2.commit_id}`)).toEqual([8]);
    await expectError(await postJson(`${srv.api}/query`, { from: `inv:main@commit:${prefix(d4.commit_id)}`, select: '?s', where: { '@id': '?s' } }), 404, 'err:db/LedgerNotFound');
    expect((await json<{ t: number }>(await fetch(`${srv.api}/show/inv:main?commit=${prefix(d4.commit_id)}`))).t).toBe(4);
    // 9
    expect(await post('/branch', { ledger: 'inv', branch: 'audit', at: 't:4' }, 201)).toEqual({ ledger_id: 'inv:audit', branch: 'audit', source: 'main', t: 4 });
    expect(await stock('inv:audit')).toEqual([12]);
    await expectError(await postJson(`${srv.api}/branch`, { ledger: 'inv', branch: 'audit2', at: prefix(d4.commit_id) }), 400, 'err:api/BadRequest', 'fork from the branch it was made on');
    // 10
    const r10 = await post('/revert', { ledger: 'inv', branch: 'main', commit: 't:3' });
    expect(r10).toEqual({
      ledger_id: 'inv:main', branch: 'main', reverted_commits: [d3.commit_id], conflict_count: 0, strategy: 'abort', new_head_t: 6, new_head_id: expect.any(String),
    });
    expect(await subjects('inv:main')).toEqual(['ex:gizmo', 'ex:widget']);
    // 11
    await expectError(await postJson(`${srv.api}/revert`, { ledger: 'inv', branch: 'main', commit: 't:4' }), 409, 'err:db/CommitConflict');
    const r11 = await post('/revert', { ledger: 'inv', branch: 'main', commit: 't:4', strategy: 'take-source' });
    expect(r11).toMatchObject({ reverted_commits: [m4.commit_id], conflict_count: 1, strategy: 'take-source', new_head_t: 7 });
    expect(await stock('inv:main')).toEqual([8]);
    const m7 = await json<{ flakes: unknown[] }>(await fetch(`${srv.api}/show/inv:main?commit=t:7`));
    expect(m7.flakes).toEqual([['ex:widget', 'ex:stock', 5, 'xsd:integer', false], ['ex:widget', 'ex:stock', 8, 'xsd:integer', true]]);
    // 12
    expect(await post('/rebase', { ledger: 'inv', branch: 'dev' })).toEqual({
      ledger_id: 'inv:dev', branch: 'dev', fast_forward: true, replayed: 0, skipped: 0, conflicts: 0, failures: 0, total_commits: 0, source_head_t: 7,
    });
    expect(await stock('inv:dev')).toEqual([8]);
    // 13
    const m8 = await write('upsert', 'inv:main', { '@id': 'ex:widget', 'ex:stock': 7 });
    const d8 = await write('upsert', 'inv:dev', { '@id': 'ex:widget', 'ex:stock': 3 });
    const d9 = await write('insert', 'inv:dev', { '@id': 'ex:thing', 'ex:name': 'Thing' });
    expect([m8.t, d8.t, d9.t]).toEqual([8, 8, 9]);
    // 14
    expect(await post('/rebase', { ledger: 'inv', branch: 'dev', strategy: 'take-branch' })).toEqual({
      ledger_id: 'inv:dev', branch: 'dev', fast_forward: false, replayed: 2, skipped: 0, conflicts: 1, failures: 0, total_commits: 2, source_head_t: 8,
    });
    expect(await stock('inv:dev')).toEqual([3]);
    const r9 = await json<{ t: number; flakes: unknown[] }>(await fetch(`${srv.api}/show/inv:dev?commit=t:9`));
    expect(r9.flakes).toEqual([['ex:widget', 'ex:stock', 3, 'xsd:integer', true], ['ex:widget', 'ex:stock', 7, 'xsd:integer', false]]);
    expect(await stock('inv:dev@t:8')).toEqual([7]);
    expect(await stock('inv:dev@t:10')).toEqual([3]);
    await expectError(await fetch(`${srv.api}/show/inv:dev?commit=${d8.commit_id}`), 404, 'err:db/LedgerNotFound');
    // 15
    const dropped = await post('/drop-branch', { ledger: 'inv', branch: 'dev' });
    expect(dropped).toEqual({ ledger_id: 'inv:dev', status: 'dropped', deferred: false, files_deleted: expect.any(Number) });
    expect(dropped.files_deleted).toBeGreaterThan(0);
    expect((await json<{ t: number }>(await fetch(`${srv.api}/show/inv:main?commit=${d4.commit_id}`))).t).toBe(4);
    expect((await json<{ t: number }>(await fetch(`${srv.api}/show/inv:main?commit=${d5.commit_id}`))).t).toBe(5);
    expect(await stock('inv:main@t:5')).toEqual([5]);
    expect(await json(await fetch(`${srv.api}/branch/inv`))).toEqual([
      { branch: 'audit', ledger_id: 'inv:audit', t: 4, source: 'main' }, { branch: 'main', ledger_id: 'inv:main', t: 8 },
    ]);
  });
});
