import 'fake-indexeddb/auto';
import { createStore, set } from 'idb-keyval';
import { describe, expect, it } from 'vitest';
import { Codec } from '../../src/core/commit/cid.js';
import type { NsChange } from '../../src/core/store.js';
import { IdbContentStore, IdbNameService } from '../../src/storage/indexeddb-store.js';
import { rec, storageContract } from './contract.js';

let n = 0;
const freshName = () => `ledgraph-test-${process.pid}-${++n}`;

storageContract('indexeddb', async () => {
  const name = freshName();
  const objects = createStore(`${name}-objects`, 'objects');
  return {
    content: new IdbContentStore(name),
    ns: new IdbNameService(name),
    tamper: async (cid, bytes) => { await set(cid.toString(), bytes, objects); },
    cleanup: async () => {},
  };
});

describe('indexeddb storage specifics', () => {
  it('a second instance on the same database sees the same objects and records', async () => {
    const name = freshName();
    const a = { content: new IdbContentStore(name), ns: new IdbNameService(name) };
    const cid = await a.content.put(Codec.commit, new TextEncoder().encode('persisted'));
    await a.ns.compareAndSet('hr:main', null, rec('hr:main', { commit_head_id: cid.toString(), commit_t: 1 }));
    await a.ns.close();

    const b = { content: new IdbContentStore(name), ns: new IdbNameService(name) };
    expect(new TextDecoder().decode(await b.content.get(cid))).toBe('persisted');
    expect(await b.ns.list()).toEqual([rec('hr:main', { commit_head_id: cid.toString(), commit_t: 1 })]);
    await b.ns.close();
  });

  it('instances on one database (other tabs) hear each other through BroadcastChannel', async () => {
    const name = freshName();
    const writer = new IdbNameService(name);
    const reader = new IdbNameService(name);
    const heard: NsChange[] = [];
    const off = reader.subscribe((c) => heard.push(c));
    await writer.compareAndSet('hr:main', null, rec('hr:main'));
    await writer.delete('hr:main');
    await expect.poll(() => heard.length).toBe(2);
    expect(heard).toEqual([
      { ledger_id: 'hr:main', kind: 'create', record: rec('hr:main') },
      { ledger_id: 'hr:main', kind: 'delete', record: null },
    ]);
    off();
    await writer.close();
    await reader.close();
  });

  it('compare-and-set is atomic across instances on one database', async () => {
    const name = freshName();
    const tabs = [new IdbNameService(name), new IdbNameService(name), new IdbNameService(name)];
    await tabs[0]!.compareAndSet('hr:main', null, rec('hr:main'));
    let wins = 0;
    // Each tab increments commit_t by read + compare-and-set, retrying on conflict.
    await Promise.all(tabs.map(async (ns) => {
      for (let i = 0; i < 20; i++) {
        const cur = (await ns.get('hr:main'))!;
        if (await ns.compareAndSet('hr:main', cur, { ...cur, commit_t: cur.commit_t + 1 })) wins++;
      }
    }));
    expect((await tabs[0]!.get('hr:main'))!.commit_t).toBe(wins);
    for (const t of tabs) await t.close();
  });
});
