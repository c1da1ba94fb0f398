/**
 * POST /multi-query over real HTTP (http-api.md §2.11, §4.7, §8): JSON-LD and SPARQL aliases,
 * the merge rules (context, prefix/base injection, opts layers), the snapshot rule for each
 * kind of asOf, temporal collisions, every 400 bound, per-alias errors (api_error, timeout),
 * tracking and meta, output formatting and the status of the whole envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, postText, startTestServer, type TestServer } from '../support/server.js';

const EX = 'http://example.org/';
let srv: TestServer;
/** Commit timestamps of ledger b: t 1 and t 2. */
let bTimes: string[] = [];

async function insert(ledger: string, turtle: string): Promise<{ t: number; timestamp: string }> {
  const r = await postText(`${srv.api}/insert/${ledger}`, 'text/turtle', turtle);
  expect(r.status).toBe(200);
  return (await r.json()) as { t: number; timestamp: string };
}

const multi = (env: unknown, headers: Record<string, string> = {}) => postJson(`${srv.api}/multi-query`, env, headers);

async function ok(r: Response): Promise<Record<string, any>> {
  expect(r.status).toBe(200);
  return (await r.json()) as Record<string, any>;
}

async function refused(r: Response, status: number): Promise<string> {
  expect(r.status).toBe(status);
  const body = (await r.json()) as { error: string; status: number };
  expect(body.status).toBe(status);
  return body.error;
}

const names = (res: unknown) => (res as { results: { bindings: { n: { value: string } }[] } }).results.bindings.map((b) => b.n.value);
const sparqlNames = (ledger: string) => ({ language: 'sparql', query: `SELECT ?n FROM <${ledger}> WHERE { ?s <${EX}name> ?n } ORDER BY ?n` });
const jsonldNames = (ledger: string) => ({ language: 'jsonld', query: { '@context': { ex: EX }, from: ledger, select: '?n', where: { '@id': '?s', 'ex:name': '?n' }, orderBy: '?n' } });

beforeAll(async () => {
  srv = await startTestServer();
  await createLedger(srv, 'a');
  await createLedger(srv, 'b');
  await insert('a', `<${EX}ana> <${EX}name> "Ana" .`);
  const b1 = await insert('b', `<${EX}bob> <${EX}name> "Bob" .`);
  while (Date.now() <= Date.parse(b1.timestamp)) await new Promise((r) => setTimeout(r, 2));
  const b2 = await insert('b', `<${EX}bea> <${EX}name> "Bea" .`);
  bTimes = [b1.timestamp, b2.timestamp];
});
afterAll(async () => { await srv?.close(); });

describe('results and status', () => {
  it('answers JSON-LD and SPARQL aliases under one snapshot', async () => {
    const before = Date.now();
    const body = await ok(await multi({ queries: { people: jsonldNames('a:main'), others: sparqlNames('b:main') } }));
    expect(Object.keys(body)).toEqual(['status', 'snapshot', 'results']);
    expect(body.status).toBe('ok');
    expect(body.snapshot.ledgers).toEqual({ 'a:main': 1, 'b:main': 2 });
    expect(Date.parse(body.snapshot.asOf)).toBeGreaterThanOrEqual(before - 1000);
    expect(body.snapshot.asOf).toBe(new Date(Date.parse(body.snapshot.asOf)).toISOString());
    expect(body.results.people).toEqual(['Ana']);
    expect(body.results.others).toEqual({
      head: { vars: ['n'] },
      results: { bindings: [{ n: { type: 'literal', value: 'Bea' } }, { n: { type: 'literal', value: 'Bob' } }] },
    });
  });

  it('reports a failing alias in errors with status partial, all failing as all_failed', async () => {
    const partial = await ok(await multi({ queries: { good: sparqlNames('a:main'), bad: { language: 'sparql', query: 'SELECT ?n FROM <a:main> WHERE { ?s }' } } }));
    expect(partial.status).toBe('partial');
    expect(Object.keys(partial.results)).toEqual(['good']);
    expect(partial.errors.bad.code).toBe('api_error');
    expect(partial.errors.bad.message).toMatch(/^Invalid SPARQL query: syntax error at line 1, column \d+/);
    const all = await ok(await multi({ queries: {
      x: { language: 'jsonld', query: { from: 'a:main', select: ['nope'], where: {} } },
      y: { language: 'sparql', query: 'SELECT * FROM <a:main> WHERE {' },
    } }));
    expect(all.status).toBe('all_failed');
    expect(all.results).toEqual({});
    expect(Object.keys(all.errors).sort()).toEqual(['x', 'y']);
    expect(all.errors.x.code).toBe('api_error');
  });

  it('answers ASK and CONSTRUCT sub-queries in JSON', async () => {
    const body = await ok(await multi({ queries: {
      ask: { language: 'sparql', query: `ASK FROM <a:main> WHERE { ?s <${EX}name> "Ana" }` },
      graph: { language: 'sparql', query: `CONSTRUCT { ?s <${EX}label> ?n } FROM <a:main> WHERE { ?s <${EX}name> ?n }` },
      jask: { language: 'json-ld', query: { from: 'a:main', ask: { '@id': `${EX}ana`, [`${EX}name`]: 'Ana' } } },
    } }));
    expect(body.results).toEqual({
      ask: { head: {}, boolean: true },
      graph: [{ '@id': `${EX}ana`, [`${EX}label`]: [{ '@value': 'Ana' }] }],
      jask: true,
    });
  });
});

describe('snapshot', () => {
  it('pins an integer asOf on the one ledger', async () => {
    const body = await ok(await multi({ asOf: 1, queries: { s: sparqlNames('b:main'), j: jsonldNames('b:main') } }));
    expect(body.snapshot).toEqual({ ledgers: { 'b:main': 1 } });
    expect(names(body.results.s)).toEqual(['Bob']);
    expect(body.results.j).toEqual(['Bob']);
  });

  it('refuses an integer asOf over several ledgers, or beyond the head', async () => {
    expect(await refused(await multi({ asOf: 1, queries: { a: sparqlNames('a:main'), b: sparqlNames('b:main') } }), 400))
      .toBe('an integer asOf needs exactly one ledger across the envelope; this one references 2');
    expect(await refused(await multi({ asOf: 9, queries: { b: sparqlNames('b:main') } }), 400)).toBe('asOf 9 is beyond the head of ledger b:main (t 2)');
  });

  it('resolves an ISO asOf per ledger', async () => {
    const body = await ok(await multi({ asOf: bTimes[0], queries: { a: sparqlNames('a:main'), b: jsonldNames('b:main') } }));
    expect(body.snapshot).toEqual({ asOf: new Date(bTimes[0]!).toISOString(), ledgers: { 'a:main': 1, 'b:main': 1 } });
    expect(names(body.results.a)).toEqual(['Ana']);
    expect(body.results.b).toEqual(['Bob']);
    const later = await ok(await multi({ asOf: bTimes[1], queries: { b: sparqlNames('b:main') } }));
    expect(later.snapshot.ledgers).toEqual({ 'b:main': 2 });
  });

  it('refuses a malformed ISO asOf and one before a ledger began', async () => {
    expect(await refused(await multi({ asOf: 'yesterday', queries: { a: sparqlNames('a:main') } }), 400))
      .toBe('asOf must be an integer t or an ISO 8601 date-time, got "yesterday"');
    expect(await refused(await multi({ asOf: '2001-01-01T00:00:00Z', queries: { a: sparqlNames('a:main') } }), 400))
      .toBe('asOf 2001-01-01T00:00:00Z is before the first commit of ledger a:main');
  });

  it('refuses temporal pins when asOf is set, and allows them otherwise', async () => {
    const pins: unknown[] = [
      { language: 'sparql', query: `SELECT * FROM <b:main@t:1> WHERE { ?s ?p ?o }` },
      { language: 'sparql', query: `SELECT * FROM <b:main@time:${bTimes[0]}> WHERE { ?s ?p ?o }` },
      { language: 'jsonld', query: { from: 'b:main@t:1', select: '?s', where: { '@id': '?s' } } },
      { language: 'jsonld', query: { from: { '@id': 'b:main', t: 1 }, select: '?s', where: { '@id': '?s' } } },
      { language: 'jsonld', query: { from: { '@id': 'b:main', at: bTimes[0] }, select: '?s', where: { '@id': '?s' } } },
    ];
    for (const q of pins) {
      expect(await refused(await multi({ asOf: bTimes[1], queries: { q } }), 400)).toBe('q: a temporal pin in the sub-query (@t:, @time:, @commit:, "t" or "at") conflicts with the envelope asOf');
    }
    expect(await refused(await multi({ asOf: 2, queries: { q: { language: 'jsonld', query: { from: 'b:main', t: 1, select: '?s', where: { '@id': '?s' } } } } }), 400))
      .toBe('q: a temporal pin ("t") conflicts with the envelope asOf');
    const pinned = await ok(await multi({ queries: { old: { language: 'sparql', query: `SELECT ?n FROM <b:main@t:1> WHERE { ?s <${EX}name> ?n }` } } }));
    expect(names(pinned.results.old)).toEqual(['Bob']);
  });
});

describe('merge rules', () => {
  it('injects envelope prefixes into SPARQL without PREFIX declarations, all or nothing', async () => {
    const ctx = { ex: EX, label: 'http://www.w3.org/2000/01/rdf-schema#label', schema: 'http://schema.org/' };
    const q = 'SELECT ?n FROM <a:main> WHERE { ?s ex:name ?n }';
    const body = await ok(await multi({ '@context': ctx, queries: { q: { language: 'sparql', query: q } } }));
    expect(names(body.results.q)).toEqual(['Ana']);
    const own = await ok(await multi({ '@context': ctx, queries: { q: { language: 'sparql', query: `PREFIX s: <http://schema.org/> ${q}` } } }));
    expect(own.errors.q.message).toContain('unknown prefix "ex:"');
    const pragma = await ok(await multi({ '@context': ctx, queries: { q: { language: 'sparql', query: `# PRAGMA max-fuel 0\n${q}` } } }));
    expect(pragma.errors.q.message).toBe('fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 0');
  });

  it('injects the envelope @base unless the query declares BASE', async () => {
    const q = 'SELECT ?n FROM <a:main> WHERE { ?s <name> ?n }';
    const body = await ok(await multi({ '@context': { '@base': EX }, queries: { q: { language: 'sparql', query: q } } }));
    expect(names(body.results.q)).toEqual(['Ana']);
    const own = await ok(await multi({ '@context': { '@base': EX }, queries: { q: { language: 'sparql', query: `BASE <http://other.org/> ${q}` } } }));
    expect(names(own.results.q)).toEqual([]);
  });

  it('merges @context layers: inherit, shallow-merge, null reset', async () => {
    const env = { '@context': { ex: EX, x: 'http://unused.org/' } };
    const where = { '@id': '?s', 'ex:name': '?n' };
    const inherit = await ok(await multi({ ...env, queries: { q: { language: 'jsonld', query: { from: 'a:main', select: ['?s', '?n'], where } } } }));
    expect(inherit.results.q).toEqual([['ex:ana', 'Ana']]);
    const merged = await ok(await multi({ ...env, queries: { q: { language: 'jsonld', query: { '@context': { p: `${EX}` }, from: 'a:main', select: ['?s'], where: { '@id': '?s', 'p:name': 'Ana' } } } } }));
    expect(merged.results.q).toEqual(['ex:ana']);
    const reset = await ok(await multi({ ...env, queries: { q: { language: 'jsonld', query: { '@context': null, from: 'a:main', select: ['?s'], where: { '@id': '?s', [`${EX}name`]: 'Ana' } } } } }));
    expect(reset.results.q).toEqual([`${EX}ana`]);
  });

  it('layers opts: envelope < sub-query < query body', async () => {
    const q = jsonldNames('b:main');
    const env = await ok(await multi({ opts: { meta: { fuel: true } }, queries: { q } }));
    expect(env.tracking).toEqual({ q: { fuel: 2 } });
    const sub = await ok(await multi({ opts: { meta: { fuel: true } }, queries: { q: { ...q, opts: { meta: { time: true } } } } }));
    expect(Object.keys(sub.tracking.q)).toEqual(['time']);
    const inner = await ok(await multi({ opts: { meta: true }, queries: { q: { ...q, opts: { meta: { time: true } }, query: { ...q.query, opts: { meta: false } } } } }));
    expect(inner.tracking).toBeUndefined();
  });

  it('honours per-sub-query max-fuel', async () => {
    const body = await ok(await multi({ queries: { s: { ...sparqlNames('b:main'), opts: { 'max-fuel': 1 } }, j: { ...jsonldNames('b:main'), opts: { maxFuel: 1 } }, free: sparqlNames('b:main') } }));
    expect(body.status).toBe('partial');
    expect(body.errors).toEqual({
      s: { code: 'api_error', message: 'fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 1' },
      j: { code: 'api_error', message: 'fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 1' },
    });
  });
});

describe('tracking and meta', () => {
  it('tracks aliases that ask and adds meta for the envelope', async () => {
    const body = await ok(await multi({ opts: { meta: true }, queries: { s: sparqlNames('b:main'), j: jsonldNames('a:main') } }));
    expect(Object.keys(body)).toEqual(['status', 'snapshot', 'results', 'tracking', 'meta']);
    expect(body.tracking.s.fuel).toBe(2);
    expect(body.tracking.j.fuel).toBe(1);
    expect(body.tracking.s.time).toMatch(/^\d+(\.\d+)?ms$/);
    expect(body.meta.fuel_total).toBe(3);
    expect(typeof body.meta.elapsed_ms).toBe('number');
    const one = await ok(await multi({ queries: { s: { ...sparqlNames('b:main'), opts: { meta: true } }, j: jsonldNames('a:main') } }));
    expect(Object.keys(one.tracking)).toEqual(['s']);
    expect(one.meta).toBeUndefined();
  });
});

describe('validation (400) and missing ledgers (404)', () => {
  const cases: [string, unknown, string][] = [
    ['not an object', [1], 'a multi-query envelope must be a JSON object'],
    ['no queries', {}, '"queries" is required: an object of alias to sub-query'],
    ['empty queries', { queries: {} }, '"queries" must hold at least one sub-query'],
    ['bad language', { queries: { q: { language: 'cypher', query: 'MATCH (n) RETURN n' } } }, 'q: "language" must be "jsonld" or "sparql"'],
    ['sparql query not a string', { queries: { q: { language: 'sparql', query: {} } } }, `q: a sparql sub-query's "query" must be a string`],
    ['jsonld query not an object', { queries: { q: { language: 'jsonld', query: 'x' } } }, `q: a jsonld sub-query's "query" must be an object`],
    ['missing from (sparql)', { queries: { q: { language: 'sparql', query: 'SELECT * WHERE { ?s ?p ?o }' } } }, 'q: the sub-query names no ledger; give it "from" (JSON-LD) or FROM (SPARQL)'],
    ['missing from (jsonld)', { queries: { q: { language: 'jsonld', query: { select: '?s', where: { '@id': '?s' } } } } }, 'q: the sub-query names no ledger; give it "from" (JSON-LD) or FROM (SPARQL)'],
    ['history (jsonld)', { queries: { q: { language: 'jsonld', query: { from: 'a:main@t:1', to: 'a:main@t:latest', select: '?s', where: { '@id': '?s' } } } } }, 'q: history queries ("to") are not supported in a multi-query'],
    ['history (sparql)', { queries: { q: { language: 'sparql', query: 'SELECT * FROM <a:main@t:1> TO <a:main@t:latest> WHERE { ?s ?p ?o }' } } }, 'q: history queries (FROM ... TO ...) are not supported in a multi-query'],
    ['envelope max-fuel', { opts: { 'max-fuel': 10 }, queries: { q: sparqlNames('a:main') } }, 'envelope opts.max-fuel is not allowed: there is no envelope fuel budget; set max-fuel per sub-query'],
    ['envelope maxFuel', { opts: { maxFuel: 10 }, queries: { q: sparqlNames('a:main') } }, 'envelope opts.maxFuel is not allowed: there is no envelope fuel budget; set max-fuel per sub-query'],
    ['envelope max_fuel', { opts: { max_fuel: 10 }, queries: { q: sparqlNames('a:main') } }, 'envelope opts.max_fuel is not allowed: there is no envelope fuel budget; set max-fuel per sub-query'],
    ['maxConcurrency 0', { opts: { maxConcurrency: 0 }, queries: { q: sparqlNames('a:main') } }, 'opts.maxConcurrency must be a positive integer'],
    ['envelope opts.t', { opts: { t: 1 }, queries: { q: sparqlNames('a:main') } }, 'opts.t is not allowed in a multi-query; pin time with "from" or the envelope "asOf"'],
    ['sub-query opts.t', { queries: { q: { ...sparqlNames('a:main'), opts: { t: 1 } } } }, 'q: opts.t is not allowed in a multi-query; pin time with "from" or the envelope "asOf"'],
    ['body opts.t', { queries: { q: { language: 'jsonld', query: { from: 'a:main', select: '?s', where: { '@id': '?s' }, opts: { t: 1 } } } } }, 'q: query.opts.t is not allowed in a multi-query; pin time with "from" or the envelope "asOf"'],
    ['bad timeoutMs', { queries: { q: { ...sparqlNames('a:main'), opts: { timeoutMs: -5 } } } }, 'q: opts.timeoutMs must be a positive integer'],
    ['envelope @context not an object', { '@context': 'http://x/', queries: { q: sparqlNames('a:main') } }, 'the envelope "@context" must be an object'],
  ];
  for (const [name, env, msg] of cases) {
    it(`refuses ${name}`, async () => {
      expect(await refused(await multi(env), 400)).toBe(msg);
    });
  }

  it('refuses more than 64 sub-queries', async () => {
    const queries: Record<string, unknown> = {};
    for (let i = 0; i < 65; i++) queries[`q${i}`] = sparqlNames('a:main');
    expect(await refused(await multi({ queries }), 400)).toBe('too many sub-queries: 65 (the limit is 64)');
    delete queries.q64;
    expect((await ok(await multi({ queries }))).status).toBe('ok');
  });

  it('refuses more than 8 distinct ledgers', async () => {
    const queries: Record<string, unknown> = {};
    for (let i = 0; i < 9; i++) queries[`q${i}`] = sparqlNames(`l${i}:main`);
    expect(await refused(await multi({ queries }), 400)).toBe('too many distinct ledgers: 9 (the limit is 8)');
  });

  it('answers 404 when a referenced ledger does not exist', async () => {
    expect(await refused(await multi({ queries: { a: sparqlNames('a:main'), z: jsonldNames('zzz:main') } }), 404)).toBe('ledger zzz:main not found');
  });

  it('refuses a body that is not JSON and other content types', async () => {
    const r = await postText(`${srv.api}/multi-query`, 'application/json', '{');
    expect(r.status).toBe(400);
    expect(((await r.json()) as { '@type': string })['@type']).toBe('err:db/JsonParse');
    expect((await postText(`${srv.api}/multi-query`, 'application/sparql-query', 'SELECT * {}')).status).toBe(415);
  });
});

describe('limits, timeouts and freshness', () => {
  it('clamps maxConcurrency and still answers every alias', async () => {
    const queries: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) queries[`q${i}`] = i % 2 ? sparqlNames('a:main') : jsonldNames('b:main');
    const body = await ok(await multi({ opts: { maxConcurrency: 1000 }, queries }));
    expect(body.status).toBe('ok');
    expect(Object.keys(body.results).length).toBe(20);
    const serial = await ok(await multi({ opts: { maxConcurrency: 1 }, queries }));
    expect(serial.results).toEqual(body.results);
  });

  it('times out a sub-query at its own timeoutMs with code timeout', async () => {
    await createLedger(srv, 'big');
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++) lines.push(`<${EX}s${i}> <${EX}p> "${i}" .`);
    await srv.conn.bulkLoad('big:main', [lines.join('\n') + '\n']);
    const heavy = { language: 'sparql', query: `SELECT (COUNT(*) AS ?n) FROM <big:main> WHERE { ?a <${EX}p> ?x . ?b <${EX}p> ?y . ?c <${EX}p> ?z }` };
    const body = await ok(await multi({ queries: { slow: { ...heavy, opts: { timeoutMs: 1 } }, fast: sparqlNames('a:main') } }));
    expect(body.status).toBe('partial');
    expect(body.errors).toEqual({ slow: { code: 'timeout', message: 'query timeout exceeded', effective_timeout_ms: 1 } });
    const env = await ok(await multi({ opts: { timeoutMs: 1 }, queries: { slow: heavy } }));
    expect(env.status).toBe('all_failed');
    expect(env.errors.slow.code).toBe('timeout');
    expect(env.errors.slow.effective_timeout_ms).toBeLessThanOrEqual(1);
  });

  it('waits for opts.min-t and the Ledgraph-Min-T header before the snapshot', async () => {
    await createLedger(srv, 'fresh');
    const { t } = await insert('fresh', `<${EX}x> <${EX}name> "one" .`);
    const pending = multi({ opts: { 'min-t': t + 1 }, queries: { q: sparqlNames('fresh:main') } });
    await insert('fresh', `<${EX}y> <${EX}name> "two" .`);
    const body = await ok(await pending);
    expect(body.snapshot.ledgers).toEqual({ 'fresh:main': t + 1 });
    expect(names(body.results.q)).toEqual(['one', 'two']);
    const viaHeader = multi({ queries: { q: sparqlNames('fresh:main') } }, { 'Ledgraph-Min-T': String(t + 2) });
    await insert('fresh', `<${EX}z> <${EX}name> "three" .`);
    expect((await ok(await viaHeader)).snapshot.ledgers).toEqual({ 'fresh:main': t + 2 });
  });

  it('fails an alias whose ledger misses its min-t within its timeout with code timeout', async () => {
    const body = await ok(await multi({ queries: { late: { ...sparqlNames('a:main'), opts: { 'min-t': 99, timeoutMs: 50 } }, now: sparqlNames('b:main') } }));
    expect(body.status).toBe('partial');
    expect(body.errors.late).toEqual({ code: 'timeout', message: 'ledger a:main did not reach t 99 within 50 ms (Ledgraph-Min-T)', effective_timeout_ms: 50 });
    expect(names(body.results.now)).toEqual(['Bea', 'Bob']);
  });

  it('refuses a response over 64 MiB with 500', async () => {
    const cross = { language: 'sparql', query: `SELECT ?a ?b ?x ?y FROM <big:main> WHERE { ?a <${EX}p> ?x . ?b <${EX}p> ?y }` };
    const r = await multi({ queries: { huge: cross } });
    expect(await refused(r, 500)).toBe('the multi-query response exceeds the 64 MiB cap');
  }, 60_000);
});

describe('output formatting', () => {
  it('applies Ledgraph-Output-Format and Ledgraph-Normalize-Arrays to JSON-LD aliases', async () => {
    const typed = await ok(await multi({ queries: { q: { language: 'jsonld', query: { from: 'a:main', select: ['?n'], where: { '@id': '?s', [`${EX}name`]: '?n' } } } } }, { 'Ledgraph-Output-Format': 'typed-json' }));
    expect(typed.results.q).toEqual([{ '?n': { '@value': 'Ana', '@type': 'http://www.w3.org/2001/XMLSchema#string' } }]);
    const crawl = await ok(await multi({ queries: { q: { language: 'jsonld', query: { from: 'a:main', select: { '?s': ['*'] }, where: { '@id': '?s', [`${EX}name`]: 'Ana' } } } } }, { 'Ledgraph-Normalize-Arrays': 'true' }));
    expect(crawl.results.q).toEqual([{ '@id': `${EX}ana`, [`${EX}name`]: ['Ana'] }]);
    expect(await refused(await multi({ queries: { q: sparqlNames('a:main') } }, { 'Ledgraph-Output-Format': 'yaml' }), 400))
      .toBe('invalid Ledgraph-Output-Format "yaml": use json or typed-json');
  });

  it('answers agent JSON for Accept application/vnd.ledgraph.agent+json', async () => {
    const r = await multi({ queries: { q: jsonldNames('b:main') } }, { Accept: 'application/vnd.ledgraph.agent+json', 'Ledgraph-Max-Bytes': '500' });
    expect(r.headers.get('content-type')).toBe('application/vnd.ledgraph.agent+json');
    const body = (await r.json()) as Record<string, any>;
    expect(body.results.q).toMatchObject({ result: ['Bea', 'Bob'], truncated: false, rows: 2, returned: 2 });
  });

  it('answers 406 for tabular and graph Accept values', async () => {
    for (const accept of ['text/tab-separated-values', 'text/csv', 'application/sparql-results+xml', 'text/turtle', 'application/n-triples', 'application/rdf+xml', 'application/trig', 'application/n-quads']) {
      const r = await multi({ queries: { q: sparqlNames('a:main') } }, { Accept: accept });
      expect(r.status).toBe(406);
      expect(((await r.json()) as { '@type': string })['@type']).toBe('err:db/NotAcceptable');
    }
  });
});
