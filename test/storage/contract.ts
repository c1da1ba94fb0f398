/** The behaviour every ContentStore + NameService pair must show; each backend's test runs it with its own factory. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Codec, cidOf, type CID } from '../../src/core/commit/cid.js';
import { LedgraphError } from '../../src/core/errors.js';
import type { ContentStore, NameService, NsChange, NsRecord } from '../../src/core/store.js';

/** One opened backend plus the means to misbehave behind its back. */
export interface StorageFixture {
  content: ContentStore;
  ns: NameService;
  /** Replace the stored bytes of an object without going through the store. */
  tamper(cid: CID, bytes: Uint8Array): Promise<void>;
  /** Let a backend finish noticing changes (the file nameservice's directory scan); no-op elsewhere. */
  settle?(): Promise<void>;
  cleanup(): Promise<void>;
}

const enc = new TextEncoder();

/** A nameservice record with sensible defaults. */
export function rec(ledgerId: string, over: Partial<NsRecord> = {}): NsRecord {
  const i = ledgerId.lastIndexOf(':');
  return {
    ledger_id: ledgerId, name: ledgerId.slice(0, i), branch: ledgerId.slice(i + 1),
    commit_head_id: null, commit_t: 0, index_head_id: null, index_t: 0,
    default_context: null, config_id: null, retracted: false, ...over,
  };
}

/** The LedgraphError a promise rejects with (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<LedgraphError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(LedgraphError);
    return e as LedgraphError;
  }
  throw new Error('expected a rejection');
}

/** Register the contract tests for a backend. */
export function storageContract(name: string, open: () => Promise<StorageFixture>): void {
  describe(`${name}: storage contract`, () => {
    let f: StorageFixture;
    beforeEach(async () => { f = await open(); });
    afterEach(async () => {
      await f.ns.close();
      await f.content.close();
      await f.cleanup();
    });

    describe('ContentStore', () => {
      it('put returns the CID of the bytes under the kind codec and get returns the same bytes', async () => {
        const bytes = enc.encode('{"commit":1}');
        const cid = await f.content.put(Codec.commit, bytes);
        const expected = await cidOf(Codec.commit, bytes);
        expect(cid.toString()).toBe(expected.toString());
        expect(cid.code).toBe(0x300001);
        expect(cid.toString().startsWith('bag')).toBe(true);
        expect(Array.from(await f.content.get(cid))).toEqual(Array.from(bytes));
      });

      it('the same bytes under two codecs are two objects', async () => {
        const bytes = enc.encode('same');
        const a = await f.content.put(Codec.indexLeaf, bytes);
        const b = await f.content.put(Codec.dict, bytes);
        expect(a.toString()).not.toBe(b.toString());
        expect(a.code).toBe(Codec.indexLeaf);
        expect(b.code).toBe(Codec.dict);
        expect(await f.content.has(a)).toBe(true);
        expect(await f.content.has(b)).toBe(true);
      });

      it('stores the empty object and larger binary objects', async () => {
        const empty = await f.content.put(Codec.txn, new Uint8Array(0));
        expect((await f.content.get(empty)).length).toBe(0);
        const big = new Uint8Array(200_000).map((_, i) => (i * 31) & 0xff);
        const cid = await f.content.put(Codec.indexLeaf, big);
        const back = await f.content.get(cid);
        expect(back.length).toBe(200_000);
        expect(back[199_999]).toBe((199_999 * 31) & 0xff);
        expect(Array.from(back.subarray(0, 8))).toEqual([0, 31, 62, 93, 124, 155, 186, 217]);
      });

      it('keeps its own copy: mutating the input or a returned array changes nothing stored', async () => {
        const bytes = enc.encode('immutable');
        const cid = await f.content.put(Codec.txn, bytes);
        bytes[0] = 0;
        const first = await f.content.get(cid);
        expect(new TextDecoder().decode(first)).toBe('immutable');
        first[0] = 0;
        expect(new TextDecoder().decode(await f.content.get(cid))).toBe('immutable');
      });

      it('put is idempotent', async () => {
        const bytes = enc.encode('twice');
        const a = await f.content.put(Codec.txn, bytes);
        const b = await f.content.put(Codec.txn, bytes);
        expect(b.toString()).toBe(a.toString());
        expect(new TextDecoder().decode(await f.content.get(a))).toBe('twice');
      });

      it('putWithCid stores verified bytes and refuses bytes that do not match the CID', async () => {
        const bytes = enc.encode('pulled from a server');
        const cid = await cidOf(Codec.commit, bytes);
        await f.content.putWithCid(cid, bytes);
        expect(new TextDecoder().decode(await f.content.get(cid))).toBe('pulled from a server');

        const other = await cidOf(Codec.commit, enc.encode('something else'));
        const err = await rejection(f.content.putWithCid(other, bytes));
        expect(err.status).toBe(502);
        expect(err.type).toBe('err:db/BadGateway');
        expect(await f.content.has(other)).toBe(false);
      });

      it('has, delete and get of a missing object', async () => {
        const bytes = enc.encode('short-lived');
        const cid = await cidOf(Codec.indexBranch, bytes);
        expect(await f.content.has(cid)).toBe(false);
        const missing = await rejection(f.content.get(cid));
        expect(missing.status).toBe(404);
        expect(missing.type).toBe('err:db/LedgerNotFound');
        expect(missing.message).toContain(cid.toString());
        expect(missing.message).toContain('not found');

        await f.content.put(Codec.indexBranch, bytes);
        expect(await f.content.has(cid)).toBe(true);
        expect(await f.content.delete(cid)).toBe(true);
        expect(await f.content.has(cid)).toBe(false);
        expect(await f.content.delete(cid)).toBe(false);
        expect((await rejection(f.content.get(cid))).status).toBe(404);
      });

      it('detects bytes changed behind its back on every read and never returns them', async () => {
        const bytes = enc.encode('original content');
        const cid = await f.content.put(Codec.commit, bytes);
        await f.content.get(cid);
        await f.tamper(cid, enc.encode('original contenT'));
        for (let i = 0; i < 2; i++) {
          const err = await rejection(f.content.get(cid));
          expect(err.status).toBe(502);
          expect(err.type).toBe('err:db/BadGateway');
          expect(err.message).toContain(cid.toString());
        }
        expect(await f.content.has(cid)).toBe(true);
      });
    });

    describe('NameService', () => {
      it('get of an absent record is null; list of an empty nameservice is empty', async () => {
        expect(await f.ns.get('hr:main')).toBeNull();
        expect(await f.ns.list()).toEqual([]);
      });

      it('compare-and-set creates with expected null, then only from the current version', async () => {
        const r0 = rec('hr:main');
        expect(await f.ns.compareAndSet('hr:main', null, r0)).toBe(true);
        expect(await f.ns.get('hr:main')).toEqual(r0);
        expect(await f.ns.compareAndSet('hr:main', null, rec('hr:main', { commit_t: 9 }))).toBe(false);

        const r1 = rec('hr:main', { commit_head_id: 'bagaybqabciq1', commit_t: 1 });
        expect(await f.ns.compareAndSet('hr:main', r0, r1)).toBe(true);
        // r0 is stale now: a second writer that read r0 loses.
        expect(await f.ns.compareAndSet('hr:main', r0, rec('hr:main', { commit_head_id: 'bagaybqabciqX', commit_t: 1 }))).toBe(false);
        expect(await f.ns.get('hr:main')).toEqual(r1);

        // Fields outside the version (config, context) do not make `expected` stale.
        const r2 = rec('hr:main', { commit_head_id: 'bagaybqabciq2', commit_t: 2, config_id: 'bagaoc' });
        expect(await f.ns.compareAndSet('hr:main', { ...r1, config_id: 'ignored' }, r2)).toBe(true);
        expect(await f.ns.get('hr:main')).toEqual(r2);
      });

      it('compare-and-set with a record for another ledger is a 400', async () => {
        const err = await rejection(f.ns.compareAndSet('hr:main', null, rec('hr:dev')));
        expect(err.status).toBe(400);
        expect(await f.ns.get('hr:main')).toBeNull();
        expect(await f.ns.get('hr:dev')).toBeNull();
      });

      it('keeps optional fields and hands out copies', async () => {
        const r = rec('org/hr:feature', { source_branch: 'main', branches: 2, index_head_id: 'bagbybq', index_t: 3 });
        await f.ns.compareAndSet('org/hr:feature', null, r);
        r.commit_t = 99;
        const got = await f.ns.get('org/hr:feature');
        expect(got).toEqual(rec('org/hr:feature', { source_branch: 'main', branches: 2, index_head_id: 'bagbybq', index_t: 3 }));
        got!.commit_t = 77;
        expect((await f.ns.get('org/hr:feature'))!.commit_t).toBe(0);
      });

      it('list returns every record sorted by ledger id, names with / and : included', async () => {
        for (const id of ['hr:main', 'a/b/c:main', 'hr:dev', 'Zeta:main', 'a:x.y', 'ünï:main']) {
          expect(await f.ns.compareAndSet(id, null, rec(id))).toBe(true);
        }
        const ids = (await f.ns.list()).map((r) => r.ledger_id);
        expect(ids).toEqual(['Zeta:main', 'a/b/c:main', 'a:x.y', 'hr:dev', 'hr:main', 'ünï:main']);
        expect((await f.ns.get('a/b/c:main'))!.name).toBe('a/b/c');
      });

      it('delete purges a record and reports whether one existed', async () => {
        await f.ns.compareAndSet('hr:main', null, rec('hr:main'));
        await f.ns.compareAndSet('hr:dev', null, rec('hr:dev'));
        expect(await f.ns.delete('hr:main')).toBe(true);
        expect(await f.ns.get('hr:main')).toBeNull();
        expect(await f.ns.delete('hr:main')).toBe(false);
        expect((await f.ns.list()).map((r) => r.ledger_id)).toEqual(['hr:dev']);
        // A purged id can be created again.
        expect(await f.ns.compareAndSet('hr:main', null, rec('hr:main'))).toBe(true);
      });

      it('concurrent compare-and-sets from one stale version: exactly one wins', async () => {
        const r0 = rec('hr:main');
        await f.ns.compareAndSet('hr:main', null, r0);
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
          f.ns.compareAndSet('hr:main', r0, rec('hr:main', { commit_head_id: `bagc${i}`, commit_t: 1 }))));
        expect(results.filter(Boolean).length).toBe(1);
        const winner = results.indexOf(true);
        expect((await f.ns.get('hr:main'))!.commit_head_id).toBe(`bagc${winner}`);
      });

      it('emits one change per successful change with its kind, and nothing after unsubscribe', async () => {
        const seen: NsChange[] = [];
        const other: string[] = [];
        const off = f.ns.subscribe((c) => seen.push(c));
        const offOther = f.ns.subscribe((c) => other.push(c.kind));
        const r0 = rec('hr:main');
        const r1 = rec('hr:main', { commit_head_id: 'bag1', commit_t: 1 });
        const r2 = { ...r1, index_head_id: 'bagi1', index_t: 1 };
        const r3 = { ...r2, branches: 1 };
        const r4 = { ...r3, retracted: true };
        expect(await f.ns.compareAndSet('hr:main', null, r0)).toBe(true);
        expect(await f.ns.compareAndSet('hr:main', null, r0)).toBe(false); // failed: no event
        expect(await f.ns.compareAndSet('hr:main', r0, r1)).toBe(true);
        offOther();
        expect(await f.ns.compareAndSet('hr:main', r1, r2)).toBe(true);
        expect(await f.ns.compareAndSet('hr:main', r2, r3)).toBe(true);
        expect(await f.ns.compareAndSet('hr:main', r3, r4)).toBe(true);
        expect(await f.ns.delete('hr:main')).toBe(true);
        expect(await f.ns.delete('hr:main')).toBe(false); // nothing deleted: no event
        await f.settle?.();
        expect(seen).toEqual([
          { ledger_id: 'hr:main', kind: 'create', record: r0 },
          { ledger_id: 'hr:main', kind: 'commit', record: r1 },
          { ledger_id: 'hr:main', kind: 'index', record: r2 },
          { ledger_id: 'hr:main', kind: 'update', record: r3 },
          { ledger_id: 'hr:main', kind: 'retract', record: r4 },
          { ledger_id: 'hr:main', kind: 'delete', record: null },
        ]);
        expect(other).toEqual(['create', 'commit']);

        off();
        off(); // idempotent
        await f.ns.compareAndSet('hr:dev', null, rec('hr:dev'));
        await f.settle?.();
        expect(seen.length).toBe(6);
      });

      it('a listener that throws does not fail the change or starve other listeners', async () => {
        const kinds: string[] = [];
        const original = console.error;
        console.error = () => {};
        try {
          const offBad = f.ns.subscribe(() => { throw new Error('listener bug'); });
          const off = f.ns.subscribe((c) => kinds.push(c.kind));
          expect(await f.ns.compareAndSet('hr:main', null, rec('hr:main'))).toBe(true);
          offBad();
          off();
        } finally {
          console.error = original;
        }
        expect(kinds).toEqual(['create']);
        expect(await f.ns.get('hr:main')).toEqual(rec('hr:main'));
      });
    });
  });
}
