/**
 * The plain-query fast path (src/server/fast-query.ts) against the app: two servers over the same
 * data, one answering plain SPARQL queries on the raw request and one sending every request
 * through Hono, get the same matrix of requests (methods, content types, Accept values, bodies,
 * ledgers with time specifiers, query headers, auth, errors, HEAD/OPTIONS, a streamed result) and
 * must give the same status, headers (all but Date) and body bytes. The fast server must have
 * answered the plain ones itself.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastQueriesAnswered } from '../../src/server/fast-query.js';
import { createLedger, postText, startTestServer, type TestServer } from '../support/server.js';
import { until } from './helpers.js';

const EX = 'http://example.org/';
const DATA = `@prefix ex: <${EX}> .
ex:ana ex:name "Ana" ; ex:age 34 ; ex:knows ex:ben ; ex:note "café \\"quoted\\" \\\\ tab\\t" .
ex:ben ex:name "Ben"@en ; ex:age 27 .`;
const MORE = `@prefix ex: <${EX}> . ex:caro ex:name "Caro" .`;
/** Enough text to go past the 256 KiB buffered prefix (a streamed response). */
const BIG = `@prefix ex: <${EX}> .\n` + Array.from({ length: 1500 }, (_, i) => `ex:item${i} ex:text "${'x'.repeat(200)} ${i}" .`).join('\n');

interface Reply { status: number; headers: [string, string][]; body: Buffer }

/** One request over a fresh connection, with exactly these headers; the raw response. */
function send(base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<Reply> {
  const u = new URL(base);
  return new Promise((ok, fail) => {
    const h: Record<string, string | number> = { ...headers };
    if (body !== undefined) h['content-length'] = Buffer.byteLength(body);
    const req = request({ host: u.hostname, port: u.port, method, path, headers: h, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const hs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) hs.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
        ok({ status: res.statusCode!, headers: hs.filter(([k]) => k !== 'date'), body: Buffer.concat(parts) });
      });
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(body);
  });
}

const SQ = { 'content-type': 'application/sparql-query', 'x-request-id': 'req-1' };
const SELECT = `PREFIX ex: <${EX}> SELECT ?p ?o WHERE { ex:ana ?p ?o } ORDER BY ?p ?o`;
const NAMES = `PREFIX ex: <${EX}> SELECT ?s ?name WHERE { ?s ex:name ?name } ORDER BY ?name`;

/** [name, method, path (below api_base_url), headers, body, answered on the fast path?] */
type Case = [string, string, string, Record<string, string>, (Buffer | string)?, boolean?];
const PLAIN = true;

const CASES: Case[] = [
  ['select, default Accept', 'POST', '/query/demo', SQ, SELECT, PLAIN],
  ['select, SPARQL JSON', 'POST', '/query/demo', { ...SQ, accept: 'application/sparql-results+json' }, NAMES, PLAIN],
  ['select, charset=utf-8', 'POST', '/query/demo', { ...SQ, 'content-type': 'application/sparql-query; charset=UTF-8' }, NAMES, PLAIN],
  ['select, XML', 'POST', '/query/demo', { ...SQ, accept: 'application/sparql-results+xml' }, SELECT, PLAIN],
  ['select, CSV', 'POST', '/query/demo', { ...SQ, accept: 'text/csv' }, SELECT, PLAIN],
  ['select, TSV', 'POST', '/query/demo', { ...SQ, accept: 'text/tab-separated-values' }, SELECT, PLAIN],
  ['select, application/json', 'POST', '/query/demo', { ...SQ, accept: 'application/json' }, SELECT, PLAIN],
  ['select, q-values', 'POST', '/query/demo', { ...SQ, accept: 'application/sparql-results+json;q=0.5, text/csv' }, SELECT, PLAIN],
  ['select, */*', 'POST', '/query/demo', { ...SQ, accept: '*/*' }, SELECT, PLAIN],
  ['select, Turtle is 406', 'POST', '/query/demo', { ...SQ, accept: 'text/turtle' }, SELECT, PLAIN],
  ['ask', 'POST', '/query/demo', SQ, `ASK { <${EX}ana> ?p ?o }`, PLAIN],
  ['ask, XML', 'POST', '/query/demo', { ...SQ, accept: 'application/sparql-results+xml' }, `ASK { <${EX}zed> ?p ?o }`, PLAIN],
  ['construct, default', 'POST', '/query/demo', SQ, `CONSTRUCT { ?s <${EX}n> ?o } WHERE { ?s <${EX}name> ?o }`, PLAIN],
  ['construct, N-Triples', 'POST', '/query/demo', { ...SQ, accept: 'application/n-triples' }, `CONSTRUCT WHERE { ?s <${EX}age> ?o }`, PLAIN],
  ['describe, Turtle', 'POST', '/query/demo', { ...SQ, accept: 'text/turtle' }, `DESCRIBE <${EX}ben>`, PLAIN],
  ['time specifier @t:1', 'POST', '/query/demo@t:1', SQ, NAMES, PLAIN],
  ['time specifier @t:2', 'POST', '/query/demo@t:2', SQ, NAMES, PLAIN],
  ['bad time specifier', 'POST', '/query/demo@x:1', SQ, NAMES, PLAIN],
  ['time past the head', 'POST', '/query/demo@t:99', SQ, NAMES, PLAIN],
  ['branch name', 'POST', '/query/demo:main', SQ, NAMES, PLAIN],
  ['unknown ledger', 'POST', '/query/nope', SQ, NAMES, PLAIN],
  ['ledger with a slash', 'POST', '/query/demo/extra', SQ, NAMES, PLAIN],
  ['SPARQL syntax error', 'POST', '/query/demo', SQ, 'SELECT WHERE {', PLAIN],
  ['update sent to /query', 'POST', '/query/demo', SQ, `INSERT DATA { <${EX}a> <${EX}b> 1 }`, PLAIN],
  ['empty body', 'POST', '/query/demo', SQ, '', PLAIN],
  ['invalid UTF-8', 'POST', '/query/demo', SQ, Buffer.from([0x53, 0x45, 0xff, 0xfe]), PLAIN],
  ['fuel pragma too small', 'POST', '/query/demo', SQ, `PRAGMA max-fuel 1 ${NAMES}`, PLAIN],
  ['no X-Request-ID: one is made', 'POST', '/query/demo', { 'content-type': 'application/sparql-query' }, NAMES, PLAIN],
  ['invalid X-Request-ID is replaced', 'POST', '/query/demo', { ...SQ, 'x-request-id': 'bad id with spaces' }, NAMES, PLAIN],
  ['traceparent', 'POST', '/query/demo', { ...SQ, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, NAMES, PLAIN],
  ['streamed result past the prefix', 'POST', '/query/big', SQ, `SELECT ?s ?t WHERE { ?s <${EX}text> ?t } ORDER BY ?s`, PLAIN],
  // Everything else goes through the app on both servers (same answers by construction; checked anyway).
  ['format= parameter', 'POST', '/query/demo?format=csv', SQ, SELECT],
  ['percent-encoded ledger', 'POST', '/query/de%6Do', SQ, NAMES],
  ['Ledgraph-Max-Fuel', 'POST', '/query/demo', { ...SQ, 'ledgraph-max-fuel': '1' }, NAMES],
  ['Ledgraph-Min-T', 'POST', '/query/demo', { ...SQ, 'ledgraph-min-t': '1' }, NAMES],
  ['Ledgraph-Policy-Class', 'POST', '/query/demo', { ...SQ, 'ledgraph-policy-class': `${EX}Nobody` }, NAMES],
  ['Authorization with auth off', 'POST', '/query/demo', { ...SQ, authorization: 'Bearer nonsense' }, NAMES],
  ['charset latin1 is 415', 'POST', '/query/demo', { ...SQ, 'content-type': 'application/sparql-query; charset=latin1' }, NAMES],
  ['text/plain is 415', 'POST', '/query/demo', { ...SQ, 'content-type': 'text/plain' }, NAMES],
  ['no Content-Type is 415', 'POST', '/query/demo', { 'x-request-id': 'req-1' }, NAMES],
  ['JSON-LD query', 'POST', '/query/demo', { ...SQ, 'content-type': 'application/json' }, JSON.stringify({ select: ['?n'], where: { '@id': '?s', [`${EX}name`]: '?n' } })],
  ['form-encoded', 'POST', '/query/demo', { ...SQ, 'content-type': 'application/x-www-form-urlencoded' }, `query=${encodeURIComponent(NAMES)}`],
  ['SPARQL update content type', 'POST', '/query/demo', { ...SQ, 'content-type': 'application/sparql-update' }, NAMES],
  ['body opening like a JWS', 'POST', '/query/demo', SQ, 'eyJhbGciOiJFZERTQSJ9.e30.AAAA'],
  ['connection-scoped /query', 'POST', '/query', { ...SQ, 'ledgraph-ledger': 'demo' }, NAMES],
  ['GET ?query=', 'GET', `/query/demo?query=${encodeURIComponent(NAMES)}`, { 'x-request-id': 'req-1' }],
  ['GET service description', 'GET', '/query/demo', { 'x-request-id': 'req-1', accept: 'text/turtle' }],
  ['HEAD ?query=', 'HEAD', `/query/demo?query=${encodeURIComponent(NAMES)}`, { 'x-request-id': 'req-1' }],
  ['OPTIONS', 'OPTIONS', '/query/demo', { 'x-request-id': 'req-1' }],
  ['PUT is 405', 'PUT', '/query/demo', SQ, NAMES],
];

let fast: TestServer;
let app: TestServer;

async function seed(srv: TestServer): Promise<void> {
  await createLedger(srv, 'demo');
  for (const ttl of [DATA, MORE]) expect((await postText(`${srv.api}/insert/demo`, 'text/turtle', ttl)).status).toBe(200);
  await createLedger(srv, 'big');
  expect((await postText(`${srv.api}/insert/big`, 'text/turtle', BIG)).status).toBe(200);
}

beforeAll(async () => {
  fast = await startTestServer();
  app = await startTestServer({ fastQueryPath: false });
  await seed(fast);
  await seed(app);
}, 60_000);
afterAll(async () => { await fast?.close(); await app?.close(); });

/** The reply with a generated request id and the server's own origin replaced by placeholders (the two servers differ there). */
function normal(r: Reply, sent: Record<string, string>, origin: string): Reply {
  const given = sent['x-request-id'];
  const keep = given !== undefined && /^[\x21-\x7e]{1,200}$/.test(given);
  const body = Buffer.from(r.body.toString('latin1').replaceAll(origin, '<origin>'), 'latin1');
  const length = r.body.length === body.length ? null : String(body.length);
  return {
    ...r, body,
    headers: r.headers.map(([k, v]) => [k, k === 'x-request-id' && !keep ? (/^[0-9a-f-]{36}$/.test(v) ? '<uuid>' : v) : k === 'content-length' && length ? length : v]),
  };
}

describe('the plain-query fast path answers as the app does', () => {
  for (const [name, method, path, headers, body, plain] of CASES) {
    it(name, async () => {
      const api = new URL(fast.api).pathname;
      const before = fastQueriesAnswered();
      const a = normal(await send(fast.url, method, api + path, headers, body), headers, fast.url);
      const onFast = fastQueriesAnswered() - before;
      const b = normal(await send(app.url, method, api + path, headers, body), headers, app.url);
      expect(fastQueriesAnswered() - before - onFast).toBe(0); // the app-only server never uses it
      expect(onFast).toBe(plain ? 1 : 0);
      expect(a.status).toBe(b.status);
      expect(a.headers).toEqual(b.headers);
      expect(a.body.equals(b.body), `${a.body.toString().slice(0, 300)}\n---\n${b.body.toString().slice(0, 300)}`).toBe(true);
    });
  }

  it('covers successes, client errors and a streamed result', async () => {
    const api = new URL(fast.api).pathname;
    const statuses = new Set<number>();
    for (const [, method, path, headers, body, plain] of CASES) if (plain) statuses.add((await send(fast.url, method, api + path, headers, body)).status);
    expect([...statuses].sort()).toEqual([200, 400, 404, 406]);
    const big = await send(fast.url, 'POST', `${api}/query/big`, SQ, `SELECT ?s ?t WHERE { ?s <${EX}text> ?t }`);
    expect(big.headers.find(([k]) => k === 'transfer-encoding')?.[1]).toBe('chunked');
    expect(big.body.length).toBeGreaterThan(256 * 1024);
  });
});

describe('the fast path writes SPARQL JSON from pooled byte buffers', () => {
  it('many concurrent queries on many connections each get their own complete body', async () => {
    const api = new URL(fast.api).pathname;
    // Items of the big ledger: ≈220-byte rows, a few hundred bytes to a few KiB per answer.
    const query = (i: number) => `SELECT ?s ?t WHERE { ?s <${EX}text> ?t FILTER(STRENDS(?t, " ${i}") || STRENDS(?t, " ${i}1") || STRENDS(?t, " ${i}2")) } ORDER BY ?s`;
    const ids = Array.from({ length: 60 }, (_, i) => i + 10);
    const expected = new Map<number, string>();
    for (const i of ids) expected.set(i, (await send(app.url, 'POST', api + '/query/big', SQ, query(i))).body.toString());
    const before = fastQueriesAnswered();
    for (let round = 0; round < 3; round++) {
      const replies = await Promise.all(ids.map((i) => send(fast.url, 'POST', api + '/query/big', SQ, query(i))));
      replies.forEach((r, k) => {
        expect(r.status).toBe(200);
        expect(r.body.toString()).toBe(expected.get(ids[k]!));
      });
    }
    expect(fastQueriesAnswered() - before).toBe(3 * ids.length);
  });
});

describe('the fast path logs, times out and counts admissions as the app does', () => {
  it('writes the same request log lines and times a slow query out with the same 408', async () => {
    // Long enough for the small queries on a loaded box, far too short for the cross product.
    const config = { queryTimeoutMs: 500 };
    const on = await startTestServer({ captureLogs: true, config });
    const off = await startTestServer({ captureLogs: true, config, fastQueryPath: false });
    try {
      const api = new URL(on.api).pathname;
      // A cross product of the big ledger with itself three times: billions of rows.
      const slow = `SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?x . ?b ?q ?y . ?c ?r ?z }`;
      const replies: Reply[][] = [];
      for (const srv of [on, off]) {
        await seed(srv);
        srv.logs.length = 0;
        const out: Reply[] = [];
        for (const [path, q] of [['/query/demo', NAMES], ['/query/nope', NAMES], ['/query/big', slow]] as const) {
          out.push(normal(await send(srv.url, 'POST', api + path, SQ, q), SQ, srv.url));
        }
        replies.push(out);
        expect(srv.server.state.queryGate.active).toBe(0);
      }
      expect(replies[0]!.map((r) => r.status)).toEqual([200, 404, 408]);
      expect(replies[0]!.map((r) => [r.status, r.headers, r.body.toString()])).toEqual(replies[1]!.map((r) => [r.status, r.headers, r.body.toString()]));
      const lines = (srv: TestServer) => srv.logs.filter((l) => l.msg === 'request' || l.level === 'warn' || l.level === 'error')
        .map(({ time: _t, ms: _m, ...rest }) => rest);
      expect(lines(on)).toEqual(lines(off));
      expect(lines(on).filter((l) => l.msg === 'request').map((l) => l.status)).toEqual([200, 404, 408]);
    } finally { await on.close(); await off.close(); }
  });
});

describe('the fast path cancels a query whose client goes away', () => {
  it('aborts the running query and releases the query gate when the connection closes', async () => {
    const { runningQueries } = await import('../../src/core/query/engine.js');
    const api = new URL(fast.api).pathname;
    const before = fastQueriesAnswered();
    const slow = `SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?x . ?b ?q ?y . ?c ?r ?z }`;
    const u = new URL(fast.url);
    const req = request({ host: u.hostname, port: u.port, method: 'POST', path: `${api}/query/big`, agent: false, headers: { ...SQ, 'content-length': Buffer.byteLength(slow) } });
    req.on('error', () => {});
    req.end(slow);
    const gate = fast.server.state.queryGate;
    await until(() => gate.active === 1 && runningQueries() > 0);
    expect(fastQueriesAnswered()).toBe(before + 1);
    req.destroy();
    await until(() => gate.active === 0 && runningQueries() === 0);
  });
});

describe('the fast path stays off where the configuration could change a plain query', () => {
  it('data auth required: the app answers, as on a server with the fast path off (401 without a token, 200 with one)', async () => {
    const { token, signerA, DID_A } = await import('../auth/helpers.js');
    const config = { dataAuthMode: 'required' as const, dataAuthTrustedIssuers: [DID_A] };
    const on = await startTestServer({ config });
    const off = await startTestServer({ config, fastQueryPath: false });
    try {
      const a = await signerA();
      const admin = await token(a, { 'ledgraph.ledger.write.all': true, 'ledgraph.ledger.read.all': true });
      const reader = await token(a, { 'ledgraph.ledger.read.ledgers': ['demo'] });
      const before = fastQueriesAnswered();
      const statuses: number[] = [];
      for (const srv of [on, off]) {
        const auth = { Authorization: `Bearer ${admin}` };
        expect((await postText(`${srv.api}/create`, 'application/json', JSON.stringify({ ledger: 'demo' }), auth)).status).toBe(201);
        expect((await postText(`${srv.api}/insert/demo`, 'text/turtle', MORE, auth)).status).toBe(200);
      }
      const api = new URL(on.api).pathname;
      for (const h of [SQ, { ...SQ, authorization: `Bearer ${reader}` }, { ...SQ, authorization: 'Bearer nonsense' }]) {
        const x = normal(await send(on.url, 'POST', `${api}/query/demo`, h, NAMES), h, on.url);
        const y = normal(await send(off.url, 'POST', `${api}/query/demo`, h, NAMES), h, off.url);
        expect([x.status, x.headers, x.body.toString()]).toEqual([y.status, y.headers, y.body.toString()]);
        statuses.push(x.status);
      }
      expect(statuses).toEqual([401, 200, 401]);
      expect(fastQueriesAnswered()).toBe(before);
    } finally { await on.close(); await off.close(); }
  });

  it('CORS enabled: the app answers with its CORS headers', async () => {
    const cors = await startTestServer({ config: { corsEnabled: true } });
    try {
      await createLedger(cors, 'demo');
      const before = fastQueriesAnswered();
      const api = new URL(cors.api).pathname;
      const r = await send(cors.url, 'POST', `${api}/query/demo`, { ...SQ, origin: 'http://example.com' }, NAMES);
      expect(r.status).toBe(200);
      expect(r.headers.find(([k]) => k === 'access-control-allow-origin')?.[1]).toBe('*');
      expect(fastQueriesAnswered()).toBe(before);
    } finally { await cors.close(); }
  });
});
