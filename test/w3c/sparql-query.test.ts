/**
 * W3C SPARQL 1.1 query evaluation tests (QueryEvaluationTest, including the json-res and TSV
 * tests) and the CSV result format tests. The actual result is written with Ledgraph's serialiser
 * for the expected file's format and read back before comparison, so the result formats are
 * tested against the official expected files too.
 */
import { describe, it } from 'vitest';
import type { QueryResult } from '../../src/core/query/results/types.js';
import { resultToTable, toSparqlJson, parseSparqlJson, type ResultTable } from '../../src/core/query/results/sparql-json.js';
import { parseSparqlXml, toSparqlXml } from '../../src/core/query/results/sparql-xml.js';
import { parseCsv, parseTsv, toCsv, toTsv } from '../../src/core/query/results/sparql-csv-tsv.js';
import { compareDatasets, compareTables, csvToTable, type OrderSpec } from './compare.js';
import { queryUnavailable, runQuery } from './engine-adapter.js';
import { queryShape, readExpected } from './expected.js';
import { defineSuite, type Outcome } from './harness.js';
import { iriOf, loadManifest, readW3c, w3cAvailable, type W3cTest } from './manifest.js';

/** Round-trip a SELECT/ASK result through the serialisation of the expected file's format. */
async function viaFormat(result: QueryResult, expectedFile: string): Promise<ResultTable> {
  const ext = expectedFile.replace(/^.*\./, '');
  if (result.type === 'quads') throw new Error('expected solutions or a boolean, got a graph');
  if (ext === 'srj') return parseSparqlJson(await toSparqlJson(result));
  if (ext === 'tsv') return parseTsv(await toTsv(result));
  if (ext === 'srx') return parseSparqlXml(await toSparqlXml(result));
  return resultToTable(result);
}

async function run(t: W3cTest): Promise<Outcome> {
  const unavailable = await queryUnavailable('run');
  if (unavailable) return { status: 'skip', reason: unavailable };
  const queryIri = t.query!;
  const shape = queryShape(readW3c(queryIri), queryIri);
  const expected = readExpected(t.result!, shape.form);
  const result = await runQuery(queryIri, t.dataset!);
  let diff: string | undefined;
  if (expected.kind === 'graph') {
    if (result.type !== 'quads') return { status: 'fail', message: `expected a graph, got a ${result.type} result` };
    const quads = [];
    for await (const q of result.quads) quads.push(q);
    diff = compareDatasets(expected.quads, quads);
  } else {
    const order: OrderSpec = shape.orderVars ? { tieVars: shape.orderVars } : expected.kind === 'table' && expected.indexed ? 'strict' : undefined;
    if (expected.kind === 'csv') {
      if (result.type === 'quads') return { status: 'fail', message: 'expected solutions, got a graph' };
      const csvText = await toCsv(result);
      if (!/\r\n$/.test(csvText)) return { status: 'fail', message: 'CSV output does not end with CRLF' };
      diff = compareTables(csvToTable(expected.csv), csvToTable(parseCsv(csvText)), { order, lax: t.laxCardinality });
    } else {
      diff = compareTables(expected.table, await viaFormat(result, t.result!), { order, lax: t.laxCardinality });
    }
  }
  return diff === undefined ? { status: 'pass' } : { status: 'fail', message: diff };
}

if (!w3cAvailable()) {
  describe('sparql-query', () => { it.skip('W3C test data not found (set LEDGRAPH_W3C_DIR)', () => {}); });
} else {
  const tests = loadManifest(iriOf('sparql11/manifest.ttl'))
    .filter((t) => t.type === 'QueryEvaluationTest' || t.type === 'CSVResultFormatTest');
  defineSuite('sparql-query', tests, run);
}
