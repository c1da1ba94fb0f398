/**
 * Branch endpoints over real HTTP beyond the worked example: strategy variants of §12 steps 8 and
 * 14, validation and error types (§11), drop cases (§5), /drop's branches_dropped, idempotent
 * retries, previews' limits, and /events for branch creation, moves and drops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from '../support/server.js';
import { subscribe, type SseEvent } from '../support/sse.js';
import { expectError, json } from '../server/helpers.js';

let srv: TestServer;
const CTX = { ex: 'http://example.org/' };
let n = 0;

async function write(op: 'insert' | 'upsert', ledger: string, doc: Record<string, unknown>): Promise<{ t: number; commit_id: string }> {
  return json(await postJson(`${srv.api}/${op}/${ledger}`, { '@context': CTX, ...doc }));
}
async function stock(ref: string): Promise<number[]> {
  return json<number[]>(await postJson(`${srv.api}/query`, { '@context': CTX, from: ref, select: '?v', where: { '@id': 'ex:widget', 'ex:stock': '?v' }, orderBy: '?v' }));
}
async function names(ref: string): Promise<string[]> {
  return json<string[]>(await postJson(`${srv.api}/query`, { '@context': CTX, from: ref, select: '?n', where: { '@id': '?s', 'ex:name': '?n' }, orderBy: '?n' }));
}
const post = async (path: string, body: unknown, status = 200, headers: Record<string, string> = {}) =>
  json<Record<string, unknown>>(await fetch(`${srv.api}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) }), status);

/** §12 steps 1–5 on a fresh ledger: main stock 12, dev stock 5 + Gizmo, ancestor D3 (stock 8, Gadget). */
async function diverged(): Promise<string> {
  const l = `l${++n}`;
  await json(await postJson(`${srv.api}/create`, { ledger: l }), 201);
  await write('insert', l, { '@id': 'ex:widget', 'ex:name': 'Widget', 'ex:stock': 10 });
  await post('/branch', { ledger: l, branch: 'dev' }, 201);
  await write('upsert', `${l}:dev`, { '@id': 'ex:widget', 'ex:stock': 8 });
  await write('insert', `${l}:dev`, { '@id': 'ex:gadget', 'ex:name': 'Gadget' });
  await post('/merge', { ledger: l, source: 'dev' });
  await write('upsert', `${l}:main`, { '@id': 'ex:widget', 'ex:stock': 12 });
  await write('upsert', `${l}:dev`, { '@id': 'ex:widget', 'ex:stock': 5 });
  await write('insert', `${l}:dev`, { '@id': 'ex:gizmo', 'ex:name': 'Gizmo' });
  return l;
}

/** §12 steps up to 13 without step 10 (so main is one t behind): dev rebased on main, then both wrote. */
async function beforeStep14(): Promise<string> {
  const l = await diverged();
  await post('/merge', { ledger: l, source: 'dev', strategy: 'take-source' });
  await post('/revert', { ledger: l, branch: 'main', commit: 't:4', strategy: 'take-source' }); // stock 8
  await post('/rebase', { ledger: l, branch: 'dev' });
  await write('upsert', `${l}:main`, { '@id': 'ex:widget', 'ex:stock': 7 });
  await write('upsert', `${l}:dev`, { '@id': 'ex:widget', 'ex:stock': 3 });
  await write('insert', `${l}:dev`, { '@id': 'ex:thing', 'ex:name': 'Thing' });
  return l;
}

beforeAll(async () => { srv = await startTestServer(); });
afterAll(async () => { await srv.close(); });

describe('merge strategies (§12 step 8 variants)', () => {
  it('take-both keeps both values; take-branch keeps the target value and applies the rest', async () => {
    const a = await diverged();
    expect(await post('/merge', { ledger: a, source: 'dev', strategy: 'TakeBoth' })).toMatchObject({ strategy: 'take-both', conflict_count: 1, new_head_t: 5 });
    expect(await stock(a)).toEqual([5, 12]);
    const b = await diverged();
    expect(await post('/merge', { ledger: b, source: 'dev', strategy: 'ours' })).toMatchObject({ strategy: 'take-branch', conflict_count: 1 });
    expect(await stock(b)).toEqual([12]);
    expect(await names(b)).toEqual(['Gadget', 'Gizmo', 'Widget']);
    const c = await diverged();
    expect(await post('/merge', { ledger: c, source: 'dev', strategy: 'theirs' })).toMatchObject({ strategy: 'take-source' });
    expect(await stock(c)).toEqual([5]);
  });

  it('a second merge brings only the commits after the first; an up-to-date merge changes nothing', async () => {
    const l = await diverged();
    await post('/merge', { ledger: l, source: 'dev', strategy: 'take-source' });
    expect(await post('/merge', { ledger: l, source: 'dev' })).toEqual({
      ledger_id: `${l}:main`, target: 'main', source: 'dev', fast_forward: true, new_head_t: 5, commits_copied: 0, conflict_count: 0,
    });
    await write('insert', `${l}:dev`, { '@id': 'ex:bolt', 'ex:name': 'Bolt' });
    expect(await post('/merge', { ledger: l, source: 'dev' })).toMatchObject({ fast_forward: false, new_head_t: 6, commits_copied: 1, conflict_count: 0 });
    expect(await names(l)).toEqual(['Bolt', 'Gadget', 'Gizmo', 'Widget']);
    // An empty merge commit still records the second parent.
    await post('/branch', { ledger: l, branch: 'same' }, 201);
    await write('insert', `${l}:same`, { '@id': 'ex:bolt', 'ex:name': 'Bolt2' });
    await write('insert', `${l}:main`, { '@id': 'ex:bolt', 'ex:name': 'Bolt2' });
    const r = await post('/merge', { ledger: l, source: 'same' });
    expect(r).toMatchObject({ fast_forward: false, new_head_t: 8, commits_copied: 1, conflict_count: 1 });
    const show = await json<{ asserts: number; retracts: number }>(await fetch(`${srv.api}/show/${l}?commit=t:8`));
    expect([show.asserts, show.retracts]).toEqual([0, 0]);
  });

  it('merges into a target other than the parent', async () => {
    const l = await diverged();
    await post('/branch', { ledger: l, branch: 'qa' }, 201);
    expect(await post('/merge', { ledger: l, source: 'dev', target: 'qa', strategy: 'take-source' })).toMatchObject({ ledger_id: `${l}:qa`, target: 'qa', fast_forward: false, conflict_count: 1 });
    expect(await stock(`${l}:qa`)).toEqual([5]);
    expect(await stock(l)).toEqual([12]);
  });
});

describe('rebase strategies (§12 step 14 variants)', () => {
  it('take-both, take-source, skip and abort', async () => {
    const a = await beforeStep14();
    expect(await post('/rebase', { ledger: a, branch: 'dev', strategy: 'take_both' })).toMatchObject({ replayed: 2, conflicts: 1, skipped: 0, source_head_t: 7 });
    expect(await stock(`${a}:dev`)).toEqual([3, 7]);
    const b = await beforeStep14();
    expect(await post('/rebase', { ledger: b, branch: 'dev', strategy: 'take-source' })).toMatchObject({ replayed: 1, conflicts: 1, skipped: 0, total_commits: 2 });
    expect(await stock(`${b}:dev`)).toEqual([7]);
    expect(await names(`${b}:dev`)).toContain('Thing');
    const c = await beforeStep14();
    expect(await post('/rebase', { ledger: c, branch: 'dev', strategy: 'skip' })).toMatchObject({ replayed: 1, conflicts: 1, skipped: 1 });
    expect(await stock(`${c}:dev`)).toEqual([7]);
    const d = await beforeStep14();
    const before = await json(await fetch(`${srv.api}/log/${d}:dev`));
    await expectError(await postJson(`${srv.api}/rebase`, { ledger: d, branch: 'dev', strategy: 'abort' }), 409, 'err:db/CommitConflict');
    expect(await json(await fetch(`${srv.api}/log/${d}:dev`))).toEqual(before);
  });
});

describe('revert selections', () => {
  it('a list and a range; previews; merges and genesis refused', async () => {
    const l = `rv${++n}`;
    await json(await postJson(`${srv.api}/create`, { ledger: l }), 201);
    const c1 = await write('insert', l, { '@id': 'ex:a', 'ex:name': 'A' });
    await write('insert', l, { '@id': 'ex:b', 'ex:name': 'B' });
    const c3 = await write('insert', l, { '@id': 'ex:c', 'ex:name': 'C' });
    const pv = await json<Record<string, unknown>>(await fetch(`${srv.api}/revert-preview/${l}?branch=main&from=t:1&to=t:3`));
    expect(pv).toMatchObject({ branch: 'main', reverted_count: 2, truncated: false, conflicts: { count: 0, keys: [], truncated: false }, revertable: true });
    expect((pv.reverted_commits as { t: number }[]).map((c) => c.t)).toEqual([3, 2]);
    const r = await post('/revert', { ledger: l, branch: 'main', commits: ['t:1', c3.commit_id, 't:1'] });
    expect(r).toMatchObject({ reverted_commits: [c3.commit_id, c1.commit_id], conflict_count: 0, new_head_t: 4 });
    expect(await names(l)).toEqual(['B']);
    const shown = await json<{ id: string }>(await fetch(`${srv.api}/show/${l}?commit=t:4`));
    expect(shown.id).toBe(r.new_head_id);
    // Range from t:1 (exclusive) to t:2: undo B.
    expect(await post('/revert', { ledger: l, branch: 'main', range: { from: 't:1', to: 't:2' } })).toMatchObject({ new_head_t: 5 });
    expect(await names(l)).toEqual([]);
    // Reverting something already undone changes nothing: no commit.
    const again = await post('/revert', { ledger: l, branch: 'main', commit: 't:2', strategy: 'take-branch' });
    expect(again).toMatchObject({ conflict_count: 1, new_head_t: 5 });
    await expectError(await postJson(`${srv.api}/revert`, { ledger: l, branch: 'main', commit: 't:0' }), 400, 'err:api/BadRequest', 'genesis');
    await expectError(await postJson(`${srv.api}/revert`, { ledger: l, branch: 'main', commit: 't:1', strategy: 'take-both' }), 400, 'err:api/BadRequest');
    await expectError(await postJson(`${srv.api}/revert`, { ledger: l, branch: 'main' }), 400, 'err:api/BadRequest');
    await expectError(await postJson(`${srv.api}/revert`, { ledger: l, branch: 'main', range: { from: 't:2', to: 't:2' } }), 400, 'err:api/BadRequest', 'no commit');
    await expectError(await postJson(`${srv.api}/revert`, { ledger: l, branch: 'main', commit: 't:99' }), 404, 'err:db/LedgerNotFound');
    const m = await diverged();
    // A stored commit the branch cannot reach is a 400 (dev's D4 is not on main yet).
    const d4 = (await json<{ commits: { commit_id: string }[] }>(await fetch(`${srv.api}/log/${m}:dev`))).commits[1]!.commit_id;
    await expectError(await postJson(`${srv.api}/revert`, { ledger: m, branch: 'main', commit: d4 }), 400, 'err:api/BadRequest', 'not reachable');
    await post('/merge', { ledger: m, source: 'dev' });
    await expectError(await postJson(`${srv.api}/revert`, { ledger: m, branch: 'main', commit: 't:5' }), 400, 'err:api/BadRequest', 'merge commit');
  });
});

describe('validation and errors (§11)', () => {
  it('answers with the spec types', async () => {
    const l = await diverged();
    const e = (path: string, body: unknown, status: number, type: string, msg?: string) => postJson(`${srv.api}${path}`, body).then((r) => expectError(r, status, type, msg));
    await e('/branch', { ledger: l, branch: 'a:b' }, 400, 'err:db/BadRequest', 'invalid branch name');
    await e('/branch', { ledger: l, branch: 'x/../y' }, 400, 'err:db/BadRequest');
    await e('/branch', { ledger: l, branch: '   ' }, 400, 'err:db/BadRequest');
    await e('/branch', { ledger: l, branch: '//x' }, 400, 'err:db/BadRequest');
    await e('/branch', { ledger: l, branch: 'a'.repeat(129) }, 400, 'err:db/BadRequest');
    await e('/branch', { ledger: `${l}:main`, branch: 'x' }, 400, 'err:db/BadRequest');
    await e('/branch', { ledger: l }, 400, 'err:db/BadRequest');
    await e('/branch', { ledger: l, branch: 'dev' }, 409, 'err:db/LedgerExists');
    await e('/branch', { ledger: l, branch: 'x', source: 'nope' }, 404, 'err:db/LedgerNotFound');
    await e('/branch', { ledger: 'nope', branch: 'x' }, 404, 'err:db/LedgerNotFound');
    await e('/branch', { ledger: l, branch: 'x', at: 't:0' }, 400, 'err:api/BadRequest', 'no commits');
    await e('/branch', { ledger: l, branch: 'x', at: 'zz' }, 400, 'err:db/BadRequest');
    await e('/branch', { ledger: l, branch: 'x', at: '000000' }, 404, 'err:db/LedgerNotFound');
    await e('/merge', { ledger: l, source: 'main' }, 400, 'err:api/BadRequest', 'root branch');
    await e('/merge', { ledger: l, source: 'dev', target: 'dev' }, 400, 'err:api/BadRequest', 'into itself');
    await e('/merge', { ledger: l, source: 'dev', strategy: 'skip' }, 400, 'err:api/BadRequest');
    await e('/merge', { ledger: l, source: 'dev', strategy: 'nope' }, 400, 'err:db/BadRequest', 'Unknown conflict strategy: nope');
    await e('/merge', { ledger: l, source: 'ghost' }, 404, 'err:db/LedgerNotFound');
    await e('/rebase', { ledger: l, branch: 'main' }, 400, 'err:api/BadRequest', 'root');
    await e('/drop-branch', { ledger: l, branch: 'main' }, 400, 'err:api/BadRequest', 'root');
    const bad = await fetch(`${srv.api}/merge`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' });
    await expectError(bad, 400, 'err:db/JsonParse');
    const empty = await json(await postJson(`${srv.api}/create`, { ledger: `${l}-empty` }), 201);
    expect(empty).toBeTruthy();
    await e('/branch', { ledger: `${l}-empty`, branch: 'x' }, 400, 'err:api/BadRequest', 'no commits');
    await expectError(await fetch(`${srv.api}/branch/ghost`), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(`${srv.api}/merge-preview/${l}?source=dev&strategy=abort&include_conflicts=false`), 400, 'err:api/BadRequest');
  });

  it('a branch name with a slash works end to end', async () => {
    const l = await diverged();
    expect(await post('/branch', { ledger: l, branch: 'feature/x y' }, 201)).toMatchObject({ ledger_id: `${l}:feature/x y`, t: 4 });
    await write('insert', `${l}:feature%2Fx%20y`, { '@id': 'ex:f', 'ex:name': 'F' });
    expect(await names(`${l}:feature/x y`)).toEqual(['F', 'Gadget', 'Widget']);
  });
});

describe('previews', () => {
  it('caps commit lists and conflict keys and can skip conflicts', async () => {
    const l = await diverged();
    const p = await json<Record<string, { count: number; commits?: unknown[]; keys?: unknown[]; truncated: boolean }>>(await fetch(`${srv.api}/merge-preview/${l}?source=dev&max_commits=1&max_conflict_keys=0`));
    expect(p.ahead).toMatchObject({ count: 2, truncated: true });
    expect(p.ahead!.commits).toHaveLength(1);
    expect(p.conflicts).toEqual({ count: 1, keys: [], truncated: true, strategy: 'take-both' });
    const q = await json<Record<string, unknown>>(await fetch(`${srv.api}/merge-preview/${l}?source=dev&include_conflicts=false`));
    expect(q.conflicts).toEqual({ count: 0, keys: [], truncated: false });
    const r = await json<Record<string, unknown>>(await fetch(`${srv.api}/merge-preview/${l}?source=dev&strategy=abort`));
    expect(r.mergeable).toBe(false);
  });
});

describe('drop-branch (§5) and /drop', () => {
  it('leaf, deferred, cascade, already retracted, not found; /drop lists the branches', async () => {
    const l = await diverged();
    await post('/branch', { ledger: l, branch: 'child', source: 'dev' }, 201);
    await write('insert', `${l}:child`, { '@id': 'ex:kid', 'ex:name': 'Kid' });
    expect(await post('/drop-branch', { ledger: l, branch: 'dev' })).toEqual({ ledger_id: `${l}:dev`, status: 'dropped', deferred: true });
    await expectError(await postJson(`${srv.api}/query`, { from: `${l}:dev`, select: '?s', where: { '@id': '?s' } }), 404, 'err:db/LedgerNotFound');
    await expectError(await postJson(`${srv.api}/insert/${l}:dev`, { '@id': 'ex:z', 'ex:name': 'Z' }), 404, 'err:db/LedgerNotFound');
    expect(await post('/drop-branch', { ledger: l, branch: 'dev' })).toEqual({ ledger_id: `${l}:dev`, status: 'already_retracted', deferred: false });
    await expectError(await postJson(`${srv.api}/branch`, { ledger: l, branch: 'dev' }), 409, 'err:db/LedgerExists');
    // The child still reads dev's history.
    expect(await names(`${l}:child`)).toEqual(['Gadget', 'Gizmo', 'Kid', 'Widget']);
    const dropped = await post('/drop-branch', { ledger: l, branch: 'child' });
    expect(dropped).toMatchObject({ ledger_id: `${l}:child`, status: 'dropped', deferred: false, cascaded: [`${l}:dev`] });
    expect(await post('/drop-branch', { ledger: l, branch: 'child' })).toEqual({ ledger_id: `${l}:child`, status: 'not_found', deferred: false });
    // Main is intact and the name dev is free again.
    expect(await stock(l)).toEqual([12]);
    expect(await names(l)).toEqual(['Gadget', 'Widget']);
    expect(await stock(`${l}@t:3`)).toEqual([8]);
    await post('/branch', { ledger: l, branch: 'dev' }, 201);
    expect(await post('/drop', { ledger: l, hard: true })).toMatchObject({ status: 'dropped', branches_dropped: [`${l}:dev`, `${l}:main`] });
  });
});

describe('idempotency', () => {
  it('a retried merge returns the stored response and writes nothing more', async () => {
    const l = await diverged();
    const h = { 'Idempotency-Key': 'k1' };
    const first = await post('/merge', { ledger: l, source: 'dev' }, 200, h);
    const again = await post('/merge', { ledger: l, source: 'dev' }, 200, h);
    expect(again).toEqual(first);
    expect(((await json<{ count: number }>(await fetch(`${srv.api}/log/${l}`))).count)).toBe(8);
    const rv = await post('/revert', { ledger: l, branch: 'main', commit: 't:3' }, 200, { 'Idempotency-Key': 'k2' });
    expect(await post('/revert', { ledger: l, branch: 'main', commit: 't:3' }, 200, { 'Idempotency-Key': 'k2' })).toEqual(rv);
    expect(((await json<{ count: number }>(await fetch(`${srv.api}/log/${l}`))).count)).toBe(9);
  });
});

describe('/events', () => {
  it('publishes branch creation, moves and drops', async () => {
    const l = await diverged();
    const sub = await subscribe(`${srv.api}/events?all=true`);
    const is = (id: string, pred: (e: SseEvent) => boolean = () => true) => (e: SseEvent) => e.data.resource_id === id && pred(e);
    try {
      await post('/branch', { ledger: l, branch: 'ev' }, 201);
      const created = await sub.waitFor(is(`${l}:ev`, (e) => e.event === 'ns-record'));
      expect((created.data.record as Record<string, unknown>)).toMatchObject({ source_branch: 'main', commit_t: 4 });
      await write('insert', `${l}:ev`, { '@id': 'ex:e', 'ex:name': 'E' });
      await post('/merge', { ledger: l, source: 'ev' });
      await sub.waitFor(is(`${l}:main`, (e) => e.event === 'ns-record' && (e.data.record as { commit_t: number }).commit_t === 5));
      await post('/drop-branch', { ledger: l, branch: 'ev' });
      await sub.waitFor(is(`${l}:ev`, (e) => e.event === 'ns-retracted'));
    } finally {
      sub.close();
    }
  });
});
