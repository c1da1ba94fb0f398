#!/usr/bin/env node
/**
 * Query-peer bench (`npm run bench -- peer`, BSBM pc 265 ≈ 100k triples by default): a transaction
 * server in its own process (bench/peer-tx-worker.js) and Node peers in this one, over loopback.
 *
 *   1. replication lag: N single-fact inserts on the server, one after another; lag = from the
 *      server's acknowledgement (the HTTP response) to the peer having applied that commit (its
 *      follower's change event), then confirmed by a query on the peer — p50 / p99 (targets 50 /
 *      250 ms); for a peer in proxy mode and one in shared-storage mode;
 *   2. cold first query: a new proxy-mode peer with an empty cache (against a server that has served
 *      one proxied read already) answers a point query — median of `--cold-reps` (5) such peers
 *      (`SELECT ?label WHERE { <product> rdfs:label ?label }`) — time (target ≤ 300 ms) and the
 *      bytes it fetched, against the ledger's object bytes on the server; the comparison is the same
 *      query on the transaction server itself;
 *   3. warm reopen: a peer restarted on that cache directory answers its first query (target
 *      < 200 ms, the Node analogue of the browser's reopen figure; median over the same reps);
 *   4. in Chromium (bench/peer-browser.js; skipped with --no-browser or without Chromium): the
 *      browser peer's cold open and first query, the BSBM explore queries on IndexedDB against the
 *      same queries on a Node peer over file storage (target within 2×), and the first query after
 *      a reload reopens the cached ledger (target < 200 ms; median of `--reopen-reps` reloads). The
 *      interval runs in the page from calling openLedgerPeer (which starts the Web Worker) to the
 *      first query's answer, so the worker's start (fetching and compiling its code) is inside it.
 *
 * Flags: --data <bsbm.nt> (run.js passes it), --params <file>, --inserts <n> (200), --cold-reps <n>
 * (5), --reopen-reps <n> (browser reloads, 5), --no-browser.
 * Prints one JSON result line.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, ROOT_DIR, emitResult, log, median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const inserts = Number(args.inserts ?? 200);
const coldReps = Math.max(1, Number(args['cold-reps'] ?? 5));
const data = String(args.data ?? join(ROOT_DIR, 'bench/data/bsbm-265.nt'));
const SEED = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const dist = (p) => import(join(ROOT_DIR, 'dist', p));
const { startLedgraphServer } = await dist('server/main.js');
const { defaultServerConfig } = await dist('server/config.js');
const { silentLogger } = await dist('server/log.js');
const { ed25519FromSeed, mintToken, hexBytes } = await dist('server/auth/jws.js');

const signer = await ed25519FromSeed(hexBytes(SEED));
const now = Math.floor(Date.now() / 1000);
const token = await mintToken(signer, { iss: signer.did, iat: now, exp: now + 86400, 'ledgraph.storage.all': true });

const tx = fork(join(BENCH_DIR, 'peer-tx-worker.js'), ['--data', data, '--did', signer.did], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ready = await new Promise((ok, fail) => { tx.once('message', ok); tx.once('exit', (c) => fail(new Error(`peer-tx-worker exited with ${c}`))); });
const api = (url) => `${url}/v1/ledgraph`;
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
const round = (x) => Math.round(x * 100) / 100;
const pointQuery = (s) => `SELECT ?label WHERE { <${s}> <http://www.w3.org/2000/01/rdf-schema#label> ?label }`;

async function query(base, ledger, text, headers = {}) {
  const t0 = performance.now();
  const r = await fetch(`${api(base)}/query/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json', ...headers }, body: text });
  const body = await r.json();
  if (r.status !== 200) throw new Error(`query: ${r.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t0, rows: body.results.bindings.length };
}

const dirs = [];
async function startPeer(opts) {
  const dir = opts.dir ?? await mkdtemp(join(tmpdir(), 'lg-peer-bench-'));
  if (!opts.dir) dirs.push(dir);
  const config = { ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: dir, role: 'peer', txServerUrl: ready.url,
    peerLedgers: opts.ledgers, storageProxyToken: opts.proxy ? token : null };
  const server = await startLedgraphServer(config, { version: 'bench', log: silentLogger });
  return { server, dir, peer: server.state.peer, url: server.url };
}

/** Lag of `inserts` commits on the `writes` ledger as seen by `p`. */
async function lag(p) {
  await p.server.state.conn.ledger('writes');
  const seen = new Map();
  const waiters = new Map();
  p.peer.follower.onChange((id, t) => {
    if (id !== 'writes:main') return;
    const at = performance.now();
    for (const [wt, w] of waiters) if (t >= wt) { seen.set(wt, at); waiters.delete(wt); w(); }
  });
  const lags = [];
  for (let i = 0; i < inserts; i++) {
    const body = `<http://example.org/w/${i}-${Math.random()}> <http://example.org/value> ${i} .`;
    const r = await fetch(`${api(ready.url)}/insert/writes`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body });
    const { t } = await r.json();
    const acked = performance.now();
    const l = await p.server.state.conn.loadedLedger('writes');
    if (((await l)?.t ?? -1) < t) await new Promise((ok) => waiters.set(t, ok));
    const at = seen.get(t) ?? performance.now();
    lags.push(Math.max(0, at - acked));
    const q = await query(p.url, 'writes', 'SELECT (COUNT(*) AS ?n) WHERE { ?s <http://example.org/value> ?v }');
    if (q.rows !== 1) throw new Error('peer query failed');
  }
  return { commits: inserts, p50Ms: round(pct(lags, 50)), p99Ms: round(pct(lags, 99)), maxMs: round(Math.max(...lags)) };
}

const result = { suite: 'peer', data, triples: ready.triples, targets: { lagP50Ms: 50, lagP99Ms: 250, coldFirstQueryMs: 300, warmReopenFirstQueryMs: 200 } };
try {
  log(`peer: server ready at ${ready.url} (${ready.triples} triples)`);
  // 1. replication lag, proxy and shared mode
  const proxyPeer = await startPeer({ proxy: true, ledgers: ['writes'] });
  result.lagProxy = await lag(proxyPeer);
  await proxyPeer.server.close(1000);
  log(`peer: lag (proxy) ${JSON.stringify(result.lagProxy)}`);

  // 2. cold first query (proxy mode, empty cache) vs the same query on the server
  const s = ready.subjects[Math.floor(ready.subjects.length / 2)];
  // The server builds its set of a ledger's objects on the first proxied read (once per process);
  // do that read first, so the figure is a cold peer against a running server.
  const rec = await (await fetch(`${api(ready.url)}/storage/ns/bsbm`, { headers: { Authorization: `Bearer ${token}` } })).json();
  await (await fetch(`${api(ready.url)}/storage/objects/${rec.index_head_id}?ledger=bsbm`, { headers: { Authorization: `Bearer ${token}` } })).arrayBuffer();
  // Several cold peers (each a new empty cache) and a warm reopen of each: on a shared, loaded box
  // one sample is mostly scheduling noise, so the median of `--cold-reps` is reported with the samples.
  const coldMs = [], warmMs = [];
  let cold = null, coldQ = null, stats = null, warm = null, reopened = null;
  for (let rep = 0; rep < coldReps; rep++) {
    if (reopened) await reopened.server.close(1000);
    cold = await startPeer({ proxy: true, ledgers: [] });
    const q = await query(cold.url, 'bsbm', pointQuery(s));
    coldMs.push(q.ms);
    if (rep === 0) { coldQ = q; stats = { ...cold.peer.client.stats }; }
    await cold.server.close(1000);
    reopened = await startPeer({ proxy: true, ledgers: [], dir: cold.dir });
    const w = await query(reopened.url, 'bsbm', pointQuery(s));
    warmMs.push(w.ms);
    if (rep === 0) warm = { ...w, fetchedObjects: reopened.peer.client.stats.objects, fetchedBytes: reopened.peer.client.stats.bytes };
  }
  const onTx = [];
  for (let i = 0; i < 7; i++) onTx.push((await query(ready.url, 'bsbm', pointQuery(ready.subjects[i * 13]))).ms);
  const warmOnPeer = [];
  for (let i = 0; i < 7; i++) warmOnPeer.push((await query(reopened.url, 'bsbm', pointQuery(ready.subjects[i * 13]))).ms);
  result.coldFirstQuery = {
    ms: round(median(coldMs)), samplesMs: coldMs.map(round), rows: coldQ.rows, fetchedObjects: stats.objects, fetchedBytes: stats.bytes, fetchedByKind: stats.byKind,
    fetchedBytesByKind: stats.bytesByKind, ledgerObjectBytes: ready.storageBytes.bytes,
    fetchedShare: round(stats.bytes / ready.storageBytes.bytes),
    serverPointQueryMedianMs: round(median(onTx)), peerPointQueryMedianMsAfterwards: round(median(warmOnPeer)),
  };
  result.coldFirstQuery.ratioColdToServer = round(result.coldFirstQuery.ms / result.coldFirstQuery.serverPointQueryMedianMs);
  log(`peer: cold first query ${JSON.stringify(result.coldFirstQuery)}`);

  // 3. warm reopen on the same cache directory (measured in the loop above)
  result.warmReopenFirstQuery = { ms: round(median(warmMs)), samplesMs: warmMs.map(round), fetchedObjects: warm.fetchedObjects, fetchedBytes: warm.fetchedBytes };
  log(`peer: warm reopen ${JSON.stringify(result.warmReopenFirstQuery)}`);

  // 4. the browser peer in Chromium, compared with this Node peer
  if (!args['no-browser'] && existsSync(process.env.LEDGRAPH_CHROMIUM || '/usr/bin/chromium')) {
    const { browserFigures } = await import('./peer-browser.js');
    const { loadQueries } = await import('./queries.js');
    const { runSparql } = await dist('core/query/sparql-service.js');
    const { toSparqlJson } = await dist('core/query/results/sparql-json.js');
    const { toNQuads } = await dist('core/query/results/rdf-writers.js');
    const params = String(args.params ?? data.replace(/\.nt$/, '.params.json'));
    const queries = loadQueries(params).explore;
    // The same work as the browser peer's worker: run, then write SPARQL JSON (N-Quads for graphs).
    const nodeRun = async (text) => {
      const { result } = await runSparql(reopened.server.state.conn, text, { ledger: 'bsbm' });
      return result.type === 'quads' ? toNQuads(result) : toSparqlJson(result);
    };
    result.browser = await browserFigures({ txUrl: ready.url, token, queries, nodeRun, reopenReps: Math.max(1, Number(args['reopen-reps'] ?? 5)) });
    log(`peer: browser ${JSON.stringify(result.browser)}`);
  }
  await reopened.server.close(1000);

  // 1b. lag in shared-storage mode (after the cold/warm figures, so they are not disturbed)
  const shared = await startPeer({ proxy: false, ledgers: ['writes'], dir: ready.dir });
  result.lagShared = await lag(shared);
  await shared.server.close(1000);
  log(`peer: lag (shared storage) ${JSON.stringify(result.lagShared)}`);
} finally {
  tx.send({ type: 'stop' });
  for (const d of dirs) await rm(d, { recursive: true, force: true });
}
emitResult(result);
