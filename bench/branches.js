#!/usr/bin/env node
/**
 * Branches bench (`npm run bench -- branches`), Ledgraph against itself on the BSBM ledger:
 *   1. fork at the head of the ≈1M-triple ledger: median ms of 5 forks, and the content store's
 *      object count before/after (a fork copies no commits and no index nodes). Target ≤ 50 ms.
 *   2. merge of a 1,000-commit branch into main, where main changed 100 of the keys the branch
 *      changed (take-source): ms of the merge. Target ≤ 2 s.
 *   3. the BSBM explore mix at the head of a branch forked 10,000 commits back against the same mix
 *      on main, interleaved query by query, the sum of each query's median over 24 runs. Two such
 *      branches: `old`, forked at main's head (main then had unindexed commits) before main got
 *      10,000 more commits (and a reindex), and `back`, forked afterwards with `at: t:<that same t>`
 *      (it starts from main's newest index at or before that t). Either starts with commits above
 *      its inherited index, which the fork indexes in the background (docs/branches.md); the time
 *      from `POST /branch` until that index is published is reported (`backIndexedMs`), and the
 *      comparison runs once it is. Measured as forked, and again after an explicit `/reindex` of
 *      the branches (which then finds nothing to do: a repeat of the same state); main is also
 *      measured a second time as its own series (`control`), whose ratio shows the run's noise, and
 *      `raw` is forked like `back` with the indexer off for the moment: it keeps the inherited
 *      commits in novelty, as every such branch did before it was indexed (`rawRatio`, no target).
 *      Target: branch / main ≤ 1.2 (wall time; the same ratios over each query's process CPU time,
 *      which a busy box disturbs less, are printed as `cpuRatios`). The connection runs with
 *      background indexing on, as a server does.
 *
 *   node bench/branches.js [--data bench/data/bsbm-2825.nt] [--reps 24] [--warmup 2]
 *
 * Needs dist/ (npx tsc -p tsconfig.build.json). Prints one JSON line with the results.
 */
import { bsbmData, fromDist, loadLedgraphInMemory, median, parseArgs } from './measure.js';
import { loadQueries } from './queries.js';

const args = parseArgs(process.argv.slice(2));
const REPS = Number(args.reps ?? 24);
const WARMUP = Number(args.warmup ?? 2);
const NAME = 'bench';
const EX = 'http://example.org/bench/';

const { data, params } = bsbmData(args.data);
const { runSparql } = await fromDist('core/query/sparql-service.js');
const { createBranch } = await fromDist('core/branch/fork.js');
const { mergeBranches } = await fromDist('core/branch/merge.js');
const terms = await fromDist('core/rdf/terms.js');
const { mix } = loadQueries(params);

const { conn, receipt } = await loadLedgraphInMemory(data, `${NAME}:main`, { reindexMaxBytes: 256_000_000, indexingEnabled: true });
const objects = conn.content.objects;
const int = (n) => terms.literal(String(n), terms.namedNode('http://www.w3.org/2001/XMLSchema#integer'));
const q = (s, p, o) => ({ subject: terms.namedNode(EX + s), predicate: terms.namedNode(EX + p), object: o, graph: terms.defaultGraph });
const upsert = (ledger, ...quads) => conn.transact(ledger, { kind: 'upsert', quads, meta: [], opts: {} });
/** Many commits, 50 in flight at a time (each still its own commit). */
async function commits(ledger, n, make) {
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => upsert(ledger, ...make(i + k))));
}

// 1. Fork at the head.
await conn.ledger(`${NAME}:main`);
const before = objects.size;
const forkMs = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  await createBranch(conn, NAME, `fork${i}`, 'main', undefined);
  forkMs.push(performance.now() - t0);
}
const fork = { medianMs: +median(forkMs).toFixed(2), runsMs: forkMs.map((x) => +x.toFixed(2)), objectsBefore: before, objectsAfter: objects.size };
fork.pass = fork.medianMs <= 50 && fork.objectsAfter === fork.objectsBefore;
process.stderr.write(`fork: ${JSON.stringify(fork)}\n`);

// 2. Merge a 1,000-commit branch with 100 conflicting keys.
await createBranch(conn, NAME, 'dev', 'main', undefined);
await commits(`${NAME}:dev`, 1000, (i) => [q(`item${i}`, 'value', int(i))]);
await commits(`${NAME}:main`, 100, (i) => [q(`item${i * 10}`, 'value', int(-i))]);
const t1 = performance.now();
const merged = await mergeBranches(conn, NAME, 'dev', 'main', 'take-source');
const merge = { ms: +(performance.now() - t1).toFixed(1), ...merged };
merge.pass = merge.ms <= 2000 && merged.conflict_count === 100 && merged.commits_copied === 1000;
process.stderr.write(`merge: ${JSON.stringify(merge)}\n`);

// 3. Head queries on a branch forked 10,000 commits back.
const forkT = (await conn.ledger(`${NAME}:main`)).t;
await createBranch(conn, NAME, 'old', 'main', undefined);
await commits(`${NAME}:main`, 10_000, (i) => [q(`churn${i % 500}`, 'value', int(i))]);
await conn.reindex(`${NAME}:main`);
const mainT = (await conn.ledger(`${NAME}:main`)).t;
const t2 = performance.now();
await createBranch(conn, NAME, 'back', 'main', `t:${forkT}`);
const forkBackMs = +(performance.now() - t2).toFixed(2);
const t3 = performance.now();
const backLedger = await conn.ledger(`${NAME}:back`);
// `raw`: forked like `back` but with the background indexer off for the moment, so it keeps the
// inherited commits in novelty — what every such branch read like before it was indexed.
conn.opts.indexingEnabled = false;
await createBranch(conn, NAME, 'raw', 'main', `t:${forkT}`);
await conn.ledger(`${NAME}:raw`);
conn.opts.indexingEnabled = true;
const openBackMs = +(performance.now() - t3).toFixed(1);
while (backLedger.indexing) await backLedger.indexing;
const backIndexedMs = +(performance.now() - t2).toFixed(1);
await conn.idle(); // `old` was indexed during main's 10,000 commits; wait in case it was not
/** What a branch carries when measured: its index t, its head t and the novelty left above the index. */
const state = async (b) => { const l = await conn.ledger(`${NAME}:${b}`); return { indexT: l.tree?.t ?? 0, t: l.t, noveltyBytes: l.novelty.bytes }; };
let sink = 0;
/** Run one query to the end, reading every term; returns the rows. */
async function runQuery(ledger, text) {
  const { result } = await runSparql(conn, text, { ledger });
  let rows = 0;
  if (result.type === 'bindings') for await (const row of result.rows) { for (const k in row) sink += row[k].value.length; rows++; }
  else if (result.type === 'quads') for await (const qd of result.quads) { sink += qd.object.value.length; rows++; }
  return rows;
}
// `control` queries main again as a separate series: its ratio to main is the noise floor of the run.
const BRANCHES = ['main', 'old', 'back', 'raw', 'control'];
/** Every order of the series: what ran just before a query warms caches, so each series follows each other equally often. */
const PERMS = (function perms(xs) {
  return xs.length <= 1 ? [xs] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
})(BRANCHES);
/**
 * The mix on each branch, interleaved query by query (the series run each query back to back, in
 * every order in turn, so the box's load drifts alike for all): per branch the sum over the mix of
 * each query's median ms, and the rows.
 */
async function compare() {
  const times = Object.fromEntries(BRANCHES.map((b) => [b, mix.map(() => [])]));
  const cpu = Object.fromEntries(BRANCHES.map((b) => [b, mix.map(() => [])]));
  const rows = Object.fromEntries(BRANCHES.map((b) => [b, 0]));
  for (let rep = -WARMUP; rep < REPS; rep++) {
    for (const [qi, x] of mix.entries()) {
      for (const b of PERMS[(rep + WARMUP + 7 * qi) % PERMS.length]) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const n = await runQuery(`${NAME}:${b === 'control' ? 'main' : b}`, x.text);
        const ms = performance.now() - t0;
        const c = process.cpuUsage(c0);
        if (rep >= 0) { times[b][qi].push(ms); cpu[b][qi].push((c.user + c.system) / 1000); if (rep === 0) rows[b] += n; }
      }
    }
  }
  const sum = (b, of = times) => +of[b].reduce((acc, ts) => acc + median(ts), 0).toFixed(2);
  const out = { mainMixMs: sum('main'), oldMixMs: sum('old'), backMixMs: sum('back'), rawMixMs: sum('raw'), controlMixMs: sum('control'), rows };
  out.oldRatio = +(out.oldMixMs / out.mainMixMs).toFixed(2);
  out.backRatio = +(out.backMixMs / out.mainMixMs).toFixed(2);
  out.rawRatio = +(out.rawMixMs / out.mainMixMs).toFixed(2);
  out.controlRatio = +(out.controlMixMs / out.mainMixMs).toFixed(2);
  // CPU time of the process over each query (excludes time the busy box gave to other processes).
  out.cpuRatios = Object.fromEntries(['old', 'back', 'raw', 'control'].map((b) => [b, +(sum(b, cpu) / sum('main', cpu)).toFixed(2)]));
  out.sameRows = rows.main === rows.old && rows.main === rows.back && rows.main === rows.raw;
  return out;
}
// As forked (after the fork's background index job), against main's fresh index.
const measured = { main: await state('main'), old: await state('old'), back: await state('back'), raw: await state('raw') };
const asForked = await compare();
// After an explicit /reindex (nothing left to index after the fork's job: a repeat of the same state).
await conn.reindex(`${NAME}:old`);
await conn.reindex(`${NAME}:back`);
const indexed = await compare();
const head = { forkT, mainT, commitsBack: mainT - forkT, forkBackMs, openBackMs, backIndexedMs, measured, asForked, indexed };
head.pass = asForked.oldRatio <= 1.2 && asForked.backRatio <= 1.2 && indexed.oldRatio <= 1.2 && indexed.backRatio <= 1.2 && indexed.sameRows && asForked.sameRows;
process.stderr.write(`head query: ${JSON.stringify(head)}\n`);

await conn.close();
if (sink < 0) throw new Error('unreachable');
console.log(JSON.stringify({ suite: 'branches', data, triples: receipt.triples, fork, merge, head, pass: fork.pass && merge.pass && head.pass }));
