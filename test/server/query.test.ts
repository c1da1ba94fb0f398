/**
 * POST/GET /query and /query/<ledger...> over real HTTP (http-api.md §4.5): every result format
 * by Accept and by format=, SPARQL Protocol forms, ledger resolution (path, FROM, Ledgraph-Ledger),
 * the query headers (Min-T, Max-Fuel, output and policy headers), large results streamed past
 * the buffered prefix, and the error statuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, postText, startTestServer, type TestServer } from '../support/server.js';

const EX = 'http://example.org/';
const DATA = `@prefix ex: <${EX}> .
ex:ana ex:name "Ana" ; ex:age 34 ; ex:knows ex:ben .
ex:ben ex:name "Ben" ; ex:age 27 .`;
const NAMES = `PREFIX ex: <${EX}> SELECT ?s ?name WHERE { ?s ex:name ?name } ORDER BY ?name`;

let srv: TestServer;

async function insert(ledger: string, turtle: string): Promise<number> {
  const r = await postText(`${srv.api}/insert/${ledger}`, 'text/turtle', turtle);
  expect(r.status).toBe(200);
  return ((await r.json()) as { t: number }).t;
}

function sparql(path: string, text: string, headers: Record<string, string> = {}): Promise<Response> {
  return postText(`${srv.api}${path}`, 'application/sparql-query', text, headers);
}

async function errorOf(r: Response): Promise<{ status: number; type: string; error: string }> {
  const body = (await r.json()) as { status: number; '@type': string; error: string };
  expect(body.status).toBe(r.status);
  return { status: r.status, type: body['@type'], error: body.error };
}

beforeAll(async () => {
  srv = await startTestServer();
  await createLedger(srv, 'demo');
  await insert('demo', DATA);
  await insert('demo', `@prefix ex: <${EX}> . ex:caro ex:name "Caro" .`);
});
afterAll(async () => { await srv?.close(); });

const SELECT_JSON = {
  head: { vars: ['s', 'name'] },
  results: {
    bindings: [
      { s: { type: 'uri', value: `${EX}ana` }, name: { type: 'literal', value: 'Ana' } },
      { s: { type: 'uri', value: `${EX}ben` }, name: { type: 'literal', value: 'Ben' } },
      { s: { type: 'uri', value: `${EX}caro` }, name: { type: 'literal', value: 'Caro' } },
    ],
  },
};

describe('SELECT result formats', () => {
  it('defaults to SPARQL Results JSON (no Accept, */*)', async () => {
    for (const headers of [{}, { Accept: '*/*' }]) {
      const r = await sparql('/query/demo', NAMES, headers);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/sparql-results+json');
      expect(await r.json()).toEqual(SELECT_JSON);
    }
  });

  it('answers application/json with the same document under that media type', async () => {
    const r = await sparql('/query/demo', NAMES, { Accept: 'application/json' });
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toEqual(SELECT_JSON);
  });

  it('writes CSV and TSV', async () => {
    const csv = await sparql('/query/demo', NAMES, { Accept: 'text/csv' });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await csv.text()).toBe(`s,name\r\n${EX}ana,Ana\r\n${EX}ben,Ben\r\n${EX}caro,Caro\r\n`);
    const tsv = await sparql('/query/demo', NAMES, { Accept: 'text/tab-separated-values' });
    expect(tsv.headers.get('content-type')).toBe('text/tab-separated-values; charset=utf-8');
    expect(await tsv.text()).toBe(`?s\t?name\n<${EX}ana>\t"Ana"\n<${EX}ben>\t"Ben"\n<${EX}caro>\t"Caro"\n`);
  });

  it('writes SPARQL XML (also for application/xml)', async () => {
    for (const accept of ['application/sparql-results+xml', 'application/xml']) {
      const r = await sparql('/query/demo', `PREFIX ex: <${EX}> SELECT ?name WHERE { ex:ben ex:name ?name }`, { Accept: accept });
      expect(r.headers.get('content-type')).toBe('application/sparql-results+xml');
      expect(await r.text()).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n'
        + '  <head>\n    <variable name="name"/>\n  </head>\n  <results>\n'
        + '    <result>\n      <binding name="name"><literal>Ben</literal></binding>\n    </result>\n'
        + '  </results>\n</sparql>\n');
    }
  });

  it('honours q-values', async () => {
    const r = await sparql('/query/demo', NAMES, { Accept: 'application/sparql-results+json;q=0.5, text/csv' });
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  });

  it('refuses graph formats for solutions with 406', async () => {
    for (const accept of ['text/turtle', 'application/n-triples', 'application/rdf+xml', 'application/ld+json']) {
      const r = await sparql('/query/demo', NAMES, { Accept: accept });
      const e = await errorOf(r);
      expect(e.status).toBe(406);
      expect(e.type).toBe('err:db/NotAcceptable');
    }
  });

  it('format= overrides Accept', async () => {
    const r = await sparql('/query/demo?format=csv', NAMES, { Accept: 'application/sparql-results+json' });
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const tsv = await sparql('/query/demo?format=text/tab-separated-values', NAMES);
    expect(tsv.headers.get('content-type')).toBe('text/tab-separated-values; charset=utf-8');
    const bad = await errorOf(await sparql('/query/demo?format=yaml', NAMES));
    expect(bad.status).toBe(400);
    expect(bad.error).toContain('unknown format "yaml"');
    // A format= that cannot express the result leaves the choice to Accept (SPARQLWrapper sends format=xml always).
    const graph = await sparql('/query/demo?format=turtle', NAMES, { Accept: 'text/csv' });
    expect(graph.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const none = await errorOf(await sparql('/query/demo?format=turtle', NAMES, { Accept: 'text/turtle' }));
    expect(none.status).toBe(406);
  });
});

describe('ASK, CONSTRUCT and DESCRIBE', () => {
  const ASK = `PREFIX ex: <${EX}> ASK { ex:ana ex:knows ex:ben }`;
  const CONSTRUCT = `PREFIX ex: <${EX}> CONSTRUCT { ?s ex:label ?n } WHERE { ?s ex:name ?n FILTER(?n != "Caro") } ORDER BY ?n`;

  it('answers ASK in JSON and XML, 406 for CSV', async () => {
    const r = await sparql('/query/demo', ASK);
    expect(r.headers.get('content-type')).toBe('application/sparql-results+json');
    expect(await r.json()).toEqual({ head: {}, boolean: true });
    const x = await sparql('/query/demo', ASK, { Accept: 'application/sparql-results+xml' });
    expect(await x.text()).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n  <head/>\n  <boolean>true</boolean>\n</sparql>\n');
    expect((await sparql('/query/demo', ASK, { Accept: 'text/csv' })).status).toBe(406);
  });

  it('answers CONSTRUCT as JSON-LD by default and for application/json', async () => {
    const expected = [
      { '@id': `${EX}ana`, [`${EX}label`]: [{ '@value': 'Ana' }] },
      { '@id': `${EX}ben`, [`${EX}label`]: [{ '@value': 'Ben' }] },
    ];
    const r = await sparql('/query/demo', CONSTRUCT);
    expect(r.headers.get('content-type')).toBe('application/ld+json');
    expect(await r.json()).toEqual(expected);
    const j = await sparql('/query/demo', CONSTRUCT, { Accept: 'application/json' });
    expect(j.headers.get('content-type')).toBe('application/json');
    expect(await j.json()).toEqual(expected);
  });

  it('writes every graph format', async () => {
    const nt = `<${EX}ana> <${EX}label> "Ana" .\n<${EX}ben> <${EX}label> "Ben" .\n`;
    const cases: [string, string, string][] = [
      ['application/n-triples', 'application/n-triples', nt],
      ['application/n-quads', 'application/n-quads', nt],
      ['text/turtle', 'text/turtle; charset=utf-8', `<${EX}ana> <${EX}label> "Ana".\n<${EX}ben> <${EX}label> "Ben".\n`],
      ['application/trig', 'application/trig', `<${EX}ana> <${EX}label> "Ana".\n<${EX}ben> <${EX}label> "Ben".\n`],
    ];
    for (const [accept, type, body] of cases) {
      const r = await sparql('/query/demo', CONSTRUCT, { Accept: accept });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe(type);
      expect(await r.text()).toBe(body);
    }
    const x = await sparql('/query/demo', CONSTRUCT, { Accept: 'application/rdf+xml' });
    expect(x.headers.get('content-type')).toBe('application/rdf+xml');
    const xml = await x.text();
    expect(xml).toContain(`rdf:about="${EX}ana"`);
    expect(xml).toContain('>Ana</');
    expect(xml).toContain(`rdf:about="${EX}ben"`);
  });

  it('answers DESCRIBE', async () => {
    const r = await sparql('/query/demo', `DESCRIBE <${EX}ben>`, { Accept: 'application/n-triples' });
    expect((await r.text()).split('\n').filter(Boolean).sort()).toEqual([
      `<${EX}ben> <${EX}age> "27"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
      `<${EX}ben> <${EX}name> "Ben" .`,
    ]);
  });

  it('refuses tabular formats for graphs with 406', async () => {
    const r = await sparql('/query/demo', CONSTRUCT, { Accept: 'text/csv' });
    expect(r.status).toBe(406);
  });
});

describe('ledger resolution', () => {
  const COUNT = `SELECT (COUNT(*) AS ?n) WHERE { ?s <${EX}name> ?o }`;
  const countOf = async (r: Response) => {
    expect(r.status).toBe(200);
    const j = (await r.json()) as { results: { bindings: { n: { value: string } }[] } };
    return Number(j.results.bindings[0]!.n.value);
  };

  it('takes the ledger from FROM on the connection-scoped endpoint', async () => {
    expect(await countOf(await sparql('/query', `SELECT (COUNT(*) AS ?n) FROM <demo:main> WHERE { ?s <${EX}name> ?o }`))).toBe(3);
  });

  it('takes the ledger from the Ledgraph-Ledger header', async () => {
    expect(await countOf(await sparql('/query', COUNT, { 'Ledgraph-Ledger': 'demo' }))).toBe(3);
  });

  it('refuses a connection-scoped query with no ledger', async () => {
    const e = await errorOf(await sparql('/query', COUNT));
    expect(e.status).toBe(400);
    expect(e.error).toBe('no ledger to query: name one in the path, the Ledgraph-Ledger header, or the query (from / FROM)');
  });

  it('reads a time specifier in the path and in FROM', async () => {
    expect(await countOf(await sparql('/query/demo:main@t:1', COUNT))).toBe(2);
    expect(await countOf(await sparql('/query', `SELECT (COUNT(*) AS ?n) FROM <demo:main@t:1> WHERE { ?s <${EX}name> ?o }`))).toBe(2);
  });

  it('answers 404 for a missing ledger', async () => {
    const e = await errorOf(await sparql('/query/nope', COUNT));
    expect(e).toEqual({ status: 404, type: 'err:db/LedgerNotFound', error: 'ledger nope:main not found' });
  });
});

describe('SPARQL Protocol forms', () => {
  const Q = `SELECT ?name WHERE { <${EX}ben> <${EX}name> ?name }`;
  const BEN = { head: { vars: ['name'] }, results: { bindings: [{ name: { type: 'literal', value: 'Ben' } }] } };

  it('answers GET ?query=', async () => {
    const r = await fetch(`${srv.api}/query/demo?query=${encodeURIComponent(Q)}`);
    expect(await r.json()).toEqual(BEN);
  });

  it('answers a form-encoded POST', async () => {
    const r = await postText(`${srv.api}/query/demo`, 'application/x-www-form-urlencoded', new URLSearchParams({ query: Q }).toString());
    expect(await r.json()).toEqual(BEN);
  });

  it('takes default-graph-uri over FROM', async () => {
    const text = `SELECT (COUNT(*) AS ?n) FROM <nope:main> WHERE { ?s <${EX}name> ?o }`;
    const r = await sparql(`/query?default-graph-uri=${encodeURIComponent('demo:main@t:1')}`, text);
    expect(((await r.json()) as { results: { bindings: { n: { value: string } }[] } }).results.bindings[0]!.n.value).toBe('2');
  });

  it('sends SPARQL UPDATE elsewhere with 415', async () => {
    const a = await errorOf(await postText(`${srv.api}/query/demo`, 'application/sparql-update', 'INSERT DATA { <a:b> <a:c> 1 }'));
    expect(a).toEqual({ status: 415, type: 'err:db/UnsupportedMediaType', error: 'application/sparql-update is a SPARQL UPDATE request; send it to /update' });
    const f = await errorOf(await postText(`${srv.api}/query/demo`, 'application/x-www-form-urlencoded', 'update=INSERT%20DATA%20%7B%7D'));
    expect(f.status).toBe(415);
  });

  it('refuses other content types with 415', async () => {
    const e = await errorOf(await postText(`${srv.api}/query/demo`, 'text/plain', Q));
    expect(e.status).toBe(415);
    expect(e.error).toContain('unsupported Content-Type text/plain for a query');
    const none = await fetch(`${srv.api}/query/demo`, { method: 'POST', body: new Blob([Q]) });
    expect((await errorOf(none)).error).toContain('missing Content-Type for a query');
  });
});

describe('query headers', () => {
  it('waits for Ledgraph-Min-T before running', async () => {
    await createLedger(srv, 'fresh');
    const t = await insert('fresh', `<${EX}x> <${EX}v> 1 .`);
    const pending = sparql('/query/fresh', `SELECT ?v WHERE { <${EX}x> <${EX}v> ?v } ORDER BY ?v`, { 'Ledgraph-Min-T': String(t + 1) });
    await insert('fresh', `<${EX}x> <${EX}v> 2 .`);
    const r = await pending;
    expect(r.status).toBe(200);
    const j = (await r.json()) as { results: { bindings: { v: { value: string } }[] } };
    expect(j.results.bindings.map((b) => b.v.value)).toEqual(['1', '2']);
  });

  it('runs at once when Ledgraph-Min-T is already reached', async () => {
    const r = await sparql('/query/demo', NAMES, { 'Ledgraph-Min-T': '2' });
    expect(await r.json()).toEqual(SELECT_JSON);
  });

  it('enforces Ledgraph-Max-Fuel and PRAGMA max-fuel', async () => {
    const e = await errorOf(await sparql('/query/demo', NAMES, { 'Ledgraph-Max-Fuel': '1' }));
    expect(e.status).toBe(400);
    expect(e.error).toBe('fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 1');
    const p = await errorOf(await sparql('/query/demo', `# PRAGMA max-fuel 2\n${NAMES}`));
    expect(p.error).toBe('fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 2');
    expect((await sparql('/query/demo', NAMES, { 'Ledgraph-Max-Fuel': '1000' })).status).toBe(200);
  });

  it('refuses malformed header values with 400', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ 'Ledgraph-Min-T': 'soon' }, 'invalid Ledgraph-Min-T "soon": expected a non-negative integer'],
      [{ 'Ledgraph-Max-Fuel': '-1' }, 'invalid Ledgraph-Max-Fuel "-1": expected a non-negative integer'],
      [{ 'Ledgraph-Default-Allow': 'maybe' }, 'invalid Ledgraph-Default-Allow "maybe": expected true or false'],
      [{ 'Ledgraph-Policy-Values': '[1]' }, 'invalid Ledgraph-Policy-Values: expected a JSON object of "?$var" to IRI'],
      [{ 'Ledgraph-Policy': '{nope' }, 'invalid Ledgraph-Policy: expected JSON'],
    ];
    for (const [headers, msg] of cases) {
      const e = await errorOf(await sparql('/query/demo', NAMES, headers));
      expect(e).toEqual({ status: 400, type: 'err:db/BadRequest', error: msg });
    }
    const pragma = await errorOf(await sparql('/query/demo', `# PRAGMA default-allow perhaps\n${NAMES}`));
    expect(pragma.error).toBe('PRAGMA default-allow must be true or false, got "perhaps"');
  });

  it('accepts well-formed policy headers and pragmas', async () => {
    const r = await sparql('/query/demo', `# PRAGMA policy-class <${EX}Staff>\n# PRAGMA policy-class <${EX}Other>\n${NAMES}`, {
      'Ledgraph-Policy-Class': `${EX}A, ${EX}B`, 'Ledgraph-Policy-Values': '{"?$x": "ex:y"}',
    });
    expect(r.status).toBe(200);
  });
});

describe('errors', () => {
  it('reports a SPARQL syntax error with its position', async () => {
    const e = await errorOf(await sparql('/query/demo', 'SELECT ?x WHERE { ?x ?y }'));
    expect(e.status).toBe(400);
    expect(e.type).toBe('err:db/BadRequest');
    expect(e.error).toMatch(/^Invalid SPARQL query: syntax error at line 1, column \d+/);
  });

  it('times out with 408', async () => {
    const slow = await startTestServer({ config: { queryTimeoutMs: 1 } });
    try {
      await createLedger(slow, 'big');
      const lines: string[] = [];
      for (let i = 0; i < 2000; i++) lines.push(`<${EX}s${i}> <${EX}p> "${i}" .`);
      await slow.conn.bulkLoad('big:main', [lines.join('\n') + '\n']);
      const r = await postText(`${slow.api}/query/big`, 'application/sparql-query',
        `SELECT (COUNT(*) AS ?n) WHERE { ?a <${EX}p> ?x . ?b <${EX}p> ?y . ?c <${EX}p> ?z }`);
      const e = await errorOf(r);
      expect(e).toEqual({ status: 408, type: 'err:db/Timeout', error: 'query timeout exceeded' });
    } finally {
      await slow.close();
    }
  });
});

describe('large results', () => {
  it('streams a result larger than the buffered prefix, complete and well-formed', async () => {
    await createLedger(srv, 'many');
    const n = 20_000;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(`<${EX}item/${i}> <${EX}label> "item number ${i} with some padding text" .`);
    await srv.conn.bulkLoad('many:main', [lines.join('\n') + '\n']);
    const r = await sparql('/query/many', `SELECT ?s ?l WHERE { ?s <${EX}label> ?l }`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-length')).toBeNull();
    const j = (await r.json()) as { results: { bindings: { l: { value: string } }[] } };
    expect(j.results.bindings.length).toBe(n);
    expect(new Set(j.results.bindings.map((b) => b.l.value)).size).toBe(n);
    const csv = await (await sparql('/query/many', `SELECT ?l WHERE { ?s <${EX}label> ?l }`, { Accept: 'text/csv' })).text();
    expect(csv.split('\r\n').length).toBe(n + 2);
  });

  it('sends a small result whole, with its length', async () => {
    const r = await sparql('/query/demo', NAMES);
    expect(Number(r.headers.get('content-length'))).toBe(JSON.stringify(SELECT_JSON).length + 5);
  });
});

describe('JSON-LD queries', () => {
  const CTX = { ex: EX };
  const PEOPLE = { '@context': CTX, select: ['?name', '?age'], where: { '@id': '?s', 'ex:name': '?name', 'ex:age': '?age' }, orderBy: '?name' };
  const json = async (r: Response) => { expect(r.status).toBe(200); return r.json(); };

  it('answers compact JSON by default, ledger-scoped and connection-scoped', async () => {
    const r = await postJson(`${srv.api}/query/demo`, PEOPLE);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toEqual([['Ana', 34], ['Ben', 27]]);
    expect(await json(await postJson(`${srv.api}/query`, { ...PEOPLE, from: 'demo:main' }))).toEqual([['Ana', 34], ['Ben', 27]]);
    expect(await json(await postJson(`${srv.api}/query`, PEOPLE, { 'Ledgraph-Ledger': 'demo' }))).toEqual([['Ana', 34], ['Ben', 27]]);
    const ld = await postJson(`${srv.api}/query/demo`, PEOPLE, { Accept: 'application/ld+json' });
    expect(ld.headers.get('content-type')).toBe('application/ld+json');
    expect(await ld.json()).toEqual([['Ana', 34], ['Ben', 27]]);
  });

  it('answers selectOne, crawl, ask and construct', async () => {
    expect(await json(await postJson(`${srv.api}/query/demo`, { '@context': CTX, selectOne: ['?name'], where: { '@id': 'ex:ben', 'ex:name': '?name' } }))).toBe('Ben');
    expect(await json(await postJson(`${srv.api}/query/demo`, { '@context': CTX, select: { '?s': ['*'] }, where: { '@id': '?s', 'ex:name': 'Ben' } })))
      .toEqual([{ '@id': 'ex:ben', 'ex:age': 27, 'ex:name': 'Ben' }]);
    expect(await json(await postJson(`${srv.api}/query/demo`, { '@context': CTX, ask: { '@id': 'ex:ana', 'ex:knows': { '@id': 'ex:ben' } } }))).toBe(true);
    expect(await json(await postJson(`${srv.api}/query/demo`, { '@context': CTX, construct: { '@id': '?s', 'ex:label': '?n' }, where: { '@id': '?s', 'ex:name': '?n' } })))
      .toEqual({ '@context': CTX, '@graph': [{ '@id': 'ex:ana', 'ex:label': ['Ana'] }, { '@id': 'ex:ben', 'ex:label': ['Ben'] }, { '@id': 'ex:caro', 'ex:label': ['Caro'] }] });
  });

  it('wraps the result with tracking when opts.meta asks', async () => {
    const body = (await json(await postJson(`${srv.api}/query/demo`, { '@context': CTX, select: '?n', where: { '@id': 'ex:ben', 'ex:name': '?n' }, opts: { meta: true } }))) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['fuel', 'result', 'status', 'time']);
    expect(body).toMatchObject({ status: 200, result: ['Ben'], fuel: 1 });
    expect(body.time).toMatch(/^\d+\.\d{2}ms$/);
    const fuelOnly = (await json(await postJson(`${srv.api}/query/demo`, { '@context': CTX, select: '?n', where: { '@id': 'ex:ben', 'ex:name': '?n' }, opts: { meta: { fuel: true } } }))) as Record<string, unknown>;
    expect(fuelOnly).toEqual({ status: 200, result: ['Ben'], fuel: 1 });
  });

  it('honours Ledgraph-Output-Format and Ledgraph-Normalize-Arrays', async () => {
    expect(await json(await postJson(`${srv.api}/query/demo`, PEOPLE, { 'Ledgraph-Output-Format': 'typed-json' }))).toEqual([
      { '?age': { '@value': 34, '@type': 'http://www.w3.org/2001/XMLSchema#integer' }, '?name': { '@value': 'Ana', '@type': 'http://www.w3.org/2001/XMLSchema#string' } },
      { '?age': { '@value': 27, '@type': 'http://www.w3.org/2001/XMLSchema#integer' }, '?name': { '@value': 'Ben', '@type': 'http://www.w3.org/2001/XMLSchema#string' } },
    ]);
    const crawl = { '@context': CTX, select: { '?s': ['*'] }, where: { '@id': '?s', 'ex:name': 'Ben' } };
    expect(await json(await postJson(`${srv.api}/query/demo`, crawl, { 'Ledgraph-Normalize-Arrays': 'true' })))
      .toEqual([{ '@id': 'ex:ben', 'ex:age': [27], 'ex:name': ['Ben'] }]);
    const bad = await errorOf(await postJson(`${srv.api}/query/demo`, PEOPLE, { 'Ledgraph-Output-Format': 'xml' }));
    expect(bad).toEqual({ status: 400, type: 'err:db/BadRequest', error: 'invalid Ledgraph-Output-Format "xml": use json or typed-json' });
  });

  it('answers agent JSON within Ledgraph-Max-Bytes', async () => {
    const r = await postJson(`${srv.api}/query/demo`, { '@context': CTX, select: ['?name'], where: { '@id': '?s', 'ex:name': '?name' }, orderBy: '?name' },
      { Accept: 'application/vnd.ledgraph.agent+json', 'Ledgraph-Max-Bytes': '200' });
    expect(r.headers.get('content-type')).toBe('application/vnd.ledgraph.agent+json');
    expect(await r.json()).toEqual({ '@context': CTX, result: ['Ana', 'Ben', 'Caro'], truncated: false, bytes: 123, rows: 3, returned: 3 });
    const tight = (await (await postJson(`${srv.api}/query/demo`, { '@context': CTX, select: ['?name'], where: { '@id': '?s', 'ex:name': '?name' }, orderBy: '?name' },
      { Accept: 'application/vnd.ledgraph.agent+json', 'Ledgraph-Max-Bytes': '90' })).json()) as { truncated: boolean; bytes: number; result: unknown[] };
    expect(tight.truncated).toBe(true);
    expect(tight.bytes).toBeLessThanOrEqual(90);
    expect(tight.result.length).toBeLessThan(3);
  });

  it('writes a select as SPARQL results and an ask as a SPARQL boolean', async () => {
    expect(await json(await postJson(`${srv.api}/query/demo`, PEOPLE, { Accept: 'application/sparql-results+json' }))).toEqual({
      head: { vars: ['name', 'age'] },
      results: { bindings: [
        { name: { type: 'literal', value: 'Ana' }, age: { type: 'literal', value: '34', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } },
        { name: { type: 'literal', value: 'Ben' }, age: { type: 'literal', value: '27', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } },
      ] },
    });
    const csv = await postJson(`${srv.api}/query/demo`, PEOPLE, { Accept: 'text/csv' });
    expect(await csv.text()).toBe('name,age\r\nAna,34\r\nBen,27\r\n');
    const ask = await postJson(`${srv.api}/query/demo?format=sparql-json`, { '@context': CTX, ask: { '@id': 'ex:ben', 'ex:knows': '?x' } });
    expect(await ask.json()).toEqual({ head: {}, boolean: false });
  });

  it('writes a construct in graph formats', async () => {
    const r = await postJson(`${srv.api}/query/demo`, { '@context': CTX, construct: { '@id': '?s', 'ex:label': '?n' }, where: { '@id': '?s', 'ex:name': '?n' } }, { Accept: 'application/n-triples' });
    expect(r.headers.get('content-type')).toBe('application/n-triples');
    expect(await r.text()).toBe(`<${EX}ana> <${EX}label> "Ana" .\n<${EX}ben> <${EX}label> "Ben" .\n<${EX}caro> <${EX}label> "Caro" .\n`);
  });

  it('answers 406 where the form cannot take the format', async () => {
    const crawl = await errorOf(await postJson(`${srv.api}/query/demo`, { '@context': CTX, select: { '?s': ['*'] }, where: { '@id': '?s', 'ex:name': 'Ben' } }, { Accept: 'text/csv' }));
    expect(crawl.status).toBe(406);
    expect(crawl.error).toContain('graph crawl (hydration) queries cannot be streamed');
    const one = await errorOf(await postJson(`${srv.api}/query/demo`, { '@context': CTX, selectOne: ['?n'], where: { '@id': 'ex:ben', 'ex:name': '?n' } }, { Accept: 'text/csv' }));
    expect(one.status).toBe(406);
    const graph = await errorOf(await postJson(`${srv.api}/query/demo`, PEOPLE, { Accept: 'text/turtle' }));
    expect(graph.status).toBe(406);
  });

  it('reports JSON-LD errors with §7 bodies', async () => {
    expect(await errorOf(await postText(`${srv.api}/query/demo`, 'application/json', '{nope'))).toMatchObject({ status: 400, type: 'err:db/JsonParse' });
    expect(await errorOf(await postJson(`${srv.api}/query/demo`, [1]))).toEqual({ status: 400, type: 'err:db/BadRequest', error: 'a JSON-LD query must be a JSON object' });
    const v = await errorOf(await postJson(`${srv.api}/query/demo`, { select: ['name'], where: { 'http://schema.org/name': '?name' } }));
    expect(v.status).toBe(400);
    expect(await errorOf(await postJson(`${srv.api}/query`, { ...PEOPLE, from: 'nope:main' }))).toMatchObject({ status: 404, type: 'err:db/LedgerNotFound' });
    const fuel = await errorOf(await postJson(`${srv.api}/query/demo`, PEOPLE, { 'Ledgraph-Max-Fuel': '1' }));
    expect(fuel.error).toBe('fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 1');
  });

  it('waits for Ledgraph-Min-T', async () => {
    await createLedger(srv, 'fresh-jsonld');
    const t = await insert('fresh-jsonld', `<${EX}x> <${EX}v> 1 .`);
    const pending = postJson(`${srv.api}/query/fresh-jsonld`, { '@context': CTX, select: '?v', where: { '@id': 'ex:x', 'ex:v': '?v' }, orderBy: '?v' }, { 'Ledgraph-Min-T': String(t + 1) });
    await insert('fresh-jsonld', `<${EX}x> <${EX}v> 2 .`);
    expect(await json(await pending)).toEqual([1, 2]);
  });
});

describe('history', () => {
  beforeAll(async () => {
    await createLedger(srv, 'hist');
    await insert('hist', `<${EX}ben> <${EX}status> "active" .`);
    const r = await postText(`${srv.api}/update/hist`, 'application/sparql-update', `PREFIX ex: <${EX}> DELETE DATA { ex:ben ex:status "active" } ; INSERT DATA { ex:ben ex:status "away" }`);
    expect(r.status).toBe(200);
  });

  it('answers a JSON-LD history query (from + to)', async () => {
    const r = await postJson(`${srv.api}/query`, {
      '@context': { ex: EX }, from: 'hist:main@t:1', to: 'hist:main@t:latest',
      select: ['?st', '?t', '?op'], where: { '@id': 'ex:ben', 'ex:status': { '@value': '?st', '@t': '?t', '@op': '?op' } }, orderBy: ['?t', '?op'],
    });
    expect(await r.json()).toEqual([['active', 1, 'assert'], ['away', 2, 'assert'], ['active', 2, 'retract']]);
  });

  it('answers a SPARQL history query: events as graphs', async () => {
    const r = await sparql('/query', `PREFIX ex: <${EX}>
      SELECT ?st ?t ?op FROM <hist:main@t:1> TO <hist:main@t:latest>
      WHERE { GRAPH ?e { ex:ben ex:status ?st }
              BIND(STRAFTER(STR(?e), "urn:ledgraph:event:") AS ?rest)
              BIND(xsd:integer(STRBEFORE(?rest, ":")) AS ?t)
              BIND(STRBEFORE(STRAFTER(?rest, ":"), ":") AS ?op) }
      ORDER BY ?t ?op`.replace('PREFIX ex:', 'PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> PREFIX ex:'));
    expect(r.status).toBe(200);
    const rows = ((await r.json()) as { results: { bindings: Record<string, { value: string }>[] } }).results.bindings.map((b) => [b.st!.value, b.t!.value, b.op!.value]);
    expect(rows).toEqual([['active', '1', 'assert'], ['away', '2', 'assert'], ['active', '2', 'retract']]);
  });

  it('merges every event into the default graph of a SPARQL history query', async () => {
    const r = await sparql('/query/hist', `SELECT ?st FROM <hist:main@t:2> TO <hist:main@t:2> WHERE { <${EX}ben> <${EX}status> ?st } ORDER BY ?st`);
    expect(((await r.json()) as { results: { bindings: { st: { value: string } }[] } }).results.bindings.map((b) => b.st.value)).toEqual(['active', 'away']);
  });

  it('refuses malformed SPARQL history ranges', async () => {
    const cases: [string, string][] = [
      [`SELECT * FROM <hist:main> TO <hist:main@t:2> WHERE { ?s ?p ?o }`, 'a SPARQL history query needs a time specifier on both ends: FROM <ledger@t:1> TO <ledger@t:latest>'],
      [`SELECT * FROM <hist:main@t:1> TO <demo:main@t:1> WHERE { ?s ?p ?o }`, 'FROM and TO must name the same ledger (got hist:main and demo:main)'],
      [`SELECT * FROM <hist:main@t:2> TO <hist:main@t:1> WHERE { ?s ?p ?o }`, 'FROM (t 2) is after TO (t 1)'],
      [`SELECT * FROM <hist:main@t:1> TO <hist:main@t:2> FROM <demo:main> WHERE { ?s ?p ?o }`, 'a SPARQL history query takes exactly one dataset clause: FROM <ledger@t:N> TO <ledger@t:M>'],
    ];
    for (const [q, msg] of cases) expect(await errorOf(await sparql('/query', q))).toEqual({ status: 400, type: 'err:db/BadRequest', error: msg });
  });
});

describe('policy inputs are enforced', () => {
  const NAMES_JSONLD = { '@context': { ex: EX }, select: '?n', where: { '@id': '?s', 'ex:name': '?n' }, orderBy: '?n' };

  it('restricts SPARQL by header and by pragma', async () => {
    const rows = async (r: Response) => ((await r.json()) as { results: { bindings: unknown[] } }).results.bindings.length;
    expect(await rows(await sparql('/query/demo', NAMES))).toBe(3);
    expect(await rows(await sparql('/query/demo', NAMES, { 'Ledgraph-Default-Allow': 'false' }))).toBe(0);
    expect(await rows(await sparql('/query/demo', `# PRAGMA identity <${EX}nobody>\n${NAMES}`))).toBe(0);
  });

  it('restricts JSON-LD by header and by body opts (body wins)', async () => {
    expect(await (await postJson(`${srv.api}/query/demo`, NAMES_JSONLD)).json()).toEqual(['Ana', 'Ben', 'Caro']);
    expect(await (await postJson(`${srv.api}/query/demo`, NAMES_JSONLD, { 'Ledgraph-Identity': `${EX}nobody` })).json()).toEqual([]);
    expect(await (await postJson(`${srv.api}/query/demo`, { ...NAMES_JSONLD, opts: { 'default-allow': false } })).json()).toEqual([]);
    expect(await (await postJson(`${srv.api}/query/demo`, { ...NAMES_JSONLD, opts: { 'default-allow': true } }, { 'Ledgraph-Default-Allow': 'false' })).json()).toEqual(['Ana', 'Ben', 'Caro']);
  });
});
