/**
 * SPARQL 1.1 Federated Query between two real servers on loopback ports: SERVICE and SERVICE
 * SILENT, off by default and allowed per URL prefix (--federation-allow), with the query's fuel and
 * timeout applying to the remote part, and results streamed from the remote answer; and LOAD <url>
 * behind the same allow-list.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postText, startTestServer, type TestServer } from '../support/server.js';
import { expectError, json } from '../server/helpers.js';

const EX = 'http://example.org/';
let remote: TestServer;
let local: TestServer;
let off: TestServer;
let slow: Server;
let slowUrl: string;

type Bindings = { results: { bindings: Record<string, { value: string }>[] } };
const rows = async (r: Response, vars: string[]) => (await json<Bindings>(r)).results.bindings.map((b) => vars.map((v) => b[v]?.value ?? '-').join(' '));
const sparql = (srv: TestServer, ledger: string, q: string, headers: Record<string, string> = {}) =>
  postText(`${srv.api}/query/${ledger}`, 'application/sparql-query', q, headers);

beforeAll(async () => {
  remote = await startTestServer();
  await createLedger(remote, 'people');
  expect((await postText(`${remote.api}/insert/people`, 'text/turtle',
    `<${EX}ana> <${EX}name> "Ana" ; <${EX}age> 34 . <${EX}ben> <${EX}name> "Ben"@en . <${EX}caro> <${EX}name> "Caro" .`)).status).toBe(200);
  // A SPARQL endpoint that answers slowly: headers, then (on /first) one binding, then nothing for 5 s.
  slow = createServer((req, res) => {
    if (req.url?.startsWith('/docs/')) {
      // JSON-LD documents for LOAD: relative references resolve against the document's URL.
      const bad = req.url === '/docs/bad.jsonld';
      res.writeHead(200, { 'Content-Type': 'application/ld+json' });
      res.end(JSON.stringify(bad
        ? { '@context': [{ name: { '@id': `${EX}name`, '@protected': true } }, { name: `${EX}other` }], '@id': 'x', name: 'X' }
        : { '@context': { '@vocab': EX, knows: { '@type': '@id' } }, '@id': 'ana', name: 'Ana', knows: '../people/ben' }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/sparql-results+json' });
    res.write('{"head":{"vars":["x"]},"results":{"bindings":[');
    if (req.url === '/first') res.write('{"x":{"type":"literal","value":"1"}}');
    const t = setTimeout(() => res.end(']}}'), 5000);
    req.on('close', () => clearTimeout(t));
  });
  await new Promise<void>((ok) => slow.listen(0, '127.0.0.1', ok));
  slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  local = await startTestServer({ config: { federationAllow: [`${remote.url}/v1/ledgraph/sparql`, `${remote.url}/v1/ledgraph/data`, slowUrl], queryTimeoutMs: 2500 } });
  await createLedger(local, 'teams');
  expect((await postText(`${local.api}/insert/teams`, 'text/turtle',
    `<${EX}ana> <${EX}team> "blue" . <${EX}ben> <${EX}team> "red" . <${EX}dan> <${EX}team> "green" .`)).status).toBe(200);
  off = await startTestServer();
  await createLedger(off, 'x');
});
afterAll(async () => {
  await Promise.all([remote?.close(), local?.close(), off?.close()]);
  slow?.closeAllConnections();
  await new Promise((ok) => slow?.close(ok));
});

describe('SERVICE', () => {
  it('joins local data with a remote endpoint', async () => {
    const endpoint = `${remote.api}/sparql/people`;
    const q = `SELECT ?s ?team ?name WHERE { ?s <${EX}team> ?team SERVICE <${endpoint}> { ?s <${EX}name> ?name } } ORDER BY ?s`;
    expect(await rows(await sparql(local, 'teams', q), ['s', 'team', 'name'])).toEqual([`${EX}ana blue Ana`, `${EX}ben red Ben`]);
    // The remote answer keeps language tags and datatypes.
    const typed = await json<Bindings>(await sparql(local, 'teams', `SELECT ?n ?a { SERVICE <${endpoint}> { ?s <${EX}name> ?n OPTIONAL { ?s <${EX}age> ?a } } } ORDER BY ?n`));
    expect(typed.results.bindings).toEqual([
      { n: { type: 'literal', value: 'Ana' }, a: { type: 'literal', value: '34', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } },
      { n: { type: 'literal', value: 'Caro' } },
      { n: { type: 'literal', value: 'Ben', 'xml:lang': 'en' } },
    ]);
  });

  it('is off by default and limited to the allowed prefixes', async () => {
    const q = (url: string, silent = '') => `SELECT * { SERVICE ${silent} <${url}> { ?s ?p ?o } }`;
    await expectError(await sparql(off, 'x', q(`${remote.api}/sparql/people`)), 400, 'err:db/BadRequest', 'federation is off on this server');
    await expectError(await sparql(local, 'teams', q(`${remote.api}/query/people`)), 400, 'err:db/BadRequest', 'matches no --federation-allow prefix');
    // SILENT does not open a door: a refused endpoint under SILENT is the empty solution.
    expect(await rows(await sparql(local, 'teams', q(`${remote.api}/query/people`, 'SILENT')), ['s'])).toEqual(['-']);
  });

  it('SERVICE SILENT turns a failing endpoint into the empty solution; without SILENT it is a 502', async () => {
    const bad = `${remote.api}/sparql/nope`;
    await expectError(await sparql(local, 'teams', `SELECT * { SERVICE <${bad}> { ?s ?p ?o } }`), 502, 'err:db/BadGateway', `SERVICE <${bad}> failed: status 404`);
    const q = `SELECT ?s ?team ?o { ?s <${EX}team> ?team SERVICE SILENT <${bad}> { ?s <${EX}name> ?o } } ORDER BY ?s`;
    expect(await rows(await sparql(local, 'teams', q), ['s', 'team', 'o'])).toEqual([`${EX}ana blue -`, `${EX}ben red -`, `${EX}dan green -`]);
  });

  it('fuel counts remote solutions, and the query timeout stops a slow endpoint (SILENT too)', async () => {
    const endpoint = `${remote.api}/sparql/people`;
    const r = await sparql(local, 'teams', `SELECT * { SERVICE <${endpoint}> { ?s <${EX}name> ?n } }`, { 'Ledgraph-Max-Fuel': '2' });
    await expectError(r, 400, 'err:db/BadRequest', 'fuel limit exceeded');
    const t0 = Date.now();
    await expectError(await sparql(local, 'teams', `SELECT * { SERVICE SILENT <${slowUrl}/nothing> { ?x ?p ?o } }`), 408, 'err:db/Timeout');
    // The slow endpoint would answer at 5 s; the 2.5 s query timeout cuts it off.
    expect(Date.now() - t0).toBeLessThan(4800);
  });

  it('streams: the first remote solution arrives before the remote answer is complete', async () => {
    // LIMIT 1 needs only the first binding; the slow endpoint sends it at once and holds the rest.
    const t0 = Date.now();
    const r = await sparql(local, 'teams', `SELECT ?x { SERVICE <${slowUrl}/first> { ?x ?p ?o } } LIMIT 1`);
    expect(await rows(r, ['x'])).toEqual(['1']);
    expect(Date.now() - t0).toBeLessThan(2500);
  });
});

describe('LOAD <url>', () => {
  const update = (srv: TestServer, ledger: string, u: string) => postText(`${srv.api}/update/${ledger}`, 'application/sparql-update', u);
  const names = async (srv: TestServer, ledger: string, q: string) => rows(await sparql(srv, ledger, q), ['s', 'n']);

  it('loads a document from another server into a graph, or as the document places it', async () => {
    await createLedger(local, 'loaded');
    const r = await update(local, 'loaded', `LOAD <${remote.api}/data/people?default> INTO GRAPH <${EX}people>`);
    expect(r.status, await r.clone().text()).toBe(200);
    expect(await names(local, 'loaded', `SELECT ?s ?n { GRAPH <${EX}people> { ?s <${EX}name> ?n } } ORDER BY ?n`))
      .toEqual([`${EX}ana Ana`, `${EX}caro Caro`, `${EX}ben Ben`]);
    // The whole dataset as TriG (the remote's default graph lands in the default graph), twice in one request.
    await postText(`${remote.api}/insert/people`, 'application/trig', `GRAPH <${EX}extra> { <${EX}eve> <${EX}name> "Eve" }`);
    const both = await update(local, 'loaded', `LOAD <${remote.api}/data/people> ; LOAD SILENT <${remote.api}/data/nope>`);
    expect(both.status, await both.clone().text()).toBe(200);
    expect(await names(local, 'loaded', `SELECT ?s ?n { GRAPH <${EX}extra> { ?s <${EX}name> ?n } }`)).toEqual([`${EX}eve Eve`]);
    expect(await names(local, 'loaded', `SELECT ?s ?n { ?s <${EX}name> ?n } ORDER BY ?n`)).toHaveLength(3);
  });

  it('expands a JSON-LD document through jsonld.js, resolving relative references against its URL', async () => {
    await createLedger(local, 'jsonld-load');
    const r = await update(local, 'jsonld-load', `LOAD <${slowUrl}/docs/a.jsonld> INTO GRAPH <${EX}g>`);
    expect(r.status, await r.clone().text()).toBe(200);
    expect(await rows(await sparql(local, 'jsonld-load', `SELECT ?s ?o { GRAPH <${EX}g> { ?s <${EX}knows> ?o } }`), ['s', 'o']))
      .toEqual([`${slowUrl}/docs/ana ${slowUrl}/people/ben`]);
    await expectError(await update(local, 'jsonld-load', `LOAD <${slowUrl}/docs/bad.jsonld>`), 400, 'err:db/BadRequest', 'protected term redefinition');
  });

  it('is refused outside the allow-list and when federation is off; a failed LOAD is 502, SILENT drops it', async () => {
    await expectError(await update(off, 'x', `LOAD <${remote.api}/data/people?default>`), 400, 'err:db/BadRequest', 'federation is off on this server');
    await expectError(await update(local, 'teams', `LOAD <${remote.api}/query/people>`), 400, 'err:db/BadRequest', 'matches no --federation-allow prefix');
    await expectError(await update(local, 'teams', `LOAD <${remote.api}/data/nope?default>`), 502, 'err:db/BadGateway', 'failed: status 404');
    const silent = await update(local, 'teams', `LOAD SILENT <${remote.api}/query/people> ; INSERT DATA { <${EX}zed> <${EX}team> "grey" }`);
    expect(silent.status).toBe(200);
    expect(await rows(await sparql(local, 'teams', `SELECT ?t { <${EX}zed> <${EX}team> ?t }`), ['t'])).toEqual(['grey']);
  });
});
