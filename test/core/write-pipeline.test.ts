/**
 * The group-commit write pipeline (src/core/transact/pipeline.ts): concurrent writes become one
 * linear chain of commits, a group staged on top of one still being written publishes only after
 * it, and a failed or lost publish sends every write staged on it back to be staged again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Codec } from '../../src/core/commit/cid.js';
import { Connection } from '../../src/core/ledger/connection.js';
import type { Db } from '../../src/core/ledger/db.js';
import { literal, namedNode, defaultGraph, type Term } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import type { Receipt } from '../../src/core/transact/pipeline.js';
import type { TxnQuad, TxnRequest } from '../../src/core/transact/txn-request.js';
import { openFileStorage, openMemoryStorage } from '../../src/storage/index.js';

const ex = (s: string) => namedNode('http://example.org/' + s);
const int = (n: number) => literal(String(n), namedNode(xsd.integer));
const q = (s: string, p: string, o: Term): TxnQuad => ({ subject: ex(s), predicate: ex(p), object: o, graph: defaultGraph });
const insert = (...quads: TxnQuad[]): TxnRequest => ({ kind: 'insert', quads, meta: [], opts: {} });

/** Subjects with an ex:n fact, sorted. */
async function subjects(db: Db): Promise<string[]> {
  const p = db.dict.idOf(ex('n'));
  if (p === undefined) return [];
  const out: string[] = [];
  for await (const b of db.scan({ g: 0, p })) for (let i = 0; i < b.n; i++) out.push(db.dict.key(b.s[i]!).slice('http://example.org/'.length));
  return out.sort();
}

/** The receipts form one chain t = 1..n, each naming the previous commit. */
function expectChain(receipts: Receipt[], genesis: string): void {
  const byT = [...receipts].sort((a, b) => a.t - b.t);
  expect(byT.map((r) => r.t)).toEqual(byT.map((_, i) => i + 1));
  let prev = genesis;
  for (const r of byT) {
    expect(r.previous_commit_id).toBe(prev);
    prev = r.commit_id;
  }
}

const dirs: string[] = [];
afterEach(async () => { for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true }); });
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'lg-pipeline-'));
  dirs.push(d);
  return d;
}

describe('write pipeline', () => {
  it('commits 200 concurrent writes as one chain with every fact present', async () => {
    const conn = new Connection(await openFileStorage(await tempDir()));
    const genesis = (await conn.create('w')).commit.commit_id;
    const receipts = await Promise.all(Array.from({ length: 200 }, (_, i) => conn.transact('w', insert(q(`s${i}`, 'n', int(i))))));
    expectChain(receipts, genesis);
    const db = await conn.db('w');
    expect(db.t).toBe(200);
    expect(await subjects(db)).toEqual(Array.from({ length: 200 }, (_, i) => `s${i}`).sort());
    await conn.close();
  });

  it('writers that await each commit keep the loaded ledger: it is never reloaded from a record older than its head', async () => {
    const conn = new Connection(openMemoryStorage());
    const genesis = (await conn.create('w')).commit.commit_id;
    const loaded = conn.loadedLedger('w');
    const receipts: Receipt[] = [];
    await Promise.all(Array.from({ length: 8 }, async (_, k) => {
      for (let i = 0; i < 10; i++) receipts.push(await conn.transact('w', insert(q(`s${k}-${i}`, 'n', int(i)))));
    }));
    expectChain(receipts, genesis);
    // Another load would replay the whole chain from storage on every such race.
    expect(conn.loadedLedger('w')).toBe(loaded);
    expect((await conn.db('w')).t).toBe(80);
  });

  it('a request that fails validation is refused alone; the writes around it commit', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('v');
    const bad: TxnRequest = { ...insert(q('bad', 'n', int(0))), opts: { eventTime: 'not a time' } };
    const results = await Promise.allSettled([
      ...Array.from({ length: 10 }, (_, i) => conn.transact('v', insert(q(`a${i}`, 'n', int(i))))),
      conn.transact('v', bad),
      ...Array.from({ length: 10 }, (_, i) => conn.transact('v', insert(q(`b${i}`, 'n', int(i))))),
    ]);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.status)).toEqual([400]);
    expect((await conn.db('v')).t).toBe(20);
    expect(await subjects(await conn.db('v'))).not.toContain('bad');
  });

  it('a failed blob write fails its own group only; writes staged on top of it commit after restaging', async () => {
    const storage = openMemoryStorage();
    const conn = new Connection(storage);
    const genesis = (await conn.create('f')).commit.commit_id;
    const put = storage.content.put.bind(storage.content);
    let commits = 0;
    storage.content.put = async (codec, bytes) => {
      // Fail the 3rd commit blob: its group is refused, whatever was staged on it is staged again.
      if (codec === Codec.commit && ++commits === 3) {
        await new Promise((r) => setTimeout(r, 5));
        throw Object.assign(new Error('disk on fire'), { status: 502 });
      }
      return put(codec, bytes);
    };
    const settled = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => conn.transact('f', insert(q(`s${i}`, 'n', int(i))))));
    const ok = settled.filter((r): r is PromiseFulfilledResult<Receipt> => r.status === 'fulfilled').map((r) => r.value);
    const failed = settled.filter((r) => r.status === 'rejected');
    expect(failed.length).toBeGreaterThan(0);
    expect(ok.length + failed.length).toBe(60);
    expectChain(ok, genesis);
    const db = await conn.db('f');
    expect(db.t).toBe(ok.length);
    // Exactly the acknowledged writes are in the ledger.
    const acknowledged = settled.flatMap((r, i) => (r.status === 'fulfilled' ? [`s${i}`] : [])).sort();
    expect(await subjects(db)).toEqual(acknowledged);
  });

  it('two connections on one storage directory (two processes) interleave into one chain, losing nothing', async () => {
    const dir = await tempDir();
    const a = new Connection(await openFileStorage(dir));
    const genesis = (await a.create('shared')).commit.commit_id;
    const b = new Connection(await openFileStorage(dir));
    const writes = (conn: Connection, tag: string) =>
      Promise.all(Array.from({ length: 40 }, (_, i) => conn.transact('shared', insert(q(`${tag}${i}`, 'n', int(i))))));
    const [ra, rb] = await Promise.all([writes(a, 'a'), writes(b, 'b')]);
    expectChain([...ra, ...rb], genesis);
    const expected = [...Array.from({ length: 40 }, (_, i) => `a${i}`), ...Array.from({ length: 40 }, (_, i) => `b${i}`)].sort();
    for (const conn of [a, b]) {
      await conn.catchUp(await conn.ledger('shared'));
      const db = await conn.db('shared');
      expect(db.t).toBe(80);
      expect(await subjects(db)).toEqual(expected);
    }
    await a.close();
    await b.close();
  });
});
