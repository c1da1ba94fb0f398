/**
 * policy.md §7 and auth.md §3.1/§7 against the real Ledgraph server: the worked example through the
 * HTTP query and update endpoints (JSON-LD opts, SPARQL with Ledgraph-Identity), then the same with
 * bearer tokens and signed requests selecting the identity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, postJson, postText, type TestServer } from '../support/server.js';
import { HR_DATA } from '../policy/fixtures.js';
import { DID_A, signerA, signerB, token } from './helpers.js';
import { signCompact } from '../../src/server/auth/jws.js';

const CTX = { ex: 'http://example.org/', f: 'https://ns.ledgraph.dev/' };
const ALICE = 'https://example.com/id/alice';
const HANA = 'https://example.com/id/hana';
const QUERY = {
  '@context': { ex: 'http://example.org/' }, from: 'hr:main', select: ['?name', '?salary'],
  where: [{ '@id': '?p', 'ex:name': '?name' }, ['optional', { '@id': '?p', 'ex:salary': '?salary' }]], orderBy: '?name',
};
const SPARQL = 'PREFIX ex: <http://example.org/> SELECT ?name ?salary WHERE { ?p ex:name ?name OPTIONAL { ?p ex:salary ?salary } } ORDER BY ?name';

async function seed(srv: TestServer, headers: Record<string, string> = {}): Promise<void> {
  expect((await postJson(`${srv.api}/create`, { ledger: 'hr' })).status).toBe(201);
  const r = await postJson(`${srv.api}/insert/hr`, { '@context': CTX, '@graph': HR_DATA }, headers);
  expect(r.status, await r.clone().text()).toBe(200);
}

/** SPARQL JSON bindings as [[name, salary|null]]. */
async function sparqlRows(r: Response): Promise<unknown> {
  const text = await r.text();
  if (r.status !== 200) return [r.status, text];
  const body = JSON.parse(text) as { results: { bindings: Record<string, { value: string }>[] } };
  return body.results.bindings.map((b) => [b['name']?.value ?? null, b['salary']?.value ?? null]);
}

async function jsonOf(r: Response): Promise<unknown> {
  const text = await r.text();
  return r.status === 200 ? JSON.parse(text) : [r.status, JSON.parse(text)];
}

describe('policy.md §7 over HTTP, no credential', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await startTestServer(); await seed(srv); });
  afterAll(() => srv.close());

  it('JSON-LD query: alice, hana, zed, root', async () => {
    const q = (opts?: unknown) => postJson(`${srv.api}/query/hr:main`, opts ? { ...QUERY, opts } : QUERY).then(jsonOf);
    expect(await q({ identity: ALICE })).toEqual([['Alice', 120000], ['Bob', null]]);
    expect(await q({ identity: HANA })).toEqual([['Alice', 120000], ['Bob', 95000], ['Carol', null]]);
    expect(await q({ identity: 'https://example.com/id/zed' })).toEqual([]);
    expect(await q()).toEqual([['Alice', 120000], ['Bob', 95000], ['Carol', null]]);
  });

  it('SPARQL with Ledgraph-Identity: same as alice', async () => {
    const r = await postText(`${srv.api}/query/hr:main`, 'application/sparql-query', SPARQL, { 'Ledgraph-Identity': ALICE, Accept: 'application/sparql-results+json' });
    expect(await sparqlRows(r)).toEqual([['Alice', '120000'], ['Bob', null]]);
  });

  it('writes as alice: rename self 200, rename bob 403 with message, salary 403 default, hana 200', async () => {
    const up = (body: unknown) => postJson(`${srv.api}/update/hr:main`, { '@context': CTX, ...(body as object) });
    expect((await up({ delete: { '@id': 'ex:alice', 'ex:name': 'Alice' }, insert: { '@id': 'ex:alice', 'ex:name': 'Ali' }, opts: { identity: ALICE } })).status).toBe(200);
    expect(await jsonOf(await up({ delete: { '@id': 'ex:bob', 'ex:name': 'Bob' }, insert: { '@id': 'ex:bob', 'ex:name': 'Ali' }, opts: { identity: ALICE } })))
      .toEqual([403, { error: 'You may only rename yourself.', status: 403, '@type': 'err:db/Forbidden' }]);
    expect(await jsonOf(await up({ insert: { '@id': 'ex:alice', 'ex:salary': 130000 }, opts: { identity: ALICE } })))
      .toEqual([403, { error: 'Policy enforcement prevents modification.', status: 403, '@type': 'err:db/Forbidden' }]);
    expect((await up({ insert: { '@id': 'ex:alice', 'ex:salary': 130000 }, opts: { identity: HANA } })).status).toBe(200);
    // Bob's rename left no trace.
    expect(await jsonOf(await postJson(`${srv.api}/query/hr:main`, { '@context': { ex: 'http://example.org/' }, select: '?n', where: { '@id': 'ex:bob', 'ex:name': '?n' } }))).toEqual(['Bob']);
  });
});

describe('credentials select the identity (data auth required)', () => {
  let srv: TestServer;
  let alice: string, scopeOnly: string, readOnly: string;
  beforeAll(async () => {
    srv = await startTestServer({ config: { dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A] } });
    const a = await signerA();
    await seed(srv, { Authorization: `Bearer ${await token(a, { 'ledgraph.ledger.write.all': true })}` });
    alice = await token(a, { 'ledgraph.identity': ALICE, 'ledgraph.ledger.read.ledgers': ['hr'], 'ledgraph.ledger.write.ledgers': ['hr'] });
    scopeOnly = await token(a, { 'ledgraph.ledger.read.all': true, 'ledgraph.ledger.write.all': true });
    readOnly = await token(a, { 'ledgraph.identity': HANA, 'ledgraph.ledger.read.ledgers': ['hr'] });
    // The signer of signed requests is an identity too: give signer B's DID the HR class.
    await postJson(`${srv.api}/insert/hr`, { '@context': CTX, '@id': (await signerB()).did, 'f:policyClass': { '@id': 'ex:HrPolicy' } }, { Authorization: `Bearer ${scopeOnly}` });
  });
  afterAll(() => srv.close());
  const auth = (t: string) => ({ Authorization: `Bearer ${t}` });

  it('no credential: 401; the token identity filters JSON-LD and SPARQL', async () => {
    expect((await postJson(`${srv.api}/query/hr:main`, QUERY)).status).toBe(401);
    expect(await jsonOf(await postJson(`${srv.api}/query/hr:main`, QUERY, auth(alice)))).toEqual([['Alice', 120000], ['Bob', null]]);
    expect(await sparqlRows(await postText(`${srv.api}/query/hr:main`, 'application/sparql-query', SPARQL, { ...auth(alice), Accept: 'application/sparql-results+json' })))
      .toEqual([['Alice', '120000'], ['Bob', null]]);
  });

  it('a different identity in opts or a header conflicts with the credential (403)', async () => {
    expect(await jsonOf(await postJson(`${srv.api}/query/hr:main`, { ...QUERY, opts: { identity: HANA } }, auth(alice))))
      .toEqual([403, { error: 'policy selection conflicts with credential', status: 403, '@type': 'err:db/Forbidden' }]);
    const r = await postText(`${srv.api}/query/hr:main`, 'application/sparql-query', SPARQL, { ...auth(alice), 'Ledgraph-Identity': HANA });
    expect(r.status).toBe(403);
    expect(await jsonOf(await postJson(`${srv.api}/query/hr:main`, { ...QUERY, opts: { identity: ALICE } }, auth(alice)))).toEqual([['Alice', 120000], ['Bob', null]]);
  });

  it('a scope-only token reads the root view', async () => {
    expect(await jsonOf(await postJson(`${srv.api}/query/hr:main`, QUERY, auth(scopeOnly)))).toEqual([['Alice', 120000], ['Bob', 95000], ['Carol', null]]);
  });

  it('writes use the credential identity; a read-only token is 403 before policy', async () => {
    const up = (body: unknown, t: string) => postJson(`${srv.api}/update/hr:main`, { '@context': CTX, ...(body as object) }, auth(t));
    expect(await jsonOf(await up({ insert: { '@id': 'ex:alice', 'ex:salary': 1 } }, alice)))
      .toEqual([403, { error: 'Policy enforcement prevents modification.', status: 403, '@type': 'err:db/Forbidden' }]);
    expect(await jsonOf(await up({ delete: { '@id': 'ex:bob', 'ex:name': 'Bob' }, insert: { '@id': 'ex:bob', 'ex:name': 'B' } }, alice)))
      .toEqual([403, { error: 'You may only rename yourself.', status: 403, '@type': 'err:db/Forbidden' }]);
    expect((await up({ insert: { '@id': 'ex:alice', 'ex:nick': 'Al' } }, readOnly)).status).toBe(403);
    expect(await jsonOf(await up({ insert: { '@id': 'ex:alice', 'ex:salary': 1 }, opts: { identity: HANA } }, alice)))
      .toEqual([403, { error: 'policy selection conflicts with credential', status: 403, '@type': 'err:db/Forbidden' }]);
  });

  it('a signed request needs no token; its signer is the identity (here: HR)', async () => {
    const s = await signerB();
    const jws = await signCompact(s, new TextEncoder().encode(JSON.stringify(QUERY)), { cty: 'application/json' });
    const r = await postText(`${srv.api}/query/hr:main`, 'application/jose', jws);
    expect(await jsonOf(r)).toEqual([['Alice', 120000], ['Bob', 95000], ['Carol', null]]);
    // An unknown signer has no node in the ledger: it sees nothing.
    const stranger = await signCompact(await signerA(), new TextEncoder().encode(JSON.stringify(QUERY)));
    expect(await jsonOf(await postText(`${srv.api}/query/hr:main`, 'application/jose', stranger))).toEqual([]);
  });

  it('/whoami reports the credential', async () => {
    const who = await jsonOf(await fetch(`${srv.api}/whoami`, { headers: auth(alice) })) as Record<string, unknown>;
    expect([who['verified'], who['identity'], (who['scopes'] as Record<string, unknown>)['ledger_read_ledgers']]).toEqual([true, ALICE, ['hr:main']]);
  });
});

describe('listings under a token', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ config: { dataAuthMode: 'optional', dataAuthTrustedIssuers: [DID_A] } });
    for (const l of ['hr', 'payroll', 'ops']) expect((await postJson(`${srv.api}/create`, { ledger: l })).status).toBe(201);
  });
  afterAll(() => srv.close());

  it('GET /ledgers shows only readable ledgers to a token; everything without one (optional mode)', async () => {
    const t = await token(await signerA(), { 'ledgraph.ledger.read.ledgers': ['hr'], 'ledgraph.storage.ledgers': ['ops'] });
    const names = async (h: Record<string, string>) => ((await (await fetch(`${srv.api}/ledgers`, { headers: h })).json()) as { ledger: string }[]).map((e) => e.ledger);
    expect(await names({ Authorization: `Bearer ${t}` })).toEqual(['hr:main', 'ops:main']);
    expect(await names({})).toEqual(['hr:main', 'ops:main', 'payroll:main']);
    expect((await fetch(`${srv.api}/exists/payroll`, { headers: { Authorization: `Bearer ${t}` } })).status).toBe(404);
    expect(await (await fetch(`${srv.api}/exists/nope`, { headers: {} })).json()).toEqual({ ledger: 'nope:main', exists: false });
  });
});
