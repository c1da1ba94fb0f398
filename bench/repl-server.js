#!/usr/bin/env node
/**
 * One server of the replication bench (bench/replication.js forks two of these): a real Ledgraph
 * server from ../dist on a loopback port over file storage in `--storage`, with the storage proxy on
 * and `--issuer` trusted for storage tokens. With `--data` it bulk-loads that N-Triples file as the
 * ledger `bsbm` and waits for indexing before it reports ready. It measures its own memory: a 10 ms
 * RSS sampler plus the kernel's VmHWM (reset through /proc/self/clear_refs), so the parent learns the
 * peak RSS of a phase even when the event loop was busy.
 *
 * IPC: → {type: 'ready', url, api, loadMs, t} once listening;
 *      ← {type: 'mark'} → full GCs, peak reset; {type: 'mark', rss};
 *      ← {type: 'peak'} → {type: 'peak', peak, rss} (bytes, since the last mark);
 *      ← {type: 'commits', ledger, n, from?} → n single-fact commits (items from..from+n-1), one after another; {type: 'commits', t, ms};
 *      ← {type: 'info', ledger} → {type: 'info', t, commitId, indexT};
 *      ← {type: 'open', ledger} → the ledger loaded into memory; {type: 'open', ms};
 *      ← {type: 'cpu'} → {type: 'cpu', user, system} (process.cpuUsage(), µs);
 *      ← {type: 'stop'} → close and exit (a --cpu-prof profile is written on exit).
 */
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_DIR, log, parseArgs, procStatus } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const { startLedgraphServer } = await import(join(ROOT_DIR, 'dist/server/main.js'));
const { defaultServerConfig } = await import(join(ROOT_DIR, 'dist/server/config.js'));
const { silentLogger } = await import(join(ROOT_DIR, 'dist/server/log.js'));
const terms = await import(join(ROOT_DIR, 'dist/core/rdf/terms.js'));

const config = {
  ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: String(args.storage), memory: false,
  storageProxyEnabled: true, storageProxyTrustedIssuers: [String(args.issuer)],
};
const server = await startLedgraphServer(config, { version: 'bench', log: silentLogger });
const conn = server.state.conn;

let loadMs = 0;
if (args.data) {
  const t0 = performance.now();
  await conn.create('bsbm');
  const r = await conn.bulkLoad('bsbm:main', createReadStream(String(args.data)));
  await conn.idle();
  loadMs = performance.now() - t0;
  log(`repl-server: loaded ${r.triples} triples in ${Math.round(loadMs)} ms`);
}

let peak = 0;
const sampler = setInterval(() => { const r = process.memoryUsage.rss(); if (r > peak) peak = r; }, 10);
sampler.unref();

/** Reset the kernel's peak-RSS counter (VmHWM) of this process; false where not allowed. */
function resetHwm() {
  try { writeFileSync('/proc/self/clear_refs', '5'); return true; } catch { return false; }
}

const tick = () => new Promise((r) => setTimeout(r, 20));
const EX = 'http://example.org/bench/';

process.on('message', async (msg) => {
  if (msg.type === 'mark') {
    for (let i = 0; i < 4; i++) { global.gc?.(); await tick(); }
    resetHwm();
    peak = process.memoryUsage.rss();
    process.send({ type: 'mark', rss: peak });
  } else if (msg.type === 'peak') {
    const rss = process.memoryUsage.rss();
    const hwm = procStatus().vmHwm ?? 0;
    process.send({ type: 'peak', peak: Math.max(peak, rss, hwm), rss });
  } else if (msg.type === 'commits') {
    const t0 = performance.now();
    let t = 0;
    for (let i = msg.from ?? 0; i < (msg.from ?? 0) + msg.n; i++) {
      const quads = [{ subject: terms.namedNode(`${EX}item/${i}`), predicate: terms.namedNode(`${EX}seq`), object: terms.literal(String(i), terms.namedNode('http://www.w3.org/2001/XMLSchema#integer')), graph: terms.defaultGraph }];
      t = (await conn.transact(msg.ledger, { kind: 'insert', quads, meta: [], opts: {} })).t;
    }
    await conn.idle();
    process.send({ type: 'commits', t, ms: performance.now() - t0 });
  } else if (msg.type === 'cpu') {
    process.send({ type: 'cpu', ...process.cpuUsage() });
  } else if (msg.type === 'open') {
    const t0 = performance.now();
    await conn.ledger(msg.ledger);
    process.send({ type: 'open', ms: performance.now() - t0 });
  } else if (msg.type === 'info') {
    const r = await conn.ns.get(msg.ledger);
    process.send({ type: 'info', t: r?.commit_t ?? null, commitId: r?.commit_head_id ?? null, indexT: r?.index_t ?? null });
  } else if (msg.type === 'stop') {
    await server.close(1000);
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));

process.send({ type: 'ready', url: server.url, api: `${server.url}/v1/ledgraph`, loadMs });
