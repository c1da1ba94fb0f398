/**
 * A branch that starts above its index (a fork at an older commit, a fork of a source with
 * unindexed commits, a fast-forward or rebase onto the source's head) gets its own index in the
 * background, so its head reads do not merge inherited novelty forever (docs/branches.md). The
 * state at every t stays what it was; a fork at an index head inherits it and indexes nothing.
 */
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { createBranch } from '../../src/core/branch/fork.js';
import { rebaseBranch } from '../../src/core/branch/rebase.js';
import { mergeBranches } from '../../src/core/branch/merge.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import type { TxnQuad } from '../../src/core/transact/txn-request.js';

const EX = 'http://example.org/';
const q = (s: string, o: number): TxnQuad => ({ subject: namedNode(EX + s), predicate: namedNode(EX + 'v'), object: literal(String(o), namedNode(xsd.integer)), graph: { termType: 'DefaultGraph', value: '' } });
const upsert = (...quads: TxnQuad[]) => ({ kind: 'upsert' as const, quads, meta: [], opts: {} });

/** The default graph of a ledger at t, as sorted "s o" strings. */
async function stateAt(conn: Connection, id: string, t: number): Promise<string[]> {
  const db = await conn.db(`${id}@t:${t}`);
  const out: string[] = [];
  for await (const b of db.scan({ g: 0 })) for (let i = 0; i < b.n; i++) out.push(`${db.dict.term(b.s[i]!).value.slice(EX.length)} ${db.dict.term(b.o[i]!).value}`);
  return out.sort();
}

/** main: t1–t2 indexed, t3–t5 in novelty. */
async function setup(indexingEnabled = true): Promise<Connection> {
  const conn = new Connection(openMemoryStorage(), { indexingEnabled, reindexMinBytes: 1e9 });
  await conn.create('m');
  for (let i = 1; i <= 2; i++) await conn.transact('m', upsert(q('a', i), q(`x${i}`, i)));
  await conn.reindex('m');
  for (let i = 3; i <= 5; i++) await conn.transact('m', upsert(q('a', i), q(`x${i}`, i)));
  return conn;
}

describe('indexing a branch that starts above its index', () => {
  it('a fork at the head of a source with novelty, at an older commit, and before any index gets its own index at the fork t', async () => {
    const conn = await setup();
    const expected = await Promise.all([0, 1, 2, 3, 4, 5].map((t) => stateAt(conn, 'm:main', t)));
    await createBranch(conn, 'm', 'head', 'main', undefined);
    await createBranch(conn, 'm', 'back', 'main', 't:4');
    await createBranch(conn, 'm', 'early', 'main', 't:1');
    // As created: the inherited index (t 2, or none before it), the rest replayed.
    expect((await conn.ns.get('m:head'))!.index_t).toBe(2);
    expect((await conn.ns.get('m:early'))!.index_head_id).toBeNull();
    await conn.idle();
    for (const [b, t] of [['head', 5], ['back', 4], ['early', 1]] as const) {
      const rec = (await conn.ns.get(`m:${b}`))!;
      expect([rec.index_t, rec.commit_t], b).toEqual([t, t]);
      const l = await conn.ledger(`m:${b}`);
      expect(l.novelty.size, b).toBe(0);
      expect(l.tree!.root.ledger_id).toBe(`m:${b}`);
      expect(l.tree!.rootCid.toString()).toBe(rec.index_head_id);
      for (let u = 0; u <= t; u++) expect(await stateAt(conn, `m:${b}`, u), `${b}@t:${u}`).toEqual(expected[u]);
    }
    // The source is untouched.
    expect((await conn.ns.get('m:main'))!.index_t).toBe(2);
    await conn.close();
  });

  it('a fork at an index head inherits it and indexes nothing; with indexing off nothing is indexed', async () => {
    const conn = await setup();
    await conn.reindex('m');
    const main = (await conn.ns.get('m:main'))!;
    await createBranch(conn, 'm', 'b', 'main', undefined);
    await conn.idle();
    expect((await conn.ns.get('m:b'))!.index_head_id).toBe(main.index_head_id);
    await conn.close();
    const off = await setup(false);
    await createBranch(off, 'm', 'b', 'main', 't:4');
    await off.idle();
    const rec = (await off.ns.get('m:b'))!;
    expect([rec.index_t, (await off.ledger('m:b')).novelty.size > 0]).toEqual([2, true]);
    await off.close();
  });

  it('a rebase that fast-forwards and a fast-forward merge index the novelty the branch takes with the source head', async () => {
    const conn = await setup();
    await createBranch(conn, 'm', 'dev', 'main', undefined);
    await conn.idle();
    await conn.transact('m', upsert(q('a', 6)));
    await conn.transact('m', upsert(q('a', 7)));
    const res = await rebaseBranch(conn, 'm', 'dev', 'take-both');
    expect(res.fast_forward).toBe(true);
    await conn.idle();
    let rec = (await conn.ns.get('m:dev'))!;
    expect([rec.index_t, rec.commit_t]).toEqual([7, 7]);
    for (let u = 0; u <= 7; u++) expect(await stateAt(conn, 'm:dev', u)).toEqual(await stateAt(conn, 'm:main', u));
    // dev ahead of main: merging it fast-forwards main, which takes dev's index and head.
    await conn.transact('m:dev', upsert(q('a', 8)));
    const merged = await mergeBranches(conn, 'm', 'dev', 'main', 'take-both');
    expect(merged.fast_forward).toBe(true);
    await conn.idle();
    rec = (await conn.ns.get('m:main'))!;
    expect([rec.index_t, rec.commit_t]).toEqual([8, 8]);
    expect(await stateAt(conn, 'm:main', 8)).toEqual(await stateAt(conn, 'm:dev', 8));
    await conn.close();
  });
});
