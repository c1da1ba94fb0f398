#!/usr/bin/env node
/**
 * Churn bench (`npm run bench -- churn`): head-time reads must not slow down as history grows.
 * Loads S subjects × 5 integer properties, measures head scans (one predicate's full range and
 * random subject lookups), then runs 10 rounds of update churn (every value replaced), reindexes,
 * and measures the same reads again. Acceptance: after/before ≤ 1.5×. Ledgraph is compared with
 * itself here; the data and reads are identical in both phases.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_DIR, median } from './measure.js';

const SUBJECTS = Number(process.env.CHURN_SUBJECTS ?? 20000);
const ROUNDS = Number(process.env.CHURN_ROUNDS ?? 10);
const BATCH = 1000;
const { Connection } = await import(join(ROOT_DIR, 'dist/core/ledger/connection.js'));
const { openFileStorage } = await import(join(ROOT_DIR, 'dist/storage/index.js'));
const terms = await import(join(ROOT_DIR, 'dist/core/rdf/terms.js'));
const XSD_INT = terms.namedNode('http://www.w3.org/2001/XMLSchema#integer');
const preds = [0, 1, 2, 3, 4].map((i) => terms.namedNode(`http://ex.org/p${i}`));

const dir = await mkdtemp(join(tmpdir(), 'lg-churn-'));
const conn = new Connection(await openFileStorage(dir), { reindexMaxBytes: 64_000_000, indexingEnabled: false });
await conn.create('churn');

async function writeRound(round) {
  for (let from = 0; from < SUBJECTS; from += BATCH) {
    const quads = [];
    for (let s = from; s < Math.min(SUBJECTS, from + BATCH); s++) {
      for (const p of preds) quads.push({ subject: terms.namedNode(`http://ex.org/s${s}`), predicate: p, object: terms.literal(String(round * 1_000_000 + s), XSD_INT), graph: terms.defaultGraph });
    }
    await conn.transact('churn', { kind: round === 0 ? 'insert' : 'upsert', quads, meta: [], opts: {} });
  }
  await conn.reindex('churn');
}

/** Median ms of: a full scan of p2 at the head, and 2,000 subject lookups. */
async function measure() {
  const db = await conn.db('churn');
  const p = db.dict.idOf(preds[2]);
  const subjects = Array.from({ length: 2000 }, (_, i) => db.dict.idOf(terms.namedNode(`http://ex.org/s${(i * 7919) % SUBJECTS}`)));
  const scan = [], lookup = [];
  for (let rep = 0; rep < 9; rep++) {
    let t0 = performance.now(), n = 0;
    for await (const b of db.scan({ g: 0, p })) n += b.n;
    scan.push(performance.now() - t0);
    if (n !== SUBJECTS) throw new Error(`scan returned ${n} rows, expected ${SUBJECTS}`);
    t0 = performance.now(); n = 0;
    for (const s of subjects) for await (const b of db.scan({ g: 0, s })) n += b.n;
    lookup.push(performance.now() - t0);
    if (n !== subjects.length * 5) throw new Error(`lookups returned ${n} rows`);
  }
  return { scanMs: median(scan.slice(1)), lookupMs: median(lookup.slice(1)) };
}

await writeRound(0);
await measure(); // warm-up: leaf cache and JIT, so both phases are measured warm
const before = await measure();
for (let r = 1; r <= ROUNDS; r++) {
  await writeRound(r);
  process.stderr.write(`churn round ${r}/${ROUNDS}\n`);
}
const after = await measure();
const ledger = await conn.ledger('churn');
const result = {
  suite: 'churn', subjects: SUBJECTS, facts: SUBJECTS * 5, rounds: ROUNDS, t: ledger.t,
  before, after,
  scanRatio: +(after.scanMs / before.scanMs).toFixed(2),
  lookupRatio: +(after.lookupMs / before.lookupMs).toFixed(2),
};
result.pass = result.scanRatio <= 1.5 && result.lookupRatio <= 1.5;
await conn.close();
await rm(dir, { recursive: true, force: true });
console.log(JSON.stringify(result));
