import { describe, expect, it } from 'vitest';
import { cidOf, Codec } from '../core/commit/cid.js';
import { LedgraphError } from '../core/errors.js';
import { MemoryContentStore } from '../storage/memory-store.js';
import { ProxyClient } from './proxy-client.js';
import { ProxyContentStore } from './proxy-store.js';

const enc = new TextEncoder();

/** A fake storage proxy serving `objects` by CID string; `tamper` flips one byte of what it sends. */
function fakeProxy(objects: Map<string, Uint8Array>, opts: { tamper?: boolean; seen?: string[] } = {}): typeof fetch {
  return (async (input: RequestInfo | URL) => {
    const url = new URL(String(input));
    opts.seen?.push(url.pathname + url.search);
    const cid = url.pathname.split('/').pop()!;
    const bytes = objects.get(cid);
    if (!bytes || url.searchParams.get('ledger') !== 'hr:main') return new Response(JSON.stringify({ error: 'not found', status: 404, '@type': 'err:db/LedgerNotFound' }), { status: 404 });
    const out = bytes.slice();
    if (opts.tamper) out[0] = out[0]! ^ 0xff;
    return new Response(out, { status: 200 });
  }) as typeof fetch;
}

describe('ProxyContentStore', () => {
  it('fetches through the proxy once, verifies, and caches locally', async () => {
    const blob = enc.encode('{"type":"application/json","body":{},"identity":null,"jws":null}');
    const cid = await cidOf(Codec.txn, blob);
    const seen: string[] = [];
    const local = new MemoryContentStore();
    const client = new ProxyClient({ api: 'http://tx.test/v1/ledgraph', token: 't', fetch: fakeProxy(new Map([[cid.toString(), blob]]), { seen }) });
    const store = new ProxyContentStore(local, client, () => ['other:main', 'hr:main']);
    expect(await store.get(cid)).toEqual(blob);
    await store.idle(); // the cache write finishes after the bytes were handed out
    expect(await store.get(cid)).toEqual(blob);
    // Unknown owner: tried against each followed ledger, then remembered; the second read is local.
    expect(seen).toEqual([`/v1/ledgraph/storage/objects/${cid}?ledger=other%3Amain`, `/v1/ledgraph/storage/objects/${cid}?ledger=hr%3Amain`]);
    expect(await local.has(cid)).toBe(true);
    expect(client.stats).toMatchObject({ objects: 1, bytes: blob.length, byKind: { txn: 1 }, bytesByKind: { txn: blob.length } });
  });

  it('a tampered object fails that read with a clear 502 and is never cached', async () => {
    const blob = enc.encode('{"type":"text/turtle","body":"","identity":null,"jws":null}');
    const cid = await cidOf(Codec.txn, blob);
    const local = new MemoryContentStore();
    const client = new ProxyClient({ api: 'http://tx.test/v1/ledgraph', fetch: fakeProxy(new Map([[cid.toString(), blob]]), { tamper: true }) });
    const store = new ProxyContentStore(local, client, () => ['hr:main']);
    const err = await store.get(cid).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(LedgraphError);
    expect((err as LedgraphError).status).toBe(502);
    expect((err as LedgraphError).type).toBe('err:db/BadGateway');
    expect((err as LedgraphError).message).toBe(`object ${cid} (txn) from the transaction server does not match its CID: tampered or corrupted; it was not used or cached`);
    expect(await local.has(cid)).toBe(false);
    expect(client.stats.objects).toBe(0);
  });

  it('is read-only', async () => {
    const store = new ProxyContentStore(new MemoryContentStore(), new ProxyClient({ api: 'http://tx.test' }), () => []);
    await expect(store.put(Codec.txn, enc.encode('x'))).rejects.toMatchObject({ status: 403 });
  });
});
