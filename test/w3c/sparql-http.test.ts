/**
 * The W3C SPARQL 1.1 query and update evaluation suites once more, end to end over HTTP in
 * SPARQL 1.1 Protocol shape against a real server (loopback, file storage): each test's dataset
 * is inserted as N-Quads through `POST /insert/<ledger>`, queries go to `POST /query/<ledger>` as
 * `application/sparql-query` with the Accept of the expected result's format (the response is
 * parsed back with Ledgraph's readers), updates go to `POST /update/<ledger>` as
 * `application/sparql-update`. The file's IRI is the base, sent as a BASE declaration when the
 * text has none. Pass counts must equal the in-process suites (sparql-query, sparql-update).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { writeNQuads } from '../../src/core/query/results/rdf-writers.js';
import { parseCsv, parseTsv } from '../../src/core/query/results/sparql-csv-tsv.js';
import { parseSparqlJson } from '../../src/core/query/results/sparql-json.js';
import { parseSparqlXml } from '../../src/core/query/results/sparql-xml.js';
import type { Quad } from '../../src/core/rdf/terms.js';
import { sparqlPrologue } from '../../src/server/routes/query.js';
import { createLedger, postText, startTestServer, type TestServer } from '../support/server.js';
import { compareDatasets, compareTables, csvToTable, type OrderSpec } from './compare.js';
import { datasetOf, loadDataset } from './engine-adapter.js';
import { queryShape, readExpected } from './expected.js';
import { defineSuite, type Outcome } from './harness.js';
import { iriOf, loadManifest, readW3c, w3cAvailable, type DatasetSpec, type W3cTest } from './manifest.js';
import { parseRdfText } from './rdf-files.js';

let srv: TestServer;
let seq = 0;

/** A fresh ledger holding `quads`, loaded over HTTP as N-Quads. */
async function ledgerWith(quads: Quad[]): Promise<string> {
  const id = `w3c${seq++}`;
  await createLedger(srv, id);
  if (quads.length) {
    let text = '';
    for await (const c of writeNQuads({ type: 'quads', quads: (async function* () { yield* quads; })() })) text += c;
    const r = await postText(`${srv.api}/insert/${id}`, 'application/n-quads', text);
    if (r.status !== 200) throw new Error(`loading the dataset failed: ${r.status} ${await r.text()}`);
  }
  return id;
}

/** The text with the file's IRI as BASE, unless it declares one (what the in-process runner passes as baseIri). */
function withBase(text: string, iri: string): string {
  return sparqlPrologue(text).base ? text : `BASE <${iri}>\n${text}`;
}

const ACCEPT: Record<string, string> = {
  srj: 'application/sparql-results+json',
  srx: 'application/sparql-results+xml',
  tsv: 'text/tab-separated-values',
  csv: 'text/csv',
};

async function runQueryTest(t: W3cTest): Promise<Outcome> {
  const queryIri = t.query!;
  const text = readW3c(queryIri);
  const shape = queryShape(text, queryIri);
  const expected = readExpected(t.result!, shape.form);
  const ds = t.dataset!;
  // Files named by FROM / FROM NAMED become named graphs of the ledger under their IRIs.
  const fromIris = [...text.matchAll(/\bFROM\s+(?:NAMED\s+)?<([^>]*)>/gi)].map((m) => new URL(m[1]!, queryIri).href);
  const ledger = await ledgerWith(loadDataset(ds, fromIris));
  const ext = t.result!.replace(/^.*\./, '').toLowerCase();
  const graph = expected.kind === 'graph';
  const accept = graph ? 'application/n-triples' : ACCEPT[ext] ?? 'application/sparql-results+json';
  const r = await postText(`${srv.api}/query/${ledger}`, 'application/sparql-query', withBase(text, queryIri), { Accept: accept });
  const body = await r.text();
  if (r.status !== 200) return { status: 'fail', message: `HTTP ${r.status}: ${body}` };
  let diff: string | undefined;
  if (expected.kind === 'graph') {
    diff = compareDatasets(expected.quads, parseRdfText(body, { format: 'N-Triples', baseIri: queryIri }));
  } else {
    const order: OrderSpec = shape.orderVars ? { tieVars: shape.orderVars } : expected.kind === 'table' && expected.indexed ? 'strict' : undefined;
    if (expected.kind === 'csv') {
      if (!/\r\n$/.test(body)) return { status: 'fail', message: 'CSV output does not end with CRLF' };
      diff = compareTables(csvToTable(expected.csv), csvToTable(parseCsv(body)), { order, lax: t.laxCardinality });
    } else {
      const actual = ext === 'srx' ? parseSparqlXml(body) : ext === 'tsv' ? parseTsv(body) : parseSparqlJson(body);
      diff = compareTables(expected.table, actual, { order, lax: t.laxCardinality });
    }
  }
  return diff === undefined ? { status: 'pass' } : { status: 'fail', message: diff };
}

async function runUpdateTest(t: W3cTest): Promise<Outcome> {
  const empty: DatasetSpec = { data: [], graphData: [] };
  const ledger = await ledgerWith(loadDataset(t.dataset ?? empty));
  const r = await postText(`${srv.api}/update/${ledger}`, 'application/sparql-update', withBase(readW3c(t.query!), t.query!));
  if (r.status !== 200) return { status: 'fail', message: `HTTP ${r.status}: ${await r.text()}` };
  const actual = await datasetOf(await srv.conn.db(`${ledger}:main`));
  const diff = compareDatasets(loadDataset(t.resultDataset ?? empty), actual);
  return diff === undefined ? { status: 'pass' } : { status: 'fail', message: diff };
}

if (!w3cAvailable()) {
  describe('sparql-http', () => { it.skip('W3C test data not found (set LEDGRAPH_W3C_DIR)', () => {}); });
} else {
  beforeAll(async () => { srv = await startTestServer({ config: { queryTimeoutMs: 15_000 } }); });
  afterAll(async () => { await srv?.close(); });
  const all = loadManifest(iriOf('sparql11/manifest.ttl'));
  defineSuite('sparql-http-query', all.filter((t) => t.type === 'QueryEvaluationTest' || t.type === 'CSVResultFormatTest'), runQueryTest);
  defineSuite('sparql-http-update', all.filter((t) => t.type === 'UpdateEvaluationTest'), runUpdateTest);
}
