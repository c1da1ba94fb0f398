/**
 * W3C SPARQL 1.1 syntax tests: PositiveSyntaxTest11 / NegativeSyntaxTest11 (queries; a few
 * negative ones are update files) and Positive/NegativeUpdateSyntaxTest11, parsed with the
 * engine's parsers. A positive test passes when the text parses, a negative one when it is rejected.
 */
import { describe, it } from 'vitest';
import { isLedgraphError } from '../../src/core/errors.js';
import { parseQuery, queryUnavailable } from './engine-adapter.js';
import { defineSuite, type Outcome } from './harness.js';
import { iriOf, loadManifest, readW3c, w3cAvailable, type W3cTest } from './manifest.js';
import { parseUpdateText } from './update-adapter.js';

const TYPES = new Set(['PositiveSyntaxTest11', 'NegativeSyntaxTest11', 'PositiveUpdateSyntaxTest11', 'NegativeUpdateSyntaxTest11']);

async function run(t: W3cTest): Promise<Outcome> {
  const file = t.action!;
  const isUpdate = t.type.includes('Update') || file.endsWith('.ru');
  const unavailable = isUpdate ? undefined : await queryUnavailable('parse');
  if (unavailable) return { status: 'skip', reason: unavailable };
  const positive = t.type.startsWith('Positive');
  try {
    if (isUpdate) parseUpdateText(readW3c(file), file);
    else await parseQuery(readW3c(file), file);
  } catch (e) {
    if (positive) return { status: 'fail', message: `rejected: ${(e as Error).message}` };
    // A rejection is a 400 LedgraphError; anything else is the parser crashing on bad input.
    if (isLedgraphError(e) && e.status === 400) return { status: 'pass' };
    return { status: 'fail', message: `rejected, but with ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)} instead of a 400 LedgraphError` };
  }
  return positive ? { status: 'pass' } : { status: 'fail', message: 'accepted, but it must be rejected' };
}

if (!w3cAvailable()) {
  describe('sparql-syntax', () => { it.skip('W3C test data not found (set LEDGRAPH_W3C_DIR)', () => {}); });
} else {
  const tests = loadManifest(iriOf('sparql11/manifest.ttl')).filter((t) => TYPES.has(t.type));
  defineSuite('sparql-syntax', tests, run);
}
