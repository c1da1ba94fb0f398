/**
 * Python's SPARQL clients against a real Ledgraph server on a loopback port: SPARQLWrapper with its
 * defaults (format=xml, one URL for query and update) and rdflib (SPARQLUpdateStore, Graph Store
 * reads, SERVICE from rdflib's own engine). Needs Debian's python3-rdflib and python3-sparqlwrapper.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postText, startTestServer, type TestServer } from '../support/server.js';
import { runPython } from './python.js';

const EX = 'http://example.org/';
let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
  for (const l of ['sw', 'rl']) {
    await createLedger(srv, l);
    const r = await postText(`${srv.api}/insert/${l}`, 'application/trig', `<${EX}ana> <${EX}name> "Ana" ; <${EX}age> 34 . GRAPH <${EX}g> { <${EX}ben> <${EX}name> "Ben" }`);
    expect(r.status).toBe(200);
  }
});
afterAll(async () => { await srv?.close(); });

describe('SPARQLWrapper', () => {
  it('queries and updates through {api}/sparql/<ledger> with its defaults', async () => {
    const out = await runPython('sparqlwrapper_client.py', [`${srv.api}/sparql/sw`]);
    expect(out).toEqual({
      update: 200,
      select_json: ['Ana', 'Cy'],
      select_xml: ['Ana', 'Cy'],
      ask: true,
      construct_xml: ['Ana', 'Cy'],
      construct_turtle: 'text/turtle; charset=utf-8',
      construct_n3: 'text/turtle; charset=utf-8',
      describe_xml: ['Cy'],
    });
  });
});

describe('rdflib', () => {
  it('reads and writes through SPARQLUpdateStore, the graph store, and SERVICE', async () => {
    const out = await runPython('rdflib_client.py', [srv.api, 'rl']);
    expect(out).toEqual({
      query: ['Dee'],
      ask: true,
      triples: 1,
      default_graph: ['Ana'],
      gsp_default: ['Ana'],
      gsp_dataset_graphs: [`${EX}g`, `${EX}people`],
      service: [['blue', 34]],
    });
  });
});
