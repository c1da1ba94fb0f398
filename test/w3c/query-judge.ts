/**
 * How a W3C query evaluation test is judged, whatever ran the query: the expected file is read,
 * the actual result is taken in the expected file's format (so Ledgraph's serialisers are tested
 * against the official files too) and compared. The Node suite (sparql-query.test.ts) hands it the
 * engine's QueryResult; the Chromium run (e2e/w3c-case.js) the serialisations the browser build
 * produced. Both are judged here, the same way.
 */
import type { QueryResult } from '../../src/core/query/results/types.js';
import type { Quad } from '../../src/core/rdf/terms.js';
import { resultToTable, toSparqlJson, parseSparqlJson, type ResultTable } from '../../src/core/query/results/sparql-json.js';
import { parseSparqlXml, toSparqlXml } from '../../src/core/query/results/sparql-xml.js';
import { parseCsv, parseTsv, toCsv, toTsv } from '../../src/core/query/results/sparql-csv-tsv.js';
import { compareDatasets, compareTables, csvToTable, type OrderSpec } from './compare.js';
import { queryShape, readExpected } from './expected.js';
import type { Outcome } from './harness.js';
import { iriOf, loadManifest, readW3c, type W3cTest } from './manifest.js';

/** The actual result of a query, as the judge asks for it. */
export interface ActualResult {
  /** `quads` for CONSTRUCT/DESCRIBE, else solutions or a boolean. */
  kind: 'quads' | 'table';
  quads(): Promise<Quad[]>;
  /** The result written as `ext` (srj, tsv, srx, csv) and read back; any other ext: as a table directly. */
  text(ext: 'srj' | 'tsv' | 'srx' | 'csv'): Promise<string>;
  table(): Promise<ResultTable>;
}

/** An ActualResult over the engine's own QueryResult (one serialisation per judge call). */
export function actualOf(result: QueryResult): ActualResult {
  return {
    kind: result.type === 'quads' ? 'quads' : 'table',
    async quads() {
      if (result.type !== 'quads') throw new Error(`expected a graph, got a ${result.type} result`);
      const out: Quad[] = [];
      for await (const q of result.quads) out.push(q);
      return out;
    },
    async text(ext) {
      if (result.type === 'quads') throw new Error('expected solutions or a boolean, got a graph');
      return ext === 'srj' ? toSparqlJson(result) : ext === 'tsv' ? toTsv(result) : ext === 'srx' ? toSparqlXml(result) : toCsv(result);
    },
    async table() {
      if (result.type === 'quads') throw new Error('expected solutions or a boolean, got a graph');
      return resultToTable(result);
    },
  };
}

/** Read back the serialisation of the expected file's format. */
async function viaFormat(actual: ActualResult, expectedFile: string): Promise<ResultTable> {
  const ext = expectedFile.replace(/^.*\./, '');
  if (actual.kind === 'quads') throw new Error('expected solutions or a boolean, got a graph');
  if (ext === 'srj') return parseSparqlJson(await actual.text('srj'));
  if (ext === 'tsv') return parseTsv(await actual.text('tsv'));
  if (ext === 'srx') return parseSparqlXml(await actual.text('srx'));
  return actual.table();
}

/** Judge one QueryEvaluationTest / CSVResultFormatTest. */
export async function judgeQuery(t: W3cTest, actual: ActualResult): Promise<Outcome> {
  const queryIri = t.query!;
  const shape = queryShape(readW3c(queryIri), queryIri);
  const expected = readExpected(t.result!, shape.form);
  let diff: string | undefined;
  if (expected.kind === 'graph') {
    if (actual.kind !== 'quads') return { status: 'fail', message: 'expected a graph, got solutions or a boolean' };
    diff = compareDatasets(expected.quads, await actual.quads());
  } else {
    const order: OrderSpec = shape.orderVars ? { tieVars: shape.orderVars } : expected.kind === 'table' && expected.indexed ? 'strict' : undefined;
    if (expected.kind === 'csv') {
      if (actual.kind === 'quads') return { status: 'fail', message: 'expected solutions, got a graph' };
      const csvText = await actual.text('csv');
      if (!/\r\n$/.test(csvText)) return { status: 'fail', message: 'CSV output does not end with CRLF' };
      diff = compareTables(csvToTable(expected.csv), csvToTable(parseCsv(csvText)), { order, lax: t.laxCardinality });
    } else {
      diff = compareTables(expected.table, await viaFormat(actual, t.result!), { order, lax: t.laxCardinality });
    }
  }
  return diff === undefined ? { status: 'pass' } : { status: 'fail', message: diff };
}

/** The tests of the query suite (run in Node by sparql-query.test.ts, in Chromium by e2e/w3c-case.js). */
export function queryTests(): W3cTest[] {
  return loadManifest(iriOf('sparql11/manifest.ttl'))
    .filter((t) => t.type === 'QueryEvaluationTest' || t.type === 'CSVResultFormatTest');
}
