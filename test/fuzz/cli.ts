/**
 * Entry of `npm run fuzz` (bundled and started by fuzz/run.js):
 *   npm run fuzz -- [http] --minutes N [--seed S] [--concurrency C] [--timeout-ms T] [--out FILE]
 *   npm run fuzz -- differential --queries N [--seed S] [--per-graph K] [--out FILE]
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDifferential } from './run-differential.js';
import { runHttpFuzz } from './run-http.js';

/** `--key value` pairs and positionals. */
export function parseArgs(argv: string[]): { _: string[]; [k: string]: string | string[] } {
  const out: { _: string[]; [k: string]: string | string[] } = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) out[a.slice(2)] = 'true';
      else { out[a.slice(2)] = next; i++; }
    } else out._.push(a);
  }
  return out;
}

/** Run the fuzzers; returns the exit code. */
export async function main(argv: string[], serverBundle: string): Promise<number> {
  const args = parseArgs(argv);
  const mode = args._[0] ?? 'http';
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const num = (k: string, d: number) => (args[k] !== undefined ? Number(args[k]) : d);
  const seed = num('seed', Date.now() % 2_147_483_647);
  if (mode === 'differential') {
    return runDifferential({ queries: num('queries', 10_000), seed, perGraph: num('per-graph', 20), out: String(args.out ?? join(tmpdir(), `ledgraph-differential-${stamp}.json`)) });
  }
  if (mode !== 'http') {
    process.stderr.write(`unknown fuzz mode "${mode}" (expected http or differential)\n`);
    return 2;
  }
  return runHttpFuzz({
    serverBundle, minutes: num('minutes', 1), seed, concurrency: num('concurrency', 4), timeoutMs: num('timeout-ms', 15_000), slowMs: num('slow-ms', 5000), stuckMs: num('stuck-ms', 25_000),
    batch: num('batch', 50), out: String(args.out ?? join(tmpdir(), `ledgraph-fuzz-${stamp}.json`)),
  });
}
