/** The README's GraphQL walkthrough, request for request, with the answers it shows. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
const CTX = encodeURIComponent(JSON.stringify({ ex: 'http://example.org/', schema: 'http://schema.org/' }));
const post = (path: string, body: unknown) => fetch(`${srv.api}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  srv = await startTestServer();
  await post('/create', { ledger: 'demo' });
  const ctx = { ex: 'http://example.org/', schema: 'http://schema.org/' };
  await post('/insert/demo', { '@context': ctx, '@graph': [
    { '@id': 'ex:ana', '@type': 'ex:Person', 'schema:name': 'Ana', 'schema:age': 34, 'ex:knows': { '@id': 'ex:ben' } },
    { '@id': 'ex:ben', '@type': 'ex:Person', 'schema:name': 'Ben', 'schema:age': 27 }] });
  await post('/upsert/demo', { '@context': ctx, '@id': 'ex:ben', 'schema:age': 28 });
});
afterAll(async () => { await srv?.close(); });

it('runs the README GraphQL example as written', async () => {
  const sdl = await (await fetch(`${srv.api}/graphql-schema/demo?context=${CTX}`)).text();
  expect(sdl).toContain('type Person {\n  age(limit: Int, orderBy: OrderDirection): [Long!]\n  id: ID!\n  knows(limit: Int, orderBy: [PersonOrderBy!]): [Person!]\n  name(limit: Int, orderBy: OrderDirection): [String!]\n}');
  const r = await fetch(`${srv.api}/graphql/demo?context=${CTX}`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ persons(where: {age: {GT: 30}}) { id name knows { name } } persons_count }' }) });
  expect(await r.text()).toBe('{"data":{"persons":[{"id":"ex:ana","name":["Ana"],"knows":[{"name":["Ben"]}]}],"persons_count":2}}');
  const g = await fetch(`${srv.api}/graphql/demo@t:1?context=${CTX}&query=%7B%20persons%20%7B%20age%20%7D%20%7D`);
  expect(await g.text()).toBe('{"data":{"persons":[{"age":[34]},{"age":[27]}]}}');
});
