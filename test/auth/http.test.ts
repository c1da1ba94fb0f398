/**
 * Auth over real HTTP beyond the matrix: the auth.md §10 verification walk, error bodies, every
 * ledger a request names (path, FROM, from, multi-query), write and push scopes, /whoami,
 * discovery, startup refusal, signed requests and credentials, and policy selection (policy.md §3.1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DID_A, echoRoutes, expectErrorBody, outcome, signerA, signerB, startAuthServer, token, type AuthServer } from './helpers.js';
import { createAuth } from '../../src/server/auth/index.js';
import { defaultServerConfig } from '../../src/server/config.js';
import { signCompact, b64uEncode } from '../../src/server/auth/jws.js';
import { canonicalJson } from '../../src/server/auth/signed.js';
import { createApp } from '../../src/server/app.js';

const T0030 = Date.parse('2026-01-01T00:30:00Z') / 1000;
const SPEC_TOKEN = 'eyJhbGciOiJFZERTQSIsImp3ayI6eyJrdHkiOiJPS1AiLCJjcnYiOiJFZDI1NTE5IiwieCI6IkE2RUh2X1BPRUw0ZGNOMFk1MHZBbVdmazFqQ2JwUTFmSGR5R1pCSlZNYmcifX0'
  + '.eyJpc3MiOiJkaWQ6a2V5Ono2TWtlaFJnZjd5SmJnYUdmWXNkb0FzS2RCUEUzZGoyQ1lob3dRZGNqcVNKZ3ZWZCIsInN1YiI6ImFsaWNlQGV4YW1wbGUuY29tIiwiYXVkIjoiaHR0cHM6Ly9kYi5leGFtcGxlLmNvbSIsImlhdCI6MTc2NzIyNTYwMCwiZXhwIjoxNzY3MjI5MjAwLCJsZWRncmFwaC5pZGVudGl0eSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vaWQvYWxpY2UiLCJsZWRncmFwaC5sZWRnZXIucmVhZC5sZWRnZXJzIjpbImhyOm1haW4iXX0'
  + '.0DUAmHzHPFSSDl_qN8zy0ZBFJeiLfpaaN5akcWuI_8CPQwBZALKFcQL3DhvTdYMOPCGV8kOyuqq8CKEDjwU2CA';

const post = (url: string, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json') =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': contentType, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

describe('auth.md §10: verifying the worked example token', () => {
  let clock = T0030;
  let srv: AuthServer;
  beforeAll(async () => {
    srv = await startAuthServer({ dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A], dataAuthAudience: 'https://db.example.com' }, { now: () => clock });
  });
  afterAll(() => srv.close());

  it('at 00:30: query hr 200 as alice, payroll 404, update hr 403', async () => {
    const r = await post(`${srv.api}/query/hr:main`, { select: ['?n'], where: {} }, bearer(SPEC_TOKEN));
    expect(r.status).toBe(200);
    expect((await r.json() as { identity: string }).identity).toBe('https://example.com/id/alice');
    await expectErrorBody(await post(`${srv.api}/query/payroll:main`, {}, bearer(SPEC_TOKEN)), 404, 'err:db/LedgerNotFound', 'Ledger not found');
    await expectErrorBody(await post(`${srv.api}/update/hr:main`, {}, bearer(SPEC_TOKEN)), 403, 'err:db/Forbidden', 'token does not grant write access to ledger hr:main');
  });

  it('at 01:01:01 (past exp + 60 s): 401 Token expired', async () => {
    clock = Date.parse('2026-01-01T01:01:01Z') / 1000;
    await expectErrorBody(await post(`${srv.api}/query/hr:main`, {}, bearer(SPEC_TOKEN)), 401, 'err:db/Unauthorized', 'Token expired');
    clock = T0030;
  });

  it('no credential: 401 Bearer token required; a non-bearer header is invalid', async () => {
    await expectErrorBody(await post(`${srv.api}/query/hr:main`, {}), 401, 'err:db/Unauthorized', 'Bearer token required');
    await expectErrorBody(await post(`${srv.api}/query/hr:main`, {}, { Authorization: 'Basic abc' }), 401, 'err:db/Unauthorized', 'Invalid token: expected Authorization: Bearer <token>');
    expect((await post(`${srv.api}/query/hr:main`, {}, { Authorization: `  bEaReR   ${SPEC_TOKEN}  ` })).status).toBe(200);
  });

  it('an audience mismatch is 401', async () => {
    const t = await token(await signerA(), { aud: 'https://elsewhere', iat: T0030, exp: T0030 + 60, 'ledgraph.ledger.read.all': true });
    await expectErrorBody(await post(`${srv.api}/query/hr:main`, {}, bearer(t)), 401, 'err:db/Unauthorized', 'Invalid token: audience mismatch');
  });
});

describe('every referenced ledger must be in scope (404, no existence leak)', () => {
  let srv: AuthServer;
  let hrOnly: string;
  beforeAll(async () => {
    srv = await startAuthServer({ dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A] });
    hrOnly = await token(await signerA(), { 'ledgraph.ledger.read.ledgers': ['hr'] });
  });
  afterAll(() => srv.close());
  const st = async (r: Promise<Response>) => outcome(await r);

  it('SPARQL FROM / FROM NAMED, including time specifiers', async () => {
    const q = (text: string, path = '/query/hr:main') => st(post(srv.api + path, text, bearer(hrOnly), 'application/sparql-query'));
    expect(await q('SELECT * FROM <hr:main@t:1> WHERE { ?s ?p ?o }')).toEqual([200, null]);
    expect(await q('SELECT * FROM <http://example.org/graph> WHERE { ?s ?p ?o }')).toEqual([200, null]);
    expect(await q('SELECT * FROM <payroll:main> WHERE { ?s ?p ?o }')).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await q('SELECT * FROM NAMED <payroll@t:3> WHERE { ?s ?p ?o }', '/query')).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await q('SELECT * FROM <hr> WHERE { ?s ?p ?o }', '/query')).toEqual([200, null]);
    expect(await q('SELECT * WHERE { ?s ?p ?o }', '/stream/query/payroll')).toEqual([404, 'err:db/LedgerNotFound']);
  });

  it('protocol parameters, form bodies, the Ledgraph-Ledger header and ?ledger=', async () => {
    expect(await st(fetch(`${srv.api}/query?default-graph-uri=payroll:main`, { method: 'POST', headers: { ...bearer(hrOnly), 'Content-Type': 'application/sparql-query' }, body: 'ASK {}' }))).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await st(post(`${srv.api}/query`, 'query=' + encodeURIComponent('ASK FROM <payroll:main> {}'), bearer(hrOnly), 'application/x-www-form-urlencoded'))).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await st(post(`${srv.api}/query`, 'ASK {}', { ...bearer(hrOnly), 'Ledgraph-Ledger': 'payroll' }, 'application/sparql-query'))).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await st(post(`${srv.api}/update?ledger=payroll`, {}, bearer(hrOnly)))).toEqual([404, 'err:db/LedgerNotFound']);
  });

  it('JSON-LD from, fromNamed, to and opts.from', async () => {
    const q = (body: unknown) => st(post(`${srv.api}/query`, body, bearer(hrOnly)));
    expect(await q({ from: 'hr:main', select: ['?s'], where: {} })).toEqual([200, null]);
    expect(await q({ from: ['hr:main', 'payroll:main'], select: ['?s'], where: {} })).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await q({ from: { '@id': 'payroll:main', t: 2 }, select: ['?s'], where: {} })).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await q({ from: 'hr', fromNamed: { p: { '@id': 'payroll:main' } }, select: ['?s'], where: {} })).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await q({ from: 'hr@t:1', to: 'payroll@t:2', select: ['?s'], where: {} })).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await q({ opts: { from: 'payroll' }, select: ['?s'], where: {} })).toEqual([404, 'err:db/LedgerNotFound']);
  });

  it('multi-query: every sub-query, JSON-LD and SPARQL', async () => {
    const mq = (queries: Record<string, unknown>) => st(post(`${srv.api}/multi-query`, { queries }, bearer(hrOnly)));
    expect(await mq({ a: { language: 'jsonld', query: { from: 'hr', select: ['?s'], where: {} } } })).toEqual([200, null]);
    expect(await mq({ a: { language: 'jsonld', query: { from: 'hr' } }, b: { language: 'sparql', query: 'SELECT * FROM <payroll:main> { ?s ?p ?o }' } })).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await mq({ a: { language: 'jsonld', query: { from: 'payroll:main' } } })).toEqual([404, 'err:db/LedgerNotFound']);
  });

  it('log, show and info paths', async () => {
    for (const p of ['/log/payroll:main', '/show/payroll:main?commit=t:1', '/info/payroll']) {
      expect(await st(fetch(srv.api + p, { headers: bearer(hrOnly) }))).toEqual([404, 'err:db/LedgerNotFound']);
    }
    expect(await st(fetch(`${srv.api}/log/hr:main`, { headers: bearer(hrOnly) }))).toEqual([200, null]);
  });

  it('requireScope for ledgers a route discovers itself', async () => {
    expect(await st(post(`${srv.api}/multi-query/scope-echo`, { ledgers: ['hr:main@t:4'], kind: 'read' }, bearer(hrOnly)))).toEqual([200, null]);
    expect(await st(post(`${srv.api}/multi-query/scope-echo`, { ledgers: ['payroll'], kind: 'read' }, bearer(hrOnly)))).toEqual([404, 'err:db/LedgerNotFound']);
  });
});

describe('write and push scopes', () => {
  let srv: AuthServer;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    srv = await startAuthServer({ dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A] });
    const a = await signerA();
    tokens.read = await token(a, { 'ledgraph.ledger.read.ledgers': ['hr'] });
    tokens.write = await token(a, { 'ledgraph.ledger.write.ledgers': ['hr'] });
    tokens.storage = await token(a, { 'ledgraph.storage.ledgers': ['hr'] });
    tokens.writeStorage = await token(a, { 'ledgraph.ledger.write.ledgers': ['hr'], 'ledgraph.storage.ledgers': ['hr'] });
    tokens.other = await token(a, { 'ledgraph.ledger.write.all': false, 'ledgraph.ledger.read.ledgers': ['x'] });
  });
  afterAll(() => srv.close());
  const at = async (path: string, tok: string) => outcome(await post(srv.api + path, {}, bearer(tok)));

  it('update: write scope 200, read only 403, neither 404', async () => {
    expect(await at('/update/hr', tokens.write!)).toEqual([200, null]);
    expect(await at('/update/hr', tokens.read!)).toEqual([403, 'err:db/Forbidden']);
    expect(await at('/insert/hr', tokens.storage!)).toEqual([403, 'err:db/Forbidden']);
    expect(await at('/update/hr', tokens.other!)).toEqual([404, 'err:db/LedgerNotFound']);
  });

  it('storage scope implies read', async () => {
    expect(await at('/query/hr', tokens.storage!)).toEqual([200, null]);
  });

  it('push needs write and storage', async () => {
    expect(await at('/push/hr:main', tokens.writeStorage!)).toEqual([200, null]);
    expect(await at('/push/hr:main', tokens.write!)).toEqual([403, 'err:db/Forbidden']);
    expect(await at('/push/hr:main', tokens.storage!)).toEqual([403, 'err:db/Forbidden']);
    expect(await at('/push/hr:main', tokens.other!)).toEqual([404, 'err:db/LedgerNotFound']);
  });
});

describe('/whoami and discovery', () => {
  let srv: AuthServer;
  beforeAll(async () => { srv = await startAuthServer({ dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A] }); });
  afterAll(() => srv.close());

  it('no token', async () => {
    const r = await fetch(`${srv.api}/whoami`);
    expect([r.status, await r.json()]).toEqual([200, { token_present: false }]);
  });

  it('a verified token, scopes normalised', async () => {
    const t = await token(await signerA(), { sub: 'ops', exp: 4102444800, 'ledgraph.identity': 'urn:id:ops', 'ledgraph.ledger.read.ledgers': ['hr', 'bad id'], 'ledgraph.storage.all': true, 'ledgraph.events.ledgers': ['x:dev'] });
    const r = await fetch(`${srv.api}/whoami`, { headers: bearer(t) });
    expect([r.status, await r.json()]).toEqual([200, {
      token_present: true, verified: true, auth_method: 'embedded_jwk', issuer: DID_A, subject: 'ops', identity: 'urn:id:ops', expires_at: 4102444800,
      scopes: { ledger_read_all: false, ledger_read_ledgers: ['hr:main'], ledger_write_all: false, ledger_write_ledgers: [], storage_all: true, storage_ledgers: [], events_all: false, events_ledgers: ['x:dev'] },
    }]);
  });

  it('a failed token reports the unverified claims', async () => {
    const t = await token(await signerB(), { sub: 'mallory', exp: 4102444800, 'ledgraph.ledger.read.all': true });
    const r = await fetch(`${srv.api}/whoami`, { headers: bearer(t) });
    expect([r.status, await r.json()]).toEqual([200, {
      token_present: true, verified: false, error: 'Untrusted issuer', issuer: (await signerB()).did, subject: 'mallory', expires_at: 4102444800,
    }]);
  });

  it('discovery advertises token auth only when a mode is on; /health is never gated', async () => {
    expect(await (await fetch(`${srv.url}/.well-known/ledgraph.json`)).json()).toEqual({ version: 1, api_base_url: '/v1/ledgraph', auth: { type: 'token' } });
    expect((await fetch(`${srv.url}/health`)).status).toBe(200);
    const plain = createApp({ ...defaultServerConfig(), memory: true }, { version: '1' });
    expect(await (await plain.request('/.well-known/ledgraph.json')).json()).toEqual({ version: 1, api_base_url: '/v1/ledgraph' });
  });

  it('a required group that can trust no issuer refuses to start', () => {
    expect(() => createAuth({ ...defaultServerConfig(), dataAuthMode: 'required' })).toThrow('data auth is required but no issuer can be trusted: set --data-auth-trusted-issuer or --jwks-issuer');
    expect(() => createAuth({ ...defaultServerConfig(), adminAuthMode: 'required', eventsAuthTrustedIssuers: [DID_A] })).not.toThrow();
    expect(() => createAuth({ ...defaultServerConfig(), dataAuthMode: 'required', dataAuthInsecureAcceptAnyIssuer: true })).not.toThrow();
    expect(() => createAuth({ ...defaultServerConfig(), dataAuthMode: 'required', jwksIssuers: [{ issuer: 'https://i', url: 'https://i/jwks' }] })).not.toThrow();
  });
});

describe('signed requests (auth.md §8)', () => {
  // 00:01:40, inside the spec example's 5-minute envelope (iat 00:00, exp 00:05).
  const clock = 1767225700;
  let srv: AuthServer;
  let open: AuthServer;
  beforeAll(async () => {
    srv = await startAuthServer({ dataAuthMode: 'required', dataAuthTrustedIssuers: [DID_A] }, { now: () => clock });
    open = await startAuthServer({}, { now: () => clock });
  });
  afterAll(async () => { await srv.close(); await open.close(); });
  const enc = (s: string) => new TextEncoder().encode(s);
  const PAYLOAD = '{"from":"hr:main","select":["?n"],"where":{"@id":"?p","http://example.org/name":"?n"}}';

  it('the spec example: the signer becomes the identity; the route sees the plain JSON body', async () => {
    const jws = await signCompact(await signerA(), enc(PAYLOAD), { cty: 'application/json', exp: 1767225900 });
    expect(jws.split('.')[0]).toBe(b64uEncode(enc('{"alg":"EdDSA","jwk":{"kty":"OKP","crv":"Ed25519","x":"A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"},"cty":"application/json","exp":1767225900}')));
    const r = await post(`${srv.api}/query`, jws, {}, 'application/jose');
    expect([r.status, await r.json()]).toEqual([200, {
      ok: true, bearer: false, signer: 'did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd', identity: 'did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd',
      contentType: 'application/json', body: PAYLOAD,
    }]);
  });

  it('application/jwt and a sniffed body work too; any signer is accepted (no trust list)', async () => {
    const jws = await signCompact(await signerB(), enc(PAYLOAD));
    const a = await post(`${srv.api}/query/hr`, jws, {}, 'application/jwt');
    expect((await a.json() as { identity: string }).identity).toBe((await signerB()).did);
    const b = await post(`${srv.api}/query/hr`, jws, {}, 'text/plain');
    expect((await b.json() as { contentType: string }).contentType).toBe('application/json');
  });

  it('unlabelled SPARQL payloads take the route kind; insert refuses non-JSON', async () => {
    const s = await signerA();
    const q = await post(`${srv.api}/query/hr`, await signCompact(s, enc('SELECT * { ?s ?p ?o }')), {}, 'application/jose');
    expect((await q.json() as { contentType: string }).contentType).toBe('application/sparql-query');
    const u = await post(`${srv.api}/update/hr`, await signCompact(s, enc('INSERT DATA { <a:b> <a:c> 1 }')), {}, 'application/jose');
    expect((await u.json() as { contentType: string }).contentType).toBe('application/sparql-update');
    await expectErrorBody(await post(`${srv.api}/insert/hr`, await signCompact(s, enc('<a:b> <a:c> 1 .')), {}, 'application/jose'), 400, 'err:db/BadRequest',
      'signed request: the payload must be a JSON object on this route (Turtle and TriG cannot be signed)');
    await expectErrorBody(await post(`${srv.api}/insert/hr`, await signCompact(s, enc('x'), { cty: 'text/turtle' }), {}, 'application/jose'), 400, 'err:db/BadRequest',
      'signed request: cty "text/turtle" cannot be signed; use application/json, application/sparql-query or application/sparql-update');
  });

  it('bad signature, expiry and future iat are 401', async () => {
    const s = await signerA();
    const good = await signCompact(s, enc(PAYLOAD));
    const parts = good.split('.');
    const forged = `${parts[0]}.${b64uEncode(enc(PAYLOAD.replace('hr:main', 'hr:dev')))}.${parts[2]}`;
    await expectErrorBody(await post(`${srv.api}/query`, forged, {}, 'application/jose'), 401, 'err:db/Unauthorized', 'Invalid token: bad signature');
    await expectErrorBody(await post(`${srv.api}/query`, await signCompact(s, enc(PAYLOAD), { exp: clock - 61 }), {}, 'application/jose'), 401, 'err:db/Unauthorized', 'Token expired');
    await expectErrorBody(await post(`${srv.api}/query`, await signCompact(s, enc(PAYLOAD), { iat: clock + 61 }), {}, 'application/jose'), 401, 'err:db/Unauthorized', 'token not yet valid (issued in the future)');
  });

  it('opts.identity must be the signer (403)', async () => {
    const s = await signerA();
    const body = JSON.stringify({ from: 'hr', select: ['?s'], where: {}, opts: { identity: 'https://example.com/id/alice' } });
    await expectErrorBody(await post(`${srv.api}/query`, await signCompact(s, enc(body)), {}, 'application/jose'), 403, 'err:db/Forbidden', "opts.identity of a signed request must be the signer's DID");
    const same = JSON.stringify({ from: 'hr', select: ['?s'], where: {}, opts: { identity: s.did } });
    expect((await post(`${srv.api}/query`, await signCompact(s, enc(same)), {}, 'application/jose')).status).toBe(200);
  });

  it('a bearer token sent alongside keeps its ledger scopes', async () => {
    const t = await token(await signerA(), { 'ledgraph.ledger.read.ledgers': ['other'] }, clock);
    const r = await post(`${srv.api}/query`, await signCompact(await signerA(), enc(PAYLOAD)), bearer(t), 'application/jose');
    expect(await outcome(r)).toEqual([404, 'err:db/LedgerNotFound']);
  });

  it('with auth mode none, a signed request still names its signer', async () => {
    const r = await post(`${open.api}/query`, await signCompact(await signerB(), enc(PAYLOAD)), {}, 'application/jose');
    expect((await r.json() as { identity: string }).identity).toBe((await signerB()).did);
  });

  it('verifiable credential profile', async () => {
    const s = await signerA();
    const vc = { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], issuer: s.did, issuanceDate: '2026-01-01T00:00:00Z',
      credentialSubject: JSON.parse(PAYLOAD) as unknown };
    const jws = await signCompact(s, enc(canonicalJson(vc)));
    const proof = { type: 'JsonWebSignature2020', verificationMethod: `${s.did}#${s.did.slice(8)}`, jws };
    const r = await post(`${srv.api}/query`, { ...vc, proof });
    expect([r.status, await r.json()]).toEqual([200, { ok: true, bearer: false, signer: s.did, identity: s.did, contentType: 'application/json', body: PAYLOAD }]);
    const detached = `${jws.split('.')[0]}..${jws.split('.')[2]}`;
    expect((await post(`${srv.api}/query`, { ...vc, proof: { ...proof, jws: detached } })).status).toBe(200);
    await expectErrorBody(await post(`${srv.api}/query`, { ...vc, issuer: (await signerB()).did, proof }), 401, 'err:db/Unauthorized', 'Invalid token: the credential proof does not cover this credential');
    await expectErrorBody(await post(`${srv.api}/query`, { ...vc, proof: { ...proof, type: 'Ed25519Signature2018' } }), 400, 'err:db/BadRequest', 'verifiable credential: only JsonWebSignature2020 proofs are accepted');
  });

  it('canonical JSON (RFC 8785)', () => {
    expect(canonicalJson({ b: [1, 2.5, 'x', null, true], a: { d: 1e21, c: -0 }, '€': 1, é: 2 })).toBe('{"a":{"c":0,"d":1e+21},"b":[1,2.5,"x",null,true],"é":2,"€":1}');
  });
});

describe('policy selection with credentials (policy.md §3.1)', () => {
  let srv: AuthServer;
  let withClass: AuthServer;
  let alice: string, scopeOnly: string;
  beforeAll(async () => {
    srv = await startAuthServer({ dataAuthMode: 'optional', dataAuthTrustedIssuers: [DID_A] });
    withClass = await startAuthServer({ dataAuthMode: 'optional', dataAuthTrustedIssuers: [DID_A], defaultPolicyClass: 'urn:class:Default' });
    alice = await token(await signerA(), { 'ledgraph.identity': 'urn:id:alice', 'ledgraph.ledger.read.all': true });
    scopeOnly = await token(await signerA(), { 'ledgraph.ledger.read.all': true });
  });
  afterAll(async () => { await srv.close(); await withClass.close(); });

  const inputs = async (s: AuthServer, client: unknown, tok?: string) => {
    const r = await post(`${s.api}/multi-query/policy-echo`, { client }, tok ? bearer(tok) : {});
    const body = await r.json() as Record<string, unknown>;
    return r.status === 200 ? body['inputs'] : [r.status, body['@type'], body['error']];
  };
  const conflict = [403, 'err:db/Forbidden', 'policy selection conflicts with credential'];

  it('the credential identity is used; repeating it or narrowing is accepted', async () => {
    expect(await inputs(srv, undefined, alice)).toEqual({ identity: 'urn:id:alice', defaultAllow: false });
    expect(await inputs(srv, { identity: 'urn:id:alice' }, alice)).toEqual({ identity: 'urn:id:alice', defaultAllow: false });
    expect(await inputs(srv, { defaultAllow: false }, alice)).toEqual({ identity: 'urn:id:alice', defaultAllow: false });
    expect(await inputs(withClass, undefined, alice)).toEqual({ identity: 'urn:id:alice', defaultAllow: false, policyClass: ['urn:class:Default'] });
  });

  it('anything else is 403', async () => {
    for (const client of [{ identity: 'urn:id:bob' }, { policy: {} }, { policyClass: ['urn:c'] }, { policyValues: { '?$x': 'urn:x' } }, { defaultAllow: true }]) {
      expect(await inputs(srv, client, alice)).toEqual(conflict);
    }
  });

  it('a scope-only token: root (or the server class); selections other than default-allow false are 403', async () => {
    expect(await inputs(srv, undefined, scopeOnly)).toBeNull();
    expect(await inputs(srv, { defaultAllow: false }, scopeOnly)).toBeNull();
    expect(await inputs(withClass, undefined, scopeOnly)).toEqual({ policyClass: ['urn:class:Default'], defaultAllow: false });
    expect(await inputs(srv, { identity: 'urn:id:bob' }, scopeOnly)).toEqual(conflict);
    expect(await inputs(srv, { policyClass: ['urn:c'] }, scopeOnly)).toEqual(conflict);
  });

  it('no credential: client inputs as given, plus the server class', async () => {
    expect(await inputs(srv, { identity: 'urn:id:bob', defaultAllow: true })).toEqual({ identity: 'urn:id:bob', defaultAllow: true });
    expect(await inputs(srv, undefined)).toBeNull();
    expect(await inputs(withClass, { identity: 'urn:id:bob', policyClass: ['urn:c'] })).toEqual({ identity: 'urn:id:bob', policyClass: ['urn:c', 'urn:class:Default'] });
  });
});

void echoRoutes;
