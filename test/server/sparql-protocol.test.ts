/**
 * SPARQL as clients speak it, over real HTTP: SPARQLWrapper's format= defaults, HEAD on the query
 * endpoint, OPTIONS/405 with Allow on every route, the SPARQL Service Description, the per-ledger
 * dataset endpoint `/sparql/<ledger>` (query and update), the Graph Store Protocol's 201, RDF/XML
 * input and whole-dataset GET/PUT, and the write-side messages (time pins, /update's types).
 */
import { Parser } from 'n3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postText, startTestServer, type TestServer } from '../support/server.js';
import { expectError, json } from './helpers.js';

const EX = 'http://example.org/';
const SD = 'http://www.w3.org/ns/sparql-service-description#';
const CONSTRUCT = `PREFIX ex: <${EX}> CONSTRUCT { ?s ex:label ?n } WHERE { ?s ex:name ?n }`;
const SELECT = `PREFIX ex: <${EX}> SELECT ?n WHERE { ?s ex:name ?n } ORDER BY ?n`;

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
  await createLedger(srv, 'proto');
  const r = await postText(`${srv.api}/insert/proto`, 'application/trig',
    `<${EX}ana> <${EX}name> "Ana" . GRAPH <${EX}g1> { <${EX}ben> <${EX}name> "Ben" }`);
  expect(r.status).toBe(200);
});
afterAll(async () => { await srv?.close(); });

const q = (path: string, query: string, params = '') => `${srv.api}${path}?query=${encodeURIComponent(query)}${params}`;

/** The triples of a Turtle/N-Triples/TriG body, as [s, p, o] value triples. */
function parse(text: string, format = 'Turtle'): string[][] {
  return new Parser({ format }).parse(text).map((t) => [t.subject.value, t.predicate.value, t.object.value]);
}

describe('format= as SPARQLWrapper sends it', () => {
  it('format=xml on a graph result is RDF/XML, on SELECT SPARQL results XML', async () => {
    const g = await fetch(q('/query/proto', CONSTRUCT, '&format=xml&output=xml&results=xml'), { headers: { Accept: 'application/rdf+xml' } });
    expect(g.status).toBe(200);
    expect(g.headers.get('content-type')).toBe('application/rdf+xml');
    expect(await g.text()).toContain(`<rdf:Description rdf:about="${EX}ana">`);
    const s = await fetch(q('/query/proto', SELECT, '&format=xml'), { headers: { Accept: 'application/sparql-results+xml' } });
    expect(s.headers.get('content-type')).toBe('application/sparql-results+xml');
  });

  it('format=n3 and Accept text/n3 mean Turtle', async () => {
    for (const [params, headers] of [['&format=n3', {}], ['', { Accept: 'text/n3' }], ['', { Accept: 'text/rdf+n3' }]] as const) {
      const r = await fetch(q('/query/proto', CONSTRUCT, params), { headers });
      expect(r.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
      expect(parse(await r.text())).toEqual([[`${EX}ana`, `${EX}label`, 'Ana']]);
    }
  });

  it('a format= that cannot express the result leaves the choice to Accept', async () => {
    const r = await fetch(q('/query/proto', CONSTRUCT, '&format=csv'), { headers: { Accept: 'application/n-triples' } });
    expect(r.headers.get('content-type')).toBe('application/n-triples');
    const none = await fetch(q('/query/proto', CONSTRUCT, '&format=csv'), { headers: { Accept: 'text/csv' } });
    await expectError(none, 406, 'err:db/NotAcceptable');
  });
});

describe('HEAD, OPTIONS and 405', () => {
  it('HEAD on the query endpoint answers as GET without a body', async () => {
    const get = await fetch(q('/query/proto', SELECT));
    const head = await fetch(q('/query/proto', SELECT), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(await head.text()).toBe('');
    const sd = await fetch(`${srv.api}/sparql/proto`, { method: 'HEAD', headers: { Accept: 'text/turtle' } });
    expect([sd.status, sd.headers.get('content-type'), await sd.text()]).toEqual([200, 'text/turtle; charset=utf-8', '']);
  });

  it('OPTIONS answers 204 with Allow on every route, without --cors-enabled', async () => {
    const cases: [string, string][] = [
      ['/query/proto', 'GET, HEAD, POST, OPTIONS'],
      ['/query', 'GET, HEAD, POST, OPTIONS'],
      ['/update/proto', 'POST, OPTIONS'],
      ['/data/proto', 'GET, HEAD, POST, PUT, DELETE, OPTIONS'],
      ['/sparql/proto', 'GET, HEAD, POST, OPTIONS'],
    ];
    for (const [path, allow] of cases) {
      const r = await fetch(`${srv.api}${path}`, { method: 'OPTIONS' });
      expect([path, r.status, r.headers.get('allow')]).toEqual([path, 204, allow]);
    }
    const root = await fetch(`${srv.url}/health`, { method: 'OPTIONS' });
    expect([root.status, root.headers.get('allow')]).toEqual([204, 'GET, HEAD, OPTIONS']);
    expect((await fetch(`${srv.api}/no-such-route`, { method: 'OPTIONS' })).status).toBe(404);
  });

  it('OPTIONS carries Allow under --cors-enabled too', async () => {
    const cors = await startTestServer({ config: { corsEnabled: true } });
    try {
      const r = await fetch(`${cors.api}/query/x`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' } });
      expect([r.status, r.headers.get('allow'), r.headers.get('access-control-allow-origin')]).toEqual([204, 'GET, HEAD, POST, OPTIONS', '*']);
    } finally {
      await cors.close();
    }
  });

  it('a known route with a wrong method is 405 with Allow', async () => {
    const r = await fetch(`${srv.api}/update/proto`);
    expect(r.headers.get('allow')).toBe('POST, OPTIONS');
    await expectError(r, 405, 'err:db/MethodNotAllowed', 'GET is not allowed on /v1/ledgraph/update/proto');
    const del = await fetch(`${srv.api}/query/proto`, { method: 'DELETE' });
    expect(del.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    await expectError(del, 405, 'err:db/MethodNotAllowed');
    await expectError(await fetch(`${srv.api}/nothing-here`), 404, 'err:db/LedgerNotFound', 'no route for GET');
  });
});

describe('SPARQL Service Description', () => {
  it('GET of the query endpoint without a query describes it (Turtle by default)', async () => {
    const r = await fetch(`${srv.api}/query/proto`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    const t = parse(await r.text());
    const svc = t.find(([, p, o]) => p === `${'http://www.w3.org/1999/02/22-rdf-syntax-ns#'}type` && o === `${SD}Service`)![0];
    const of = (s: string, p: string) => t.filter(([a, b]) => a === s && b === SD + p).map(([, , o]) => o).sort();
    expect(of(svc!, 'endpoint')).toEqual([`${srv.api}/query/proto`]);
    expect(of(svc!, 'supportedLanguage')).toEqual([`${SD}SPARQL11Query`]);
    expect(of(svc!, 'resultFormat')).toContain('http://www.w3.org/ns/formats/SPARQL_Results_JSON');
    expect(of(svc!, 'resultFormat')).toHaveLength(10);
    expect(of(svc!, 'feature')).toEqual([]);
    const ds = of(svc!, 'defaultDataset')[0]!;
    const named = of(ds, 'namedGraph').flatMap((ng) => of(ng, 'name'));
    expect(named).toEqual([`${EX}g1`]);
  });

  it('answers JSON-LD by Accept, and the dataset endpoint adds SPARQL 1.1 Update', async () => {
    const r = await fetch(`${srv.api}/sparql/proto`, { headers: { Accept: 'application/ld+json' } });
    expect(r.headers.get('content-type')).toBe('application/ld+json');
    const doc = await r.json() as Record<string, unknown>[];
    const svc = doc.find((n) => (n['@type'] as string[] | undefined)?.includes(`${SD}Service`))!;
    expect(svc[`${SD}endpoint`]).toEqual([{ '@id': `${srv.api}/sparql/proto` }]);
    expect((svc[`${SD}supportedLanguage`] as { '@id': string }[]).map((l) => l['@id']).sort()).toEqual([`${SD}SPARQL11Query`, `${SD}SPARQL11Update`]);
  });

  it('lists BasicFederatedQuery when federation is allowed; 404 for a missing ledger', async () => {
    const fed = await startTestServer({ config: { federationAllow: ['http://127.0.0.1:1'] } });
    try {
      const t = parse(await (await fetch(`${fed.api}/query`)).text());
      expect(t.filter(([, p]) => p === `${SD}feature`).map(([, , o]) => o)).toEqual([`${SD}BasicFederatedQuery`]);
      await expectError(await fetch(`${fed.api}/query/missing`), 404, 'err:db/LedgerNotFound');
    } finally {
      await fed.close();
    }
  });
});

describe('/sparql/<ledger>: one URL for query and update', () => {
  const names = async (r: Response) => ((await json<{ results: { bindings: { n: { value: string } }[] } }>(r)).results.bindings.map((b) => b.n.value));

  it('queries by GET, form POST and direct POST', async () => {
    expect(await names(await fetch(q('/sparql/proto', SELECT)))).toEqual(['Ana']);
    expect(await names(await postText(`${srv.api}/sparql/proto`, 'application/x-www-form-urlencoded', `query=${encodeURIComponent(SELECT)}`))).toEqual(['Ana']);
    expect(await names(await postText(`${srv.api}/sparql/proto`, 'application/sparql-query', SELECT))).toEqual(['Ana']);
    const named = `PREFIX ex: <${EX}> SELECT ?n WHERE { GRAPH ?g { ?s ex:name ?n } }`;
    expect(await names(await fetch(q('/sparql/proto', named)))).toEqual(['Ben']);
  });

  it('updates by form POST and direct POST; GET with update= is refused', async () => {
    await createLedger(srv, 'proto2');
    const form = await postText(`${srv.api}/sparql/proto2`, 'application/x-www-form-urlencoded',
      `update=${encodeURIComponent(`INSERT DATA { <${EX}c> <${EX}name> "Cy" }`)}`);
    expect((await json<{ t: number }>(form)).t).toBe(1);
    const direct = await postText(`${srv.api}/sparql/proto2`, 'application/sparql-update', `DELETE DATA { <${EX}c> <${EX}name> "Cy" } ; INSERT DATA { <${EX}c> <${EX}name> "Cyd" }`);
    expect((await json<{ t: number }>(direct)).t).toBe(2);
    expect(await names(await fetch(q('/sparql/proto2', SELECT)))).toEqual(['Cyd']);
    await expectError(await fetch(`${srv.api}/sparql/proto2?update=${encodeURIComponent('CLEAR ALL')}`), 400, 'err:db/BadRequest', 'cannot be sent with GET');
  });
});

describe('Graph Store Protocol additions', () => {
  beforeAll(async () => { await createLedger(srv, 'gsp'); });
  const put = (path: string, type: string, body: string) => fetch(`${srv.api}${path}`, { method: 'PUT', headers: { 'Content-Type': type }, body });

  it('PUT that creates a graph is 201, replacing it 204; RDF/XML and JSON-LD are accepted', async () => {
    const G = encodeURIComponent(`${EX}x`);
    const xml = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="${EX}">
  <rdf:Description rdf:about="${EX}a"><ex:p>one</ex:p><ex:q rdf:resource="${EX}b"/></rdf:Description>
</rdf:RDF>`;
    expect((await put(`/data/gsp?graph=${G}`, 'application/rdf+xml', xml)).status).toBe(201);
    expect((await put(`/data/gsp?graph=${G}`, 'application/ld+json', JSON.stringify({ '@id': `${EX}a`, [`${EX}p`]: 'two' }))).status).toBe(204);
    const nt = await (await fetch(`${srv.api}/data/gsp?graph=${G}`, { headers: { Accept: 'application/n-triples' } })).text();
    expect(nt).toBe(`<${EX}a> <${EX}p> "two" .\n`);
    expect((await postText(`${srv.api}/data/gsp?graph=${encodeURIComponent(`${EX}y`)}`, 'application/rdf+xml', xml)).status).toBe(201);
    await expectError(await put(`/data/gsp?default`, 'application/rdf+xml', '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description></rdf:RDF>'), 400, 'err:db/BadRequest', 'invalid RDF/XML');
  });

  it('reads the whole dataset as N-Quads or TriG and replaces it with PUT', async () => {
    const nq = await fetch(`${srv.api}/data/gsp`, { headers: { Accept: 'application/n-quads' } });
    expect(nq.headers.get('content-type')).toBe('application/n-quads; charset=utf-8');
    expect((await nq.text()).split('\n').filter(Boolean).sort()).toEqual([
      `<${EX}a> <${EX}p> "one" <${EX}y> .`, `<${EX}a> <${EX}p> "two" <${EX}x> .`, `<${EX}a> <${EX}q> <${EX}b> <${EX}y> .`,
    ]);
    const trig = await fetch(`${srv.api}/data/gsp`);
    expect(trig.headers.get('content-type')).toBe('application/trig; charset=utf-8');
    expect(new Parser({ format: 'TriG' }).parse(await trig.text())).toHaveLength(3);
    const r = await put('/data/gsp', 'application/trig', `<${EX}d> <${EX}p> 1 . GRAPH <${EX}z> { <${EX}e> <${EX}p> 2 }`);
    expect(r.status).toBe(204);
    const after = (await (await fetch(`${srv.api}/data/gsp`, { headers: { Accept: 'application/n-quads' } })).text()).split('\n').filter(Boolean).sort();
    expect(after).toEqual([
      `<${EX}d> <${EX}p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
      `<${EX}e> <${EX}p> "2"^^<http://www.w3.org/2001/XMLSchema#integer> <${EX}z> .`,
    ]);
    expect((await fetch(`${srv.api}/data/gsp`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await fetch(`${srv.api}/data/gsp`, { headers: { Accept: 'application/n-quads' } })).text()).toBe('');
  });
});

describe('write messages', () => {
  it('a write to a time-pinned ledger says writes cannot target a past state', async () => {
    const r = await postText(`${srv.api}/update/proto@t:1`, 'application/sparql-update', `INSERT DATA { <${EX}a> <${EX}b> 1 }`);
    await expectError(r, 400, 'err:db/BadRequest', 'writes cannot target a past state: proto@t:1 is pinned in time; write to proto:main');
    const j = await postText(`${srv.api}/insert/proto:main@t:1`, 'application/json', JSON.stringify({ '@id': `${EX}a`, [`${EX}b`]: 1 }));
    await expectError(j, 400, 'err:db/BadRequest', 'writes cannot target a past state');
  });

  it('/update/<ledger> lists application/cypher as accepted; a Cypher read there is a 400', async () => {
    const r = await postText(`${srv.api}/update/proto`, 'text/plain', 'x');
    await expectError(r, 415, 'err:db/UnsupportedMediaType', 'application/json, application/ld+json, application/sparql-update, application/x-www-form-urlencoded, application/cypher');
    await expectError(await postText(`${srv.api}/update/proto`, 'application/cypher', 'MATCH (n) RETURN n'), 400, 'err:db/BadRequest', 'without writing clauses');
    const spec = await json<{ paths: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }> }>(await fetch(`${srv.url}/swagger.json`));
    expect(Object.keys(spec.paths['/v1/ledgraph/update/{ledger}']!.post.requestBody.content)).toContain('application/cypher');
  });
});

describe('/sparql/<ledger> under auth', () => {
  it('reads with read scope; an update through it needs write scope', async () => {
    const { token, signerA, DID_A } = await import('../auth/helpers.js');
    const sec = await startTestServer({ config: { dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A] } });
    try {
      const a = await signerA();
      const admin = await token(a, { 'ledgraph.ledger.write.all': true, 'ledgraph.ledger.read.all': true });
      const reader = await token(a, { 'ledgraph.ledger.read.ledgers': ['sec'] });
      const auth = (t: string) => ({ Authorization: `Bearer ${t}` });
      expect((await postText(`${sec.api}/create`, 'application/json', JSON.stringify({ ledger: 'sec' }), auth(admin))).status).toBe(201);
      const upd = `INSERT DATA { <${EX}s> <${EX}name> "S" }`;
      await expectError(await postText(`${sec.api}/sparql/sec`, 'application/sparql-update', upd, auth(reader)), 403, 'err:db/Forbidden');
      await expectError(await postText(`${sec.api}/sparql/sec`, 'application/x-www-form-urlencoded', `update=${encodeURIComponent(upd)}`, auth(reader)), 403, 'err:db/Forbidden');
      expect((await postText(`${sec.api}/sparql/sec`, 'application/sparql-update', upd, auth(admin))).status).toBe(200);
      const r = await fetch(`${sec.api}/sparql/sec?query=${encodeURIComponent(SELECT)}`, { headers: auth(reader) });
      expect((await json<{ results: { bindings: unknown[] } }>(r)).results.bindings).toHaveLength(1);
      await expectError(await fetch(`${sec.api}/sparql/sec?query=${encodeURIComponent(SELECT)}`), 401, 'err:db/Unauthorized');
    } finally {
      await sec.close();
    }
  });
});
