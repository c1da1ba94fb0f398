/**
 * Cypher reads of the newly compiled shapes (docs/cypher.md "Compiled reads") against their SPARQL
 * forms over real HTTP, at the head and a past t: OPTIONAL MATCH with WHERE (an offer without a
 * price, a review without a title, a product with neither), reads of the nodes an OPTIONAL MATCH
 * introduced (null when it matched nothing), ORDER BY toFloat of a custom-datatype price (missing
 * prices last), aggregation grouped by node (count, sum, max skipping nulls), and a multi-valued
 * property (a list in Cypher, one row per value in SPARQL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postText, startTestServer, type TestServer } from '../support/server.js';
import { json } from './helpers.js';

const EX = 'http://example.org/';
const D = { '@vocab': EX, ex: EX };
const P = `@prefix ex: <${EX}> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .`;
/** t = 1: p1 with offers and reviews, p2 with none. */
const T1 = `${P}
ex:p1 a ex:Product ; ex:label "Widget" .
ex:p2 a ex:Product ; ex:label "Gadget" .
ex:v1 ex:label "Shop DE" ; ex:country ex:DE .
ex:v2 ex:label "Shop US" ; ex:country ex:US .
ex:v3 ex:country ex:DE .
ex:o1 ex:product ex:p1 ; ex:vendor ex:v1 ; ex:price "12.50"^^ex:USD ; ex:validTo "2030-01-01T00:00:00"^^xsd:dateTime .
ex:o2 ex:product ex:p1 ; ex:vendor ex:v1 ; ex:validTo "2030-01-01T00:00:00"^^xsd:dateTime .
ex:o3 ex:product ex:p1 ; ex:vendor ex:v2 ; ex:price "9"^^ex:USD ; ex:validTo "2030-01-01T00:00:00"^^xsd:dateTime .
ex:o4 ex:product ex:p1 ; ex:vendor ex:v1 ; ex:price "1e1"^^ex:USD ; ex:validTo "2001-01-01T00:00:00"^^xsd:dateTime .
ex:o5 ex:product ex:p1 ; ex:vendor ex:v3 ; ex:price "3.25"^^ex:USD ; ex:validTo "2030-01-01T00:00:00"^^xsd:dateTime .
ex:r1 ex:reviewFor ex:p1 ; ex:reviewer ex:u1 ; ex:title "Good" ; ex:rating1 8 .
ex:r2 ex:reviewFor ex:p1 ; ex:reviewer ex:u1 ; ex:rating1 2 .
ex:u1 ex:name "Una" .`;
/** t = 2: another offer and review for p1, and a second label (a list property). */
const T2 = `${P}
ex:o6 ex:product ex:p1 ; ex:vendor ex:v1 ; ex:price "0.75"^^ex:USD ; ex:validTo "2031-01-01T00:00:00"^^xsd:dateTime .
ex:r3 ex:reviewFor ex:p1 ; ex:reviewer ex:u1 ; ex:title "Fine" ; ex:rating2 4 .
ex:p2 ex:label "Gizmo" .`;

let srv: TestServer;

async function cypherRows(path: string, statement: string, params: Record<string, unknown>): Promise<string[][]> {
  const r = await postText(`${srv.api}${path}`, 'application/cypher', JSON.stringify({ cypher: statement, params, '@context': D }));
  const env = await json<{ results: { data: { row: unknown[] }[] }[] }>(r);
  // as SPARQL-JSON values: IRIs expanded, numbers and strings as their text, null as unbound ('')
  return env.results[0]!.data.map((d) => d.row.map((v) => (v === null ? '' : typeof v === 'string' && v.startsWith('ex:') ? EX + v.slice(3) : Array.isArray(v) ? JSON.stringify(v) : String(v))));
}
async function sparqlRows(path: string, q: string): Promise<string[][]> {
  const r = await postText(`${srv.api}${path}`, 'application/sparql-query', `PREFIX ex: <${EX}> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> ${q}`, { Accept: 'application/sparql-results+json' });
  const body = await json<{ head: { vars: string[] }; results: { bindings: Record<string, { value: string }>[] } }>(r);
  return body.results.bindings.map((b) => body.head.vars.map((v) => b[v]?.value ?? ''));
}
const sorted = (rows: string[][]) => [...rows].sort((a, b) => (a.join('\u0001') < b.join('\u0001') ? -1 : 1));

beforeAll(async () => {
  srv = await startTestServer();
  await createLedger(srv, 'shop:main');
  for (const ttl of [T1, T2]) expect((await postText(`${srv.api}/insert/shop:main`, 'text/turtle', ttl)).status).toBe(200);
});
afterAll(async () => { await srv?.close(); });

const AT = [['head', '/query/shop:main'], ['t = 1', '/query/shop:main@t:1']] as const;

describe('OPTIONAL MATCH compiled: the same rows as the SPARQL OPTIONAL form', () => {
  const OFFERS = `MATCH (p {\`@id\`: $p})
    OPTIONAL MATCH (o)-[:product]->(p), (o)-[:vendor]->(v), (v)-[:country]->({\`@id\`: $de})
      WHERE o.validTo > datetime($now) AND v.label IS NOT NULL AND o.price IS NOT NULL
    OPTIONAL MATCH (r)-[:reviewFor]->(p), (r)-[:reviewer]->(u) WHERE r.title IS NOT NULL
    RETURN p.label AS label, o AS offer, o.price AS price, v.label AS vendor, r AS review, r.title AS title, u.name AS name, r.rating1 AS r1, r.rating2 AS r2`;
  const SPARQL = (p: string) => `SELECT ?label ?offer ?price ?vendor ?review ?title ?name ?r1 ?r2 {
    ex:${p} ex:label ?label .
    OPTIONAL { ?offer ex:product ex:${p} ; ex:vendor ?v ; ex:price ?price ; ex:validTo ?to . ?v ex:label ?vendor ; ex:country ex:DE .
      FILTER (?to > "2026-01-01T00:00:00"^^xsd:dateTime) }
    OPTIONAL { ?review ex:reviewFor ex:${p} ; ex:reviewer ?u ; ex:title ?title . OPTIONAL { ?u ex:name ?name } OPTIONAL { ?review ex:rating1 ?r1 } OPTIONAL { ?review ex:rating2 ?r2 } } }`;
  const params = (p: string) => ({ p: EX + p, de: EX + 'DE', now: '2026-01-01T00:00:00' });

  for (const [when, path] of AT) {
    it(`a product with offers and reviews (${when}): missing price, title, vendor label and ratings are null`, async () => {
      const c = await cypherRows(path, OFFERS, params('p1'));
      expect(sorted(c)).toEqual(sorted(await sparqlRows(path, SPARQL('p1'))));
      // o1 and (from t = 2) o6 pass; o2 has no price, o3 is in the US, o4 expired, o5's vendor has no label
      expect(new Set(c.map((r) => r[1]))).toEqual(new Set(when === 'head' ? [EX + 'o1', EX + 'o6'] : [EX + 'o1']));
      expect(c.length).toBe(when === 'head' ? 4 : 1);
    });
  }
  it('a product with neither offers nor reviews: one row, nulls after the label', async () => {
    const c = await cypherRows('/query/shop:main@t:1', OFFERS, params('p2'));
    expect(c).toEqual([['Gadget', '', '', '', '', '', '', '', '']]);
    expect(c).toEqual(await sparqlRows('/query/shop:main@t:1', SPARQL('p2')));
  });
});

describe('ORDER BY toFloat(price) compiled: the SPARQL xsd:double(str()) order, missing prices last', () => {
  const Q = `MATCH (o)-[:product]->({\`@id\`: $p}) WHERE o.validTo > datetime($now)
    RETURN DISTINCT o AS offer, o.price AS price ORDER BY toFloat(price) LIMIT $n`;
  const S = `SELECT DISTINCT ?offer ?price { ?offer ex:product ex:p1 ; ex:validTo ?to . OPTIONAL { ?offer ex:price ?price }
    FILTER (?to > "2026-01-01T00:00:00"^^xsd:dateTime) } ORDER BY (!BOUND(?price)) xsd:double(str(?price)) LIMIT 4`;
  for (const [when, path] of AT) {
    it(`offers by price (${when})`, async () => {
      const c = await cypherRows(path, Q, { p: EX + 'p1', now: '2026-01-01T00:00:00', n: 4 });
      expect(c).toEqual(await sparqlRows(path, S));
      expect(c.map((r) => r[1])).toEqual(when === 'head' ? ['0.75', '3.25', '9', '12.50'] : ['3.25', '9', '12.50', '']);
    });
  }
});

describe('a multi-valued property: a list in Cypher, one row per value in SPARQL', () => {
  it('the same values at the head; one value at t = 1', async () => {
    const q = 'MATCH (p:Product) OPTIONAL MATCH (r)-[:reviewFor]->(p) WHERE r.title IS NOT NULL RETURN DISTINCT p AS p, p.label AS label ORDER BY p';
    const s = 'SELECT ?p ?label { ?p a ex:Product ; ex:label ?label } ORDER BY ?p ?label';
    const head = await cypherRows('/query/shop:main', q, {});
    expect(head).toEqual([[EX + 'p1', 'Widget'], [EX + 'p2', JSON.stringify(['Gadget', 'Gizmo'])]]);
    const flat = head.flatMap(([p, l]) => (l!.startsWith('[') ? (JSON.parse(l!) as string[]).map((x) => [p!, x]) : [[p!, l!]]));
    expect(flat).toEqual(await sparqlRows('/query/shop:main', s));
    expect(await cypherRows('/query/shop:main@t:1', q, {})).toEqual(await sparqlRows('/query/shop:main@t:1', s));
  });
});

describe('aggregation compiled: the SPARQL GROUP BY form', () => {
  for (const [when, path] of AT) {
    it(`reviews per product (${when}): count, sum and max skip nulls; a product without reviews counts 0`, async () => {
      const c = await cypherRows(path, 'MATCH (p:Product) OPTIONAL MATCH (r)-[:reviewFor]->(p) RETURN p AS p, count(r) AS n, count(r.rating1) AS rated, sum(r.rating1) AS total, max(r.rating1) AS best', {});
      const counts = await sparqlRows(path, 'SELECT ?p (COUNT(?r) AS ?n) (COUNT(?x) AS ?rated) (SUM(COALESCE(?x, 0)) AS ?total) { ?p a ex:Product OPTIONAL { ?r ex:reviewFor ?p OPTIONAL { ?r ex:rating1 ?x } } } GROUP BY ?p');
      const best = await sparqlRows(path, 'SELECT ?p (MAX(?x) AS ?best) { ?p a ex:Product OPTIONAL { ?r ex:reviewFor ?p ; ex:rating1 ?x } } GROUP BY ?p');
      const byP = new Map(best.map(([p, b]) => [p, b]));
      expect(sorted(c)).toEqual(sorted(counts.map((r) => [...r, byP.get(r[0]!)!])));
      expect(sorted(c)).toEqual(sorted([[EX + 'p1', when === 'head' ? '3' : '2', '2', '10', '8'], [EX + 'p2', '0', '0', '0', '']]));
    });
  }
});
