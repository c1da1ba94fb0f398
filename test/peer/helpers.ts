/** Transaction servers that can restart on their port, Node peers, and a cuttable /events relay (not a test file). */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultServerConfig, type ServerConfig } from '../../src/server/config.js';
import { silentLogger } from '../../src/server/log.js';
import { startLedgraphServer, type LedgraphServer } from '../../src/server/main.js';
import { expect } from 'vitest';
import { DID_A, signerA, token } from '../auth/helpers.js';

export const CTX = { ex: 'http://example.org/' };

/** A storage token for every ledger (what a peer in proxy mode presents). */
export async function storageToken(): Promise<string> {
  return token(await signerA(), { 'ledgraph.storage.all': true });
}

/** A running Ledgraph server (transaction or peer) over a directory it does not own. */
export interface Node {
  url: string;
  api: string;
  server: LedgraphServer;
  config: ServerConfig;
  close(): Promise<void>;
}

/** Start a server on 127.0.0.1 (port 0 unless given) over `dir`. */
export async function startNode(dir: string, over: Partial<ServerConfig>): Promise<Node> {
  const config: ServerConfig = { ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: dir, ...over };
  const server = await startLedgraphServer(config, { version: 'test', log: silentLogger });
  return { url: server.url, api: server.url + config.apiBaseUrl, server, config, close: () => server.close(1000) };
}

/** A transaction server with the storage proxy on (trusting DID_A) and fast keep-alives. */
export function startTx(dir: string, port = 0): Promise<Node> {
  return startNode(dir, { port, storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A], eventsKeepAliveMs: 1000 });
}

/** A peer of `txUrl`: shared storage on `dir`, or proxy mode into `dir` with a storage token. */
export async function startPeer(dir: string, txUrl: string, opts: { proxy: boolean; ledgers?: string[]; eventsUrl?: string }): Promise<Node> {
  return startNode(dir, {
    role: 'peer', txServerUrl: txUrl, peerLedgers: opts.ledgers ?? [], peerEventsUrl: opts.eventsUrl ?? null,
    storageProxyToken: opts.proxy ? await storageToken() : null,
  });
}

/** A fresh temp directory and its remover. */
export async function tempDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ledgraph-peer-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * An SSE relay in front of a transaction server's /events: `cut()` ends every open stream (an
 * SSE drop), `block(true)` answers 503 to new connections until `block(false)`.
 */
export interface EventsRelay { url: string; connects: number; cut(): void; block(on: boolean): void; close(): Promise<void> }

export async function startEventsRelay(txApi: string): Promise<EventsRelay> {
  const open = new Set<ServerResponse>();
  let blocked = false;
  let connects = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (blocked) { res.writeHead(503).end(); return; }
    const q = req.url!.slice(req.url!.indexOf('?'));
    const ctl = new AbortController();
    fetch(`${txApi}/events${q}`, { headers: { Accept: 'text/event-stream' }, signal: ctl.signal }).then(async (up) => {
      connects++;
      res.writeHead(up.status, { 'Content-Type': up.headers.get('content-type') ?? 'text/plain' });
      open.add(res);
      res.on('close', () => { open.delete(res); ctl.abort(); });
      for await (const chunk of up.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    }).catch(() => { res.destroy(); });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/events`,
    get connects() { return connects; },
    cut() { for (const r of open) r.destroy(); },
    block(on) { blocked = on; },
    close: () => new Promise<void>((ok) => { for (const r of open) r.destroy(); server.close(() => ok()); server.closeAllConnections(); }),
  };
}

/** Poll `check` until it returns true (or fail after `ms`). */
export async function until(check: () => Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `t` of a ledger as a server's /info reports it (-1 when it does not answer 200). */
export async function infoT(api: string, ledger: string): Promise<number> {
  const r = await fetch(`${api}/info/${ledger}`);
  if (r.status !== 200) { await r.body?.cancel(); return -1; }
  return ((await r.json()) as { t: number }).t;
}

/** Every `ex:name` value of ledger `from` through a server's `/query`, sorted (`Ledgraph-Min-T` when given). */
export async function names(api: string, from: string, minT?: number): Promise<string[]> {
  const r = await fetch(`${api}/query`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', ...(minT ? { 'Ledgraph-Min-T': String(minT) } : {}) },
    body: JSON.stringify({ '@context': CTX, select: '?n', where: { '@id': '?s', 'ex:name': '?n' }, from }),
  });
  expect(r.status, await r.clone().text()).toBe(200);
  return ((await r.json()) as string[]).sort();
}
