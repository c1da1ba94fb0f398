#!/usr/bin/env node
/**
 * Storage bench (`npm run bench -- storage`), Ledgraph against itself on three storage backends:
 *   file  content and nameservice under a directory (the single-machine default);
 *   s3    content in S3 (s3rver on loopback, its own process), nameservice in files;
 *   pg    content in files, nameservice in PostgreSQL (a throwaway cluster, fsync on).
 * For each: bulk-load the BSBM ledger (≈1M triples at the default 2825 products), reopen it on a
 * fresh Connection (cold caches), then
 *   1. the BSBM explore mix after warm-up, interleaved query by query across the backends (each
 *      query runs on every backend back to back, in every order in turn); per backend the sum over
 *      the mix of each query's median ms. Target: s3 / file ≤ 1.2 (the decoded-node cache keeps
 *      the bucket out of warm reads).
 *   2. single-fact writes: N commits one after another (each awaited: content puts, then the head's
 *      compare-and-set), commits/s per backend;
 *   3. the nameservice's compare-and-set alone, N in a row, per nameservice (file, PostgreSQL, and
 *      PostgreSQL with synchronous_commit off as a diagnostic of the WAL flush's share).
 *      Target: PostgreSQL ≥ 500 commits/s on loopback (measured both with the engine's whole
 *      commit path on file content, and as bare CAS).
 *
 *   node bench/storage.js [--data bench/data/bsbm-2825.nt] [--reps 10] [--warmup 2] [--commits 1000]
 *
 * Needs dist/ (npx tsc -p tsconfig.build.json). Prints one JSON line with the results.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bsbmData, dirSize, fromDist, median, parseArgs, toMB } from './measure.js';
import { loadQueries } from './queries.js';
import { startPg, startS3Process } from './storage-services.js';

const args = parseArgs(process.argv.slice(2));
const REPS = Number(args.reps ?? 10);
const WARMUP = Number(args.warmup ?? 2);
const COMMITS = Number(args.commits ?? 1000);
const LEDGER = 'bench:main';
const EX = 'http://example.org/bench/';

const { data, params } = bsbmData(args.data);
const { Connection } = await fromDist('core/ledger/connection.js');
const { FileContentStore, FileNameService } = await fromDist('storage/index.js');
const { S3ContentStore } = await fromDist('storage/s3-store.js');
const { PgNameService } = await fromDist('storage/pg-ns.js');
const { runSparql } = await fromDist('core/query/sparql-service.js');
const terms = await fromDist('core/rdf/terms.js');
const { mix } = loadQueries(params);

const loadBefore = loadavg();
const [s3, pg] = await Promise.all([startS3Process('bench'), startPg()]);
const root = await mkdtemp(join(tmpdir(), 'ledgraph-bench-storage-'));
const dirOf = (b) => join(root, b);

/** Each backend's storage over its directory (and the shared servers). */
const BACKENDS = {
  file: async (dir) => ({ content: await FileContentStore.open(dir), ns: await FileNameService.open(dir) }),
  s3: async (dir) => ({
    content: new S3ContentStore({ bucket: 'bench', prefix: 'ledgers', endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials }),
    ns: await FileNameService.open(dir),
  }),
  pg: async (dir) => ({ content: await FileContentStore.open(dir), ns: await PgNameService.open(pg.url, { schema: 'bench' }) }),
};
const NAMES = Object.keys(BACKENDS);
const connOpts = { indexingEnabled: false, reindexMaxBytes: 256_000_000 };

const result = { suite: 'storage', data, loadavgBefore: loadBefore.map((x) => +x.toFixed(2)), load: {}, mix: null, writes: {}, cas: {} };
try {
  // Load each backend, then close: the mix runs on a fresh Connection (nothing cached from the load).
  for (const b of NAMES) {
    const conn = new Connection(await BACKENDS[b](dirOf(b)), connOpts);
    await conn.create(LEDGER);
    const t0 = performance.now();
    const receipt = await conn.bulkLoad(LEDGER, createReadStream(data));
    result.load[b] = { seconds: +((performance.now() - t0) / 1000).toFixed(1), triples: receipt.triples };
    await conn.close();
    process.stderr.write(`load ${b}: ${JSON.stringify(result.load[b])}\n`);
  }
  result.load.file.diskMB = toMB(dirSize(dirOf('file')));
  const conns = {};
  /** Content reads per backend (what reached the store, past the decoded-node caches). */
  const reads = Object.fromEntries(NAMES.map((b) => [b, 0]));
  for (const b of NAMES) {
    const storage = await BACKENDS[b](dirOf(b));
    const get = storage.content.get.bind(storage.content);
    storage.content.get = (cid) => { reads[b]++; return get(cid); };
    conns[b] = new Connection(storage, connOpts);
  }

  // 1. The explore mix, interleaved.
  let sink = 0;
  const runQuery = async (conn, text) => {
    const { result: r } = await runSparql(conn, text, { ledger: LEDGER });
    let rows = 0;
    if (r.type === 'bindings') for await (const row of r.rows) { for (const k in row) sink += row[k].value.length; rows++; }
    else if (r.type === 'quads') for await (const q of r.quads) { sink += q.object.value.length; rows++; }
    return rows;
  };
  const PERMS = [['file', 's3', 'pg'], ['file', 'pg', 's3'], ['s3', 'file', 'pg'], ['s3', 'pg', 'file'], ['pg', 'file', 's3'], ['pg', 's3', 'file']];
  const times = Object.fromEntries(NAMES.map((b) => [b, mix.map(() => [])]));
  const rows = Object.fromEntries(NAMES.map((b) => [b, 0]));
  const firstPassMs = Object.fromEntries(NAMES.map((b) => [b, 0]));
  let readsAfterWarmup = null;
  for (let rep = -WARMUP; rep < REPS; rep++) {
    if (rep === 0) readsAfterWarmup = { ...reads };
    for (const [qi, x] of mix.entries()) {
      for (const b of PERMS[(rep + WARMUP + 5 * qi) % PERMS.length]) {
        const t0 = performance.now();
        const n = await runQuery(conns[b], x.text);
        const ms = performance.now() - t0;
        if (rep === -WARMUP) firstPassMs[b] += ms;
        if (rep >= 0) { times[b][qi].push(ms); if (rep === 0) rows[b] += n; }
      }
    }
  }
  const sum = (b) => +times[b].reduce((acc, ts) => acc + median(ts), 0).toFixed(2);
  result.mix = {
    queries: mix.length, reps: REPS, warmup: WARMUP,
    mixMs: Object.fromEntries(NAMES.map((b) => [b, sum(b)])),
    coldFirstPassMs: Object.fromEntries(NAMES.map((b) => [b, +firstPassMs[b].toFixed(1)])),
    rows, sameRows: rows.file === rows.s3 && rows.file === rows.pg,
    storeReadsWarmup: readsAfterWarmup, storeReadsTimed: Object.fromEntries(NAMES.map((b) => [b, reads[b] - readsAfterWarmup[b]])),
  };
  result.mix.s3OverFile = +(result.mix.mixMs.s3 / result.mix.mixMs.file).toFixed(2);
  result.mix.pgOverFile = +(result.mix.mixMs.pg / result.mix.mixMs.file).toFixed(2);
  process.stderr.write(`mix: ${JSON.stringify(result.mix)}\n`);

  // 2. Single-fact writes, one commit at a time.
  const int = (n) => terms.literal(String(n), terms.namedNode('http://www.w3.org/2001/XMLSchema#integer'));
  for (const b of NAMES) {
    const conn = conns[b];
    const t0 = performance.now();
    for (let i = 0; i < COMMITS; i++) {
      const quad = { subject: terms.namedNode(`${EX}w${i % 100}`), predicate: terms.namedNode(`${EX}value`), object: int(i), graph: terms.defaultGraph };
      await conn.transact(LEDGER, { kind: 'upsert', quads: [quad], meta: [], opts: {} });
    }
    const s = (performance.now() - t0) / 1000;
    result.writes[b] = { commits: COMMITS, seconds: +s.toFixed(2), commitsPerSec: Math.round(COMMITS / s) };
    process.stderr.write(`writes ${b}: ${JSON.stringify(result.writes[b])}\n`);
  }
  for (const b of NAMES) await conns[b].close();

  // 3. Compare-and-set alone, on a record of its own.
  const rec = (t) => ({ ledger_id: 'cas:main', name: 'cas', branch: 'main', commit_head_id: null, commit_t: t, index_head_id: null, index_t: 0, default_context: null, config_id: null, retracted: false });
  // `pg-async-commit`: the same with synchronous_commit off for the session (PostgreSQL acknowledges
  // before its WAL flush), to show how much of a CAS is the flush; not how Ledgraph runs by default.
  const CAS_NS = [
    ['file', () => FileNameService.open(dirOf('cas'))],
    ['pg', () => PgNameService.open(pg.url, { schema: 'bench_cas' })],
    ['pgAsyncCommit', () => PgNameService.open(`${pg.url}?options=${encodeURIComponent('-c synchronous_commit=off')}`, { schema: 'bench_cas_async' })],
  ];
  for (const [name, open] of CAS_NS) {
    const ns = await open();
    let prev = null;
    const t0 = performance.now();
    for (let t = 1; t <= COMMITS; t++) {
      const next = rec(t);
      if (!(await ns.compareAndSet('cas:main', prev, next))) throw new Error(`CAS ${t} refused on ${name}`);
      prev = next;
    }
    const s = (performance.now() - t0) / 1000;
    await ns.close();
    result.cas[name] = { cas: COMMITS, seconds: +s.toFixed(2), perSec: Math.round(COMMITS / s) };
    process.stderr.write(`cas ${name}: ${JSON.stringify(result.cas[name])}\n`);
  }
  if (sink < 0) throw new Error('unreachable');
} finally {
  await Promise.all([s3.stop(), pg.stop()]);
  await rm(root, { recursive: true, force: true });
}
result.loadavgAfter = loadavg().map((x) => +x.toFixed(2));
result.pass = {
  mixS3WithinTarget: result.mix.s3OverFile <= 1.2,
  pgCasAtLeast500: result.cas.pg.perSec >= 500,
  pgCommitsAtLeast500: result.writes.pg.commitsPerSec >= 500,
  sameRows: result.mix.sameRows,
};
console.log(JSON.stringify(result));
