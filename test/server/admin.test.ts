/** Ledger administration over real HTTP: create, drop, reindex (http-api.md §4.4, §3). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { CTX, expectError, json } from './helpers.js';

let srv: TestServer;
beforeAll(async () => { srv = await startTestServer(); });
afterAll(async () => { await srv.close(); });

const exists = async (id: string) => (await json<{ exists: boolean }>(await fetch(`${srv.api}/exists/${id}`))).exists;

describe('POST /create', () => {
  it('answers 201 with the genesis commit', async () => {
    const r = await postJson(`${srv.api}/create`, { ledger: 'acme/crm' });
    const body = await json<{ ledger: string; t: number; 'tx-id': string; commit: { commit_id: string } }>(r, 201);
    expect(body).toEqual({ ledger: 'acme/crm:main', t: 0, 'tx-id': body.commit.commit_id, commit: { commit_id: expect.stringMatching(/^bag[a-z2-7]+$/) } });
    const log = await json<{ commits: { commit_id: string }[] }>(await fetch(`${srv.api}/log/acme/crm`));
    expect(log.commits.map((c) => c.commit_id)).toEqual([body.commit.commit_id]);
  });

  it('creates a named branch and accepts a body without Content-Type', async () => {
    // A byte body: fetch adds no Content-Type for it (a string would get text/plain).
    const r = await fetch(`${srv.api}/create`, { method: 'POST', body: new TextEncoder().encode(JSON.stringify({ ledger: 'acme/crm:dev' })) });
    expect((await json<{ ledger: string }>(r, 201)).ledger).toBe('acme/crm:dev');
  });

  it('answers 409 when the ledger exists', async () => {
    await expectError(await postJson(`${srv.api}/create`, { ledger: 'acme/crm:main' }), 409, 'err:db/LedgerExists', 'ledger acme/crm:main already exists');
  });

  it('answers 400 for a missing or invalid ledger, 400 JsonParse for bad JSON, 415 for other bodies', async () => {
    await expectError(await postJson(`${srv.api}/create`, {}), 400, 'err:db/BadRequest', 'missing "ledger"');
    await expectError(await postJson(`${srv.api}/create`, { ledger: 7 }), 400, 'err:db/BadRequest', '"ledger" must be a string');
    await expectError(await postJson(`${srv.api}/create`, { ledger: 'bad name!' }), 400, 'err:db/BadRequest', 'invalid ledger name');
    await expectError(await postJson(`${srv.api}/create`, ['x']), 400, 'err:db/BadRequest', 'must be a JSON object');
    await expectError(await postText(`${srv.api}/create`, 'application/json', '{"ledger": '), 400, 'err:db/JsonParse', 'invalid JSON');
    await expectError(await postText(`${srv.api}/create`, 'application/json', ''), 400, 'err:db/JsonParse', 'empty');
    await expectError(await postText(`${srv.api}/create`, 'application/x-www-form-urlencoded', 'ledger=x'), 415, 'err:db/UnsupportedMediaType');
  });
});

describe('POST /drop', () => {
  it('soft-drops every branch, keeps the name reserved, and reports already_retracted after', async () => {
    await json(await postJson(`${srv.api}/create`, { ledger: 'soft' }), 201);
    await json(await postJson(`${srv.api}/create`, { ledger: 'soft:b2' }), 201);
    await json(await postJson(`${srv.api}/insert/soft`, { '@context': CTX, '@id': 'ex:a', 'ex:p': 1 }));
    const r = await json<{ branches_dropped: string[] }>(await postJson(`${srv.api}/drop`, { ledger: 'soft' }));
    expect({ ...r, branches_dropped: [...r.branches_dropped].sort() }).toEqual({
      ledger_id: 'soft', status: 'dropped', files_deleted: 0, branches_dropped: ['soft:b2', 'soft:main'],
    });
    expect(await exists('soft')).toBe(false);
    await expectError(await fetch(`${srv.api}/info/soft`), 404, 'err:db/LedgerNotFound');
    await expectError(await postJson(`${srv.api}/create`, { ledger: 'soft' }), 409, 'err:db/LedgerExists');
    expect(await json(await postJson(`${srv.api}/drop`, { ledger: 'soft', hard: false }))).toEqual({
      ledger_id: 'soft', status: 'already_retracted', files_deleted: 0, branches_dropped: [],
    });
  });

  it('hard-drops: deletes the artifacts and frees the name', async () => {
    await json(await postJson(`${srv.api}/create`, { ledger: 'hard' }), 201);
    await json(await postJson(`${srv.api}/insert/hard`, { '@context': CTX, '@id': 'ex:a', 'ex:p': 1 }));
    const r = await json<{ status: string; files_deleted: number; branches_dropped: string[] }>(await postJson(`${srv.api}/drop`, { ledger: 'hard', hard: true }));
    expect(r.status).toBe('dropped');
    expect(r.branches_dropped).toEqual(['hard:main']);
    // Genesis and insert commit; the transaction blob equals soft's (same document), which soft's
    // retracted record still reaches, so it stays.
    expect(r.files_deleted).toBeGreaterThanOrEqual(2);
    const again = await json<{ t: number }>(await postJson(`${srv.api}/create`, { ledger: 'hard' }), 201);
    expect(again.t).toBe(0);
  });

  it('reports not_found for an unknown name', async () => {
    expect(await json(await postJson(`${srv.api}/drop`, { ledger: 'never' }))).toEqual({ ledger_id: 'never', status: 'not_found', files_deleted: 0, branches_dropped: [] });
  });

  it('refuses a branch-qualified name, a missing name and a non-boolean hard', async () => {
    await expectError(await postJson(`${srv.api}/drop`, { ledger: 'acme/crm:main' }), 400, 'err:db/BadRequest', 'bare ledger name');
    await expectError(await postJson(`${srv.api}/drop`, {}), 400, 'err:db/BadRequest', 'missing "ledger"');
    await expectError(await postJson(`${srv.api}/drop`, { ledger: 'acme/crm', hard: 'yes' }), 400, 'err:db/BadRequest', '"hard" must be a boolean');
    expect(await exists('acme/crm')).toBe(true);
  });
});

describe('POST /reindex', () => {
  it('indexes the novelty and reports the index', async () => {
    await json(await postJson(`${srv.api}/create`, { ledger: 'idx' }), 201);
    await json(await postJson(`${srv.api}/insert/idx`, { '@context': CTX, '@graph': [{ '@id': 'ex:a', 'ex:p': 1 }, { '@id': 'ex:b', 'ex:p': 2 }] }));
    const r = await json<{ ledger: string; t: number; index_t: number; index_id: string }>(await postJson(`${srv.api}/reindex`, { ledger: 'idx' }));
    expect(r).toEqual({ ledger: 'idx:main', t: 1, index_t: 1, index_id: expect.stringMatching(/^bag[a-z2-7]+$/) });
    const info = await json<{ index: { id: string; t: number }; stats: { indexed: number } }>(await fetch(`${srv.api}/info/idx`));
    expect(info.index).toEqual({ id: r.index_id, t: 1 });
    expect(info.stats.indexed).toBe(1);
  });

  it('answers 404 for a missing ledger and 400 without one', async () => {
    await expectError(await postJson(`${srv.api}/reindex`, { ledger: 'nope' }), 404, 'err:db/LedgerNotFound', 'ledger nope:main not found');
    await expectError(await postJson(`${srv.api}/reindex`, {}), 400, 'err:db/BadRequest', 'missing "ledger"');
  });
});
