/**
 * GraphQL naming through the ledger's stored default context (graphql.md §5; docs/default-context.md):
 * without `context=` the stored context names types and compacts ids exactly as the same context given
 * as the parameter does; `context=` overrides it; replacing the stored context changes the answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { PEOPLE_CTX, PEOPLE_TTL } from './fixtures.js';

let srv: TestServer;
const json = { 'Content-Type': 'application/json' };
const gql = async (query: string, extra = ''): Promise<unknown> => {
  const r = await fetch(`${srv.api}/graphql/people:main@t:1${extra}`, { method: 'POST', headers: json, body: JSON.stringify({ query }) });
  const text = await r.text();
  expect(r.status, text).toBe(200);
  return JSON.parse(text);
};
const sdl = async (extra = ''): Promise<string> => {
  const r = await fetch(`${srv.api}/graphql-schema/people:main@t:1${extra}`);
  expect(r.status).toBe(200);
  return r.text();
};
const Q = '{ persons { id knows { id } } }';

beforeAll(async () => {
  srv = await startTestServer();
  const c = await fetch(`${srv.api}/create`, { method: 'POST', headers: json, body: JSON.stringify({ ledger: 'people:main', '@context': PEOPLE_CTX }) });
  expect(c.status).toBe(201);
  const r = await fetch(`${srv.api}/insert/people:main`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: PEOPLE_TTL });
  expect(r.status, await r.clone().text()).toBe(200);
});
afterAll(async () => { await srv?.close(); });

describe('GraphQL and the stored default context', () => {
  it('names and compacts through the stored context when the request gives none', async () => {
    const param = `?context=${encodeURIComponent(JSON.stringify(PEOPLE_CTX))}`;
    expect(await sdl()).toBe(await sdl(param));
    expect(await gql(Q)).toEqual({ data: { persons: [
      { id: 'ex:ana', knows: [{ id: 'ex:ben' }, { id: 'ex:caro' }] },
      { id: 'ex:ben', knows: [{ id: 'ex:caro' }] },
      { id: 'ex:caro', knows: [] }] } });
  });

  it('a context= parameter overrides the stored context', async () => {
    const other = `?context=${encodeURIComponent(JSON.stringify({ p: 'http://example.org/', schema: 'http://schema.org/' }))}`;
    expect(await gql('{ persons(limit: 1) { id } }', other)).toEqual({ data: { persons: [{ id: 'p:ana' }] } });
  });

  it('replacing the stored context changes names and ids; clearing it leaves full IRIs', async () => {
    const put = async (ctx: unknown): Promise<void> => {
      const r = await fetch(`${srv.api}/context/people:main`, { method: 'PUT', headers: json, body: JSON.stringify({ '@context': ctx }) });
      expect(r.status, await r.clone().text()).toBe(200);
    };
    await put({ who: 'http://example.org/', schema: 'http://schema.org/' });
    expect(await gql('{ persons(limit: 1) { id } }')).toEqual({ data: { persons: [{ id: 'who:ana' }] } });
    await put(null);
    expect(await gql('{ persons(limit: 1) { id } }')).toEqual({ data: { persons: [{ id: 'http://example.org/ana' }] } });
  });
});
