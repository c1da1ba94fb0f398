import { describe, expect, it } from 'vitest';
import { Codec, cidOf } from '../../src/core/commit/cid.js';
import { changeKind, MemoryContentStore, MemoryNameService } from '../../src/storage/memory-store.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { rec, rejection, storageContract } from './contract.js';

storageContract('memory', async () => {
  const objects = new Map<string, Uint8Array>();
  return {
    content: new MemoryContentStore(objects),
    ns: new MemoryNameService(),
    // The store's backing map is injectable, which lets the test corrupt an object in place.
    tamper: async (cid, bytes) => { objects.set(cid.toString(), bytes); },
    cleanup: async () => {},
  };
});

describe('memory storage specifics', () => {
  it('openMemoryStorage gives independent, empty stores', async () => {
    const a = openMemoryStorage();
    const b = openMemoryStorage();
    const cid = await a.content.put(Codec.txn, new TextEncoder().encode('x'));
    expect(await a.content.has(cid)).toBe(true);
    expect(await b.content.has(cid)).toBe(false);
    await a.ns.compareAndSet('hr:main', null, rec('hr:main'));
    expect(await b.ns.list()).toEqual([]);
  });

  it('two stores over one map share objects (and their verification)', async () => {
    const objects = new Map<string, Uint8Array>();
    const bytes = new TextEncoder().encode('shared');
    const cid = await new MemoryContentStore(objects).put(Codec.dict, bytes);
    expect([...objects.keys()]).toEqual([(await cidOf(Codec.dict, bytes)).toString()]);
    expect(new TextDecoder().decode(await new MemoryContentStore(objects).get(cid))).toBe('shared');
    objects.set(cid.toString(), bytes.subarray(1));
    expect((await rejection(new MemoryContentStore(objects).get(cid))).status).toBe(502);
  });

  it('changeKind classifies changes in priority order', () => {
    const base = rec('hr:main', { commit_head_id: 'c1', commit_t: 1 });
    expect(changeKind(null, base)).toBe('create');
    expect(changeKind(base, { ...base, commit_head_id: 'c2', commit_t: 2, index_t: 1 })).toBe('commit');
    expect(changeKind(base, { ...base, index_head_id: 'i1', index_t: 1 })).toBe('index');
    expect(changeKind(base, { ...base, retracted: true, commit_head_id: 'c2', commit_t: 2 })).toBe('retract');
    expect(changeKind({ ...base, retracted: true }, base)).toBe('update');
    expect(changeKind(base, { ...base, config_id: 'cfg' })).toBe('update');
  });
});
