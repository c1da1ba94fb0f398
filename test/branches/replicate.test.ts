/**
 * Branches between servers (branches.md §10, replication.md §6–7): main, which fast-forwarded to a
 * branch, merged it with a merge commit and reverted a commit, is pushed to a second server with
 * lineage pages and /push-merges; a branch is created on the second server at its fork point and
 * pushed too. Both servers then give identical answers at every t, the same /log and /show.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchCommitsSince, pushCommits } from '../../src/server/replication/remote-client.js';
import { postJson, type TestServer } from '../support/server.js';
import { json } from '../server/helpers.js';
import { answers, copyStorage, insert, log, startReplServer, target } from '../replication/helpers.js';

let a: TestServer, b: TestServer;
const post = async (srv: TestServer, path: string, body: unknown, status = 200) => json<Record<string, unknown>>(await postJson(`${srv.api}${path}`, body), status);
const upsert = async (srv: TestServer, ledger: string, doc: Record<string, unknown>) => {
  const r = await postJson(`${srv.api}/upsert/${ledger}`, { '@context': { ex: 'http://example.org/' }, ...doc });
  expect(r.status, await r.clone().text()).toBe(200);
};
const head = async (srv: TestServer, ledger: string) => (await srv.conn.ledger(ledger)).head.cid;

beforeAll(async () => {
  [a, b] = await Promise.all([startReplServer(), startReplServer()]);
  await json(await postJson(`${a.api}/create`, { ledger: 'inv' }), 201);
  await insert(a, 'inv', { '@id': 'ex:widget', 'ex:name': 'Widget', 'ex:stock': 10 });
  await copyStorage(a, b);
});
afterAll(async () => { await Promise.all([a.close(), b.close()]); });

describe('pushing branches with merges', () => {
  it('gives identical answers on the second server', async () => {
    await post(a, '/branch', { ledger: 'inv', branch: 'dev' }, 201);
    await upsert(a, 'inv:dev', { '@id': 'ex:widget', 'ex:stock': 8 });
    await insert(a, 'inv:dev', { '@id': 'ex:gadget', 'ex:name': 'Gadget' });
    await post(a, '/merge', { ledger: 'inv', source: 'dev' });
    await upsert(a, 'inv:main', { '@id': 'ex:widget', 'ex:stock': 12 });
    await upsert(a, 'inv:dev', { '@id': 'ex:widget', 'ex:stock': 5, 'ex:note': 'dev' });
    await insert(a, 'inv:dev', { '@id': 'ex:gizmo', 'ex:name': 'Gizmo' });
    await post(a, '/merge', { ledger: 'inv', source: 'dev', strategy: 'take-source' });
    await post(a, '/revert', { ledger: 'inv', branch: 'main', commit: 't:3' });

    const batch = await fetchCommitsSince(await target(a), 'inv', await head(b, 'inv'));
    expect([batch.commits.length, batch.merged.length]).toEqual([5, 2]);
    await pushCommits(await target(b), 'inv', batch);
    expect(await head(b, 'inv')).toBe(await head(a, 'inv'));
    expect(await log(b, 'inv')).toEqual(await log(a, 'inv'));
    const ts = [0, 1, 2, 3, 4, 5, 6];
    expect(await answers(b, 'inv', ts)).toEqual(await answers(a, 'inv', ts));
    const d4 = (await json<{ commits: { t: number; commit_id: string }[] }>(await fetch(`${a.api}/log/inv`))).commits.filter((c) => c.t === 4)[1]!.commit_id;
    expect(await json(await fetch(`${b.api}/show/inv?commit=${d4}`))).toEqual(await json(await fetch(`${a.api}/show/inv?commit=${d4}`)));

    // The branch: created on B at its fork point, then pushed.
    expect(await post(b, '/branch', { ledger: 'inv', branch: 'dev', at: 't:1' }, 201)).toMatchObject({ t: 1 });
    const dev = await fetchCommitsSince(await target(a), 'inv:dev', await head(b, 'inv:dev'));
    await pushCommits(await target(b), 'inv:dev', dev);
    expect(await log(b, 'inv:dev')).toEqual(await log(a, 'inv:dev'));
    expect(await answers(b, 'inv:dev', [1, 2, 3, 4, 5])).toEqual(await answers(a, 'inv:dev', [1, 2, 3, 4, 5]));
    // And the same merge preview from both.
    const preview = async (srv: TestServer) => json(await fetch(`${srv.api}/merge-preview/inv?source=dev`));
    expect(await preview(b)).toEqual(await preview(a));
  });
});
