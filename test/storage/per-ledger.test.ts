/**
 * The per-ledger store (src/storage/per-ledger-store.ts) over in-memory parts: the storage
 * contract on one ledger's view, the shared layout read as a fallback and never written or
 * deleted, and index garbage collection deciding per ledger (an equal object another ledger
 * holds, in its own part, does not keep this ledger's copy).
 */
import { CID } from 'multiformats/cid';
import { describe, expect, it } from 'vitest';
import { Codec } from '../../src/core/commit/cid.js';
import { runIndexJob } from '../../src/core/index/indexer.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import type { ContentStore } from '../../src/core/store.js';
import { MemoryContentStore, MemoryNameService } from '../../src/storage/memory-store.js';
import { PerLedgerContentStore } from '../../src/storage/per-ledger-store.js';
import { rejection, storageContract } from './contract.js';

/** A per-ledger store over memory parts (kept by segment, so a reopened view sees the same objects). */
function memoryPerLedger(shared: MemoryContentStore | null = null) {
  const parts = new Map<string, MemoryContentStore>();
  const store = new PerLedgerContentStore({
    open: (segment) => { let p = parts.get(segment); if (!p) parts.set(segment, p = new MemoryContentStore()); return p; },
    shared, where: 'memory',
  });
  return { store, parts };
}

storageContract('memory, one ledger of the per-ledger layout', async () => {
  const { store, parts } = memoryPerLedger();
  const view = store.forLedger('team/hr');
  const content: ContentStore = {
    put: (c, b) => view.put(c, b), putWithCid: (c, b) => view.putWithCid(c, b), get: (c) => view.get(c),
    has: (c) => view.has(c), delete: (c) => view.delete(c), close: () => store.close(),
  };
  return {
    content, ns: new MemoryNameService(),
    tamper: async (cid, bytes) => { parts.get('team~hr')!.objects.set(cid.toString(), bytes); },
    cleanup: async () => {},
  };
});

const enc = new TextEncoder();

describe('per-ledger store', () => {
  it('reads the shared layout when a ledger lacks an object, and never writes or deletes it', async () => {
    const shared = new MemoryContentStore();
    const old = await shared.put(Codec.commit, enc.encode('old'));
    const { store, parts } = memoryPerLedger(shared);
    const hr = store.forLedger('hr');
    expect(new TextDecoder().decode(await hr.get(old))).toBe('old');
    expect(await hr.has(old)).toBe(true);
    expect(await hr.delete(old)).toBe(false);
    expect(shared.objects.has(old.toString())).toBe(true);
    const fresh = await hr.put(Codec.commit, enc.encode('new'));
    expect(shared.objects.has(fresh.toString())).toBe(false);
    expect(parts.get('hr')!.objects.has(fresh.toString())).toBe(true);
    // Another ledger sees neither hr's object nor a missing one.
    expect(await store.forLedger('ops').has(fresh)).toBe(false);
    expect((await rejection(store.forLedger('ops').get(fresh))).status).toBe(404);
    // Grouped writes only where the part offers them (memory parts do not: callers write in parallel).
    expect(hr.putAllWithCid).toBeUndefined();
    expect((await rejection(store.has(fresh))).status).toBe(500);
    await store.close();
  });

  it('index garbage collection decides per ledger: an equal object of another ledger does not keep this one\'s copy', async () => {
    const { store, parts } = memoryPerLedger();
    const conn = new Connection({ content: store, ns: new MemoryNameService() }, { indexingEnabled: false, gcGraceMs: 0 });
    const quad = (o: string) => ({ subject: namedNode('http://e/s'), predicate: namedNode('http://e/p'), object: literal(o), graph: { termType: 'DefaultGraph' as const, value: '' as const } });
    for (const l of ['a', 'b']) {
      await conn.create(l);
      await conn.transact(l, { kind: 'insert', quads: [quad('1')], meta: [], opts: {} });
    }
    await conn.reindex('b');
    const indexObjects = (p: string) => [...parts.get(p)!.objects.keys()].filter((c) => ![Codec.commit, Codec.txn].includes(CID.parse(c).code)).sort();
    const before = indexObjects('a');
    // a's job is not published (its chain moved on): its root is retired, and the sweep deletes
    // what it wrote, although b's index holds equal leaves.
    const ledger = await conn.ledger('a');
    ledger.superseded = true;
    await runIndexJob(conn, ledger);
    const written = indexObjects('a').filter((c) => !before.includes(c));
    const bObjects = new Set(indexObjects('b'));
    expect(written.filter((c) => bObjects.has(c)).length).toBeGreaterThan(0);
    await conn.idle();
    expect(indexObjects('a')).toEqual(before);
    expect(indexObjects('b')).toEqual([...bObjects].sort());
    expect(conn.gc.deleted).toBe(written.length);
    await conn.close();
  });
});
