/**
 * W3C SPARQL 1.1 query evaluation tests (QueryEvaluationTest, including the json-res and TSV
 * tests) and the CSV result format tests. The actual result is written with Ledgraph's serialiser
 * for the expected file's format and read back before comparison (query-judge.ts, which the
 * Chromium run of the same suite, e2e/w3c-case.js, shares), so the result formats are tested
 * against the official expected files too.
 */
import { describe, it } from 'vitest';
import { queryUnavailable, runQuery } from './engine-adapter.js';
import { defineSuite, type Outcome } from './harness.js';
import { w3cAvailable, type W3cTest } from './manifest.js';
import { actualOf, judgeQuery, queryTests } from './query-judge.js';

async function run(t: W3cTest): Promise<Outcome> {
  const unavailable = await queryUnavailable('run');
  if (unavailable) return { status: 'skip', reason: unavailable };
  return judgeQuery(t, actualOf(await runQuery(t.query!, t.dataset!)));
}

if (!w3cAvailable()) {
  describe('sparql-query', () => { it.skip('W3C test data not found (set LEDGRAPH_W3C_DIR)', () => {}); });
} else {
  defineSuite('sparql-query', queryTests(), run);
}
