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
 *   2. single-fact writes, commits/s per backend: one writer (each commit awaited: content puts,
 *      then the head's compare-and-set), 16 concurrent writers on the one ledger (the write
 *      pipeline groups them: several commits per compare-and-set), and 16 writers on 16 small
 *      ledgers of their own (one compare-and-set per commit, concurrently);
 *   3. the nameservice's compare-and-set alone, per nameservice (file, PostgreSQL, and PostgreSQL
 *      with synchronous_commit off as a diagnostic of the WAL flush's share): N in a row on one
 *      record, and N spread over 16 records by 16 concurrent callers (one per record: CAS is by
 *      version, one writer per ledger). PostgreSQL also with commit_delay, a server setting that
 *      makes a committing transaction wait for others to share its WAL flush (diagnostic).
 *      Target: PostgreSQL ≥ 500 commits/s on loopback.
 *
 *   node bench/storage.js [--data bench/data/bsbm-2825.nt] [--reps 10] [--warmup 2] [--commits 1000] [--writers 16]
 *                         [--no-mix]   (skip the load and the mix; writes go to a fresh ledger)
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
const WRITERS = Number(args.writers ?? 16);
const MIX = !args['no-mix'];
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
    if (!MIX) { await conn.close(); continue; }
    const t0 = performance.now();
    const receipt = await conn.bulkLoad(LEDGER, createReadStream(data));
    result.load[b] = { seconds: +((performance.now() - t0) / 1000).toFixed(1), triples: receipt.triples };
    await conn.close();
    process.stderr.write(`load ${b}: ${JSON.stringify(result.load[b])}\n`);
  }
  if (MIX) result.load.file.diskMB = toMB(dirSize(dirOf('file')));
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
  if (MIX) {
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
  }

  // 2. Single-fact writes: one writer; WRITERS on the one ledger; WRITERS on a ledger each.
  const int = (n) => terms.literal(String(n), terms.namedNode('http://www.w3.org/2001/XMLSchema#integer'));
  const fact = (i) => ({ subject: terms.namedNode(`${EX}w${i % 100}`), predicate: terms.namedNode(`${EX}value`), object: int(i), graph: terms.defaultGraph });
  /** COMMITS single-fact commits by `writers` concurrent callers, writer k on ledgerOf(k); commits/s. */
  const writeRun = async (conn, writers, ledgerOf) => {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: writers }, async (_, k) => {
      for (let i = next++; i < COMMITS; i = next++) await conn.transact(ledgerOf(k), { kind: 'upsert', quads: [fact(i)], meta: [], opts: {} });
    }));
    const s = (performance.now() - t0) / 1000;
    return { commits: COMMITS, writers, seconds: +s.toFixed(2), commitsPerSec: Math.round(COMMITS / s) };
  };
  const own = (k) => `bench-w${k}:main`;
  for (const b of NAMES) {
    const conn = conns[b];
    for (let k = 0; k < WRITERS; k++) await conn.create(own(k));
    result.writes[b] = {
      oneWriter: await writeRun(conn, 1, () => LEDGER),
      [`writers${WRITERS}OneLedger`]: await writeRun(conn, WRITERS, () => LEDGER),
      [`writers${WRITERS}Ledgers${WRITERS}`]: await writeRun(conn, WRITERS, own),
    };
    process.stderr.write(`writes ${b}: ${JSON.stringify(result.writes[b])}\n`);
  }
  for (const b of NAMES) await conns[b].close();

  // 3. Compare-and-set alone: N in a row on one record, then N over WRITERS records concurrently.
  const rec = (id, t) => ({ ledger_id: id, name: id.split(':')[0], branch: 'main', commit_head_id: null, commit_t: t, index_head_id: null, index_t: 0, default_context: null, config_id: null, retracted: false });
  const casRun = async (ns, records) => {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: records }, async (_, k) => {
      const id = `cas${k}:main`;
      let prev = await ns.get(id);
      for (let i = next++; i < COMMITS; i = next++) {
        const nextRec = rec(id, (prev?.commit_t ?? 0) + 1);
        if (!(await ns.compareAndSet(id, prev, nextRec))) throw new Error(`CAS refused on ${id}`);
        prev = nextRec;
      }
    }));
    const s = (performance.now() - t0) / 1000;
    return { cas: COMMITS, records, seconds: +s.toFixed(2), perSec: Math.round(COMMITS / s) };
  };
  const pgWith = (settings) => `${pg.url}?options=${encodeURIComponent(settings)}`;
  // `pgAsyncCommit`: synchronous_commit off for the session (PostgreSQL acknowledges before its WAL
  // flush), to show how much of a CAS is the flush; `pgCommitDelay`: commit_delay 1 ms once 4 other
  // transactions are active (a flush waits to be shared). Neither is how Ledgraph runs by default.
  const CAS_NS = [
    ['file', () => FileNameService.open(dirOf('cas'))],
    ['pg', () => PgNameService.open(pg.url, { schema: 'bench_cas', maxConnections: WRITERS })],
    ['pgAsyncCommit', () => PgNameService.open(pgWith('-c synchronous_commit=off'), { schema: 'bench_cas_async', maxConnections: WRITERS })],
    ['pgCommitDelay', () => PgNameService.open(pgWith('-c commit_delay=1000 -c commit_siblings=4'), { schema: 'bench_cas_delay', maxConnections: WRITERS })],
  ];
  for (const [name, open] of CAS_NS) {
    const ns = await open();
    result.cas[name] = { oneRecord: await casRun(ns, 1), [`records${WRITERS}`]: await casRun(ns, WRITERS) };
    await ns.close();
    process.stderr.write(`cas ${name}: ${JSON.stringify(result.cas[name])}\n`);
  }
  if (sink < 0) throw new Error('unreachable');
} finally {
  await Promise.all([s3.stop(), pg.stop()]);
  await rm(root, { recursive: true, force: true });
}
result.loadavgAfter = loadavg().map((x) => +x.toFixed(2));
result.pass = {
  mixS3WithinTarget: result.mix ? result.mix.s3OverFile <= 1.2 : null,
  pgCasAtLeast500: result.cas.pg[`records${WRITERS}`].perSec >= 500,
  pgCommitsAtLeast500: Math.max(...Object.values(result.writes.pg).map((w) => w.commitsPerSec)) >= 500,
  sameRows: result.mix ? result.mix.sameRows : null,
};
console.log(JSON.stringify(result));
