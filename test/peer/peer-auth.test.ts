/**
 * A peer configured the way `ledgraph server` is started — `--role peer --tx-server-url URL
 * --peer-ledger hr --peer-events-token @file --storage-proxy-token-file file` — against a
 * transaction server that requires events tokens: it subscribes with its token and follows; with
 * a token the server refuses, it keeps retrying (backoff) and serves nothing new.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServerArgs } from '../../src/server/config.js';
import { silentLogger } from '../../src/server/log.js';
import { startLedgraphServer, type LedgraphServer } from '../../src/server/main.js';
import type { Peer } from '../../src/peer/open-peer.js';
import { DID_A, signerA, signerB, token } from '../auth/helpers.js';
import { CTX, infoT, startNode, storageToken, tempDir, until, type Node } from './helpers.js';

describe('peer with events auth, configured from flags', () => {
  let dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
  let tx: Node;
  let peer: LedgraphServer;

  beforeAll(async () => {
    dirs = [await tempDir(), await tempDir()];
    tx = await startNode(dirs[0]!.dir, {
      storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A],
      eventsAuthMode: 'required', eventsAuthTrustedIssuers: [DID_A], eventsAuthAudience: 'peers',
    });
    await writeFile(join(dirs[1]!.dir, 'events.jwt'), await token(await signerA(), { aud: 'peers', 'ledgraph.events.ledgers': ['hr'] }) + '\n');
    await writeFile(join(dirs[1]!.dir, 'storage.jwt'), await storageToken());
    const args = parseServerArgs([
      '--role', 'peer', '--tx-server-url', tx.url, '--listen-addr', '127.0.0.1:0', '--storage-path', join(dirs[1]!.dir, 'cache'),
      '--peer-ledger', 'hr', '--peer-events-token', '@' + join(dirs[1]!.dir, 'events.jwt'),
      '--storage-proxy-token-file', join(dirs[1]!.dir, 'storage.jwt'),
    ]);
    if (args.kind !== 'run') throw new Error('expected a config');
    expect((await fetch(`${tx.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'hr' }) })).status).toBe(201);
    peer = await startLedgraphServer(args.config, { version: 'test', log: silentLogger });
  });
  afterAll(async () => {
    await peer?.close(1000);
    await tx?.close();
    for (const d of dirs) await d.remove();
  });

  it('subscribes with its events token and follows new commits', async () => {
    const api = peer.url + '/v1/ledgraph';
    const p = (peer.state as unknown as { peer: Peer }).peer;
    expect(p.mode).toBe('proxy');
    await until(async () => p.follower.connected, 10_000, 'the subscription');
    const r = await fetch(`${api}/insert/hr`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ '@context': CTX, '@id': 'ex:a', 'ex:name': 'A' }) });
    expect(r.status, await r.clone().text()).toBe(200);
    await until(async () => (await p.conn.loadedLedger('hr'))?.t === 1, 10_000, 'the peer to reach t 1');
    expect(await infoT(api, 'hr')).toBe(1);
  });

  it('a refused events token leaves the peer retrying, not connected', async () => {
    const dir = await tempDir();
    const bad = await startNode(dir.dir, {
      role: 'peer', txServerUrl: tx.url, peerLedgers: ['hr'], storageProxyToken: await storageToken(),
      peerEventsToken: await token(await signerB(), { aud: 'peers', 'ledgraph.events.all': true }),
    });
    try {
      const p = (bad.server.state as unknown as { peer: Peer }).peer;
      await new Promise((r) => setTimeout(r, 300));
      expect(p.follower.connected).toBe(false);
      expect(p.follower.counters.connects).toBe(0);
    } finally {
      await bad.close();
      await dir.remove();
    }
  });
});
