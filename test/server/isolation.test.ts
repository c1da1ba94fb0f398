/**
 * Isolation and cancellation over real HTTP (issue 20), on a ledger of 10,000 triples: a query
 * whose work never ends (a four-way cross product, 10^16 rows) must not hold up anyone else's
 * point query, and the client going away, the query timeout and fuel must each stop it on every
 * query path (/query, /stream/query, /multi-query, an update's WHERE). Nothing here is timed: a
 * point query must finish while the aggressor is still running, and after a cancellation the
 * process's count of running executions must come back to zero.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningQueries } from '../../src/core/query/engine.js';
import { postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { EX, expectError, until } from './helpers.js';

const TRIPLES = 10_000;
const CROSS = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }';
const CROSS_ROWS = 'SELECT ?a ?d WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }';
const SPARQL = 'application/sparql-query';

async function load(srv: TestServer, ledger: string): Promise<void> {
  await srv.conn.create(ledger);
  let nt = '';
  for (let i = 0; i < TRIPLES; i++) nt += `<${EX}s${i}> <${EX}p${i % 10}> "value ${i}" .\n`;
  await srv.conn.bulkLoad(`${ledger}:main`, (async function* () { yield nt; })());
}

/** A point query and its one answer. */
async function point(srv: TestServer, i: number): Promise<void> {
  const r = await postText(`${srv.api}/query/iso`, SPARQL, `SELECT ?o WHERE { <${EX}s${i}> <${EX}p${i % 10}> ?o }`, { Accept: 'application/sparql-results+json' });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { results: { bindings: { o: { value: string } }[] } };
  expect(body.results.bindings.map((b) => b.o.value)).toEqual([`value ${i}`]);
}

/** Send a request that will not end by itself; `settled` tells whether it has. */
function aggressor(send: (signal: AbortSignal) => Promise<Response>): { ac: AbortController; done: Promise<string>; settled: () => boolean } {
  const ac = new AbortController();
  let settled = false;
  const done = send(ac.signal).then((r) => r.text()).catch((e: unknown) => (e instanceof Error ? e.name : String(e))).finally(() => { settled = true; });
  return { ac, done, settled: () => settled };
}

/** Point queries are answered while the aggressor runs; then the client cuts it off and the work stops. */
async function pointQueriesDuring(srv: TestServer, a: ReturnType<typeof aggressor>): Promise<void> {
  await until(() => runningQueries() >= 1 || a.settled());
  expect(a.settled()).toBe(false);
  for (let i = 0; i < 5; i++) await point(srv, i * 997);
  expect(a.settled()).toBe(false);
  a.ac.abort();
  await a.done;
  await until(() => runningQueries() === 0);
  await point(srv, 42);
}

describe('isolation and client disconnects', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await startTestServer(); await load(srv, 'iso'); }, 120_000);
  afterAll(async () => { await srv.close(); });

  it('answers point queries while a cross-product COUNT runs on /query, and stops it when the client goes away', async () => {
    await pointQueriesDuring(srv, aggressor((signal) => fetch(`${srv.api}/query/iso`, { method: 'POST', headers: { 'Content-Type': SPARQL }, body: CROSS, signal })));
  });

  it('the same for a JSON-LD query on /query', async () => {
    const q = { select: ['?a'], where: [{ '@id': '?a', '?b': '?c' }, { '@id': '?d', '?e': '?f' }, { '@id': '?g', '?h': '?i' }], groupBy: [], limit: 1, orderBy: '?a' };
    await pointQueriesDuring(srv, aggressor((signal) => fetch(`${srv.api}/query/iso`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(q), signal })));
  });

  it('the same on /stream/query, with no row ever produced', async () => {
    await pointQueriesDuring(srv, aggressor((signal) => fetch(`${srv.api}/stream/query/iso`, { method: 'POST', headers: { 'Content-Type': SPARQL }, body: CROSS, signal })));
  });

  it('the same on /stream/query while rows flow', async () => {
    const a = aggressor(async (signal) => {
      const r = await fetch(`${srv.api}/stream/query/iso`, { method: 'POST', headers: { 'Content-Type': SPARQL }, body: CROSS_ROWS, signal });
      const reader = r.body!.getReader();
      for (;;) if ((await reader.read()).done) break;
      return r;
    });
    await pointQueriesDuring(srv, a);
  });

  it('the same on /multi-query', async () => {
    const env = { queries: { big: { language: 'sparql', query: CROSS.replace('WHERE', 'FROM <iso:main> WHERE') } } };
    await pointQueriesDuring(srv, aggressor((signal) => fetch(`${srv.api}/multi-query`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(env), signal })));
  });

  it("the same for a SPARQL UPDATE's WHERE, which then commits nothing", async () => {
    const before = (await srv.conn.ledger('iso')).t;
    const upd = `INSERT { <${EX}count> <${EX}n> ?n } WHERE { ${CROSS.replace('SELECT', '{ SELECT')} } }`;
    await pointQueriesDuring(srv, aggressor((signal) => fetch(`${srv.api}/update/iso`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-update' }, body: upd, signal })));
    expect((await srv.conn.ledger('iso')).t).toBe(before);
    // The ledger's write lock is free again.
    const ok = await postText(`${srv.api}/insert/iso`, 'text/turtle', `<${EX}after> <${EX}p> "x" .`);
    expect(ok.status).toBe(200);
  });

  it("the same for a JSON-LD update's WHERE", async () => {
    const upd = { '@context': { ex: EX }, where: [{ '@id': '?a', '?b': '?c' }, { '@id': '?d', '?e': '?f' }, { '@id': '?g', '?h': '?i' }], insert: { '@id': 'ex:x', 'ex:y': 'z' } };
    await pointQueriesDuring(srv, aggressor((signal) => fetch(`${srv.api}/update/iso`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(upd), signal })));
  });

  it('stops a cross product with fuel_exhausted under Ledgraph-Max-Fuel on /query, /stream/query and updates', async () => {
    const fuel = { 'Ledgraph-Max-Fuel': '50000' };
    await expectError(await postText(`${srv.api}/query/iso`, SPARQL, CROSS, fuel), 400, 'err:db/BadRequest', 'fuel limit exceeded');
    const recs = (await (await postText(`${srv.api}/stream/query/iso`, SPARQL, CROSS, fuel)).text()).trim().split('\n').map((l) => JSON.parse(l) as { type: string; error?: { code: string } });
    expect(recs.at(-1)!.error!.code).toBe('fuel_exhausted');
    const before = (await srv.conn.ledger('iso')).t;
    const upd = `INSERT { <${EX}count> <${EX}n> ?n } WHERE { ${CROSS.replace('SELECT', '{ SELECT')} } }`;
    await expectError(await postText(`${srv.api}/update/iso`, 'application/sparql-update', upd, fuel), 400, 'err:db/BadRequest', 'fuel limit exceeded');
    const json = { '@context': { ex: EX }, where: [{ '@id': '?a', '?b': '?c' }, { '@id': '?d', '?e': '?f' }, { '@id': '?g', '?h': '?i' }], insert: { '@id': 'ex:x', 'ex:y': 'z' } };
    await expectError(await postJson(`${srv.api}/update/iso`, { ...json, opts: { 'max-fuel': 50_000 } }), 400, 'err:db/BadRequest', 'fuel limit exceeded');
    expect((await srv.conn.ledger('iso')).t).toBe(before);
    expect(runningQueries()).toBe(0);
  });

  it('cuts a streamed /query result off mid-transfer (fuel here; timeout and cancellation take the same path) as an aborted transfer, in every format', async () => {
    for (const accept of ['text/csv', 'text/tab-separated-values', 'application/sparql-results+json', 'application/sparql-results+xml']) {
      // Fuel, unlike time, makes the cut land past the first 256 KB on any machine: ~100,000 rows.
      const r = await postText(`${srv.api}/query/iso`, SPARQL, CROSS_ROWS, { Accept: accept, 'Ledgraph-Max-Fuel': '100000' });
      expect(r.status).toBe(200); // past the first 256 KB the status is sent
      const reader = r.body!.getReader();
      let bytes = 0;
      const outcome = await (async () => {
        for (;;) {
          const x = await reader.read();
          if (x.done) return 'complete body';
          bytes += x.value.length;
        }
      })().catch((e: unknown) => (e instanceof Error ? e.name : String(e)));
      expect(outcome, accept).toBe('TypeError'); // fetch's "terminated": the body was cut, not ended
      expect(bytes).toBeGreaterThan(256 * 1024);
    }
    await until(() => runningQueries() === 0);
  });

  it('answers REGEX with a catastrophic pattern on a long string at once', async () => {
    const q = `SELECT (COUNT(*) AS ?n) WHERE { ?s <${EX}p1> ?o FILTER (!REGEX("${'a'.repeat(40)}!", "^(a+)+$")) }`;
    const r = await postText(`${srv.api}/query/iso`, SPARQL, q, { Accept: 'application/sparql-results+json' });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { results: { bindings: { n: { value: string } }[] } }).results.bindings[0]!.n.value).toBe(String(TRIPLES / 10));
  });

  it('the same in a JSON-LD query filter, and refuses a back-reference there as a row error', async () => {
    const text = 'a'.repeat(40) + '!';
    const ins = await postText(`${srv.api}/insert/iso`, 'text/turtle', `<${EX}long> <${EX}text> "${text}" .`);
    expect(ins.status).toBe(200);
    const q = (pattern: string) => ({ '@context': { ex: EX }, select: ['?t'], where: [{ '@id': 'ex:long', 'ex:text': '?t' }, ['filter', ['not', ['regex', '?t', pattern]]]] });
    const r = await postJson(`${srv.api}/query/iso`, q('^(a+)+$'));
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual([text]);
    const back = await postJson(`${srv.api}/query/iso`, q('(a)\\1'));
    expect(back.status).toBe(200);
    expect(await back.json()).toEqual([]); // the filter's error drops the row, as in SPARQL
  });
});

describe('the query timeout and fuel', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await startTestServer({ config: { queryTimeoutMs: 300 } }); await load(srv, 'iso'); }, 120_000);
  afterAll(async () => { await srv.close(); });

  it('stops a cross product on /query with 408', async () => {
    await expectError(await postText(`${srv.api}/query/iso`, SPARQL, CROSS), 408, 'err:db/Timeout', 'query timeout exceeded');
    expect(runningQueries()).toBe(0);
  });

  it('ends /stream/query with the terminal error record', async () => {
    const recs = (await (await postText(`${srv.api}/stream/query/iso`, SPARQL, CROSS)).text()).trim().split('\n').map((l) => JSON.parse(l) as { type: string; error?: { code: string } });
    expect(recs[0]!.type).toBe('head');
    expect(recs.at(-1)).toEqual({ type: 'error', error: { code: 'timeout', message: 'query timeout exceeded' }, rows: 0 });
    expect(runningQueries()).toBe(0);
  });

  it('ends /stream/query at the deadline even when the client stopped reading', async () => {
    const r = await postText(`${srv.api}/stream/query/iso`, SPARQL, CROSS_ROWS);
    const reader = r.body!.getReader();
    await reader.read();
    // Not reading: the socket fills, no pull runs the query; the deadline must still end it.
    await until(() => runningQueries() === 0);
    const dec = new TextDecoder();
    let text = '';
    for (;;) {
      const x = await reader.read();
      if (x.done) break;
      text += dec.decode(x.value, { stream: true });
    }
    const last = JSON.parse(text.trim().split('\n').at(-1)!) as { type: string; error?: { code: string } };
    expect(last.type).toBe('error');
    expect(last.error!.code).toBe('timeout');
  });

  it('times out a sub-query of /multi-query', async () => {
    const r = await postJson(`${srv.api}/multi-query`, { queries: { big: { language: 'sparql', query: CROSS.replace('WHERE', 'FROM <iso:main> WHERE') } } });
    const body = (await r.json()) as { errors?: Record<string, { code: string }> };
    expect(body.errors?.big?.code).toBe('timeout');
    expect(runningQueries()).toBe(0);
  });

  it("stops an update's WHERE at the timeout, committing nothing", async () => {
    const before = (await srv.conn.ledger('iso')).t;
    const upd = `INSERT { <${EX}count> <${EX}n> ?n } WHERE { ${CROSS.replace('SELECT', '{ SELECT')} } }`;
    await expectError(await postText(`${srv.api}/update/iso`, 'application/sparql-update', upd), 408, 'err:db/Timeout');
    const json = { '@context': { ex: EX }, where: [{ '@id': '?a', '?b': '?c' }, { '@id': '?d', '?e': '?f' }, { '@id': '?g', '?h': '?i' }], insert: { '@id': 'ex:x', 'ex:y': 'z' } };
    await expectError(await postJson(`${srv.api}/update/iso`, json), 408, 'err:db/Timeout');
    expect((await srv.conn.ledger('iso')).t).toBe(before);
    expect(runningQueries()).toBe(0);
  });
});
