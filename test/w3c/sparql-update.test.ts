/**
 * W3C SPARQL 1.1 UpdateEvaluationTest: run the update on a real ledger holding the initial dataset
 * and require the whole resulting dataset (default graph and every named graph, one blank node
 * bijection) to be isomorphic to the expected one; a named graph the expected result does not
 * list must be empty.
 */
import { describe, it } from 'vitest';
import { compareDatasets } from './compare.js';
import { loadDataset } from './engine-adapter.js';
import { defineSuite, type Outcome } from './harness.js';
import { iriOf, loadManifest, w3cAvailable, type W3cTest } from './manifest.js';
import { runUpdateOnLedger } from './update-adapter.js';

async function run(t: W3cTest): Promise<Outcome> {
  const expected = loadDataset(t.resultDataset ?? { data: [], graphData: [] });
  const actual = await runUpdateOnLedger(t.query!, t.dataset ?? { data: [], graphData: [] });
  const diff = compareDatasets(expected, actual);
  return diff === undefined ? { status: 'pass' } : { status: 'fail', message: diff };
}

if (!w3cAvailable()) {
  describe('sparql-update', () => { it.skip('W3C test data not found (set LEDGRAPH_W3C_DIR)', () => {}); });
} else {
  const tests = loadManifest(iriOf('sparql11/manifest.ttl')).filter((t) => t.type === 'UpdateEvaluationTest');
  defineSuite('sparql-update', tests, run);
}
