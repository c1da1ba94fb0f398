/** The events hub: snapshot then live changes, per-subscriber filters, and the bounded queue of a slow reader. */
import { describe, expect, it } from 'vitest';
import type { NsRecord } from '../../core/store.js';
import { MemoryNameService } from '../../storage/memory-store.js';
import { EventsHub, OVERFLOW_COMMENT } from './hub.js';

const rec = (id: string, t: number, extra: Partial<NsRecord> = {}): NsRecord => {
  const [name, branch] = id.split(':') as [string, string];
  return {
    ledger_id: id, name, branch, commit_head_id: `bagcommit${t}`, commit_t: t, index_head_id: null, index_t: 0,
    default_context: null, config_id: null, retracted: false, ...extra,
  };
};

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let out = '';
  const dec = new TextDecoder();
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) out += dec.decode(chunk, { stream: true });
  return out;
}

async function readSome(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value } = await reader.read();
  return new TextDecoder().decode(value);
}

const ids = (text: string) => [...text.matchAll(/^id: (.*)$/gm)].map((m) => m[1]);

describe('EventsHub', () => {
  it('sends the sorted snapshot, then live changes, then ns-retracted once per drop', async () => {
    const ns = new MemoryNameService();
    await ns.compareAndSet('b:main', null, rec('b:main', 0));
    await ns.compareAndSet('a:main', null, rec('a:main', 3));
    await ns.compareAndSet('old:main', null, rec('old:main', 1, { retracted: true }));
    const hub = new EventsHub(ns, { keepAliveMs: 60_000 });
    const stream = await hub.subscribe({ all: true, ledgers: new Set(), graphSources: new Set() });
    const reader = stream.getReader();
    expect(ids(await readSome(reader))).toEqual(['ledger:a:main:3:0', 'ledger:b:main:0:0']);
    await ns.compareAndSet('b:main', rec('b:main', 0), rec('b:main', 1));
    expect(ids(await readSome(reader))).toEqual(['ledger:b:main:1:0']);
    await ns.compareAndSet('b:main', rec('b:main', 1), rec('b:main', 1, { retracted: true }));
    await ns.delete('b:main'); // a purge after the soft drop is not announced again
    await ns.compareAndSet('a:main', rec('a:main', 3), rec('a:main', 3, { index_t: 3, index_head_id: 'bagroot' }));
    const text = await readSome(reader);
    expect(ids(text)).toEqual([expect.stringMatching(/^ledger:b:main:retracted:\d+$/), 'ledger:a:main:3:3']);
    hub.close();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(hub.size).toBe(0);
  });

  it('sends a large snapshot in chunks as the reader asks, sorted and complete', async () => {
    const ns = new MemoryNameService();
    const names = Array.from({ length: 1500 }, (_, i) => `l${String(1499 - i).padStart(4, '0')}:main`);
    for (const id of names) await ns.compareAndSet(id, null, rec(id, 0));
    const hub = new EventsHub(ns, { keepAliveMs: 60_000 });
    const reader = (await hub.subscribe({ all: true, ledgers: new Set(), graphSources: new Set() })).getReader();
    const first = await readSome(reader);
    expect(first.length).toBeLessThan(70 * 1024); // one chunk of about 64 KiB, not the whole snapshot
    let text = first;
    while (ids(text).length < names.length) text += await readSome(reader);
    expect(ids(text)).toEqual([...names].sort().map((id) => `ledger:${id}:0:0`));
    hub.close();
  });

  it('filters by ledger id', async () => {
    const ns = new MemoryNameService();
    const hub = new EventsHub(ns, { keepAliveMs: 60_000 });
    const stream = await hub.subscribe({ all: false, ledgers: new Set(['x:main']), graphSources: new Set() });
    await ns.compareAndSet('y:main', null, rec('y:main', 0));
    await ns.compareAndSet('x:main', null, rec('x:main', 0));
    hub.close();
    expect(ids(await readAll(stream))).toEqual(['ledger:x:main:0:0']);
  });

  it('cuts off a subscriber that does not read: its queue never passes the bound', async () => {
    const ns = new MemoryNameService();
    await ns.compareAndSet('a:main', null, rec('a:main', 0));
    const hub = new EventsHub(ns, { keepAliveMs: 60_000, maxQueueBytes: 4096 });
    const slow = await hub.subscribe({ all: true, ledgers: new Set(), graphSources: new Set() });
    const fast = await hub.subscribe({ all: true, ledgers: new Set(), graphSources: new Set() });
    const fastReader = fast.getReader();
    let fastText = '';
    for (let t = 1; t <= 200; t++) {
      await ns.compareAndSet('a:main', rec('a:main', t - 1), rec('a:main', t));
      fastText += await readSome(fastReader); // a reader that keeps up gets every event
    }
    expect(ids(fastText)).toHaveLength(201);
    // The slow one was dropped from the feed once ~4 KiB were pending; it learns why and must reconnect.
    expect(hub.size).toBe(1);
    const slowText = await readAll(slow);
    expect(slowText).toBe(OVERFLOW_COMMENT);
    expect(hub.size).toBe(1);
    hub.close();
  });

  it('sends keep-alive comments on its interval', async () => {
    const ns = new MemoryNameService();
    const hub = new EventsHub(ns, { keepAliveMs: 20 });
    const stream = await hub.subscribe({ all: false, ledgers: new Set(), graphSources: new Set(['g:main']) });
    const reader = stream.getReader();
    expect(await readSome(reader)).toMatch(/^(: keep-alive\n\n)+$/);
    hub.close();
  });
});
