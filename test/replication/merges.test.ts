/**
 * History with a merge over HTTP: /push-merges stores the merged commits and replays the merge,
 * /commits in lineage mode lists them as merged_commits (parents first, left out below base_id),
 * and pull / clone carry them to another server (replication.md §6–7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../../src/core/commit/cid.js';
import { encodeCommit, type CommitData } from '../../src/core/commit/commit-codec.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { fetchCommitsSince, pushCommits } from '../../src/server/replication/remote-client.js';
import { postJson, type TestServer } from '../support/server.js';
import { expectError, json } from '../server/helpers.js';
import { answers, copyStorage, insert, log, startReplServer, storageToken, target } from './helpers.js';

let a: TestServer, b: TestServer;
let tok: string;
const ex = (s: string) => namedNode('http://example.org/' + s);

async function commit(srv: TestServer, t: number, parents: string[], s: string, name: string): Promise<{ bytes: Uint8Array; cid: string }> {
  const ledger = await srv.conn.ledger('hr');
  const data: CommitData = {
    t, parents: parents.map((p) => CID.parse(p)), time: new Date().toISOString(), txn: null, author: '',
    nsDelta: [], graphDelta: [], meta: [], flakes: [{ g: 0, s: ex(s), p: ex('name'), o: literal(name), op: true }],
  };
  const { bytes } = encodeCommit(data, ledger.ns);
  return { bytes, cid: (await cidOf(Codec.commit, bytes)).toString() };
}

beforeAll(async () => {
  [a, b] = await Promise.all([startReplServer(), startReplServer()]);
  tok = await storageToken();
  await json(await postJson(`${a.api}/create`, { ledger: 'hr' }), 201);
  await insert(a, 'hr', { '@id': 'ex:alice', 'ex:name': 'Alice' });
  await copyStorage(a, b);
});
afterAll(async () => { await Promise.all([a.close(), b.close()]); });

describe('merges', () => {
  it('push-merges applies a merge and stores what it brought in; lineage pages list it; pull carries it', async () => {
    const la = await a.conn.ledger('hr');
    const genesis = (await la.chainEntries())[0]!.cid;
    const side1 = await commit(a, 1, [genesis], 'sam', 'Sam');
    const side2 = await commit(a, 2, [side1.cid], 'sue', 'Sue');
    const head = la.head.cid;
    // The merge's flakes are its net change to the first parent's state.
    const data: CommitData = {
      t: 2, parents: [CID.parse(head), CID.parse(side2.cid)], time: new Date().toISOString(), txn: null, author: '',
      nsDelta: [], graphDelta: [], meta: [],
      flakes: [{ g: 0, s: ex('sam'), p: ex('name'), o: literal('Sam'), op: true }, { g: 0, s: ex('sue'), p: ex('name'), o: literal('Sue'), op: true }],
    };
    const merge = encodeCommit(data, la.ns).bytes;
    const body = { commits: [Buffer.from(merge).toString('base64')], merged_commits: [side1, side2].map((c) => Buffer.from(c.bytes).toString('base64')) };
    await expectError(await postJson(`${a.api}/push/hr`, body), 400, 'err:db/BadRequest', 'push-merges');
    const res = await json<{ accepted: number; head: { t: number } }>(await postJson(`${a.api}/push-merges/hr`, body));
    expect(res).toMatchObject({ accepted: 1, head: { t: 2 } });
    const page = await json<Record<string, unknown>>(await fetch(`${a.api}/commits/hr?lineage=true`, { headers: { Authorization: `Bearer ${tok}` } }));
    expect(page).toMatchObject({ count: 3, lineage: true, newest_t: 2, oldest_t: 0 });
    expect(page.merged_commits).toEqual([side1, side2].map((c) => Buffer.from(c.bytes).toString('base64')));
    // limit counts merged commits; a page always holds one first-parent commit.
    const small = await json<Record<string, unknown>>(await fetch(`${a.api}/commits/hr?lineage=true&limit=1`, { headers: { Authorization: `Bearer ${tok}` } }));
    expect(small).toMatchObject({ count: 1, newest_t: 2 });
    expect((small.merged_commits as string[]).length).toBe(2);
    // Default mode walks every parent.
    const all = await json<{ commits: string[] }>(await fetch(`${a.api}/commits/hr`, { headers: { Authorization: `Bearer ${tok}` } }));
    expect(all.commits.length).toBe(5);

    const batch = await fetchCommitsSince(await target(a), 'hr', (await b.conn.ledger('hr')).head.cid);
    expect([batch.commits.length, batch.merged.length]).toEqual([1, 2]);
    await pushCommits(await target(b), 'hr', batch);
    expect(await log(b, 'hr')).toEqual(await log(a, 'hr'));
    expect(await answers(b, 'hr', [0, 1, 2])).toEqual(await answers(a, 'hr', [0, 1, 2]));
    // Below base_id: the next page from B's head has no merged commits.
    await insert(a, 'hr', { '@id': 'ex:tom', 'ex:name': 'Tom' });
    const next = await json<Record<string, unknown>>(await fetch(`${a.api}/commits/hr?lineage=true&base_id=${(await b.conn.ledger('hr')).head.cid}`, { headers: { Authorization: `Bearer ${tok}` } }));
    expect(next).toMatchObject({ count: 1, newest_t: 3 });
    expect(next).not.toHaveProperty('merged_commits');
  });
});
