/**
 * Garbage collection of index artifacts (docs/branches.md, "Index retention"): after a
 * fast-forward, a rebase, a drop-branch and a drop, the storage directory holds exactly the objects
 * reachable from the nameservice records (every commit, and every index root on each record's
 * prev_root chain with its objects), and every t of every branch stays queryable with the same
 * answers, also from a fresh connection over the same directory. Retired roots wait out the grace
 * period; objects another ledger reaches are never deleted. Dictionary pages and filter groups
 * (docs/dictionary.md) hang off index roots and are shared by the roots after them: those a live
 * root reaches stay, those only a retired root had go.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '../../src/core/ledger/connection.js';
import { openFileStorage } from '../../src/storage/index.js';
import { createBranch } from '../../src/core/branch/fork.js';
import { mergeBranches } from '../../src/core/branch/merge.js';
import { rebaseBranch } from '../../src/core/branch/rebase.js';
import { dropBranch } from '../../src/core/branch/drop-branch.js';
import { collectReachable } from '../../src/core/ledger/reachable.js';
import { parseJsonNode, type IndexRoot } from '../../src/core/index/root-codec.js';
import { PAGE_IDS } from '../../src/core/index/dict-page.js';
import { CID } from 'multiformats/cid';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import type { TxnQuad } from '../../src/core/transact/txn-request.js';

const EX = 'http://example.org/';
const q = (s: string, o: number): TxnQuad => ({ subject: namedNode(EX + s), predicate: namedNode(EX + 'v'), object: literal(String(o), namedNode(xsd.integer)), graph: { termType: 'DefaultGraph', value: '' } });
const upsert = (...quads: TxnQuad[]) => ({ kind: 'upsert' as const, quads, meta: [], opts: {} });
const insertAll = (quads: TxnQuad[]) => ({ kind: 'insert' as const, quads, meta: [], opts: {} });
/** `n` facts with a new subject and a new literal each (2n new terms). */
const batch = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ ...q(tag + i, 0), object: literal(`${tag}-value-${i}`) }));

const dirs: string[] = [];
afterEach(async () => { for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true }); });

async function open(dir: string, gcGraceMs = 0): Promise<Connection> {
  return new Connection(await openFileStorage(dir), { reindexMinBytes: 1e9, gcGraceMs });
}

/** CIDs of the object files under `dir`. */
async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const shard of await readdir(join(dir, 'objects'))) for (const f of await readdir(join(dir, 'objects', shard))) out.push(f);
  return out.sort();
}

/** What the records reach. */
async function reachable(conn: Connection): Promise<string[]> {
  const out = new Set<string>();
  for (const r of await conn.ns.list()) await collectReachable(conn.content, r, out);
  return [...out].sort();
}

/** The default graph of a ledger at t, as sorted "s o" strings. */
async function stateAt(conn: Connection, id: string, t: number): Promise<string[]> {
  const db = await conn.db(`${id}@t:${t}`);
  const out: string[] = [];
  for await (const b of db.scan({ g: 0 })) for (let i = 0; i < b.n; i++) out.push(`${db.dict.term(b.s[i]!).value.slice(EX.length)} ${db.dict.term(b.o[i]!).value}`);
  return out.sort();
}

/** Every t of every live branch. */
async function allStates(conn: Connection): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const r of await conn.list()) for (let t = 0; t <= r.commit_t; t++) out[`${r.ledger_id}@${t}`] = await stateAt(conn, r.ledger_id, t);
  return out;
}

/** Dictionary blobs of every index root on every record's prev_root chain. */
async function liveDictBlobs(conn: Connection): Promise<Set<string>> {
  const out = new Set<string>();
  for (const r of await conn.ns.list()) {
    for (let root = r.index_head_id; root;) {
      const idx = parseJsonNode<IndexRoot>(await conn.content.get(CID.parse(root)), 'index root');
      for (const c of [...idx.dict.chunks, ...(idx.dict.pages ?? []), ...(idx.dict.filters ?? [])]) out.add(c);
      root = idx.prev_root;
    }
  }
  return out;
}

/** The value of subject `s` on a ledger at t (undefined when absent). */
async function valueAt(conn: Connection, id: string, t: number, s: string): Promise<string[]> {
  const db = await conn.db(`${id}@t:${t}`);
  const sid = await db.dict.lookup(namedNode(EX + s));
  if (sid === undefined) return [];
  const out: string[] = [];
  for await (const b of db.scan({ g: 0, s: sid })) for (let i = 0; i < b.n; i++) out.push(db.dict.term(b.o[i]!).value);
  return out;
}

/**
 * main has an index root of its own at the fork t (R_m), dev one built by the fork's background
 * job at the same t (R_d) plus a later one: a fast-forward of main to dev leaves R_m on no chain.
 */
async function diverged(dir: string, gcGraceMs = 0): Promise<Connection> {
  const conn = await open(dir, gcGraceMs);
  await conn.create('m');
  await conn.transact('m', upsert(q('a', 1), q('b', 1)));
  await conn.reindex('m');
  await conn.transact('m', upsert(q('a', 2)));
  await createBranch(conn, 'm', 'dev', 'main', undefined);
  await conn.idle(); // dev indexes the inherited commit t 2
  await conn.reindex('m'); // main indexes the same commit itself
  await conn.transact('m:dev', upsert(q('c', 3)));
  await conn.reindex('m:dev');
  return conn;
}

describe('index garbage collection', () => {
  it('a fast-forward merge retires the target\'s own index roots; the directory then holds exactly what the records reach', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-gc-'));
    dirs.push(dir);
    const conn = await diverged(dir);
    const mainRoot = (await conn.ns.get('m:main'))!.index_head_id!;
    const before = await allStates(conn);
    const leaked = await files(dir);
    expect(leaked).toEqual(await reachable(conn));
    const res = await mergeBranches(conn, 'm', 'dev', 'main', 'take-both');
    expect(res.fast_forward).toBe(true);
    await conn.idle();
    expect((await conn.ns.get('m:main'))!.index_head_id).not.toBe(mainRoot);
    const after = await files(dir);
    expect(after).not.toContain(mainRoot);
    expect(after.length).toBeLessThan(leaked.length);
    expect(after).toEqual(await reachable(conn));
    // Every t reads as before, here and from a fresh connection over the directory.
    const now = await allStates(conn);
    for (const k of Object.keys(before)) expect(now[k], k).toEqual(before[k]);
    await conn.close();
    const fresh = await open(dir);
    expect(await allStates(fresh)).toEqual(now);
    await fresh.close();
  });

  it('a rebase with replays retires the branch\'s own index roots', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-gc-'));
    dirs.push(dir);
    const conn = await diverged(dir);
    await conn.transact('m', upsert(q('b', 4)));
    const devRoot = (await conn.ns.get('m:dev'))!.index_head_id!;
    const res = await rebaseBranch(conn, 'm', 'dev', 'take-both');
    expect([res.fast_forward, res.replayed]).toEqual([false, 1]);
    await conn.idle();
    const after = await files(dir);
    expect(after).not.toContain(devRoot);
    // The replayed commits are reachable; the replaced commit is not collected (commits are not index artifacts).
    const live = await reachable(conn);
    expect(after.filter((c) => !live.includes(c)).length).toBeGreaterThan(0);
    for (const c of live) expect(after).toContain(c);
    const idx = new Set(live);
    const { CID } = await import('multiformats/cid');
    const { Codec } = await import('../../src/core/commit/cid.js');
    const INDEX = new Set([Codec.indexRoot, Codec.indexBranch, Codec.indexLeaf, Codec.dict]);
    expect(after.filter((c) => INDEX.has(CID.parse(c).code) && !idx.has(c))).toEqual([]);
    expect(await stateAt(conn, 'm:dev', 4)).toEqual(['a 2', 'b 4', 'c 3']);
    await conn.close();
  });

  it('retired roots wait out the grace period', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-gc-'));
    dirs.push(dir);
    const conn = await diverged(dir, 60_000);
    const mainRoot = (await conn.ns.get('m:main'))!.index_head_id!;
    await mergeBranches(conn, 'm', 'dev', 'main', 'take-both');
    await conn.idle();
    expect(await files(dir)).toContain(mainRoot);
    expect(conn.gc.deleted).toBe(0);
    await conn.close();
  });

  it('drop-branch and drop leave exactly what the other records reach, even objects another ledger shares', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-gc-'));
    dirs.push(dir);
    const conn = await diverged(dir);
    // A second ledger with the same data: equal leaves and dictionary chunks are shared objects.
    await conn.create('twin');
    await conn.transact('twin', upsert(q('a', 1), q('b', 1)));
    await conn.reindex('twin');
    const dropped = await dropBranch(conn, 'm', 'dev');
    expect(dropped.status).toBe('dropped');
    await conn.idle();
    expect(await files(dir)).toEqual(await reachable(conn));
    const twin = await allStates(conn);
    const hard = await conn.drop('m', { hard: true });
    expect(hard.files_deleted).toBeGreaterThan(0);
    await conn.idle();
    expect(await files(dir)).toEqual(await reachable(conn));
    await conn.close();
    const fresh = await open(dir);
    const left = await allStates(fresh);
    expect(Object.keys(left).every((k) => k.startsWith('twin:'))).toBe(true);
    for (const k of Object.keys(left)) expect(left[k], k).toEqual(twin[k]);
    await fresh.close();
  });

  it('keeps the dictionary pages live roots share, deletes those only a retired root had, and a fresh process reads the oldest pages', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-gc-'));
    dirs.push(dir);
    const grace = 150;
    const conn = await open(dir, grace);
    await conn.create('m');
    // t 1: more than two full pages of terms, indexed.
    await conn.transact('m', insertAll(batch('a', PAGE_IDS + 200)));
    await conn.reindex('m');
    // t 2 on main, then a branch that indexes it in the background, and main indexing it itself.
    await conn.transact('m', insertAll(batch('b', 300)));
    await createBranch(conn, 'm', 'dev', 'main', undefined);
    await conn.idle();
    await conn.reindex('m');
    // Main's own root at t 2 now has a partial last page of its own: it writes more terms and indexes.
    await conn.transact('m:dev', insertAll(batch('c', PAGE_IDS)));
    await conn.reindex('m:dev');
    const retired = (await conn.ns.get('m:main'))!.index_head_id!;
    const retiredRoot = parseJsonNode<IndexRoot>(await conn.content.get(CID.parse(retired)), 'index root');
    expect(retiredRoot.dict.pages!.length).toBeGreaterThanOrEqual(3);
    expect(await files(dir)).toEqual(await reachable(conn));
    expect(await mergeBranches(conn, 'm', 'dev', 'main', 'take-both')).toMatchObject({ fast_forward: true });
    await conn.idle();
    // Within the grace period nothing is deleted.
    expect(await files(dir)).toContain(retired);
    await new Promise((r) => setTimeout(r, grace + 50));
    await conn.idle();
    const after = await files(dir);
    expect(after).not.toContain(retired);
    expect(conn.gc.deleted).toBeGreaterThan(0);
    // Exactly what the records reach, and that includes every dictionary blob of every live root.
    expect(after).toEqual(await reachable(conn));
    const live = await liveDictBlobs(conn);
    expect(live.size).toBeGreaterThan(3);
    for (const c of live) expect(after, `dictionary blob ${c}`).toContain(c);
    // The retired root's pages that no live root shares are gone; the shared ones (the first pages) stay.
    const shared = retiredRoot.dict.pages!.filter((c) => live.has(c));
    expect(shared.length).toBeGreaterThanOrEqual(1);
    expect(shared[0]).toBe(retiredRoot.dict.pages![0]);
    expect(retiredRoot.dict.pages!.some((c) => !live.has(c))).toBe(true);
    for (const c of retiredRoot.dict.pages!) expect(after.includes(c)).toBe(live.has(c));
    await conn.close();
    // A fresh process: no page in memory, every term comes from the pages on disk.
    const fresh = await open(dir, 60_000);
    for (const id of ['m:main', 'm:dev']) {
      expect(await valueAt(fresh, id, 1, 'a0')).toEqual(['a-value-0']);
      expect(await valueAt(fresh, id, 1, `a${PAGE_IDS + 199}`)).toEqual([`a-value-${PAGE_IDS + 199}`]);
      expect(await valueAt(fresh, id, 1, 'b0')).toEqual([]);
      expect(await valueAt(fresh, id, 2, 'b299')).toEqual(['b-value-299']);
      expect(await valueAt(fresh, id, 3, 'c0')).toEqual(['c-value-0']);
      expect(await valueAt(fresh, id, 3, 'a1')).toEqual(['a-value-1']);
    }
    // A full scan decodes every term of every page.
    const db = await fresh.db('m:main');
    let facts = 0;
    for await (const b of db.scan({ g: 0 })) for (let i = 0; i < b.n; i++) { db.dict.term(b.s[i]!); db.dict.term(b.o[i]!); facts++; }
    expect(facts).toBe(PAGE_IDS + 200 + 300 + PAGE_IDS);
    await fresh.close();
  });
});
