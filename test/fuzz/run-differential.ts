/**
 * The long differential run (`npm run fuzz -- differential --queries N`): random datasets with
 * random queries each, judged against oxigraph (differential.ts); prints a progress line every
 * 2,000 queries and writes a JSON report with the verdict counts and every unexplained difference.
 */
import fc from 'fast-check';
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { judge, loadPair, scenarioArb, type CaseResult } from './differential.js';

export interface DiffRunOptions { queries: number; seed: number; perGraph: number; out: string }

/** Run `queries` differential cases; returns the exit code (0 when every difference is a known one). */
export async function runDifferential(o: DiffRunOptions): Promise<number> {
  const started = new Date();
  const t0 = performance.now();
  const counts: Record<string, number> = {};
  const differences: CaseResult[] = [];
  const examples: Record<string, CaseResult> = {};
  let done = 0;
  let graphs = 0;
  for (let chunk = 0; done < o.queries; chunk++) {
    const scenarios = fc.sample(scenarioArb(o.perGraph), { numRuns: 10, seed: (o.seed + chunk * 104_729) | 0 });
    for (const [data, queries] of scenarios) {
      if (done >= o.queries) break;
      const pair = await loadPair(data);
      graphs++;
      try {
        for (const q of queries) {
          if (done >= o.queries) break;
          const r = await judge(pair, q);
          counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
          if (r.verdict === 'different') differences.push(r);
          else if (r.verdict.startsWith('known:') && !examples[r.verdict]) examples[r.verdict] = r;
          if (++done % 2000 === 0) process.stdout.write(`differential: ${done} queries, ${JSON.stringify(counts)}\n`);
        }
      } finally { await pair.close(); }
    }
  }
  const seconds = Math.round((performance.now() - t0) / 100) / 10;
  const report = {
    kind: 'differential', started: started.toISOString(), finished: new Date().toISOString(), seconds, seed: o.seed,
    queries: done, graphs, perGraph: o.perGraph, counts, loadavg: loadavg(), differences: differences.slice(0, 200), knownExamples: examples,
  };
  await writeFile(o.out, JSON.stringify(report, null, 1));
  process.stdout.write(`differential: done: ${done} queries over ${graphs} datasets in ${seconds} s; ${JSON.stringify(counts)}; report ${o.out}\n`);
  return differences.length ? 1 : 0;
}
