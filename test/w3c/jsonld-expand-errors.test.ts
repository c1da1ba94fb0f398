/**
 * The negative tests of the W3C JSON-LD 1.1 expand suite through `/insert`'s code path: every
 * applicable one is refused with a 400 naming the JSON-LD error code, and nothing is written.
 * (Positive expand tests check an expanded document, which Ledgraph never returns; the toRdf suite
 * covers what those documents store.)
 */
import { defineSuite, type Outcome } from './harness.js';
import { expectRefused, loadJsonLdManifest, loadKnownDifferences, notApplicable, parserOptions, preloadedContexts, readSuiteFile, type JsonLdTest } from './jsonld-suite.js';

const contexts = preloadedContexts('expand');

async function run(t: JsonLdTest): Promise<Outcome> {
  const skip = notApplicable(t);
  if (skip) return { status: 'skip', reason: skip };
  return expectRefused(JSON.parse(readSuiteFile(t.input)) as unknown, parserOptions(t, contexts), t.expectErrorCode!);
}

const tests = loadJsonLdManifest('expand').filter((t) => t.types.includes('NegativeEvaluationTest')).map((t) => ({ ...t, folder: 'expand' }));
defineSuite('jsonld-expand-errors', tests, run, loadKnownDifferences());
