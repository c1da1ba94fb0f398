/**
 * W3C RDF 1.1 Turtle, TriG, N-Triples and N-Quads tests against n3's parser (which Ledgraph uses
 * to read those formats), to show where it deviates from the standards.
 */
import { describe, it } from 'vitest';
import { compareDatasets } from './compare.js';
import { defineSuite, type Outcome } from './harness.js';
import { iriOf, loadManifest, readW3c, w3cAvailable, type W3cTest } from './manifest.js';
import { parseRdfText, readRdfFile, type formatOf } from './rdf-files.js';

const FORMAT: Record<string, ReturnType<typeof formatOf>> = {
  Turtle: 'Turtle', Trig: 'TriG', NTriples: 'N-Triples', NQuads: 'N-Quads',
};

/** Syntax and format of an rdft: test type, e.g. TestTurtleNegativeSyntax -> [Turtle, NegativeSyntax]. */
function kindOf(type: string): { format: ReturnType<typeof formatOf>; kind: 'Eval' | 'PositiveSyntax' | 'NegativeSyntax' | 'NegativeEval' } {
  const m = /^Test(Turtle|Trig|NTriples|NQuads)(Eval|PositiveSyntax|NegativeSyntax|NegativeEval)$/.exec(type);
  if (!m) throw new Error(`unknown RDF test type ${type}`);
  return { format: FORMAT[m[1]!]!, kind: m[2] as 'Eval' };
}

async function run(t: W3cTest): Promise<Outcome> {
  const { format, kind } = kindOf(t.type);
  const input = t.action!;
  let parsed;
  try {
    parsed = parseRdfText(readW3c(input), { format, baseIri: input });
  } catch (e) {
    if (kind === 'NegativeSyntax' || kind === 'NegativeEval') return { status: 'pass' };
    return { status: 'fail', message: `rejected: ${(e as Error).message}` };
  }
  if (kind === 'NegativeSyntax' || kind === 'NegativeEval') return { status: 'fail', message: `accepted (${parsed.length} quads)` };
  if (kind === 'PositiveSyntax') return { status: 'pass' };
  const expected = readRdfFile(t.result!);
  const diff = compareDatasets(expected, parsed);
  return diff === undefined ? { status: 'pass' } : { status: 'fail', message: diff };
}

if (!w3cAvailable()) {
  describe('rdf-syntax', () => { it.skip('W3C test data not found (set LEDGRAPH_W3C_DIR)', () => {}); });
} else {
  const tests = ['rdf-turtle', 'rdf-trig', 'rdf-n-triples', 'rdf-n-quads']
    .flatMap((f) => loadManifest(iriOf(`rdf11/${f}/manifest.ttl`)));
  defineSuite('rdf-syntax', tests, run);
}
