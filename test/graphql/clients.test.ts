/**
 * Real GraphQL clients against a real server: graphql-request (query with variables, fragments,
 * aliases; a GraphQL error surfacing as ClientError) and Apollo Client's core (InMemoryCache with
 * __typename, variables), plus introspection-driven tooling: getIntrospectionQuery over HTTP,
 * buildClientSchema, and printSchema equal to the SDL endpoint.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client/core/index.js';
import { buildClientSchema, getIntrospectionQuery, lexicographicSortSchema, printSchema, type IntrospectionQuery } from 'graphql';
import { ClientError, GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { PEOPLE_CTX, PEOPLE_TTL } from './fixtures.js';

let srv: TestServer;
let endpoint: string;
beforeAll(async () => {
  srv = await startTestServer();
  await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'people:main' }) });
  expect((await fetch(`${srv.api}/insert/people:main`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: PEOPLE_TTL })).status).toBe(200);
  endpoint = `${srv.api}/graphql/people:main?context=${encodeURIComponent(JSON.stringify(PEOPLE_CTX))}`;
});
afterAll(async () => { await srv?.close(); });

describe('graphql-request', () => {
  it('runs a query with variables, a fragment and aliases', async () => {
    const client = new GraphQLClient(endpoint);
    const doc = `fragment Who on Person { id name }
      query Older($min: Long!) { older: persons(where: {age: {GT: $min}}) { ...Who knows { ...Who } } total: persons_count }`;
    expect(await client.request(doc, { min: 30 })).toEqual({
      older: [{ id: 'ex:ana', name: ['Ana'], knows: [{ id: 'ex:ben', name: ['Ben'] }, { id: 'ex:caro', name: ['Caro'] }] }, { id: 'ex:caro', name: ['Caro'], knows: [] }],
      total: 3,
    });
  });
  it('surfaces a GraphQL error with its code', async () => {
    const err = await new GraphQLClient(endpoint).request('{ persons { nickname } }').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect((err as ClientError).response.errors?.[0]?.extensions?.code).toBe('SCHEMA_ERROR');
  });
});

describe('Apollo Client', () => {
  it('queries through InMemoryCache (which adds __typename) with variables', async () => {
    const client = new ApolloClient({ link: new HttpLink({ uri: endpoint, fetch }), cache: new InMemoryCache() });
    const { data } = await client.query({ query: gql`query One($id: ID!) { person(id: $id) { id name motto(lang: "en") } }`, variables: { id: 'ex:ben' } });
    expect(data).toEqual({ person: { __typename: 'Person', id: 'ex:ben', name: ['Ben'], motto: ['Move fast'] } });
  });
});

describe('introspection-driven tooling', () => {
  it('getIntrospectionQuery + buildClientSchema round-trips to the SDL endpoint', async () => {
    const r = await fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: getIntrospectionQuery() }) });
    const { data } = await r.json() as { data: IntrospectionQuery };
    const sdl = await (await fetch(`${srv.api}/graphql-schema/people:main?context=${encodeURIComponent(JSON.stringify(PEOPLE_CTX))}`)).text();
    expect(printSchema(lexicographicSortSchema(buildClientSchema(data))) + '\n').toBe(sdl);
  });
  it('the GET form as a browser sends it', async () => {
    const url = `${endpoint}&query=${encodeURIComponent('query($n: Int) { persons(limit: $n) { id } }')}&variables=${encodeURIComponent('{"n":1}')}`;
    const r = await fetch(url, { headers: { Accept: 'application/json' } });
    expect(await r.json()).toEqual({ data: { persons: [{ id: 'ex:ana' }] } });
  });
});
