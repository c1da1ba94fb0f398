/**
 * The Node peer role over real HTTP (replication.md §14, issue 12): a transaction server and a
 * `--role peer` server on loopback, in shared-storage and in proxy mode. Writes sent to the peer
 * land on the server and become visible on the peer; reads are answered locally; /show, /log and
 * admin calls are forwarded (/show is 501 in proxy mode); /events is 404 on a peer; the peer
 * survives an SSE drop and a server restart and converges with no lost commits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CTX, infoT, startEventsRelay, startPeer, startTx, tempDir, until, type EventsRelay, type Node } from './helpers.js';
import type { Peer } from '../../src/peer/open-peer.js';

const SELECT = 'SELECT ?s ?name WHERE { ?s <http://example.org/name> ?name } ORDER BY ?s ?name';

async function sparql(api: string, ref: string, headers: Record<string, string> = {}): Promise<unknown> {
  const r = await fetch(`${api}/query/${ref}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json', ...headers }, body: SELECT });
  expect(r.status, await r.clone().text()).toBe(200);
  return ((await r.json()) as { results: { bindings: unknown[] } }).results.bindings;
}

async function insert(api: string, ledger: string, id: string, name: string, headers: Record<string, string> = {}): Promise<number> {
  const r = await fetch(`${api}/insert/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ '@context': CTX, '@id': `ex:${id}`, 'ex:name': name }) });
  expect(r.status, await r.clone().text()).toBe(200);
  return ((await r.json()) as { t: number }).t;
}

async function logOf(api: string, ledger: string): Promise<unknown> {
  const r = await fetch(`${api}/log/${ledger}?limit=5000`);
  expect(r.status, await r.clone().text()).toBe(200);
  return r.json();
}

const peerOf = (n: Node) => (n.server.state as unknown as { peer: Peer }).peer;

for (const proxy of [false, true]) {
  describe(`Node peer, ${proxy ? 'proxy' : 'shared storage'} mode`, () => {
    let txDir: Awaited<ReturnType<typeof tempDir>>;
    let peerDir: Awaited<ReturnType<typeof tempDir>>;
    let tx: Node;
    let peer: Node;
    const L = 'people';

    beforeAll(async () => {
      txDir = await tempDir();
      peerDir = await tempDir();
      tx = await startTx(txDir.dir);
      peer = await startPeer(proxy ? peerDir.dir : txDir.dir, tx.url, { proxy, ledgers: [L] });
    });
    afterAll(async () => {
      await peer?.close();
      await tx?.close();
      await txDir.remove();
      await peerDir.remove();
    });

    it('forwards create and writes to the transaction server; the peer then answers them locally', async () => {
      const c = await fetch(`${peer.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Request-ID': 'peer-create-1' }, body: JSON.stringify({ ledger: L }) });
      expect(c.status).toBe(201);
      expect(c.headers.get('x-request-id')).toBe('peer-create-1');
      const t1 = await insert(peer.api, L, 'alice', 'Alice');
      expect(t1).toBe(1);
      // It landed on the server...
      expect(await sparql(tx.api, L)).toEqual([{ s: { type: 'uri', value: 'http://example.org/alice' }, name: { type: 'literal', value: 'Alice' } }]);
      // ...and a read-after-write on the peer sees it (Ledgraph-Min-T forces the refresh).
      expect(await sparql(peer.api, L, { 'Ledgraph-Min-T': String(t1) })).toEqual(await sparql(tx.api, L));
      // A write made on the server directly reaches the peer by itself.
      expect(peerOf(peer).mode).toBe(proxy ? 'proxy' : 'shared');
      const f = peerOf(peer).follower;
      const walked = f.counters.catchUps;
      const t2 = await insert(tx.api, L, 'bob', 'Bob');
      // The follower applies the new commit by itself (a first-parent walk of one commit).
      await until(async () => (await peerOf(peer).conn.loadedLedger(L))?.t === t2 && f.counters.catchUps > walked, 10_000, 'the peer to reach t 2');
      if (proxy) expect(peerOf(peer).client!.stats.byKind.commit).toBeGreaterThanOrEqual(3);
      expect(await sparql(peer.api, L)).toEqual(await sparql(tx.api, L));
      expect(await sparql(peer.api, `${L}@t:1`)).toEqual([{ s: { type: 'uri', value: 'http://example.org/alice' }, name: { type: 'literal', value: 'Alice' } }]);
    });

    it('forwards /log (and /show in shared mode; 501 in proxy mode); /events is 404', async () => {
      expect(await logOf(peer.api, L)).toEqual(await logOf(tx.api, L));
      const show = await fetch(`${peer.api}/show/${L}?commit=t:1`);
      if (proxy) {
        expect(show.status).toBe(501);
        expect(((await show.json()) as Record<string, unknown>)['@type']).toBe('err:db/NotImplemented');
      } else {
        expect(show.status).toBe(200);
        expect(await show.json()).toEqual(await (await fetch(`${tx.api}/show/${L}?commit=t:1`)).json());
      }
      const ev = await fetch(`${peer.api}/events?all=true`);
      expect(ev.status).toBe(404);
      await ev.body?.cancel();
      const unknown = await fetch(`${peer.api}/insert/nope`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ '@context': CTX, '@id': 'ex:x', 'ex:name': 'X' }) });
      expect(unknown.status).toBe(404); // the server's answer, passed through
    });

    it('serves /ledgers, /exists, /info and /data GET locally; data PUT is forwarded', async () => {
      const ledgers = (await (await fetch(`${peer.api}/ledgers`)).json()) as { ledger: string; t: number }[];
      expect(ledgers.find((l) => l.ledger === `${L}:main`)?.t).toBe(2);
      expect((await fetch(`${peer.api}/exists/${L}`)).status).toBe(200);
      const put = await fetch(`${peer.api}/data/${L}?graph=http://example.org/g1`, { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body: '<http://example.org/carol> <http://example.org/name> "Carol" .' });
      expect(put.status, await put.clone().text()).toBeLessThan(300);
      await until(async () => (await infoT(peer.api, L)) === 3, 10_000, 'the peer to reach t 3');
      const get = await fetch(`${peer.api}/data/${L}?graph=http://example.org/g1`, { headers: { Accept: 'application/n-triples' } });
      expect(get.status).toBe(200);
      expect((await get.text()).trim()).toBe('<http://example.org/carol> <http://example.org/name> "Carol" .');
    });

    it('forwards SPARQL updates sent to /sparql (direct and as a form) and answers /sparql queries itself', async () => {
      const direct = await fetch(`${peer.api}/sparql/${L}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-update' },
        body: 'INSERT DATA { <http://example.org/erin> <http://example.org/name> "Erin" }' });
      expect(direct.status, await direct.clone().text()).toBe(200);
      const form = await fetch(`${peer.api}/sparql/${L}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ update: 'DELETE DATA { <http://example.org/erin> <http://example.org/name> "Erin" }' }).toString() });
      expect(form.status, await form.clone().text()).toBe(200);
      expect(await infoT(tx.api, L)).toBe(5); // both landed on the server
      const q = await fetch(`${peer.api}/sparql/${L}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/sparql-results+json', 'Ledgraph-Min-T': '5' },
        body: new URLSearchParams({ query: SELECT }).toString() });
      expect(q.status, await q.clone().text()).toBe(200);
      expect(((await q.json()) as { results: { bindings: unknown[] } }).results.bindings).toEqual(await sparql(tx.api, L));
    });

    it('follows an index publish: switches to the new root (or reloads) with the same answers', async () => {
      const f = peerOf(peer).follower;
      const before = f.counters.indexSwitches + f.counters.reloads;
      const r = await fetch(`${peer.api}/reindex`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: L }) });
      expect(r.status, await r.clone().text()).toBe(200);
      const { index_t: indexT } = (await r.json()) as { index_t: number };
      expect(indexT).toBe(5);
      await until(async () => (await peerOf(peer).conn.loadedLedger(L))?.tree?.t === indexT, 10_000, 'the peer to use the new index');
      expect(f.counters.indexSwitches + f.counters.reloads).toBe(before + 1);
      for (const t of [1, 2, 3]) expect(await sparql(peer.api, `${L}@t:${t}`)).toEqual(await sparql(tx.api, `${L}@t:${t}`));
    });

    it('a ledger asked for before it exists becomes visible once the server creates it', async () => {
      const later = `later${proxy ? 'p' : 's'}`;
      expect(await infoT(peer.api, later)).toBe(-1);
      expect((await fetch(`${tx.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: later }) })).status).toBe(201);
      await until(async () => (await infoT(peer.api, later)) === 0, 10_000, 'the peer to see the ledger created after it was asked for');
    });

    it('a ledger dropped on the server disappears from the peer', async () => {
      const other = `gone${proxy ? 'p' : 's'}`;
      expect((await fetch(`${peer.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: other }) })).status).toBe(201);
      await until(async () => (await fetch(`${peer.api}/exists/${other}`)).status === 200, 10_000, 'the peer to see the new ledger');
      expect(await infoT(peer.api, other)).toBe(0);
      const d = await fetch(`${peer.api}/drop`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: other }) });
      expect(d.status, await d.clone().text()).toBe(200);
      await until(async () => (await infoT(peer.api, other)) === -1, 10_000, 'the peer to drop the ledger');
      const info = await fetch(`${peer.api}/info/${other}`);
      expect(info.status).toBe(404);
      expect(((await info.json()) as Record<string, unknown>)['@type']).toBe('err:db/LedgerNotFound');
    });

    it('survives an SSE drop: commits made while disconnected arrive after the reconnect, none lost', async () => {
      // A second peer that follows the events through a relay we can cut.
      const relay: EventsRelay = await startEventsRelay(tx.api);
      const dir2 = await tempDir();
      const p2 = await startPeer(proxy ? dir2.dir : txDir.dir, tx.url, { proxy, ledgers: [L], eventsUrl: relay.url });
      try {
        await until(async () => (await infoT(p2.api, L)) === 5, 10_000, 'the second peer to load');
        await until(async () => peerOf(p2).follower.connected, 10_000, 'the second peer to subscribe');
        const f = peerOf(p2).follower;
        const before = { ...f.counters };
        relay.block(true);
        relay.cut();
        for (let i = 0; i < 7; i++) await insert(tx.api, L, `p${i}`, `Person ${i}`);
        // With the stream down, Ledgraph-Min-T still gets the new state: the peer reads the record first.
        const atMinT = await sparql(p2.api, L, { 'Ledgraph-Min-T': '12' });
        expect(atMinT).toEqual(await sparql(tx.api, L));
        expect(peerOf(p2).follower.counters.connects).toBe(before.connects);
        relay.block(false);
        await until(async () => peerOf(p2).follower.counters.connects > before.connects, 15_000, 'the reconnect');
        await until(async () => (await peerOf(p2).conn.loadedLedger(L))?.t === 12, 10_000, 'the second peer to reach t 12');
        // The Min-T read caught up with one pack (proxy mode: 7 commits behind, above the walk limit).
        if (proxy) expect(f.counters.packCatchUps).toBe(before.packCatchUps + 1);
        expect(await logOf(p2.api, L)).toEqual(await logOf(tx.api, L));
        for (const t of [1, 3, 5, 12]) expect(await sparql(p2.api, `${L}@t:${t}`)).toEqual(await sparql(tx.api, `${L}@t:${t}`));
      } finally {
        await p2.close();
        await relay.close();
        await dir2.remove();
      }
    });

    it('survives a transaction server restart and converges with no lost commits', async () => {
      const port = tx.server.port;
      await tx.close();
      // Reads go on locally while the server is down.
      expect(await sparql(peer.api, L)).toEqual(expect.arrayContaining([{ s: { type: 'uri', value: 'http://example.org/alice' }, name: { type: 'literal', value: 'Alice' } }]));
      const down = await fetch(`${peer.api}/insert/${L}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ '@context': CTX, '@id': 'ex:z', 'ex:name': 'Z' }) });
      expect(down.status).toBe(502);
      tx = await startTx(txDir.dir, port);
      const t = await insert(tx.api, L, 'dave', 'Dave');
      expect(t).toBe(13);
      await until(async () => (await peerOf(peer).conn.loadedLedger(L))?.t === 13, 20_000, 'the peer to reach t 13 after the restart');
      expect(await sparql(peer.api, L)).toEqual(await sparql(tx.api, L));
      expect(await logOf(peer.api, L)).toEqual(await logOf(tx.api, L));
    });
  });
}
