/**
 * W3C SPARQL 1.1 UpdateEvaluationTest: run the update on the initial dataset and require the whole
 * resulting dataset (default graph and every named graph, one blank node bijection) to be
 * isomorphic to the expected one. Skipped, never passed, while the engine has no executeUpdate.
 */
import { describe, it } from 'vitest';
import { compareDatasets } from './compare.js';
import { loadDataset, runUpdate, updateUnavailable } from './engine-adapter.js';
import { defineSuite, type Outcome } from './harness.js';
import { iriOf, loadManifest, w3cAvailable, type W3cTest } from './manifest.js';

async function run(t: W3cTest): Promise<Outcome> {
  const unavailable = await updateUnavailable('run');
  if (unavailable) return { status: 'skip', reason: unavailable };
  const expected = loadDataset(t.resultDataset ?? { data: [], graphData: [] });
  const actual = await runUpdate(t.query!, t.dataset!);
  const diff = compareDatasets(expected, actual);
  return diff === undefined ? { status: 'pass' } : { status: 'fail', message: diff };
}

if (!w3cAvailable()) {
  describe('sparql-update', () => { it.skip('W3C test data not found (set LEDGRAPH_W3C_DIR)', () => {}); });
} else {
  const tests = loadManifest(iriOf('sparql11/manifest.ttl')).filter((t) => t.type === 'UpdateEvaluationTest');
  defineSuite('sparql-update', tests, run);
}
