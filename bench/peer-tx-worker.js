#!/usr/bin/env node
/**
 * The transaction server of the peer bench (bench/peer.js), in its own process: file storage in a
 * temp dir, the storage proxy on (trusting the bench's key), the BSBM file bulk-loaded (indexed)
 * into `bsbm`. IPC: → {type: 'ready', url, dir, subjects, triples, storageBytes}; ← {type: 'stop'}.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_DIR, dirSize, labelledSubjects, log, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const dist = (p) => import(join(ROOT_DIR, 'dist', p));
const { startLedgraphServer } = await dist('server/main.js');
const { defaultServerConfig } = await dist('server/config.js');
const { silentLogger } = await dist('server/log.js');

const dir = await mkdtemp(join(tmpdir(), 'lg-peer-bench-tx-'));
const config = {
  ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: dir,
  storageProxyEnabled: true, storageProxyTrustedIssuers: [String(args.did)], eventsKeepAliveMs: 5000, corsEnabled: true,
};
const server = await startLedgraphServer(config, { version: 'bench', log: silentLogger });
const conn = server.state.conn;
const t0 = performance.now();
await conn.create('bsbm');
const r = await conn.bulkLoad('bsbm:main', createReadStream(String(args.data)));
log(`peer-tx-worker: loaded ${args.data} (${r.triples} triples) in ${Math.round(performance.now() - t0)} ms`);
await conn.create('writes');
const subjects = await labelledSubjects(String(args.data), 2000);
process.send({ type: 'ready', url: server.url, dir, subjects, triples: r.triples, storageBytes: dirSize(join(dir, 'objects')) });
process.on('message', async (m) => {
  if (m.type === 'stop') {
    await server.close(1000);
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  }
});
