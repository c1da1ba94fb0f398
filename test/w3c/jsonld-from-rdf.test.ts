/**
 * W3C JSON-LD 1.1 fromRdf suite over stored data: each applicable test's N-Quads input is inserted
 * through the insert pipeline into a fresh ledger, read back, and written as JSON-LD by the
 * serializer the graph store GET and CONSTRUCT/DESCRIBE use (jsonld-writer.ts). It must match the
 * expected document the way jsonld.js's tests compare: the same dataset (both documents turned to
 * RDF by jsonld.js, isomorphic), and the same expanded shape (node objects, @list, @graph, value
 * objects), blank node labels aside and arrays as sets. Deliberate differences are in
 * jsonld-known-differences.txt.
 */
import jsonld from 'jsonld';
import { Connection } from '../../src/core/ledger/connection.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { toJsonLd } from '../../src/core/query/results/jsonld-writer.js';
import { canonicalLexical, isKnownDatatype } from '../../src/core/rdf/datatypes.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { isLedgraphError } from '../../src/core/errors.js';
import { defineSuite, type Outcome } from './harness.js';
import { compareIndexed, loadJsonLdManifest, loadKnownDifferences, notApplicable, parseNQuads, readSuiteFile, storedQuads, TESTS_BASE, type JsonLdTest } from './jsonld-suite.js';

/** The stored dataset of a test's input, written as JSON-LD. */
async function storedAsJsonLd(t: JsonLdTest): Promise<unknown> {
  const conn = new Connection(openMemoryStorage(), { indexingEnabled: false });
  const { ledger } = await conn.create('w3c-fromrdf');
  try {
    await conn.transact(ledger, parseRdfTxn(readSuiteFile(t.input), 'application/n-quads', 'insert', TESTS_BASE + t.input));
  } catch (e) {
    if (!(isLedgraphError(e) && e.message.startsWith('nothing to write'))) throw e;
  }
  const quads = await storedQuads(conn, ledger);
  return JSON.parse(await toJsonLd({ type: 'quads', quads: (async function* () { yield* quads; })() }));
}

/** A value's typed lexical form in canonical form (the engine stores known datatypes by value). */
function canonicalValue(v: Record<string, unknown>): Record<string, unknown> {
  const dt = v['@type'];
  if (typeof v['@value'] !== 'string' || typeof dt !== 'string' || !isKnownDatatype(dt)) return v;
  try { return { ...v, '@value': canonicalLexical(dt, v['@value']) }; } catch { return v; }
}

/** The expanded shape: blank node ids masked, typed values canonical, arrays sorted as sets. */
function shape(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(shape).map((s) => JSON.stringify(s)).sort().map((s) => JSON.parse(s) as unknown);
  if (typeof x !== 'object' || x === null) return x;
  const o = '@value' in x ? canonicalValue(x as Record<string, unknown>) : x as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) {
    const v = o[k];
    if (k === '@list') out[k] = (v as unknown[]).map(shape); // order matters in a list
    else if (k === '@id' && typeof v === 'string' && v.startsWith('_:')) out[k] = '_:';
    else out[k] = shape(v);
  }
  return out;
}

async function run(t: JsonLdTest): Promise<Outcome> {
  const skip = notApplicable(t);
  if (skip) return { status: 'skip', reason: skip };
  if (t.types.includes('NegativeEvaluationTest')) return { status: 'skip', reason: 'negative fromRdf tests need an rdfDirection option' };
  let actual: unknown;
  try {
    actual = await storedAsJsonLd(t);
  } catch (e) {
    return { status: 'fail', message: `insert refused: ${e instanceof Error ? e.message : String(e)}` };
  }
  const expected = JSON.parse(readSuiteFile(t.expect!)) as unknown;
  const toRdf = async (doc: unknown) => parseNQuads(await jsonld.toRDF(doc as jsonld.JsonLdDocument, { format: 'application/n-quads' }) as unknown as string);
  const datasetDiff = compareIndexed(await toRdf(expected), await toRdf(actual));
  if (datasetDiff) return { status: 'fail', message: `datasets differ: ${datasetDiff}` };
  const [e, a] = [JSON.stringify(shape(await jsonld.expand(expected as jsonld.JsonLdDocument))), JSON.stringify(shape(actual))];
  if (e !== a) return { status: 'fail', message: `shapes differ:\nexpected ${e}\nactual   ${a}` };
  return { status: 'pass' };
}

const tests = loadJsonLdManifest('fromRdf').map((t) => ({ ...t, folder: 'fromRdf' }));
defineSuite('jsonld-fromRdf', tests, run, loadKnownDifferences());
