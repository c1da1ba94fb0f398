/**
 * W3C JSON-LD 1.1 toRdf suite through `/insert`'s code path: each applicable positive test's
 * document is parsed by the transaction parser and committed to a fresh ledger, and the stored
 * dataset (read back with list indexes) must be isomorphic to the expected N-Quads in Ledgraph's
 * list model. Negative tests must be refused with a 400 naming the JSON-LD error code, nothing
 * written. Deliberate differences are in jsonld-known-differences.txt (docs/jsonld-transactions.md).
 */
import { defineSuite, type Outcome } from './harness.js';
import {
  compareIndexed, expectRefused, insertAndRead, loadJsonLdManifest, loadKnownDifferences, notApplicable, parseNQuads, parserOptions,
  preloadedContexts, readSuiteFile, withIndexedLists, type JsonLdTest,
} from './jsonld-suite.js';

const contexts = preloadedContexts('toRdf');

/** Run one toRdf test through the insert pipeline. */
export async function runToRdf(t: JsonLdTest): Promise<Outcome> {
  const skip = notApplicable(t);
  if (skip) return { status: 'skip', reason: skip };
  const doc = JSON.parse(readSuiteFile(t.input)) as unknown;
  const opts = parserOptions(t, contexts);
  if (t.types.includes('NegativeEvaluationTest')) return expectRefused(doc, opts, t.expectErrorCode!);
  let actual;
  try {
    actual = await insertAndRead(doc, opts);
  } catch (e) {
    return { status: 'fail', message: `insert refused: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!t.expect) return { status: 'pass' };
  const expected = withIndexedLists(parseNQuads(readSuiteFile(t.expect)));
  const diff = compareIndexed(expected, actual);
  return diff === undefined ? { status: 'pass' } : { status: 'fail', message: diff };
}

const tests = loadJsonLdManifest('toRdf').map((t) => ({ ...t, folder: 'toRdf' }));
defineSuite('jsonld-toRdf', tests, runToRdf, loadKnownDifferences());
