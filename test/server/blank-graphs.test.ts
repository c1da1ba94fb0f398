/**
 * Named graphs whose name is a blank node (JSON-LD `@graph` containers, `@graph` without `@id`,
 * TriG `_:g { … }`), over real HTTP with file storage: the graph name gets the ledger label of a
 * blank node (`_:lg<T>-<label>`), so it is the same node where it appears as a subject or object;
 * SPARQL `GRAPH ?g` binds it, N-Quads / TriG / JSON-LD write it as a blank node label (n3 parses
 * them back), the show view names it, updates reach it, and it survives a restart.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser as N3Parser } from 'n3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, postText, startTestServer, type TestServer } from '../support/server.js';

const EX = 'http://example.org/';
const CTX = { ex: EX, claims: { '@id': 'ex:claims', '@container': '@graph' } };

let dir: string;
let srv: TestServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ledgraph-blank-graphs-'));
  srv = await startTestServer({ config: { storagePath: dir } });
  await createLedger(srv, 'bg');
  const r1 = await postJson(`${srv.api}/insert/bg`, { '@context': CTX, '@id': 'ex:ana', claims: { '@id': 'ex:ana', 'ex:age': 34 } });
  expect(r1.status).toBe(200);
  const r2 = await postText(`${srv.api}/insert/bg`, 'application/trig', `_:g { <${EX}ben> <${EX}age> 40 }\n<${EX}ben> <${EX}says> _:g .`);
  expect(r2.status).toBe(200);
});
afterAll(async () => { await srv?.close(); });

async function select(query: string): Promise<Record<string, { type: string; value: string }>[]> {
  const r = await fetch(`${srv.api}/query/bg`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: query });
  expect(r.status).toBe(200);
  return ((await r.json()) as { results: { bindings: Record<string, { type: string; value: string }>[] } }).results.bindings;
}

async function get(path: string, accept: string): Promise<string> {
  const r = await fetch(`${srv.api}${path}`, { headers: { Accept: accept } });
  expect(r.status).toBe(200);
  return r.text();
}

describe('blank-node graph names', () => {
  it('are stored under the ledger label of the blank node, the same node as where it is an object', async () => {
    expect(await select(`SELECT ?g ?age WHERE { <${EX}ana> <${EX}claims> ?g . GRAPH ?g { <${EX}ana> <${EX}age> ?age } }`)).toEqual([
      { g: { type: 'bnode', value: 'lg1-b0' }, age: { type: 'literal', value: '34', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } },
    ]);
    expect(await select(`SELECT ?g ?s WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?s`)).toEqual([
      { g: { type: 'bnode', value: 'lg1-b0' }, s: { type: 'uri', value: `${EX}ana` } },
      { g: { type: 'bnode', value: 'lg2-g' }, s: { type: 'uri', value: `${EX}ben` } },
    ]);
    // The default graph holds only the references to the graphs.
    expect(await select(`SELECT ?s ?g WHERE { ?s ?p ?g } ORDER BY ?s`)).toEqual([
      { s: { type: 'uri', value: `${EX}ana` }, g: { type: 'bnode', value: 'lg1-b0' } },
      { s: { type: 'uri', value: `${EX}ben` }, g: { type: 'bnode', value: 'lg2-g' } },
    ]);
  });

  it('N-Quads, TriG and JSON-LD write blank graph labels that n3 and jsonld read back consistently', async () => {
    for (const [accept, format] of [['application/n-quads', 'N-Quads'], ['application/trig', 'TriG']] as const) {
      const quads = new N3Parser({ format }).parse(await get('/data/bg', accept));
      expect(quads).toHaveLength(4);
      const named = quads.filter((q) => q.graph.termType !== 'DefaultGraph');
      expect(named.map((q) => [q.graph.termType, q.subject.value]).sort()).toEqual([['BlankNode', `${EX}ana`], ['BlankNode', `${EX}ben`]]);
      // The graph of each fact is the blank node its subject points to in the default graph.
      for (const q of named) {
        const ref = quads.find((r) => r.graph.termType === 'DefaultGraph' && r.subject.value === q.subject.value)!;
        expect(ref.object.termType).toBe('BlankNode');
        expect(ref.object.value).toBe(q.graph.value);
      }
    }
    const doc = JSON.parse(await get('/data/bg', 'application/ld+json')) as Record<string, unknown>[];
    const graphs = doc.filter((n) => '@graph' in n);
    expect(graphs).toHaveLength(2);
    for (const g of graphs) expect(String(g['@id'])).toMatch(/^_:/);
    const ana = doc.find((n) => n['@id'] === `${EX}ana`)!;
    const anaGraph = graphs.find((g) => (g['@graph'] as Record<string, unknown>[])[0]!['@id'] === `${EX}ana`)!;
    expect(ana[`${EX}claims`]).toEqual([{ '@id': anaGraph['@id'] }]);
  });

  it('the show view names the graph by its label; the Service Description lists only IRI-named graphs', async () => {
    const show = await (await fetch(`${srv.api}/show/bg?commit=t:1`)).json() as { flakes: unknown[][] };
    expect(show.flakes).toEqual([['ex:ana', 'ex:claims', '_:lg1-b0', '@id', true], ['ex:ana', 'ex:age', 34, 'xsd:integer', true, { g: '_:lg1-b0' }]]);
    const sd = await get('/query/bg', 'application/n-triples');
    expect(sd).toContain('<http://www.w3.org/ns/sparql-service-description#defaultDataset>');
    expect(sd).not.toContain('namedGraph');
  });

  it('the JSON-LD query language binds a blank graph name with ["graph", "?g", …]', async () => {
    const r = await postJson(`${srv.api}/query/bg`, {
      '@context': { ex: EX }, select: ['?g', '?age'], where: [{ '@id': 'ex:ana', 'ex:claims': '?g' }, ['graph', '?g', { '@id': 'ex:ana', 'ex:age': '?age' }]],
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual([['_:lg1-b0', 34]]);
  });

  it('SPARQL and JSON-LD updates reach facts in a blank graph through a bound ?g', async () => {
    const u = await fetch(`${srv.api}/update/bg`, {
      method: 'POST', headers: { 'Content-Type': 'application/sparql-update' },
      body: `INSERT { GRAPH ?g { <${EX}ben> <${EX}checked> true } } WHERE { <${EX}ben> <${EX}says> ?g }`,
    });
    expect(u.status).toBe(200);
    expect(await select(`SELECT ?g WHERE { GRAPH ?g { <${EX}ben> <${EX}checked> true } }`)).toEqual([{ g: { type: 'bnode', value: 'lg2-g' } }]);
    const d = await postJson(`${srv.api}/update/bg`, {
      '@context': { ex: EX }, where: [{ '@id': 'ex:ben', 'ex:says': '?g' }, ['graph', '?g', { '@id': 'ex:ben', 'ex:checked': '?c' }]],
      delete: ['graph', '?g', { '@id': 'ex:ben', 'ex:checked': '?c' }],
    });
    expect(d.status).toBe(200);
    expect(await select(`SELECT ?g WHERE { GRAPH ?g { <${EX}ben> <${EX}checked> ?c } }`)).toEqual([]);
  });

  it('survive a restart over the same storage', async () => {
    await srv.server.close(2000);
    srv = await startTestServer({ config: { storagePath: dir } });
    expect(await select(`SELECT ?g ?age WHERE { <${EX}ana> <${EX}claims> ?g . GRAPH ?g { <${EX}ana> <${EX}age> ?age } }`)).toHaveLength(1);
    const quads = new N3Parser({ format: 'N-Quads' }).parse(await get('/data/bg', 'application/n-quads'));
    expect(quads.filter((q) => q.graph.termType === 'BlankNode')).toHaveLength(2);
  });
});
