#!/usr/bin/env node
/**
 * Branches bench (`npm run bench -- branches`), Ledgraph against itself on the BSBM ledger:
 *   1. fork at the head of the ≈1M-triple ledger: median ms of 5 forks, and the content store's
 *      object count before/after (a fork copies no commits and no index nodes). Target ≤ 50 ms.
 *   2. merge of a 1,000-commit branch into main, where main changed 100 of the keys the branch
 *      changed (take-source): ms of the merge. Target ≤ 2 s.
 *   3. the BSBM explore mix at the head of a branch forked 10,000 commits back against the same mix
 *      on main, alternating, median of 15 mix times. Two such branches: `old`, forked at main's
 *      head before main got 10,000 more commits (and a reindex), and `back`, forked afterwards with
 *      `at: t:<that same t>` (it starts from main's newest index at or before that t and replays
 *      the rest on first load). Target: branch / main ≤ 1.2 for both.
 *
 *   node bench/branches.js [--data bench/data/bsbm-2825.nt] [--reps 15] [--warmup 2]
 *
 * Needs dist/ (npx tsc -p tsconfig.build.json). Prints one JSON line with the results.
 */
import { bsbmData, fromDist, loadLedgraphInMemory, median, parseArgs } from './measure.js';
import { loadQueries } from './queries.js';

const args = parseArgs(process.argv.slice(2));
const REPS = Number(args.reps ?? 15);
const WARMUP = Number(args.warmup ?? 2);
const NAME = 'bench';
const EX = 'http://example.org/bench/';

const { data, params } = bsbmData(args.data);
const { runSparql } = await fromDist('core/query/sparql-service.js');
const { createBranch } = await fromDist('core/branch/fork.js');
const { mergeBranches } = await fromDist('core/branch/merge.js');
const terms = await fromDist('core/rdf/terms.js');
const { mix } = loadQueries(params);

const { conn, receipt } = await loadLedgraphInMemory(data, `${NAME}:main`, { reindexMaxBytes: 256_000_000 });
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
await conn.ledger(`${NAME}:back`);
const openBackMs = +(performance.now() - t3).toFixed(1);
let sink = 0;
async function runMix(ledger) {
  const start = performance.now();
  let rows = 0;
  for (const x of mix) {
    const { result } = await runSparql(conn, x.text, { ledger });
    if (result.type === 'bindings') for await (const row of result.rows) { for (const k in row) sink += row[k].value.length; rows++; }
    else if (result.type === 'quads') for await (const qd of result.quads) { sink += qd.object.value.length; rows++; }
  }
  return { ms: performance.now() - start, rows };
}
const ORDER = [['main', 'old', 'back'], ['back', 'old', 'main'], ['old', 'main', 'back']];
for (let i = 0; i < WARMUP; i++) for (const b of ORDER[0]) await runMix(`${NAME}:${b}`);
const ms = { main: [], old: [], back: [] }, rows = {};
for (let i = 0; i < REPS; i++) {
  for (const which of ORDER[i % ORDER.length]) {
    const r = await runMix(`${NAME}:${which}`);
    ms[which].push(r.ms);
    rows[which] = r.rows;
  }
}
const med = (b) => +median(ms[b]).toFixed(2);
const head = {
  forkT, mainT, commitsBack: mainT - forkT, forkBackMs, openBackMs, mainMixMs: med('main'), branchMixMs: med('old'), backMixMs: med('back'), rows,
};
head.ratio = +(head.branchMixMs / head.mainMixMs).toFixed(2);
head.backRatio = +(head.backMixMs / head.mainMixMs).toFixed(2);
head.pass = head.ratio <= 1.2 && head.backRatio <= 1.2 && rows.main === rows.old && rows.main === rows.back;
process.stderr.write(`head query: ${JSON.stringify(head)}\n`);

await conn.close();
if (sink < 0) throw new Error('unreachable');
console.log(JSON.stringify({ suite: 'branches', data, triples: receipt.triples, fork, merge, head, pass: fork.pass && merge.pass && head.pass }));
