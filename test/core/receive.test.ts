/**
 * Receiving commits made elsewhere (core/transact/receive.ts, replication.md §7): merges with
 * merged commits, the retraction invariant, graph deltas, the datatype limit and f:modify policy.
 * Commits are built with the commit codec as another server would have written them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../../src/core/commit/cid.js';
import { encodeCommit, type CommitData, type CommitFlake } from '../../src/core/commit/commit-codec.js';
import { Connection } from '../../src/core/ledger/connection.js';
import type { Ledger } from '../../src/core/ledger/ledger.js';
import { literal, namedNode, defaultGraph, type Term } from '../../src/core/rdf/terms.js';
import { receiveCommits } from '../../src/core/transact/receive.js';
import { LedgraphError } from '../../src/core/errors.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { MAX_DATATYPES } from '../../src/core/ledger/datatypes-limit.js';
import { NamespaceTable } from '../../src/core/commit/namespaces.js';

const ex = (s: string) => namedNode('http://example.org/' + s);
const str = (s: string) => literal(s);
const A = 'http://example.org/a', S = 'http://example.org/s';
const fl = (s: string, p: string, o: Term, op = true, g = 0): CommitFlake => ({ g, s: ex(s), p: ex(p), o, op });

/** Assert a rejection with a LedgraphError of this status, type and message part. */
async function expectLedgraphError(p: Promise<unknown>, status: number, type: string, part: string): Promise<void> {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(LedgraphError);
  const err = e as LedgraphError;
  expect([err.status, err.type], err.message).toEqual([status, type]);
  expect(err.message).toContain(part);
}

let conn: Connection;
let ledger: Ledger;

/** A commit on top of `parents` (first parent first) at t, encoded over the ledger's table. */
async function commit(t: number, parents: string[], flakes: CommitFlake[], extra: Partial<CommitData> = {}): Promise<{ bytes: Uint8Array; cid: string }> {
  const data: CommitData = {
    t, parents: parents.map((p) => CID.parse(p)), time: new Date().toISOString(), txn: null, author: '',
    nsDelta: [], graphDelta: [], meta: [], flakes, ...extra,
  };
  const { bytes } = encodeCommit(data, ledger.ns);
  return { bytes, cid: (await cidOf(Codec.commit, bytes)).toString() };
}

const receive = (commits: Uint8Array[], merged: Uint8Array[] = [], policy?: Parameters<typeof receiveCommits>[3]) =>
  receiveCommits(conn, ledger, { commits, merged, blobs: new Map(), missingBlobs: [] }, policy);

async function names(): Promise<string[]> {
  const db = await ledger.db();
  const p = db.dict.idOf(ex('name'));
  const out: string[] = [];
  if (p === undefined) return out;
  for await (const b of db.scan({ g: 0, p })) for (let i = 0; i < b.n; i++) out.push(db.dict.key(b.s[i]!) + ' ' + db.dict.key(b.o[i]!).split('||')[1]);
  return out.sort();
}

beforeEach(async () => {
  conn = new Connection(openMemoryStorage());
  await conn.create('hr');
  await conn.transact('hr', { kind: 'insert', quads: [{ subject: ex('a'), predicate: ex('name'), object: str('A'), graph: defaultGraph }], meta: [], opts: {} });
  ledger = await conn.ledger('hr');
});
afterEach(async () => { await conn.close(); });

describe('receiveCommits', () => {
  it('stores merged commits and replays only the chain (push-merges)', async () => {
    const genesis = (await ledger.chainEntries())[0]!.cid;
    const side = await commit(1, [genesis], [fl('s', 'name', str('S'))]);
    const merge = await commit(2, [ledger.head.cid, side.cid], [fl('s', 'name', str('S'))]);
    const res = await receive([merge.bytes], [side.bytes]);
    expect(res.head).toEqual({ t: 2, commit_id: merge.cid });
    expect(await names()).toEqual([`${A} A`, `${S} S`]);
    expect(await conn.content.has(CID.parse(side.cid))).toBe(true);
  });

  it('422 for a merge parent neither pushed nor stored, and for a merged commit nothing reaches', async () => {
    const genesis = (await ledger.chainEntries())[0]!.cid;
    const side = await commit(1, [genesis], [fl('s', 'name', str('S'))]);
    const merge = await commit(2, [ledger.head.cid, side.cid], [fl('s', 'name', str('S'))]);
    await expectLedgraphError(receive([merge.bytes]), 422, 'err:db/ConstraintViolation', 'neither in the push nor stored');
    const stray = await commit(1, [genesis], [fl('z', 'name', str('Z'))]);
    const plain = await commit(2, [ledger.head.cid], [fl('b', 'name', str('B'))]);
    await expectLedgraphError(receive([plain.bytes], [stray.bytes]), 422, 'err:db/ConstraintViolation', 'not reachable from a merge');
    expect(ledger.t).toBe(1);
    expect(await conn.content.has(CID.parse(plain.cid))).toBe(false);
  });

  it('422 for a retraction of a fact that does not hold (or holds with another list index)', async () => {
    const bad = await commit(2, [ledger.head.cid], [fl('a', 'name', str('nope'), false)]);
    await expectLedgraphError(receive([bad.bytes]), 422, 'err:db/ConstraintViolation', 'retraction invariant');
    const listed = await commit(2, [ledger.head.cid], [{ ...fl('a', 'name', str('A'), false), i: 0 }]);
    await expectLedgraphError(receive([listed.bytes]), 422, 'err:db/ConstraintViolation', 'retraction invariant');
    // Within one push, a later commit may retract what an earlier one asserted.
    const c2 = await commit(2, [ledger.head.cid], [fl('b', 'name', str('B'))]);
    const c3 = await commit(3, [c2.cid], [fl('b', 'name', str('B'), false)]);
    await receive([c2.bytes, c3.bytes]);
    expect(await names()).toEqual([`${A} A`]);
  });

  it('409 for a wrong next t or a first parent that is not the head', async () => {
    const skip = await commit(3, [ledger.head.cid], [fl('b', 'name', str('B'))]);
    await expectLedgraphError(receive([skip.bytes]), 409, 'err:db/CommitConflict', 'next t');
    const genesis = (await ledger.chainEntries())[0]!.cid;
    const diverged = await commit(2, [genesis], [fl('b', 'name', str('B'))]);
    await expectLedgraphError(receive([diverged.bytes]), 409, 'err:db/CommitConflict', 'moved or diverged');
  });

  it('422 for a graph delta that contradicts the graph table', async () => {
    const g1 = await commit(2, [ledger.head.cid], [fl('b', 'name', str('B'), true, 3)], { graphDelta: [[3, 'http://example.org/g1']] });
    await receive([g1.bytes]);
    const g2 = await commit(3, [g1.cid], [fl('c', 'name', str('C'), true, 3)], { graphDelta: [[3, 'http://example.org/other']] });
    await expectLedgraphError(receive([g2.bytes]), 422, 'err:db/ConstraintViolation', 'graph_delta');
  });

  it('checks the caller\'s f:modify policy (403) before storing', async () => {
    const c2 = await commit(2, [ledger.head.cid], [fl('b', 'name', str('B'))]);
    await expectLedgraphError(receive([c2.bytes], [], { policy: [], defaultAllow: false }), 403, 'err:db/Forbidden', '');
    expect(ledger.t).toBe(1);
  });
  it('422 for a non-merge commit without flakes (rule 4), before anything is stored', async () => {
    const { bytes } = await commit(2, [ledger.head.cid], [fl('b', 'name', str('B'))]);
    // The same envelope over an empty flake section: no names, no flakes.
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const envLen = dv.getUint32(8, true);
    const empty = new Uint8Array(16 + envLen + 2);
    empty.set(bytes.subarray(0, 16 + envLen));
    new DataView(empty.buffer).setUint32(12, 2, true);
    await expectLedgraphError(receive([empty]), 422, 'err:db/ConstraintViolation', 'has no flakes');
    expect(ledger.t).toBe(1);
    expect(await conn.content.has(await cidOf(Codec.commit, empty))).toBe(false);
  });

  it('422 err:db/DatatypeLimitExceeded when the commits would pass the datatype limit', async () => {
    for (let i = ledger.datatypes.size; i < MAX_DATATYPES; i++) ledger.datatypes.add(`http://example.org/dt/${i}`);
    const c2 = await commit(2, [ledger.head.cid], [fl('b', 'size', literal('7', ex('one-too-many')))]);
    await expectLedgraphError(receive([c2.bytes]), 422, 'err:db/DatatypeLimitExceeded', 'at most 16369');
    expect(ledger.t).toBe(1);
    // A datatype the ledger already counts is fine.
    const c3 = await commit(2, [ledger.head.cid], [fl('b', 'size', literal('7', namedNode('http://example.org/dt/100')))]);
    expect((await receive([c3.bytes])).head.t).toBe(2);
  });

  it('422 for an ns_delta that contradicts the namespace table', async () => {
    const [code, prefix] = ledger.ns.allocated()[0]!;
    expect(prefix).toBe('http://example.org/');
    // Written by a server whose table gave that code to another prefix.
    const { bytes } = encodeCommit({
      t: 2, parents: [CID.parse(ledger.head.cid!)], time: new Date().toISOString(), txn: null, author: '',
      nsDelta: [[code, 'http://other.example/']], graphDelta: [], meta: [], flakes: [fl('b', 'name', str('B'))],
    }, new NamespaceTable());
    await expectLedgraphError(receive([bytes]), 422, 'err:db/ConstraintViolation', `code ${code} is "http://example.org/", not "http://other.example/"`);
    expect(ledger.t).toBe(1);
  });
});
