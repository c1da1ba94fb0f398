import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import type { Db } from '../../src/core/ledger/db.js';
import { literal, namedNode, defaultGraph, type Term } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import type { TxnQuad, TxnRequest } from '../../src/core/transact/txn-request.js';
import { openFileStorage, openMemoryStorage } from '../../src/storage/index.js';

const ex = (s: string) => namedNode('http://example.org/' + s);
const int = (n: number) => literal(String(n), namedNode(xsd.integer));
const q = (s: string, p: string, o: Term, g?: string): TxnQuad => ({ subject: ex(s), predicate: ex(p), object: o, graph: g ? ex(g) : defaultGraph });
const insert = (...quads: TxnQuad[]): TxnRequest => ({ kind: 'insert', quads, meta: [], opts: {} });
const upsert = (...quads: TxnQuad[]): TxnRequest => ({ kind: 'upsert', quads, meta: [], opts: {} });

/** All current facts of the default graph as sorted strings. */
async function facts(db: Db, g = 0): Promise<string[]> {
  const out: string[] = [];
  for await (const b of db.scan({ g })) {
    for (let i = 0; i < b.n; i++) out.push([b.s[i], b.p[i], b.o[i]].map((id) => db.dict.key(id!)).join(' '));
  }
  return out.sort();
}

const dirs: string[] = [];
afterEach(async () => { for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true }); });

describe('Connection and Ledger', () => {
  it('creates, writes, and reads at every t', async () => {
    const conn = new Connection(openMemoryStorage());
    const created = await conn.create('crm');
    expect(created.ledger).toBe('crm:main');
    expect(created.t).toBe(0);
    await expect(conn.create('crm:main')).rejects.toMatchObject({ status: 409, type: 'err:db/LedgerExists' });

    const r1 = await conn.transact('crm', insert(q('ana', 'age', int(34)), q('ana', 'name', literal('Ana'))));
    expect(r1).toMatchObject({ ledger_id: 'crm:main', t: 1, flakes_added: 2, flakes_retracted: 0, previous_commit_id: created.commit.commit_id });
    const r2 = await conn.transact('crm', upsert(q('ana', 'age', int(35))));
    expect(r2).toMatchObject({ t: 2, flakes_added: 1, flakes_retracted: 1 });
    const again = await conn.transact('crm', upsert(q('ana', 'age', int(35))));
    expect(again).toMatchObject({ t: 2, flakes_added: 0, flakes_retracted: 0, commit_id: r2.commit_id });

    const age = '"http://www.w3.org/2001/XMLSchema#integer||';
    expect(await facts(await conn.db('crm:main'))).toEqual([
      `http://example.org/ana http://example.org/age ${age}35`,
      'http://example.org/ana http://example.org/name "http://www.w3.org/2001/XMLSchema#string||Ana',
    ]);
    expect(await facts(await conn.db('crm:main@t:1'))).toEqual([
      `http://example.org/ana http://example.org/age ${age}34`,
      'http://example.org/ana http://example.org/name "http://www.w3.org/2001/XMLSchema#string||Ana',
    ]);
    expect(await facts(await conn.db('crm@t:0'))).toEqual([]);
    const prefix = (await conn.ledger('crm')).findCommit(r1.commit_id);
    expect((await prefix).t).toBe(1);
    await expect(conn.db('crm@t:9')).rejects.toMatchObject({ status: 404 });
  });

  it('cancels assert+retract in one transaction and ignores no-op writes', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('a');
    const r = await conn.transact('a', insert(q('x', 'p', int(1)), q('x', 'p', int(1))));
    expect(r.flakes_added).toBe(1);
    const same = await conn.transact('a', insert(q('x', 'p', int(1))));
    expect(same).toMatchObject({ t: 1, flakes_added: 0 });
  });

  it('indexes in the background and answers identically before and after, at old t too', async () => {
    const conn = new Connection(openMemoryStorage(), { reindexMinBytes: 2_000, reindexMaxBytes: 1_000_000 });
    await conn.create('big');
    const views: string[][] = [];
    for (let round = 0; round < 12; round++) {
      const quads: TxnQuad[] = [];
      for (let i = 0; i < 40; i++) quads.push(q(`s${i}`, `p${i % 3}`, int(round * 100 + i)));
      await conn.transact('big', round % 2 === 0 ? insert(...quads) : upsert(...quads));
      views.push(await facts(await conn.db('big')));
    }
    await conn.idle();
    const ledger = await conn.ledger('big');
    expect(ledger.tree).not.toBeNull();
    expect(ledger.tree!.t).toBeGreaterThan(0);
    for (let t = 1; t <= 12; t++) expect(await facts(await conn.db(`big@t:${t}`))).toEqual(views[t - 1]);
    // A fresh connection over the same storage loads the index and replays the rest.
    const conn2 = new Connection({ content: conn.content, ns: conn.ns });
    for (let t = 1; t <= 12; t++) expect(await facts(await conn2.db(`big@t:${t}`))).toEqual(views[t - 1]);
  });

  it('reopens a file-backed ledger with the same head and answers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lg-'));
    dirs.push(dir);
    const conn = new Connection(await openFileStorage(dir), { reindexMinBytes: 500 });
    await conn.create('f/deep:dev');
    for (let i = 0; i < 5; i++) await conn.transact('f/deep:dev', insert(q('s', 'p', int(i), 'g1')));
    await conn.idle();
    const head = (await conn.ledger('f/deep:dev')).head;
    const before = await facts(await conn.db('f/deep:dev@t:3'), 3);
    await conn.close();
    const conn2 = new Connection(await openFileStorage(dir));
    const l2 = await conn2.ledger('f/deep:dev');
    expect(l2.head).toEqual(head);
    expect(await facts(await conn2.db('f/deep:dev@t:3'), 3)).toEqual(before);
    expect(before).toHaveLength(3);
    await conn2.close();
  });

  it('drops soft then hard', async () => {
    const conn = new Connection(openMemoryStorage(), { reindexMinBytes: 1 });
    await conn.create('d');
    await conn.transact('d', insert(q('s', 'p', int(1))));
    await conn.idle();
    expect(await conn.drop('nope')).toEqual({ ledger_id: 'nope', status: 'not_found', files_deleted: 0, branches_dropped: [] });
    expect(await conn.drop('d')).toEqual({ ledger_id: 'd', status: 'dropped', files_deleted: 0, branches_dropped: ['d:main'] });
    expect(await conn.exists('d')).toBe(false);
    expect((await conn.drop('d')).status).toBe('already_retracted');
    const hard = await conn.drop('d', { hard: true });
    expect(hard.status).toBe('dropped');
    expect(hard.files_deleted).toBeGreaterThan(4);
    await conn.create('d'); // the name is free again
  });

  it('reports ledger info with real-time stats', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('i');
    const type = namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type');
    const person = ex('Person');
    const tq = (s: string): TxnQuad => ({ subject: ex(s), predicate: type, object: person, graph: defaultGraph });
    await conn.transact('i', insert(tq('ana'), tq('ben'), q('ana', 'name', literal('Ana')), q('ben', 'name', literal('Ben')), q('ana', 'knows', ex('ben')), q('ben', 'age', int(3))));
    await conn.transact('i', upsert(q('ben', 'age', int(4))));
    const info = await conn.info('i', { includePropertyEstimates: false });
    const E = 'http://example.org/';
    expect(info).toMatchObject({ ledger: 'i:main', t: 2, commit: { t: 2 }, index: { id: null, t: 0 } });
    expect(info.stats.flakes).toBe(6);
    expect(info.stats.indexed).toBe(0);
    expect(info.stats.properties[E + 'name']).toEqual({ count: 2, 'last-modified-t': 1, datatypes: { [xsd.string]: 2 } });
    expect(info.stats.properties[E + 'age']).toEqual({ count: 1, 'last-modified-t': 2, datatypes: { [xsd.integer]: 1 } });
    expect(info.stats.classes[E + 'Person']).toEqual({
      count: 2,
      properties: {
        [type.value]: { count: 2, refs: 2, 'ref-classes': {} },
        [E + 'name']: { count: 2, refs: 0, 'ref-classes': {} },
        [E + 'knows']: { count: 1, refs: 1, 'ref-classes': { [E + 'Person']: 1 } },
        [E + 'age']: { count: 1, refs: 0, 'ref-classes': {} },
      },
      'property-list': [type.value, E + 'age', E + 'knows', E + 'name'].sort(),
    });
  });

  it('refuses writes past the novelty limits and leaves the ledger unchanged', async () => {
    const conn = new Connection(openMemoryStorage(), { reindexMinBytes: 1_000_000, reindexMaxBytes: 2_000, indexingEnabled: false });
    await conn.create('n');
    const big: TxnQuad[] = [];
    for (let i = 0; i < 200; i++) big.push(q(`s${i}`, 'p', int(i)));
    await expect(conn.transact('n', insert(...big))).rejects.toMatchObject({ status: 413, type: 'err:db/NoveltyDeltaTooLarge' });
    let t = 0;
    let refused: unknown;
    for (let i = 0; i < 100 && !refused; i++) {
      try { t = (await conn.transact('n', insert(q(`x${i}`, 'p', int(i))))).t; } catch (e) { refused = e; }
    }
    expect(refused).toMatchObject({ status: 503, type: 'err:db/NoveltyAtMax' });
    expect((refused as { headers: Record<string, string> }).headers['Retry-After']).toMatch(/^\d+$/);
    expect((await conn.ledger('n')).t).toBe(t);
    await conn.reindex('n');
    expect((await conn.transact('n', insert(q('after', 'p', int(1))))).t).toBe(t + 1);
  });

  it('enforces the datatype limit before committing', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('dt');
    const ledger = await conn.ledger('dt');
    for (let i = 0; i < 16_368; i++) ledger.datatypes.add(`http://ex.org/dt${i}`);
    const lit = (i: number) => literal('x', namedNode(`http://ex.org/new${i}`));
    expect((await conn.transact('dt', insert(q('a', 'p', lit(1))))).t).toBe(1);
    await expect(conn.transact('dt', insert(q('b', 'p', lit(2))))).rejects.toMatchObject({ status: 422, type: 'err:db/DatatypeLimitExceeded' });
    expect(ledger.t).toBe(1);
    // Reserved datatypes never count.
    expect((await conn.transact('dt', insert(q('c', 'p', int(5))))).t).toBe(2);
  });

  it('resolves @time and @commit time specifiers', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('tt');
    const g0 = Date.parse((await conn.ledger('tt')).head.time);
    const at = (ms: number) => new Date(g0 + ms).toISOString();
    const r1 = await conn.transact('tt', { ...insert(q('a', 'p', int(1))), opts: { eventTime: at(100) } });
    const r2 = await conn.transact('tt', { ...insert(q('b', 'p', int(2))), opts: { eventTime: at(300) } });
    expect(r2.timestamp).toBe(at(300));
    await expect(conn.transact('tt', { ...insert(q('c', 'p', int(3))), opts: { eventTime: at(200) } })).rejects.toMatchObject({ status: 422 });
    expect((await conn.db(`tt@time:${at(200)}`)).t).toBe(1);
    expect((await conn.db(`tt@time:${at(300)}`)).t).toBe(2);
    expect((await conn.db(`tt@time:${at(0)}`)).t).toBe(0);
    await expect(conn.db('tt@time:1999-01-01T00:00:00Z')).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^no data as of/) });
    expect((await conn.db(`tt@commit:${r1.commit_id}`)).t).toBe(1);
    const ledger = await conn.ledger('tt');
    const { digestHex, parseCid } = await import('../../src/core/commit/cid.js');
    expect((await conn.db(`tt@commit:${digestHex(parseCid(r2.commit_id)).slice(0, 8)}`)).t).toBe(2);
    await expect(conn.db('tt@commit:abcdef0')).rejects.toMatchObject({ status: 404 });
    expect((await ledger.findCommit(digestHex(parseCid(r1.commit_id)))).t).toBe(1);
    // A digest prefix may start with "b" (a hex digit); it is a prefix, never a CID.
    const { isCidRef } = await import('../../src/core/ledger/ledger.js');
    expect([isCidRef('b09cc8'), isCidRef('bcdef01234'), isCidRef(r1.commit_id)]).toEqual([false, false, true]);
    await expect(conn.db('tt@t:x')).rejects.toMatchObject({ status: 400 });
    expect(ledger.t).toBe(2);
  });
});
