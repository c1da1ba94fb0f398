/**
 * POST /stream/query[/<ledger...>] over real HTTP (http-api.md §4.6, §2.12, §3): the record
 * sequence and its terminal records, the 4xx refusals before the first byte, fuel and timeout
 * failures as `error` records, heartbeats while the client is not reading, flow control (rows are
 * produced as the client reads) and cancellation when the client goes away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, postText, startTestServer, type TestServer } from '../support/server.js';

const EX = 'http://example.org/';
const NAMES = `PREFIX ex: <${EX}> SELECT ?s ?name WHERE { ?s ex:name ?name } ORDER BY ?name`;
const BIG = 200_000;
const BIG_QUERY = `SELECT ?s ?l WHERE { ?s <${EX}label> ?l }`;

type Rec = Record<string, unknown> & { type: string };

let srv: TestServer;

function stream(path: string, text: string, headers: Record<string, string> = {}, srvx: TestServer = srv): Promise<Response> {
  return postText(`${srvx.api}${path}`, 'application/sparql-query', text, headers);
}

async function records(r: Response): Promise<Rec[]> {
  return (await r.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
}

/** Read NDJSON records one at a time without buffering the body. */
async function* readRecords(r: Response): AsyncIterable<Rec> {
  const reader = r.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line) yield JSON.parse(line) as Rec;
    }
  }
  if (buf.trim()) yield JSON.parse(buf) as Rec;
}

async function bulkLabels(s: TestServer, ledger: string, n: number): Promise<void> {
  await createLedger(s, ledger);
  const chunk: string[] = [];
  for (let i = 0; i < n; i++) chunk.push(`<${EX}item/${i}> <${EX}label> "item number ${i} with some padding text" .\n`);
  await s.conn.bulkLoad(`${ledger}:main`, [chunk.join('')]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  srv = await startTestServer({ captureLogs: true, config: { streamHeartbeatMs: 20 } });
  await createLedger(srv, 'demo');
  const r = await postText(`${srv.api}/insert/demo`, 'text/turtle', `@prefix ex: <${EX}> . ex:ana ex:name "Ana" ; ex:age 34 . ex:ben ex:name "Ben" ; ex:age 27 .`);
  expect(r.status).toBe(200);
  await bulkLabels(srv, 'big', BIG);
}, 60_000);
afterAll(async () => { await srv?.close(); });

describe('record sequence', () => {
  it('streams head, rows and one end record', async () => {
    const r = await stream('/stream/query/demo', NAMES);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/x-ndjson');
    expect(r.headers.get('cache-control')).toBe('no-transform');
    // A heartbeat may come between any two records (the 20 ms interval passes on a loaded machine).
    const recs = (await records(r)).filter((x) => x.type !== 'heartbeat');
    expect(recs.slice(0, 3)).toEqual([
      { type: 'head', vars: ['s', 'name'] },
      { type: 'row', row: { s: { type: 'uri', value: `${EX}ana` }, name: { type: 'literal', value: 'Ana' } } },
      { type: 'row', row: { s: { type: 'uri', value: `${EX}ben` }, name: { type: 'literal', value: 'Ben' } } },
    ]);
    expect(recs.length).toBe(4);
    const end = recs[3]!;
    expect(Object.keys(end).sort()).toEqual(['fuel', 'rows', 't', 'time', 'type']);
    expect(end).toMatchObject({ type: 'end', rows: 2, t: 1 });
    expect(end.fuel).toBe(2);
    expect(end.time).toMatch(/^\d+(\.\d+)?ms$/);
  });

  it('rows are the /query bindings entries', async () => {
    const q = await postText(`${srv.api}/query/demo`, 'application/sparql-query', NAMES);
    const bindings = ((await q.json()) as { results: { bindings: unknown[] } }).results.bindings;
    const rows = (await records(await stream('/stream/query/demo', NAMES))).filter((x) => x.type === 'row').map((x) => x.row);
    expect(rows).toEqual(bindings);
  });

  it('streams an empty result as head and end', async () => {
    const recs = await records(await stream('/stream/query/demo', `SELECT ?x WHERE { ?x <${EX}none> ?y }`));
    expect(recs.map((x) => x.type)).toEqual(['head', 'end']);
    expect(recs[1]).toMatchObject({ rows: 0, t: 1 });
  });

  it('takes the ledger from FROM or Ledgraph-Ledger on the connection-scoped form', async () => {
    const a = await records(await stream('/stream/query', `SELECT ?n FROM <demo:main> WHERE { ?s <${EX}name> ?n }`));
    expect(a.at(-1)).toMatchObject({ type: 'end', rows: 2, t: 1 });
    const b = await records(await stream('/stream/query', `SELECT ?n WHERE { ?s <${EX}name> ?n }`, { 'Ledgraph-Ledger': 'demo:main' }));
    expect(b.at(-1)).toMatchObject({ type: 'end', rows: 2 });
  });
});

describe('refused before the stream starts', () => {
  const refuse = async (r: Response, status: number, msg: string) => {
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(((await r.json()) as { error: string }).error).toBe(msg);
  };

  it('refuses ASK, CONSTRUCT and DESCRIBE', async () => {
    await refuse(await stream('/stream/query/demo', 'ASK { ?s ?p ?o }'), 400, 'streaming supports SELECT queries only, not ASK; use POST /query');
    await refuse(await stream('/stream/query/demo', 'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }'), 400, 'streaming supports SELECT queries only, not CONSTRUCT; use POST /query');
    await refuse(await stream('/stream/query/demo', `DESCRIBE <${EX}ana>`), 400, 'streaming supports SELECT queries only, not DESCRIBE; use POST /query');
  });

  it('refuses history ranges', async () => {
    await refuse(await stream('/stream/query', 'SELECT * FROM <demo:main@t:0> TO <demo:main@t:latest> WHERE { ?s ?p ?o }'), 400,
      'history queries (FROM ... TO ...) cannot be streamed; use POST /query');
  });

  it('refuses a request with no ledger', async () => {
    await refuse(await stream('/stream/query', 'SELECT * WHERE { ?s ?p ?o }'), 400,
      'no ledger to query: name one in the path, the Ledgraph-Ledger header, or the query (from / FROM)');
  });

  it('refuses policy signals on the connection-scoped SPARQL form only', async () => {
    const msg = 'policy pragmas and policy headers are not accepted on the connection-scoped SPARQL stream; use POST /stream/query/<ledger>';
    await refuse(await stream('/stream/query', `# PRAGMA identity <${EX}alice>\nSELECT * FROM <demo:main> WHERE { ?s ?p ?o }`), 400, msg);
    await refuse(await stream('/stream/query', 'SELECT * FROM <demo:main> WHERE { ?s ?p ?o }', { 'Ledgraph-Identity': `${EX}alice` }), 400, msg);
    await refuse(await stream('/stream/query', 'SELECT * FROM <demo:main> WHERE { ?s ?p ?o }', { 'Ledgraph-Default-Allow': 'false' }), 400, msg);
    const scoped = await stream('/stream/query/demo', 'SELECT * WHERE { ?s ?p ?o }', { 'Ledgraph-Identity': `${EX}alice` });
    expect(scoped.status).toBe(200);
    await scoped.body!.cancel();
  });

  it('refuses invalid queries, missing ledgers and other content types', async () => {
    const bad = await stream('/stream/query/demo', 'SELECT ?x WHERE { ?x }');
    expect(bad.status).toBe(400);
    await bad.text();
    await refuse(await stream('/stream/query/nope', 'SELECT * WHERE { ?s ?p ?o }'), 404, 'ledger nope:main not found');
    const form = await postText(`${srv.api}/stream/query/demo`, 'application/x-www-form-urlencoded', 'query=SELECT%20*%20WHERE%20%7B%7D');
    expect(form.status).toBe(415);
    await form.text();
  });
});

describe('failures after the first byte', () => {
  it('ends with a fuel_exhausted error record', async () => {
    const recs = await records(await stream('/stream/query/big', BIG_QUERY, { 'Ledgraph-Max-Fuel': '1000' }));
    expect(recs[0]).toEqual({ type: 'head', vars: ['s', 'l'] });
    const last = recs.at(-1)!;
    expect(last).toEqual({
      type: 'error',
      error: { code: 'fuel_exhausted', message: 'fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 1000' },
      rows: recs.filter((x) => x.type === 'row').length,
    });
    expect(recs.filter((x) => x.type === 'end' || x.type === 'error').length).toBe(1);
  });

  it('ends with a fuel_exhausted error record from a PRAGMA fuel floor', async () => {
    const recs = await records(await stream('/stream/query/demo', `# PRAGMA max-fuel 0\n${NAMES}`));
    expect(recs.map((x) => x.type)).toEqual(['head', 'error']);
    expect(recs[1]).toMatchObject({ error: { code: 'fuel_exhausted' }, rows: 0 });
  });

  it('ends with a timeout error record', async () => {
    const slow = await startTestServer({ config: { queryTimeoutMs: 1 } });
    try {
      await bulkLabels(slow, 'big', 2000);
      const r = await stream('/stream/query/big', `SELECT (COUNT(*) AS ?n) WHERE { ?a <${EX}label> ?x . ?b <${EX}label> ?y . ?c <${EX}label> ?z }`, {}, slow);
      expect(r.status).toBe(200);
      const recs = await records(r);
      expect(recs).toEqual([
        { type: 'head', vars: ['n'] },
        { type: 'error', error: { code: 'timeout', message: 'query timeout exceeded' }, rows: 0 },
      ]);
    } finally {
      await slow.close();
    }
  });
});

describe('flow control, heartbeats and cancellation', () => {
  it('streams 200,000 rows, read one record at a time', async () => {
    const r = await stream('/stream/query/big', BIG_QUERY);
    let rows = 0;
    let last: Rec | undefined;
    for await (const rec of readRecords(r)) {
      if (rec.type === 'row') rows++;
      last = rec;
    }
    expect(rows).toBe(BIG);
    expect(last).toMatchObject({ type: 'end', rows: BIG });
  }, 60_000);

  it('sends heartbeats while the client is not reading', async () => {
    const r = await stream('/stream/query/big', BIG_QUERY);
    const reader = r.body!.getReader();
    const dec = new TextDecoder();
    let text = dec.decode((await reader.read()).value, { stream: true });
    await sleep(300); // the socket fills; no row can flow, so the 20 ms heartbeat must
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += dec.decode(value, { stream: true });
    }
    const recs = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
    const beats = recs.filter((x) => x.type === 'heartbeat');
    expect(beats.length).toBeGreaterThan(0);
    for (const b of beats) {
      expect(Object.keys(b).sort()).toEqual(['t_ms', 'type']);
      expect(Number.isInteger(b.t_ms)).toBe(true);
    }
    expect(recs.filter((x) => x.type === 'row').length).toBe(BIG);
    expect(recs.at(-1)).toMatchObject({ type: 'end', rows: BIG });
  }, 60_000);

  it('sends no heartbeat when the interval is 0', async () => {
    const quiet = await startTestServer({ config: { streamHeartbeatMs: 0 } });
    try {
      await bulkLabels(quiet, 'big', 50_000);
      const r = await stream('/stream/query/big', BIG_QUERY, {}, quiet);
      const reader = r.body!.getReader();
      const dec = new TextDecoder();
      let text = dec.decode((await reader.read()).value, { stream: true });
      await sleep(200);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += dec.decode(value, { stream: true });
      }
      const types = new Set(text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as Rec).type));
      expect([...types].sort()).toEqual(['end', 'head', 'row']);
    } finally {
      await quiet.close();
    }
  }, 60_000);

  it('cancels the query when the client goes away', async () => {
    const r = await postText(`${srv.api}/stream/query/big`, 'application/sparql-query', BIG_QUERY, { 'X-Request-ID': 'cancel-me' });
    const reader = r.body!.getReader();
    await reader.read();
    await reader.cancel();
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 200 && !line; i++) {
      line = srv.logs.find((l) => l.request_id === 'cancel-me' && l.msg === 'stream query ended');
      if (!line) await sleep(10);
    }
    expect(line).toBeDefined();
    expect(line!.code).toBe('cancelled');
    expect(line!.rows as number).toBeLessThan(BIG);
  }, 60_000);
});

describe('JSON-LD streaming', () => {
  const CTX = { ex: EX };
  const PEOPLE = { '@context': CTX, select: ['?s', '?name'], where: { '@id': '?s', 'ex:name': '?name' }, orderBy: '?name' };

  it('streams a JSON-LD select with the same records as SPARQL', async () => {
    const r = await postJson(`${srv.api}/stream/query/demo`, PEOPLE);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/x-ndjson');
    const recs = await records(r);
    const sparql = await records(await stream('/stream/query/demo', NAMES));
    expect(recs.slice(0, -1)).toEqual([{ type: 'head', vars: ['s', 'name'] }, ...sparql.slice(1, -1)]);
    expect(recs.at(-1)).toMatchObject({ type: 'end', rows: 2, t: 1 });
    expect(typeof recs.at(-1)!.fuel).toBe('number');
  });

  it('takes the ledger from from or Ledgraph-Ledger on the connection-scoped form', async () => {
    expect((await records(await postJson(`${srv.api}/stream/query`, { ...PEOPLE, from: 'demo:main' }))).at(-1)).toMatchObject({ type: 'end', rows: 2 });
    expect((await records(await postJson(`${srv.api}/stream/query`, PEOPLE, { 'Ledgraph-Ledger': 'demo' }))).at(-1)).toMatchObject({ type: 'end', rows: 2 });
    const none = await postJson(`${srv.api}/stream/query`, PEOPLE);
    expect(none.status).toBe(400);
    await none.text();
  });

  it('refuses selectOne, crawls, construct, ask and history before the stream', async () => {
    const bodies: [unknown, string][] = [
      [{ '@context': CTX, selectOne: ['?n'], where: { '@id': 'ex:ana', 'ex:name': '?n' } }, 'selectOne queries cannot be streamed; only select and selectDistinct'],
      [{ '@context': CTX, select: { '?s': ['*'] }, where: { '@id': '?s', 'ex:name': 'Ana' } }, 'graph crawl (hydration) queries cannot be streamed; select variables instead'],
      [{ '@context': CTX, construct: { '@id': '?s', 'ex:n': '?n' }, where: { '@id': '?s', 'ex:name': '?n' } }, 'construct queries cannot be streamed; only select and selectDistinct'],
      [{ '@context': CTX, ask: { '@id': 'ex:ana', 'ex:name': 'Ana' } }, 'ask queries cannot be streamed; only select and selectDistinct'],
      [{ '@context': CTX, from: 'demo:main@t:0', to: 'demo:main@t:latest', select: ['?n'], where: { '@id': '?s', 'ex:name': '?n' } }, 'history queries (to) cannot be streamed'],
    ];
    for (const [body, msg] of bodies) {
      const r = await postJson(`${srv.api}/stream/query`, { from: 'demo:main', ...(body as object) });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toBe(msg);
    }
  });

  it('enforces JSON-LD policy on both forms', async () => {
    const scoped = await records(await postJson(`${srv.api}/stream/query/demo`, { ...PEOPLE, opts: { 'default-allow': false } }));
    expect(scoped.map((x) => x.type)).toEqual(['head', 'end']);
    const conn = await records(await postJson(`${srv.api}/stream/query`, { ...PEOPLE, from: 'demo:main' }, { 'Ledgraph-Identity': `${EX}nobody` }));
    expect(conn.map((x) => x.type)).toEqual(['head', 'end']);
  });

  it('enforces SPARQL policy on the ledger-scoped form', async () => {
    const recs = await records(await stream('/stream/query/demo', NAMES, { 'Ledgraph-Default-Allow': 'false' }));
    expect(recs.map((x) => x.type)).toEqual(['head', 'end']);
  });

  it('ends with fuel_exhausted when the JSON-LD fuel runs out', async () => {
    const recs = await records(await postJson(`${srv.api}/stream/query/big`, { select: ['?s', '?l'], where: { '@id': '?s', [`${EX}label`]: '?l' } }, { 'Ledgraph-Max-Fuel': '500' }));
    expect(recs.at(-1)).toMatchObject({ type: 'error', error: { code: 'fuel_exhausted' } });
  });
});

describe('documentation', () => {
  it('lists the query endpoints in /swagger.json', async () => {
    const doc = (await (await fetch(`${srv.url}/swagger.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const base = srv.config.apiBaseUrl;
    expect(Object.keys(doc.paths[`${base}/query`]!).sort()).toEqual(['get', 'head', 'post']);
    expect(Object.keys(doc.paths[`${base}/query/{ledger}`]!).sort()).toEqual(['get', 'head', 'post']);
    expect(Object.keys(doc.paths[`${base}/stream/query`]!)).toEqual(['post']);
    expect(Object.keys(doc.paths[`${base}/stream/query/{ledger}`]!)).toEqual(['post']);
    expect(Object.keys(doc.paths[`${base}/multi-query`]!)).toEqual(['post']);
  });
});
