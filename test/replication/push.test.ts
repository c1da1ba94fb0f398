/**
 * POST /push, /push-merges and GET /commits between two real servers on their own file storage
 * (http-api.md §4.3, replication.md §6–7).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, type TestServer } from '../support/server.js';
import { expectError, json } from '../server/helpers.js';
import { fetchCommitsSince, pushCommits } from '../../src/server/replication/remote-client.js';
import { answers, copyStorage, insert, log, startReplServer, storageToken, target, update } from './helpers.js';

let a: TestServer, b: TestServer;
let tok: string;

async function head(srv: TestServer, ledger: string): Promise<{ t: number; commitId: string }> {
  const info = await json<{ t: number; commitId: string }>(await fetch(`${srv.api}/info/${ledger}`));
  return { t: info.t, commitId: info.commitId };
}

/** Raw push with a JSON body. */
function push(srv: TestServer, ledger: string, body: unknown, headers: Record<string, string> = {}, path = 'push'): Promise<Response> {
  return postJson(`${srv.api}/${path}/${ledger}`, body, headers);
}

async function commitsSince(from: TestServer, ledger: string, base: string) {
  return fetchCommitsSince(await target(from), ledger, base);
}

function b64(u: Uint8Array): string { return Buffer.from(u).toString('base64'); }

beforeAll(async () => {
  [a, b] = await Promise.all([startReplServer(), startReplServer()]);
  tok = await storageToken();
  await json(await postJson(`${a.api}/create`, { ledger: 'hr' }), 201);
  await insert(a, 'hr', { '@id': 'ex:alice', 'ex:name': 'Alice' });
  await insert(a, 'hr', { '@id': 'ex:bob', 'ex:name': 'Bob', 'ex:knows': { '@id': 'ex:alice' } });
  // B starts with A's history (as after a clone).
  await copyStorage(a, b);
});
afterAll(async () => { await Promise.all([a.close(), b.close()]); });

describe('GET /commits', () => {
  it('pages newest first with blobs, cursors and clamped limits', async () => {
    const r = await fetch(`${a.api}/commits/hr?limit=2`, { headers: { Authorization: `Bearer ${tok}` } });
    const p = await json<Record<string, unknown>>(r);
    const { t, commitId } = await head(a, 'hr');
    expect(p).toMatchObject({ ledger: 'hr:main', head_commit_id: commitId, head_t: t, newest_t: 2, oldest_t: 1, count: 2, effective_limit: 2 });
    expect((p.commits as string[]).length).toBe(2);
    expect(Object.keys(p.blobs as object).length).toBe(2);
    expect(p).not.toHaveProperty('lineage');
    const next = await json<Record<string, unknown>>(await fetch(`${a.api}/commits/hr?limit=2&cursor_id=${p.next_cursor_id as string}`, { headers: { Authorization: `Bearer ${tok}` } }));
    expect(next).toMatchObject({ newest_t: 0, oldest_t: 0, count: 1, next_cursor_id: null });
    const big = await json<Record<string, unknown>>(await fetch(`${a.api}/commits/hr?limit=100000&lineage=true`, { headers: { Authorization: `Bearer ${tok}` } }));
    expect(big).toMatchObject({ effective_limit: 500, count: 3, lineage: true, next_cursor_id: null });
    expect(big).not.toHaveProperty('merged_commits');
  });

  it('keeps a cursor stable while commits arrive', async () => {
    const first = await json<Record<string, unknown>>(await fetch(`${a.api}/commits/hr?limit=1`, { headers: { Authorization: `Bearer ${tok}` } }));
    const cursor = first.next_cursor_id as string;
    const before = await json<Record<string, unknown>>(await fetch(`${a.api}/commits/hr?limit=1&cursor_id=${cursor}`, { headers: { Authorization: `Bearer ${tok}` } }));
    await insert(a, 'hr', { '@id': 'ex:carol', 'ex:name': 'Carol' });
    const after = await json<Record<string, unknown>>(await fetch(`${a.api}/commits/hr?limit=1&cursor_id=${cursor}`, { headers: { Authorization: `Bearer ${tok}` } }));
    expect(after.commits).toEqual(before.commits);
    expect(after.next_cursor_id).toBe(before.next_cursor_id);
    expect(after.head_t).toBe((before.head_t as number) + 1);
  });

  it('stops above base_id in lineage mode and refuses a base off the first-parent chain (409)', async () => {
    const { commitId } = await head(b, 'hr');
    const p = await json<Record<string, unknown>>(await fetch(`${a.api}/commits/hr?lineage=true&base_id=${commitId}`, { headers: { Authorization: `Bearer ${tok}` } }));
    expect(p).toMatchObject({ count: 1, newest_t: 3, oldest_t: 3, next_cursor_id: null, lineage: true });
    const txnBlob = Object.keys(p.blobs as object)[0]!;
    await expectError(await fetch(`${a.api}/commits/hr?lineage=true&base_id=${txnBlob}`, { headers: { Authorization: `Bearer ${tok}` } }), 409, 'err:db/CommitConflict', 'not on the first-parent chain');
  });

  it('needs a storage token (401) and answers 404 with the proxy disabled', async () => {
    await expectError(await fetch(`${a.api}/commits/hr`), 401, 'err:db/Unauthorized', 'Bearer token required');
    const off = await startReplServer({ storageProxyEnabled: false });
    try {
      await expectError(await fetch(`${off.api}/commits/hr`, { headers: { Authorization: `Bearer ${tok}` } }), 404, 'err:db/LedgerNotFound');
    } finally { await off.close(); }
  });

  it('lists transaction blobs it cannot read as missing_blobs', async () => {
    const c = await startReplServer();
    try {
      await json(await postJson(`${c.api}/create`, { ledger: 'gap' }), 201);
      await insert(c, 'gap', { '@id': 'ex:x', 'ex:name': 'X' });
      const p = await json<{ blobs: Record<string, string> }>(await fetch(`${c.api}/commits/gap`, { headers: { Authorization: `Bearer ${tok}` } }));
      const cid = Object.keys(p.blobs)[0]!;
      await rm(join(c.dir, 'objects', cid.slice(-2), cid));
      const q = await json<Record<string, unknown>>(await fetch(`${c.api}/commits/gap`, { headers: { Authorization: `Bearer ${tok}` } }));
      expect(q.missing_blobs).toEqual([cid]);
      expect(q.blobs).toEqual({});
    } finally { await c.close(); }
  });
});

describe('POST /push', () => {
  it('applies commits made elsewhere exactly like local ones: same CIDs, /log and answers at every t', async () => {
    await update(a, 'hr', 'PREFIX ex: <http://example.org/> DELETE DATA { ex:alice ex:name "Alice" } ; INSERT DATA { ex:alice ex:name "Alicia" . ex:carol ex:knows ex:bob }');
    const batch = await commitsSince(a, 'hr', (await head(b, 'hr')).commitId);
    expect(batch.commits.length).toBe(2);
    const res = await pushCommits(await target(b), 'hr', batch);
    const ha = await head(a, 'hr');
    expect(res).toEqual({
      ledger: 'hr:main', accepted: 2, head: { t: ha.t, commit_id: ha.commitId },
      indexing: { enabled: true, needed: false, novelty_size: expect.any(Number), index_t: 0, commit_t: ha.t },
    });
    expect(await head(b, 'hr')).toEqual(ha);
    expect(await log(b, 'hr')).toEqual(await log(a, 'hr'));
    expect(await answers(b, 'hr', [1, 2, 3, 4])).toEqual(await answers(a, 'hr', [1, 2, 3, 4]));
    const show = async (srv: TestServer) => json(await fetch(`${srv.api}/show/hr?commit=t:4`));
    expect(await show(b)).toEqual(await show(a));
  });

  it('409 when the head moved; a retry with the same Idempotency-Key returns the stored success', async () => {
    await insert(a, 'hr', { '@id': 'ex:dan', 'ex:name': 'Dan' });
    const batch = await commitsSince(a, 'hr', (await head(b, 'hr')).commitId);
    const body = { commits: batch.commits.map(b64), blobs: Object.fromEntries([...batch.blobs].map(([k, v]) => [k, b64(v)])) };
    const first = await json(await push(b, 'hr', body, { 'Idempotency-Key': 'k1' }));
    expect(await json(await push(b, 'hr', body, { 'Idempotency-Key': 'k1' }))).toEqual(first);
    await expectError(await push(b, 'hr', body), 409, 'err:db/CommitConflict', 'head moved or diverged');
    await expectError(await push(b, 'hr', body, { 'Idempotency-Key': 'k2' }), 409, 'err:db/CommitConflict');
  });

  it('400 for merged_commits on /push; 422 for bad bytes, a tampered blob, an unknown parent', async () => {
    await insert(a, 'hr', { '@id': 'ex:erin', 'ex:name': 'Erin' });
    const batch = await commitsSince(a, 'hr', (await head(b, 'hr')).commitId);
    const commit = batch.commits[0]!;
    const [blobId, blob] = [...batch.blobs][0]!;
    await expectError(await push(b, 'hr', { commits: [b64(commit)], merged_commits: [b64(commit)] }), 400, 'err:db/BadRequest', 'push-merges');
    const cut = commit.slice(0, commit.length - 3);
    await expectError(await push(b, 'hr', { commits: [b64(cut)] }), 422, 'err:db/ConstraintViolation', 'commits[0]');
    const bad = blob.slice(); bad[10] ^= 1;
    await expectError(await push(b, 'hr', { commits: [b64(commit)], blobs: { [blobId]: b64(bad) } }), 422, 'err:db/ConstraintViolation', 'do not match its CID');
    // A merge whose second parent nobody has: push-merges with a merged commit reachable from nothing.
    await expectError(await push(b, 'hr', { commits: [b64(commit)], merged_commits: [b64(commit)] }, {}, 'push-merges'), 422, 'err:db/ConstraintViolation', 'not reachable from a merge');
    // Nothing was stored: B still answers as before and the commit is not there.
    expect((await head(b, 'hr')).t).toBe((await head(a, 'hr')).t - 1);
    const ok = await pushCommits(await target(b), 'hr', batch);
    expect(ok.head.t).toBe((await head(a, 'hr')).t);
  });

  it('503 with Retry-After at the novelty limit, without consuming the Idempotency-Key', async () => {
    const small = await startReplServer({ reindexMaxBytes: 1200, indexingEnabled: false });
    try {
      await copyStorage(a, small);
      await insert(a, 'hr', { '@id': 'ex:fay', 'ex:name': 'Fay' });
      const batch = await commitsSince(a, 'hr', (await head(small, 'hr')).commitId);
      expect(batch.commits.length).toBe(1);
      const body = { commits: batch.commits.map(b64) };
      const r = await push(small, 'hr', body, { 'Idempotency-Key': 'n1' });
      await expectError(r, 503, 'err:db/NoveltyAtMax');
      expect(r.headers.get('Retry-After')).toMatch(/^\d+$/);
      const reindex = await postJson(`${small.api}/reindex`, { ledger: 'hr' });
      expect(reindex.status, await reindex.clone().text()).toBe(200);
      const res = await json<{ head: { t: number } }>(await push(small, 'hr', body, { 'Idempotency-Key': 'n1' }));
      expect(res.head.t).toBe((await head(a, 'hr')).t);
    } finally { await small.close(); }
  });

  it('discovery advertises push.merged_commits', async () => {
    expect(await json(await fetch(`${a.url}/.well-known/ledgraph.json`))).toEqual({ version: 1, api_base_url: '/v1/ledgraph', push: { merged_commits: true } });
  });
});

