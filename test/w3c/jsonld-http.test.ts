/**
 * The W3C toRdf documents over real HTTP: every applicable positive test whose document needs no
 * preloaded context is POSTed to `/insert/<ledger>?base=<document URL>` on a real server, and then
 * everything the server writes out about those facts is parsed back by `n3` (RDF/XML, which n3
 * does not read, by oxigraph) and must be the stored dataset: graph store GET as N-Quads and TriG
 * (whole dataset), Turtle, N-Triples and RDF/XML (each graph), and SPARQL results (JSON and XML,
 * every binding rebuilt as an N-Quads line n3 must accept). A few negative tests check the 400 body and
 * that nothing was written.
 */
import { Parser as N3Parser } from 'n3';
import * as oxigraph from 'oxigraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, startTestServer, type TestServer } from '../support/server.js';
import { blankNode, defaultGraph, fromRdfJs, namedNode, type Quad, type Term } from '../../src/core/rdf/terms.js';
import { parseSparqlXml } from '../../src/core/query/results/sparql-xml.js';
import { BlankLabeler, termToNTriples } from '../../src/core/query/results/rdf-writers.js';
import { compareIndexed, loadJsonLdManifest, loadKnownDifferences, notApplicable, readSuiteFile, storedQuads, TESTS_BASE, type IndexedQuad } from './jsonld-suite.js';

type RdfJsTerm = { termType: string; value: string; language?: string; datatype?: { value: string } };
type RdfJsQuad = { subject: RdfJsTerm; predicate: RdfJsTerm; object: RdfJsTerm; graph: RdfJsTerm };

let srv: TestServer;
beforeAll(async () => { srv = await startTestServer(); });
afterAll(async () => { await srv?.close(); });

const known = loadKnownDifferences();
const all = loadJsonLdManifest('toRdf');
/** Positive, applicable, not a deliberate difference, and self-contained (no context URL, no expandContext). */
const positives = all.filter((t) => t.types.includes('PositiveEvaluationTest') && t.expect && !notApplicable(t) && !known.has(t.id)
  && t.option['expandContext'] === undefined && !/\.jsonld"/.test(readSuiteFile(t.input)));

function toQuads(raw: RdfJsQuad[], scope: string, graph?: Quad['graph']): Quad[] {
  const term = (t: RdfJsTerm): Term => (t.termType === 'BlankNode' ? blankNode(scope + t.value) : fromRdfJs(t) as Term);
  return raw.map((q) => ({
    subject: term(q.subject), predicate: namedNode(q.predicate.value), object: term(q.object),
    graph: graph ?? (q.graph.termType === 'DefaultGraph' ? defaultGraph : term(q.graph) as Quad['graph']),
  }));
}

/** RDF/XML cannot name some properties (an IRI must end in an XML name to be an element): that is a clear 400. */
const RDF_XML_LIMIT = /cannot be written as an RDF\/XML element name/;

async function get(path: string, accept: string): Promise<string> {
  const r = await fetch(`${srv.api}${path}`, { headers: { Accept: accept } });
  const text = await r.text();
  if (r.status === 400 && accept === 'application/rdf+xml' && RDF_XML_LIMIT.test(text)) return '';
  if (r.status !== 200) throw new Error(`GET ${path} (${accept}): ${r.status} ${text}`);
  return text;
}

/** A SPARQL JSON term as N-Quads text, for n3 to judge. */
function ntTerm(b: { type: string; value: string; 'xml:lang'?: string; datatype?: string }): string {
  if (b.type === 'uri') return `<${b.value}>`;
  if (b.type === 'bnode') return `_:${b.value}`;
  const lex = JSON.stringify(b.value);
  return b['xml:lang'] ? `${lex}@${b['xml:lang']}` : b.datatype ? `${lex}^^<${b.datatype}>` : lex;
}

describe('toRdf documents over HTTP: stored, then every output format parses back to the same dataset', () => {
  it(`${positives.length} documents`, async () => {
    const failures: string[] = [];
    let n = 0;
    for (const t of positives) {
      const name = `w3c-${t.id.replace(/^.*#/, '')}`;
      const check = (what: string, expected: Quad[], actual: Quad[]) => {
        const diff = compareIndexed(expected, actual);
        if (diff) failures.push(`${t.id} ${what}: ${diff.slice(0, 300)}`);
      };
      try {
        await createLedger(srv, name);
        const base = typeof t.option['base'] === 'string' ? t.option['base'] : TESTS_BASE + t.input;
        const r = await fetch(`${srv.api}/insert/${name}?base=${encodeURIComponent(base)}`, {
          method: 'POST', headers: { 'Content-Type': 'application/ld+json' }, body: readSuiteFile(t.input),
        });
        const body = await r.text();
        if (r.status !== 200 && !(r.status === 400 && body.includes('nothing to write'))) { failures.push(`${t.id} insert: ${r.status} ${body}`); continue; }
        const stored: Quad[] = (await storedQuads(srv.conn, `${name}:main`)).map(({ listIndex: _i, ...q }: IndexedQuad) => q);
        n++;
        const dataset = `/data/${name}`;
        check('N-Quads', stored, toQuads(new N3Parser({ format: 'N-Quads' }).parse(await get(dataset, 'application/n-quads')) as RdfJsQuad[], 'nq'));
        check('TriG', stored, toQuads(new N3Parser({ format: 'TriG' }).parse(await get(dataset, 'application/trig')) as RdfJsQuad[], 'trig'));
        const graphs = new Map<string, Quad['graph']>([['', defaultGraph]]);
        for (const q of stored) if (q.graph.termType === 'NamedNode') graphs.set(q.graph.value, q.graph);
        for (const [iri, g] of graphs) {
          const path = iri === '' ? `${dataset}?default` : `${dataset}?graph=${encodeURIComponent(iri)}`;
          const inGraph = stored.filter((q) => q.graph.termType === g.termType && q.graph.value === g.value);
          if (inGraph.length === 0) continue;
          check(`Turtle ${path}`, inGraph, toQuads(new N3Parser({ format: 'Turtle' }).parse(await get(path, 'text/turtle')) as RdfJsQuad[], 'ttl', g));
          check(`N-Triples ${path}`, inGraph, toQuads(new N3Parser({ format: 'N-Triples' }).parse(await get(path, 'application/n-triples')) as RdfJsQuad[], 'nt', g));
          const xml = await get(path, 'application/rdf+xml');
          if (xml !== '') check(`RDF/XML ${path}`, inGraph, toQuads(oxigraph.parse(xml, { format: 'application/rdf+xml' }) as unknown as RdfJsQuad[], 'xml', g));
        }
        const q = await fetch(`${srv.api}/query/${name}`, {
          method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' },
          body: 'SELECT ?s ?p ?o ?g WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }',
        });
        const json = await q.json() as { results: { bindings: Record<string, { type: string; value: string }>[] } };
        const lines = json.results.bindings.map((b) => `${ntTerm(b['s']!)} ${ntTerm(b['p']!)} ${ntTerm(b['o']!)} ${b['g'] ? ntTerm(b['g']) : ''} .`).join('\n');
        check('SPARQL results JSON', stored, toQuads(new N3Parser({ format: 'N-Quads' }).parse(lines) as RdfJsQuad[], 'srj'));
        const x = await fetch(`${srv.api}/query/${name}`, {
          method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+xml' },
          body: 'SELECT ?s ?p ?o ?g WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }',
        });
        const table = parseSparqlXml(await x.text());
        if (table.type !== 'bindings') throw new Error('SPARQL XML: expected bindings');
        const labeler = new BlankLabeler();
        const xmlLines = table.rows.map((b) => [b['s'], b['p'], b['o'], b['g']].filter((t) => t !== undefined).map((t) => termToNTriples(t!, labeler)).join(' ') + ' .').join('\n');
        check('SPARQL results XML', stored, toQuads(new N3Parser({ format: 'N-Quads' }).parse(xmlLines) as RdfJsQuad[], 'srx'));
      } catch (e) {
        failures.push(`${t.id}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(n).toBeGreaterThan(250);
  }, 600_000);
});

describe('negative toRdf documents over HTTP', () => {
  const negatives = all.filter((t) => t.types.includes('NegativeEvaluationTest') && !notApplicable(t)
    && ['protected term redefinition', 'invalid IRI mapping', 'invalid @id value', 'invalid value object', 'keyword redefinition'].includes(t.expectErrorCode!)).slice(0, 12);

  it.each(negatives.map((t) => [t.id.replace(/^.*#/, ''), t] as const))('%s: 400 naming the JSON-LD error code, nothing written', async (_id, t) => {
    const name = `neg-${t.id.replace(/^.*#/, '')}`;
    await createLedger(srv, name);
    const r = await fetch(`${srv.api}/insert/${name}?base=${encodeURIComponent(TESTS_BASE + t.input)}`, {
      method: 'POST', headers: { 'Content-Type': 'application/ld+json' }, body: readSuiteFile(t.input),
    });
    expect(r.status).toBe(400);
    const body = await r.json() as { error: string; '@type': string };
    expect(body['@type']).toBe('err:db/BadRequest');
    expect(body.error).toContain(t.expectErrorCode!);
    expect((await srv.conn.db(`${name}:main`)).t).toBe(0);
  });
});

describe('JSON-LD out over HTTP', () => {
  it('graph store GET writes stored list items as an ordered @list (jsonld.js fromRDF)', async () => {
    await createLedger(srv, 'lists');
    const ins = await postJson(`${srv.api}/insert/lists`, {
      '@context': { ex: 'http://example.org/' }, '@id': 'ex:s', 'ex:steps': { '@list': ['wake', 'coffee', { '@id': 'ex:work' }] }, 'ex:tag': 'x',
    });
    expect(ins.status).toBe(200);
    const doc = JSON.parse(await get('/data/lists?default', 'application/ld+json')) as unknown[];
    expect(doc).toEqual([{
      '@id': 'http://example.org/s',
      'http://example.org/steps': [{ '@list': [{ '@value': 'wake' }, { '@value': 'coffee' }, { '@id': 'http://example.org/work' }] }],
      'http://example.org/tag': [{ '@value': 'x' }],
    }]);
  });
});

describe('relative IRIs over HTTP', () => {
  it('are refused with 400 naming the value, or resolved against ?base= (RFC 3986)', async () => {
    await createLedger(srv, 'rel');
    const doc = JSON.stringify({ '@context': { '@vocab': 'http://example.org/' }, '@id': 'g', 'knows': { '@id': '../x' } });
    const refused = await fetch(`${srv.api}/insert/rel`, { method: 'POST', headers: { 'Content-Type': 'application/ld+json' }, body: doc });
    expect(refused.status).toBe(400);
    expect((await refused.json() as { error: string }).error).toBe('relative IRI "g": give "@base" in the context or the base request parameter, or write an absolute IRI');
    expect((await srv.conn.db('rel:main')).t).toBe(0);
    const bad = await fetch(`${srv.api}/insert/rel?base=relative/`, { method: 'POST', headers: { 'Content-Type': 'application/ld+json' }, body: doc });
    expect(bad.status).toBe(400);
    const ok = await fetch(`${srv.api}/insert/rel?base=${encodeURIComponent('http://a/bb/ccc/d;p?q')}`, { method: 'POST', headers: { 'Content-Type': 'application/ld+json' }, body: doc });
    expect(ok.status).toBe(200);
    expect(await get('/data/rel?default', 'application/n-triples')).toBe('<http://a/bb/ccc/g> <http://example.org/knows> <http://a/bb/x> .\n');
    const r = await postJson(`${srv.api}/update/rel?base=${encodeURIComponent('http://a/bb/ccc/d;p?q')}`, {
      '@context': { '@vocab': 'http://example.org/' }, where: { '@id': 'g', knows: '?x' }, insert: { '@id': '?x', 'label': 'x' },
    });
    expect(r.status).toBe(200);
    expect(await get('/data/rel?default', 'application/n-triples')).toContain('<http://a/bb/x> <http://example.org/label> "x" .');
    // Graph store PUT and Turtle bodies take the same parameter; without it nothing is written.
    const put = (q: string, type: string, body: string) => fetch(`${srv.api}/data/rel?graph=${encodeURIComponent('http://example.org/g')}${q}`, { method: 'PUT', headers: { 'Content-Type': type }, body });
    expect((await put('', 'application/ld+json', doc)).status).toBe(400);
    expect((await put('', 'text/turtle', '<a> <http://example.org/p> 1 .')).status).toBe(400);
    expect((await put(`&base=${encodeURIComponent('http://b/dir/')}`, 'text/turtle', '<a> <http://example.org/p> 1 .')).status).toBe(201);
    expect(await get(`/data/rel?graph=${encodeURIComponent('http://example.org/g')}`, 'application/n-triples'))
      .toBe('<http://b/dir/a> <http://example.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n');
  });
});

describe('values JSON-LD drops, over HTTP', () => {
  it('are not stored, and the receipt names each one in warnings (insert, graph store PUT)', async () => {
    await createLedger(srv, 'ill');
    const doc = { '@context': { ex: 'http://example.org/' }, '@id': 'ex:a', 'ex:p': [1, { '@id': 'ex:b c' }], 'ex:l': { '@value': 'x', '@language': 'a b' } };
    const r = await postJson(`${srv.api}/insert/ill`, doc);
    expect(r.status).toBe(200);
    expect((await r.json() as { warnings: string[] }).warnings).toEqual([
      'ill-formed language tag "a b": 1 statement not stored (JSON-LD drops it)',
      'ill-formed IRI "http://example.org/b c": 1 statement not stored (JSON-LD drops it)',
    ]);
    expect(await get('/data/ill?default', 'application/n-triples')).toBe('<http://example.org/a> <http://example.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n');
    // A clean write has no warnings key.
    expect(await (await postJson(`${srv.api}/insert/ill`, { '@context': { ex: 'http://example.org/' }, '@id': 'ex:a', 'ex:q': 2 })).json()).not.toHaveProperty('warnings');
    const put = await fetch(`${srv.api}/data/ill?graph=${encodeURIComponent('http://example.org/g')}`, {
      method: 'PUT', headers: { 'Content-Type': 'application/ld+json' }, body: JSON.stringify(doc),
    });
    expect(put.status).toBe(201);
    expect((await put.json() as { warnings: string[] }).warnings).toHaveLength(2);
    expect(await get(`/data/ill?graph=${encodeURIComponent('http://example.org/g')}`, 'application/n-triples'))
      .toBe('<http://example.org/a> <http://example.org/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n');
    // Nothing storable left: a 400 that names what was dropped, nothing written.
    const t = (await srv.conn.db('ill:main')).t;
    const none = await postJson(`${srv.api}/insert/ill`, { '@id': 'http://example.org/a b', 'http://example.org/p': 1 });
    expect(none.status).toBe(400);
    expect((await none.json() as { error: string }).error)
      .toBe('nothing to write: the transaction contains no facts; ill-formed IRI "http://example.org/a b": 1 statement not stored (JSON-LD drops it)');
    expect((await srv.conn.db('ill:main')).t).toBe(t);
  });
});
