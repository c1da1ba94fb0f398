import { describe, expect, it } from 'vitest';
import type { CID } from 'multiformats/cid';
import { cidOf, Codec } from '../core/commit/cid.js';
import { LedgraphError } from '../core/errors.js';
import { MemoryContentStore } from '../storage/memory-store.js';
import { DirectReader, type DirectStore } from './direct-reader.js';
import { ProxyClient, type VendedCredentials } from './proxy-client.js';
import { ProxyContentStore } from './proxy-store.js';

const enc = new TextEncoder();
const API = 'http://tx.test/v1/ledgraph';

/** A fake transaction server: credentials (or 404 while `vend` is false) and proxied objects. */
function fakeServer(objects: Map<string, Uint8Array>, state: { vend: boolean; expiresInMs: number; seen: string[]; issued: number }): typeof fetch {
  return (async (input: RequestInfo | URL) => {
    const url = new URL(String(input));
    state.seen.push(url.pathname.replace('/v1/ledgraph', ''));
    if (url.pathname.endsWith('/storage/credentials')) {
      if (!state.vend) return new Response('{"error":"no","status":404,"@type":"err:db/LedgerNotFound"}', { status: 404 });
      state.issued++;
      const creds: VendedCredentials = {
        access_key_id: `AK${state.issued}`, secret_access_key: 's', session_token: `tok${state.issued}`,
        expiration: new Date(Date.now() + state.expiresInMs).toISOString(), bucket: 'b', prefix: 'p/', region: 'us-east-1',
      };
      return Response.json(creds);
    }
    const bytes = objects.get(url.pathname.split('/').pop()!);
    return bytes ? new Response(bytes.slice(), { status: 200 }) : new Response('{}', { status: 404 });
  }) as typeof fetch;
}

/** A bucket holding some of the objects; `deny` makes every read fail with 403 (revoked credentials). */
function bucket(held: MemoryContentStore, opened: VendedCredentials[], deny: { on: boolean }) {
  return (creds: VendedCredentials): DirectStore => {
    opened.push(creds);
    return {
      get: (cid: CID) => deny.on ? Promise.reject(new LedgraphError(502, 'err:db/BadGateway', 'AccessDenied')) : held.get(cid),
      close: async () => {},
    };
  };
}

describe('DirectReader', () => {
  it('reads from the bucket first; an object missing there (404) comes through the proxy', async () => {
    const a = enc.encode('{"a":1}');
    const b = enc.encode('{"b":2}');
    const [ca, cb] = [await cidOf(Codec.txn, a), await cidOf(Codec.txn, b)];
    const held = new MemoryContentStore();
    await held.putWithCid(ca, a); // b is not in the bucket
    const state = { vend: true, expiresInMs: 900_000, seen: [] as string[], issued: 0 };
    const client = new ProxyClient({ api: API, token: 't', fetch: fakeServer(new Map([[ca.toString(), a], [cb.toString(), b]]), state) });
    const opened: VendedCredentials[] = [];
    const direct = new DirectReader(client, bucket(held, opened, { on: false }));
    const store = new ProxyContentStore(new MemoryContentStore(), client, () => ['hr:main'], direct);
    expect(await store.get(ca)).toEqual(a);
    expect(await store.get(cb)).toEqual(b);
    expect(state.seen).toEqual(['/storage/credentials', `/storage/objects/${cb}`]);
    expect(direct.stats).toEqual({ objects: 1, bytes: a.length, fallbacks: 1, credentials: 1 });
    expect(client.stats.objects).toBe(1);
    expect(opened.map((c) => c.access_key_id)).toEqual(['AK1']);
  });

  it('without vended credentials (404) everything goes through the proxy, asking again only after a while', async () => {
    const a = enc.encode('{"a":1}');
    const ca = await cidOf(Codec.txn, a);
    const state = { vend: false, expiresInMs: 900_000, seen: [] as string[], issued: 0 };
    const client = new ProxyClient({ api: API, token: 't', fetch: fakeServer(new Map([[ca.toString(), a]]), state) });
    let now = 1_000_000;
    const direct = new DirectReader(client, bucket(new MemoryContentStore(), [], { on: false }), () => now);
    expect(await direct.read(ca, 'hr:main')).toBeNull();
    expect(await direct.read(ca, 'hr:main')).toBeNull();
    expect(state.seen).toEqual(['/storage/credentials']); // the 404 is believed for a minute
    now += 61_000;
    state.vend = true;
    expect(await direct.read(ca, 'hr:main')).toBeNull(); // vended now, but the bucket lacks it
    expect(state.seen).toEqual(['/storage/credentials', '/storage/credentials']);
    expect(direct.stats).toMatchObject({ objects: 0, fallbacks: 3, credentials: 1 });
  });

  it('renews credentials before they expire, and once when the bucket refuses them', async () => {
    const a = enc.encode('{"a":1}');
    const ca = await cidOf(Codec.txn, a);
    const held = new MemoryContentStore();
    await held.putWithCid(ca, a);
    const state = { vend: true, expiresInMs: 30_000, seen: [] as string[], issued: 0 }; // inside the renewal margin
    const client = new ProxyClient({ api: API, token: 't', fetch: fakeServer(new Map(), state) });
    const opened: VendedCredentials[] = [];
    const deny = { on: false };
    const direct = new DirectReader(client, bucket(held, opened, deny));
    expect(await direct.read(ca, 'hr:main')).toEqual(a);
    expect(await direct.read(ca, 'hr:main')).toEqual(a);
    expect(opened.map((c) => c.access_key_id)).toEqual(['AK1', 'AK2']); // the first set was about to expire
    state.expiresInMs = 900_000;
    deny.on = true;
    expect(await direct.read(ca, 'hr:main')).toBeNull(); // refused, renewed, refused again: the proxy serves
    expect(opened.map((c) => c.access_key_id)).toEqual(['AK1', 'AK2', 'AK3', 'AK4']);
    deny.on = false;
    expect(await direct.read(ca, 'hr:main')).toEqual(a);
    expect(opened).toHaveLength(4);
    expect(direct.stats).toMatchObject({ objects: 3, fallbacks: 1, credentials: 4 });
  });
});
