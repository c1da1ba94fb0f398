/**
 * Entry of `npm run soak` (bundled and started by fuzz/run.js):
 *   npm run soak -- crash --iterations N [--seed S] [--writers W] [--per-ledger K] [--kill-min-ms A] [--kill-max-ms B] [--out FILE]
 * Prints one line per 25 iterations and writes a JSON report with the totals and every problem.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../fuzz/cli.js';
import { FUZZ_DID, FUZZ_SEED } from '../fuzz/http-harness.js';
import { ed25519FromSeed, hexBytes, mintToken } from '../../src/server/auth/jws.js';
import { crashSoak, type IterationResult } from './crash.js';

/** Run the soak; returns the exit code (0 when nothing was lost, partial, duplicated or inconsistent). */
export async function main(argv: string[], serverBundle: string): Promise<number> {
  const args = parseArgs(argv);
  if ((args._[0] ?? 'crash') !== 'crash') { process.stderr.write(`unknown soak "${args._[0]}" (expected crash)\n`); return 2; }
  const num = (k: string, d: number) => (args[k] !== undefined ? Number(args[k]) : d);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = String(args.out ?? join(tmpdir(), `ledgraph-soak-${stamp}.json`));
  const dir = await mkdtemp(join(tmpdir(), 'ledgraph-soak-'));
  const signer = await ed25519FromSeed(hexBytes(FUZZ_SEED)!);
  const now = Math.floor(Date.now() / 1000);
  const token = await mintToken(signer, { iss: signer.did, iat: now, exp: now + 48 * 3600, 'ledgraph.storage.all': true });
  const started = new Date();
  const seed = num('seed', Date.now() % 2_147_483_647);
  const totals = { iterations: 0, acknowledged: 0, lost: 0, partial: 0, extraCommits: 0, logProblems: 0, pushProblems: 0, importProblems: 0, importsAcknowledged: 0, leftoverFiles: 0, maxPushT: 0 };
  const problems: { iteration: number; result: IterationResult }[] = [];
  const leftoverExamples: string[] = [];
  const leftoverSet = new Set<string>();
  const loads: number[] = [];
  const save = () => writeFile(out, JSON.stringify({ kind: 'crash-soak', started: started.toISOString(), finished: new Date().toISOString(), seed, totals, loadavg: { start: loads[0], max1m: Math.max(...loads), end: loadavg() }, leftoverExamples, problems }, null, 1));
  let code = 0;
  try {
    await crashSoak({
      serverBundle, dir, seed, token, iterations: num('iterations', 100), writers: num('writers', 3), perLedger: num('per-ledger', 50),
      killMinMs: num('kill-min-ms', 30), killMaxMs: num('kill-max-ms', 1500),
      flags: ['--storage-proxy-enabled', '--storage-proxy-trusted-issuer', FUZZ_DID, '--reindex-min-bytes', '4000', '--reindex-max-bytes', '50000000', '--log-level', 'error'],
      onIteration(i, r) {
        loads.push(loadavg()[0]!);
        totals.iterations++;
        totals.acknowledged += r.newAcks;
        totals.lost += r.lost;
        totals.partial += r.partial;
        totals.extraCommits += Math.abs(r.extraCommits);
        totals.logProblems += r.logProblems.length;
        totals.pushProblems += r.pushProblems.length;
        totals.importProblems += r.importProblems.length;
        for (const f of r.leftovers) leftoverSet.add(f);
        totals.leftoverFiles = leftoverSet.size;
        totals.maxPushT = Math.max(totals.maxPushT, r.pushAcked);
        totals.importsAcknowledged = r.imports;
        for (const f of r.leftovers) if (leftoverExamples.length < 20 && !leftoverExamples.includes(f)) leftoverExamples.push(f);
        if (r.lost || r.partial || r.extraCommits || r.logProblems.length || r.pushProblems.length || r.importProblems.length) problems.push({ iteration: i, result: r });
        if ((i + 1) % 25 === 0) {
          process.stdout.write(`soak: ${i + 1} iterations, ${totals.acknowledged} acknowledged writes, lost ${totals.lost}, partial ${totals.partial}, extra commits ${totals.extraCommits}, problems ${problems.length}, leftovers ${totals.leftoverFiles}, load ${loadavg()[0]!.toFixed(2)}\n`);
          void save();
        }
      },
    });
  } catch (e) {
    process.stdout.write(`soak: stopped by an error: ${(e as Error).stack ?? String(e)}\n`);
    code = 1;
  } finally {
    await save();
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`soak: done: ${totals.iterations} iterations in ${Math.round((Date.now() - started.getTime()) / 1000)} s; ${totals.acknowledged} acknowledged writes; lost ${totals.lost}; partial ${totals.partial}; `
    + `extra commits ${totals.extraCommits}; log problems ${totals.logProblems}; push problems ${totals.pushProblems}; import problems ${totals.importProblems}; distinct leftover files ${totals.leftoverFiles}; report ${out}\n`);
  return code || problems.length ? 1 : 0;
}
