/** The Graph Store Protocol on /data/<ledger...> over real HTTP (http-api.md §4.2; docs/http.md). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postText, startTestServer, type TestServer } from '../support/server.js';
import { EX, expectError, iri, json, lit, triples } from './helpers.js';

let srv: TestServer;
const G = encodeURIComponent(`${EX}g`);
let t1Commit = '';

beforeAll(async () => {
  srv = await startTestServer();
  await createLedger(srv, 'gs/one');
  t1Commit = (await json<{ commit_id: string }>(await postText(`${srv.api}/insert/gs/one`, 'application/trig',
    `@prefix ex: <${EX}> . ex:a ex:name "Ann" ; ex:knows ex:b . GRAPH ex:g { ex:b ex:age 5 }`))).commit_id;
  await postText(`${srv.api}/insert/gs/one`, 'text/turtle', `<${EX}c> <${EX}name> "Cy"@en .`);
});
afterAll(async () => { await srv.close(); });

function put(path: string, contentType: string, body: string): Promise<Response> {
  return fetch(`${srv.api}${path}`, { method: 'PUT', headers: { 'Content-Type': contentType }, body });
}

describe('GET and HEAD', () => {
  it('answers Turtle by default, with the prefixes it uses', async () => {
    const r = await fetch(`${srv.api}/data/gs/one?default`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    expect(r.headers.get('vary')).toBe('Accept');
    const text = await r.text();
    expect(text).toBe(`@prefix ex: <${EX}>.\n\nex:a ex:name "Ann";\n    ex:knows ex:b.\nex:c ex:name "Cy"@en.\n`);
  });

  it('negotiates N-Triples, JSON-LD and RDF/XML, and 406 otherwise', async () => {
    const nt = await fetch(`${srv.api}/data/gs/one?graph=${G}`, { headers: { Accept: 'application/n-triples' } });
    expect(nt.headers.get('content-type')).toBe('application/n-triples; charset=utf-8');
    expect(await nt.text()).toBe(`${iri('b')} ${iri('age')} ${lit('5', 'integer')} .\n`);

    const jl = await fetch(`${srv.api}/data/gs/one?graph=${G}`, { headers: { Accept: 'application/ld+json' } });
    expect(jl.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
    expect(await jl.json()).toEqual([{ '@id': `${EX}b`, [`${EX}age`]: [{ '@value': '5', '@type': 'http://www.w3.org/2001/XMLSchema#integer' }] }]);

    const xml = await fetch(`${srv.api}/data/gs/one?graph=${G}`, { headers: { Accept: 'text/html;q=0.9, application/rdf+xml' } });
    expect(xml.headers.get('content-type')).toBe('application/rdf+xml; charset=utf-8');
    const body = await xml.text();
    expect(body).toContain('<rdf:RDF');
    expect(body).toContain(`rdf:about="${EX}b"`);

    const wildcard = await fetch(`${srv.api}/data/gs/one?graph=${G}`, { headers: { Accept: 'application/*;q=0.5, text/turtle;q=0' } });
    expect(wildcard.headers.get('content-type')).toBe('application/n-triples; charset=utf-8');

    await expectError(await fetch(`${srv.api}/data/gs/one?default`, { headers: { Accept: 'text/html' } }), 406, 'err:db/NotAcceptable', 'available: text/turtle');
  });

  it('reads the past through a time pin in the path', async () => {
    expect(await triples(srv, 'gs/one@t:1')).toEqual([`${iri('a')} ${iri('knows')} ${iri('b')} .`, `${iri('a')} ${iri('name')} "Ann" .`]);
    expect(await triples(srv, `gs/one:main@commit:${t1Commit}`)).toHaveLength(2);
    expect(await triples(srv, 'gs/one@t:0')).toEqual([]);
    await expectError(await fetch(`${srv.api}/data/gs/one@t:0?graph=${G}`), 404, 'err:db/LedgerNotFound', `graph <${EX}g> not found in ledger gs/one:main at t 0`);
    await expectError(await fetch(`${srv.api}/data/gs/one@t:9?default`), 404, 'err:db/LedgerNotFound', 'has no t 9');
    await expectError(await fetch(`${srv.api}/data/gs/one@when:1?default`), 400, 'err:db/BadRequest', 'invalid time specifier');
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await fetch(`${srv.api}/data/gs/one?default`);
    const text = await get.text();
    const head = await fetch(`${srv.api}/data/gs/one?default`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(await head.text()).toBe('');
    const missing = await fetch(`${srv.api}/data/gs/one?graph=${encodeURIComponent(`${EX}nope`)}`, { method: 'HEAD' });
    expect(missing.status).toBe(404);
  });

  it('accepts a percent-encoded ledger path', async () => {
    expect((await fetch(`${srv.api}/data/gs%2Fone?graph=${G}`, { headers: { Accept: 'application/n-triples' } })).status).toBe(200);
  });

  it('answers 400 for bad graph selectors and 404 for a missing ledger or graph', async () => {
    await expectError(await fetch(`${srv.api}/data/gs/one?default&graph=${G}`), 400, 'err:db/BadRequest', 'not both');
    await expectError(await fetch(`${srv.api}/data/gs/one?graph=g`), 400, 'err:db/BadRequest', 'absolute IRI');
    await expectError(await fetch(`${srv.api}/data/gs/one?graph=${encodeURIComponent(`${EX}nope`)}`), 404, 'err:db/LedgerNotFound', `graph <${EX}nope> not found`);
    await expectError(await fetch(`${srv.api}/data/gs/none?default`), 404, 'err:db/LedgerNotFound', 'ledger gs/none:main not found');
  });
});

describe('PUT, POST and DELETE', () => {
  beforeAll(async () => { await createLedger(srv, 'gs2'); });

  it('PUT replaces a graph and answers 204 with the new t and commit (201 when it created the graph)', async () => {
    const r = await put(`/data/gs2?graph=${G}`, 'text/turtle', `<${EX}a> <${EX}p> 1, 2 .`);
    expect(r.status).toBe(201);
    expect(await r.text()).toBe('');
    expect(r.headers.get('ledgraph-t')).toBe('1');
    const info = await json<{ commitId: string }>(await fetch(`${srv.api}/info/gs2`));
    expect(r.headers.get('ledgraph-commit-id')).toBe(info.commitId);
    const again = await put(`/data/gs2?graph=${G}`, 'application/n-triples', `<${EX}a> <${EX}p> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .\n<${EX}b> <${EX}p> "x" .\n`);
    expect([again.status, again.headers.get('ledgraph-t')]).toEqual([204, '2']);
    const show = await json<{ asserts: number; retracts: number }>(await fetch(`${srv.api}/show/gs2?commit=t:2`));
    expect([show.asserts, show.retracts]).toEqual([1, 1]);
    expect(await triples(srv, 'gs2', `${EX}g`)).toEqual([`${iri('a')} ${iri('p')} ${lit('2', 'integer')} .`, `${iri('b')} ${iri('p')} "x" .`]);
    // An identical PUT commits nothing.
    const same = await put(`/data/gs2?graph=${G}`, 'application/json', JSON.stringify([{ '@id': `${EX}a`, [`${EX}p`]: 2 }, { '@id': `${EX}b`, [`${EX}p`]: 'x' }]));
    expect([same.status, same.headers.get('ledgraph-t')]).toEqual([204, '2']);
  });

  it('POST adds to a graph, TriG blocks must name it', async () => {
    const r = await postText(`${srv.api}/data/gs2?default`, 'application/ld+json', JSON.stringify({ '@id': `${EX}d`, [`${EX}p`]: true }));
    expect([r.status, r.headers.get('ledgraph-t')]).toEqual([204, '3']);
    const trig = await postText(`${srv.api}/data/gs2?graph=${G}`, 'application/trig', `GRAPH <${EX}g> { <${EX}c> <${EX}p> 3 }`);
    expect(trig.status).toBe(204);
    expect(await triples(srv, 'gs2', `${EX}g`)).toHaveLength(3);
    expect(await triples(srv, 'gs2')).toEqual([`${iri('d')} ${iri('p')} ${lit('true', 'boolean')} .`]);
    await expectError(await postText(`${srv.api}/data/gs2?graph=${G}`, 'application/trig', `GRAPH <${EX}h> { <${EX}c> <${EX}p> 3 }`), 400, 'err:db/BadRequest', 'graph store POST: GRAPH <http://example.org/h> does not name the target graph');
  });

  it('DELETE empties a graph; a graph without triples is 404', async () => {
    const r = await fetch(`${srv.api}/data/gs2?graph=${G}`, { method: 'DELETE' });
    expect([r.status, r.headers.get('ledgraph-t')]).toEqual([204, '5']);
    await expectError(await fetch(`${srv.api}/data/gs2?graph=${G}`), 404, 'err:db/LedgerNotFound');
    await expectError(await fetch(`${srv.api}/data/gs2?graph=${G}`, { method: 'DELETE' }), 404, 'err:db/LedgerNotFound', `graph <${EX}g> not found in ledger gs2:main`);
    // The past still has it.
    expect(await triples(srv, 'gs2@t:4', `${EX}g`)).toHaveLength(3);
    const d = await fetch(`${srv.api}/data/gs2?default`, { method: 'DELETE' });
    expect([d.status, d.headers.get('ledgraph-t')]).toEqual([204, '6']);
    expect(await triples(srv, 'gs2')).toEqual([]);
    // The default graph always exists: deleting it again changes nothing.
    const d2 = await fetch(`${srv.api}/data/gs2?default`, { method: 'DELETE' });
    expect([d2.status, d2.headers.get('ledgraph-t')]).toEqual([204, '6']);
  });

  it('PUT with an empty body clears the graph', async () => {
    await put(`/data/gs2?default`, 'text/turtle', `<${EX}z> <${EX}p> 1 .`);
    const r = await put(`/data/gs2?default`, 'text/turtle', '');
    expect(r.status).toBe(204);
    expect(await triples(srv, 'gs2')).toEqual([]);
  });

  it('refuses time pins, bad content types, bad payloads and missing ledgers', async () => {
    await expectError(await put(`/data/gs2@t:1?default`, 'text/turtle', ''), 400, 'err:db/BadRequest', 'a time pin is read-only');
    await expectError(await fetch(`${srv.api}/data/gs2@t:1?default`, { method: 'DELETE' }), 400, 'err:db/BadRequest', 'a time pin is read-only');
    await expectError(await put(`/data/gs2?default`, 'text/plain', 'x'), 415, 'err:db/UnsupportedMediaType', 'graph store PUT');
    await expectError(await put(`/data/gs2?default`, 'text/turtle', '<a> <b'), 400, 'err:db/BadRequest');
    await expectError(await put(`/data/gs2?default`, 'application/json', '{'), 400, 'err:db/JsonParse');
    await expectError(await put(`/data/nope?default`, 'text/turtle', ''), 404, 'err:db/LedgerNotFound');
    const patch = await fetch(`${srv.api}/data/gs2?graph=${G}`, { method: 'PATCH' });
    expect(patch.headers.get('allow')).toBe('GET, HEAD, POST, PUT, DELETE, OPTIONS');
    await expectError(patch, 405, 'err:db/MethodNotAllowed', 'PATCH is not allowed');
  });
});
