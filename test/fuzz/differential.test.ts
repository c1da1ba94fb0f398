/**
 * Differential testing against oxigraph, quick slice (docs/RELIABILITY.md): a few hundred random
 * queries over random small datasets must give the same answers in Ledgraph and oxigraph, except
 * the documented differences — and each documented difference is pinned here by an exact case, so
 * a change of behaviour on either side shows up. `npm run fuzz -- differential` runs ≥ 10⁴.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judge, loadPair, scenarioArb } from './differential.js';
import { KNOWN_DIFFERENCES } from './known-differences.js';
import { PREFIXES } from './sparql-smith.js';

const SEED = Number(process.env.LEDGRAPH_FUZZ_SEED ?? 20_2611);
const GRAPHS = Number(process.env.LEDGRAPH_DIFF_GRAPHS ?? 20);

describe('differential testing against oxigraph (quick slice)', () => {
  it(`${GRAPHS * 20} random queries over ${GRAPHS} random datasets agree, up to documented differences`, async () => {
    const counts: Record<string, number> = {};
    const unexplained: string[] = [];
    for (const [data, queries] of fc.sample(scenarioArb(20), { numRuns: GRAPHS, seed: SEED })) {
      const pair = await loadPair(data);
      for (const q of queries) {
        const r = await judge(pair, q);
        counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
        if (r.verdict === 'different') unexplained.push(`${r.query}\n=> ${r.detail}\nDATA\n${r.data}`);
      }
      await pair.close();
    }
    expect(unexplained).toEqual([]);
    // The slice exercises the engines, not only their error paths.
    expect(counts['same'] ?? 0).toBeGreaterThan(GRAPHS * 20 * 0.9);
  }, 120_000);

  const data = [
    '<http://example.org/s1> <http://example.org/p0> "2.0"^^<http://www.w3.org/2001/XMLSchema#decimal> .',
    '<http://example.org/s1> <http://example.org/p1> "a" <http://example.org/g1> .',
    '<http://example.org/s2> <http://example.org/p0> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
  ].join('\n') + '\n';
  const cases: [string, string][] = [
    ['numeric-lexical-form', 'SELECT ?o WHERE { ex:s1 ex:p0 ?o }'],
    ['zero-length-path-absent-term', 'SELECT ?x WHERE { ?x (ex:p1)? ex:s3 }'],
    ['graph-without-triples', 'SELECT ?g ?v WHERE { GRAPH ?g { VALUES ?v { 1 } } }'],
    ['path-alternative-duplicates', 'SELECT (COUNT(*) AS ?n) WHERE { ?x (ex:p0|ex:p0) ?y }'],
    ['ebv-language-literal', 'ASK { FILTER("a"@en) }'],
    ['incomparable-literal-equality', 'ASK { FILTER("a" NOT IN (1)) }'],
    ['oxigraph-empty-in-list', 'SELECT * WHERE { ?s ex:p0 ?o FILTER(EXISTS { FILTER(?s NOT IN ()) }) }'],
    ['exists-substitution', 'SELECT ?s WHERE { ?s ex:p0 ?o FILTER(EXISTS { BIND(ex:s2 AS ?s) }) }'],
    ['boolean-ordering', 'ASK { FILTER(false < true) }'],
    ['min-max-mixed-types', 'SELECT (MAX(?o) AS ?m) WHERE { VALUES ?o { "a" 1 } }'],
  ];
  it('knows every documented difference by an exact case', () => {
    expect(KNOWN_DIFFERENCES.map((k) => k.id).sort()).toEqual(cases.map(([id]) => id).sort());
  });
  for (const [id, query] of cases) {
    it(`documented difference ${id}`, async () => {
      const pair = await loadPair(data);
      const r = await judge(pair, { form: query.startsWith('ASK') ? 'ask' : 'select', text: PREFIXES + query });
      await pair.close();
      expect(r.verdict).toBe(`known:${id}`);
    });
  }
});
