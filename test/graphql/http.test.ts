/**
 * The GraphQL endpoints over real HTTP beyond the worked example: the request envelope and its
 * 4xx errors (§1), the pipeline's codes (§2, §14, §15), variables, fragments, GET as a browser
 * sends it, introspection, one snapshot per time specifier, schema refresh on commit, visibility
 * under a restricting policy (§3.1), and equivalence with the JSON-LD and SPARQL forms.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { PEOPLE_CTX, PEOPLE_TTL } from './fixtures.js';

const CTX_Q = `context=${encodeURIComponent(JSON.stringify(PEOPLE_CTX))}`;
/** View Person facts only; everything else denied (no default allow). */
const PERSON_ONLY = JSON.stringify([{ '@id': 'http://example.org/seePeople', '@type': 'https://ns.ledgraph.dev/AccessPolicy',
  'https://ns.ledgraph.dev/action': { '@id': 'https://ns.ledgraph.dev/view' }, 'https://ns.ledgraph.dev/onClass': { '@id': 'http://example.org/Person' },
  'https://ns.ledgraph.dev/allow': true }]);

let srv: TestServer;
function post(ledger: string, body: unknown, headers: Record<string, string> = {}, type = 'application/json'): Promise<Response> {
  return fetch(`${srv.api}/graphql/${ledger}?${CTX_Q}`, { method: 'POST', headers: { 'Content-Type': type, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}
async function ok(r: Response): Promise<Record<string, any>> {
  const text = await r.text();
  expect(r.status, text).toBe(200);
  return JSON.parse(text) as Record<string, any>;
}
async function httpError(r: Response, status: number, type: string): Promise<void> {
  const text = await r.text();
  expect(r.status, text).toBe(status);
  expect(JSON.parse(text)['@type']).toBe(type);
}
const codes = (b: Record<string, any>): string[] => (b.errors ?? []).map((e: any) => e.extensions.code);

beforeAll(async () => {
  srv = await startTestServer();
  for (const ledger of ['people:main', 'empty:main']) {
    expect((await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger }) })).status).toBe(201);
  }
  expect((await fetch(`${srv.api}/insert/people:main`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: PEOPLE_TTL })).status).toBe(200);
});
afterAll(async () => { await srv?.close(); });

describe('request envelope (§1)', () => {
  it('accepts application/graphql bodies and the GET form with variables and operationName', async () => {
    expect(await ok(await post('people:main', '{ persons_count }', {}, 'application/graphql'))).toEqual({ data: { persons_count: 3 } });
    const doc = 'query A($min: Long) { persons(where: {age: {GTE: $min}}) { id } } query B { companies { id } }';
    const url = `${srv.api}/graphql/people:main?${CTX_Q}&query=${encodeURIComponent(doc)}&variables=${encodeURIComponent('{"min": 34}')}&operationName=A`;
    expect(await ok(await fetch(url))).toEqual({ data: { persons: [{ id: 'ex:ana' }, { id: 'ex:caro' }] } });
    expect(await ok(await post('people:main', { query: doc, operationName: 'B', extensions: {} }))).toEqual({ data: { companies: [{ id: 'ex:acme' }] } });
  });

  it('answers malformed envelopes with the HTTP error body', async () => {
    await httpError(await post('people:main', '{nope'), 400, 'err:db/JsonParse');
    await httpError(await post('people:main', { variables: {} }), 400, 'err:db/BadRequest');
    await httpError(await post('people:main', { query: '{ persons_count }', variables: [1] }), 400, 'err:db/BadRequest');
    await httpError(await post('people:main', { query: '{ persons_count }', operationName: 3 }), 400, 'err:db/BadRequest');
    await httpError(await fetch(`${srv.api}/graphql/people:main?query=${encodeURIComponent('{ persons_count }')}&variables=%7Bx`), 400, 'err:db/BadRequest');
    await httpError(await post('people:main', '{ persons_count }', {}, 'text/plain'), 415, 'err:db/UnsupportedMediaType');
    await httpError(await post('nobody:main', { query: '{ persons_count }' }), 404, 'err:db/LedgerNotFound');
    await httpError(await fetch(`${srv.api}/graphql-schema/nobody:main`), 404, 'err:db/LedgerNotFound');
  });
});

describe('pipeline codes (§2, §14, §15)', () => {
  it('EMPTY_SCHEMA for a ledger without classes, introspection included; the SDL says so', async () => {
    const b = await ok(await post('empty:main', { query: '{ __schema { queryType { name } } }' }));
    expect(codes(b)).toEqual(['EMPTY_SCHEMA']);
    expect(b.data).toBeUndefined();
    expect(await (await fetch(`${srv.api}/graphql-schema/empty:main`)).text()).toBe('# empty schema: no classes are visible\n');
  });

  it('UNSUPPORTED_QUERY for mutations over GET, subscriptions and documents over the limits', async () => {
    const get = await ok(await fetch(`${srv.api}/graphql/people:main?query=${encodeURIComponent('mutation { x }')}`));
    expect(codes(get)).toEqual(['UNSUPPORTED_QUERY']);
    expect(codes(await ok(await post('people:main', { query: 'subscription { persons { id } }' })))).toEqual(['UNSUPPORTED_QUERY']);
    const deep = '{ persons { ' + 'knows { '.repeat(15) + 'id' + ' }'.repeat(15) + ' } }';
    expect(codes(await ok(await post('people:main', { query: deep })))).toEqual(['UNSUPPORTED_QUERY']);
    const wide = '{ persons { ' + Array.from({ length: 1000 }, (_, i) => `a${i}: id`).join(' ') + ' } }';
    expect(codes(await ok(await post('people:main', { query: wide })))).toEqual(['UNSUPPORTED_QUERY']);
  });

  it('SCHEMA_ERROR for mutations (the inferred tier has none) and bad variables', async () => {
    expect(codes(await ok(await post('people:main', { query: 'mutation { createPerson { id } }' })))).toEqual(['SCHEMA_ERROR']);
    expect(codes(await ok(await post('people:main', { query: 'query($n: Int) { persons(limit: $n) { id } }', variables: { n: 'x' } })))).toEqual(['SCHEMA_ERROR']);
  });

  it('EXECUTION_ERROR for a negative limit and an invalid regex, with data present', async () => {
    const b = await ok(await post('people:main', { query: '{ persons(limit: -1) { id } n: persons_count }' }));
    expect(b).toEqual({ errors: [{ message: 'limit must not be negative (got -1)', locations: [{ line: 1, column: 3 }], path: ['persons'], extensions: { code: 'EXECUTION_ERROR' } }], data: null });
    const r = await ok(await post('people:main', { query: '{ persons(where: {name: {RE: "("}}) { id } }' }));
    expect(codes(r)).toEqual(['EXECUTION_ERROR']);
    expect(r.errors[0].message).toMatch(/^invalid regular expression "\("/);
  });

  it('passes getIntrospectionQuery (depth 15, 220 fields) and fragments, aliases, __typename', async () => {
    const b = await ok(await post('people:main', { query: getIntrospectionQuery() }));
    expect(b.errors).toBeUndefined();
    expect(b.data.__schema.types.map((t: any) => t.name)).toContain('PersonWhere');
    const doc = 'fragment P on Person { who: name __typename } { persons(limit: 2) { ...P ... on Person { knows(limit: 1) { ...P } } } }';
    expect(await ok(await post('people:main', { query: doc }))).toEqual({ data: { persons: [
      { who: ['Ana'], __typename: 'Person', knows: [{ who: ['Ben'], __typename: 'Person' }] },
      { who: ['Ben'], __typename: 'Person', knows: [{ who: ['Caro'], __typename: 'Person' }] }] } });
  });
});

describe('filters (§10) and output values (§11)', () => {
  const ids = async (where: string): Promise<string[]> => (await ok(await post('people:main', { query: `{ persons(where: ${where}) { id } }` }))).data.persons.map((p: any) => p.id);
  it('every operator and combinator', async () => {
    expect(await ids('{name: {IN: ["Ana", "Caro"]}}')).toEqual(['ex:ana', 'ex:caro']);
    expect(await ids('{name: {NIN: ["Ana", "Caro"]}}')).toEqual(['ex:ben']);
    expect(await ids('{age: {LT: 34}}')).toEqual(['ex:ben']);
    expect(await ids('{age: {LTE: 34, GTE: 30}}')).toEqual(['ex:ana']);
    expect(await ids('{name: {RE: "^C"}}')).toEqual(['ex:caro']);
    expect(await ids('{name: {IRE: "^c"}}')).toEqual(['ex:caro']);
    expect(await ids('{name: {NRE: "a"}}')).toEqual(['ex:ben']);
    expect(await ids('{name: {NIRE: "A"}}')).toEqual(['ex:ben']);
    expect(await ids('{OR: [{age: {GT: 40}}, {name: {EQ: "Ben"}}, {age: {GT: 20}}]}')).toEqual(['ex:ana', 'ex:ben', 'ex:caro']);
    expect(await ids('{AND: [{age: {GT: 20}}, {tags: {EXISTS: true}}]}')).toEqual(['ex:ana']);
    expect(await ids('{id: {IN: ["ex:caro", "http://example.org/ben"]}}')).toEqual(['ex:ben', 'ex:caro']);
    expect(await ids('{knows: {EQ: "ex:caro"}}')).toEqual(['ex:ana', 'ex:ben']);
    expect(await ids('{motto: {lang: "en", EQ: "Move fast"}}')).toEqual(['ex:ben']);
    expect(await ids('{motto: {lang: "la", EQ: "Move fast"}}')).toEqual([]);
  });
  it('paging, count and nested value order', async () => {
    const b = await ok(await post('people:main', { query: '{ persons(offset: 1, limit: 5) { id tags(orderBy: DESC) } persons_count(where: {NOT: {age: {GT: 30}}}) }' }));
    expect(b).toEqual({ data: { persons: [{ id: 'ex:ben', tags: [] }, { id: 'ex:caro', tags: [] }], persons_count: 1 } });
    const a = await ok(await post('people:main', { query: '{ person(id: "http://example.org/ana") { id tags(orderBy: DESC) asc: tags knows(orderBy: [{field: id, direction: DESC}]) { id } } }' }));
    expect(a).toEqual({ data: { person: { id: 'ex:ana', tags: ['ops', 'admin'], asc: ['admin', 'ops'], knows: [{ id: 'ex:caro' }, { id: 'ex:ben' }] } } });
  });
});

describe('snapshots, schema refresh, visibility and equivalence', () => {
  it('reads the pinned t; a commit refreshes the head schema; a mutation on a pinned ledger is UNSUPPORTED_QUERY', async () => {
    await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'grow:main' }) });
    const ins = (ttl: string) => fetch(`${srv.api}/insert/grow:main`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: `@prefix ex: <http://example.org/> . ${ttl}` });
    expect((await ins('ex:a a ex:Thing ; ex:size 1 .')).status).toBe(200);
    expect(await (await fetch(`${srv.api}/graphql-schema/grow:main?${CTX_Q}`)).text()).not.toContain('type Box');
    expect((await ins('ex:b a ex:Box ; ex:size 2 .')).status).toBe(200);
    expect(await (await fetch(`${srv.api}/graphql-schema/grow:main?${CTX_Q}`)).text()).toContain('boxes_count(where: BoxWhere): Long!');
    expect(await (await fetch(`${srv.api}/graphql-schema/grow:main@t:1?${CTX_Q}`)).text()).not.toContain('type Box');
    expect(codes(await ok(await post('grow:main@t:1', { query: 'mutation { x }' })))).toEqual(['UNSUPPORTED_QUERY']);
    expect(codes(await ok(await post('grow:main@t:1', { query: '{ boxes { id } }' })))).toEqual(['SCHEMA_ERROR']);
    expect(await ok(await post('grow:main', { query: '{ boxes { id size } }' }))).toEqual({ data: { boxes: [{ id: 'ex:b', size: [2] }] } });
    // A property new to a class, and a datatype that widens a field, show at the next t.
    const thing = async (at: string) => /type Thing \{[^}]*\}/.exec(await (await fetch(`${srv.api}/graphql-schema/${at}?${CTX_Q}`)).text())![0];
    expect(await thing('grow:main')).not.toContain('color');
    expect((await ins('ex:c a ex:Thing ; ex:size 2.5 ; ex:color "red" .')).status).toBe(200);
    expect(await thing('grow:main')).toContain('color(limit: Int, orderBy: OrderDirection): [String!]');
    expect(await thing('grow:main')).toContain('size(limit: Int, orderBy: OrderDirection): [Decimal!]');
    expect(await thing('grow:main@t:2')).toContain('size(limit: Int, orderBy: OrderDirection): [Long!]');
  });

  it('hides classes the caller cannot read from the SDL and from introspection', async () => {
    const h = { 'Ledgraph-Policy': PERSON_ONLY };
    const sdl = await (await fetch(`${srv.api}/graphql-schema/people:main?${CTX_Q}`, { headers: h })).text();
    expect(sdl).toContain('type Person');
    expect(sdl).not.toContain('Company');
    const b = await ok(await post('people:main', { query: '{ __schema { types { name } } }' }, h));
    expect(b.data.__schema.types.map((t: any) => t.name).filter((n: string) => /Compan/.test(n))).toEqual([]);
    expect(codes(await ok(await post('people:main', { query: '{ companies { id } }' }, h)))).toEqual(['SCHEMA_ERROR']);
  });

  it('gives the same subjects and values as JSON-LD and SPARQL, at the head and a past t, with and without a policy', async () => {
    const ins = await fetch(`${srv.api}/insert/people:main`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: '@prefix ex: <http://example.org/> . @prefix schema: <http://schema.org/> . ex:dora a ex:Person ; schema:name "Dora" ; ex:age 52 .' });
    expect(ins.status).toBe(200);
    for (const [ledger, policy] of [['people:main', undefined], ['people:main@t:1', undefined], ['people:main', PERSON_ONLY], ['people:main@t:1', PERSON_ONLY]] as const) {
      const h: Record<string, string> = policy ? { 'Ledgraph-Policy': policy } : {};
      const g = await ok(await post(ledger, { query: '{ persons(where: {age: {GT: 30}}) { id name } }' }, h));
      const jl = await fetch(`${srv.api}/query/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...h }, body: JSON.stringify({
        '@context': PEOPLE_CTX, select: ['?s', '?n'], where: [{ '@id': '?s', '@type': 'ex:Person', 'ex:age': '?a', 'schema:name': '?n' }, ['filter', '(> ?a 30)']], orderBy: '?s' }) });
      const rows = await jl.json() as [string, string][];
      expect(g.data.persons).toEqual(rows.map(([s, n]) => ({ id: s, name: [n] })));
      const sp = await fetch(`${srv.api}/query/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json', ...h },
        body: 'PREFIX ex: <http://example.org/> SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ex:Person ; ex:age ?a FILTER(?a > 30) }' });
      const count = Number(((await sp.json()) as any).results.bindings[0].n.value);
      expect((await ok(await post(ledger, { query: '{ persons_count(where: {age: {GT: 30}}) }' }, h))).data.persons_count).toBe(count);
      expect(count).toBe(ledger.includes('@t:1') ? 2 : 3);
    }
  });
});

describe('curated instance validity (§3, §8)', () => {
  const mk = async (ledger: string, ttl: string) => {
    await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger }) });
    const r = await fetch(`${srv.api}/insert/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: `@prefix ex: <http://example.org/> . @prefix f: <https://ns.ledgraph.dev/> . ex:a a ex:Thing ; ex:size 1 . ${ttl}` });
    expect(r.status).toBe(200);
  };
  it('an invalid instance is SCHEMA_ERROR on every request, naming the node', async () => {
    await mk('bad:main', 'ex:s a f:GraphQLSchema ; f:graphqlType ex:t . ex:t a f:GraphQLType ; f:graphqlMutation "upsert" ; f:graphqlClass ex:Thing .');
    const b = await ok(await post('bad:main', { query: '{ __typename }' }));
    expect(b).toEqual({ errors: [{ message: 'f:GraphQLType http://example.org/t: unknown f:graphqlMutation "upsert" (create, update or delete)', extensions: { code: 'SCHEMA_ERROR' } }] });
    expect(await (await fetch(`${srv.api}/graphql-schema/bad:main`)).text()).toMatch(/^# schema error: f:GraphQLType http:\/\/example.org\/t: unknown/);
  });
  it('two instances fall back to the shaped/inferred rules with a warning', async () => {
    await mk('two:main', 'ex:s1 a f:GraphQLSchema . ex:s2 a f:GraphQLSchema .');
    const b = await ok(await post('two:main', { query: '{ things { id size } }', extensions: { explain: true } }));
    expect(b.data).toEqual({ things: [{ id: 'ex:a', size: [1] }] });
    expect(b.extensions.explain.tier).toBe('inferred');
    expect(b.extensions.explain.warnings).toEqual(['2 curated schema instances; using shaped schema']);
  });
});

