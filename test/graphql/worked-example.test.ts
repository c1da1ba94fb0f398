/**
 * graphql.md §16 over real HTTP: the inferred schema at t = 1 as SDL (normalised with
 * printSchema(lexicographicSortSchema(buildSchema(...)))), queries Q1–Q7 with their exact bodies,
 * the GET form and the envelope errors of §1.
 */
import { buildSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { PEOPLE_CTX, PEOPLE_TTL, SHAPES_TTL } from './fixtures.js';

const CTX_Q = `context=${encodeURIComponent(JSON.stringify(PEOPLE_CTX))}`;

const PRELUDE = `scalar Long scalar Decimal scalar Date scalar DateTime scalar Time scalar JSON
enum OrderDirection { ASC DESC }
type Resource { id: ID! }
input IDFilter { EQ: ID IN: [ID!] EXISTS: Boolean }
input ExistsFilter { EXISTS: Boolean }
input BooleanFilter { EQ: Boolean NEQ: Boolean EXISTS: Boolean }
input StringFilter { EQ: String NEQ: String IN: [String!] NIN: [String!] LT: String LTE: String GT: String GTE: String RE: String IRE: String NRE: String NIRE: String EXISTS: Boolean }
input LangStringFilter { lang: String EQ: String NEQ: String IN: [String!] NIN: [String!] LT: String LTE: String GT: String GTE: String RE: String IRE: String NRE: String NIRE: String EXISTS: Boolean }
${['Long', 'Float', 'Decimal', 'Date', 'DateTime', 'Time'].map((s) => `input ${s}Filter { EQ: ${s} NEQ: ${s} IN: [${s}!] NIN: [${s}!] LT: ${s} LTE: ${s} GT: ${s} GTE: ${s} EXISTS: Boolean }`).join('\n')}
`;
const L = '(orderBy: OrderDirection, limit: Int)';
const R = '(orderBy: [PersonOrderBy!], limit: Int)';
const INFERRED_T1 = `${PRELUDE}
type Company { id: ID!  employs${R}: [Person!]  founded${L}: [Date!]  name${L}: [String!]  revenue${L}: [Decimal!] }
type Person { id: ID!  age${L}: [Long!]  knows${R}: [Person!]  level${L}: [String!]
  motto(lang: String, orderBy: OrderDirection, limit: Int): [String!]  name${L}: [String!]  site${L}: [String!]  tags${L}: [String!] }
enum CompanyOrderField { id }            enum PersonOrderField { id }
input CompanyOrderBy { field: CompanyOrderField!  direction: OrderDirection = ASC }
input PersonOrderBy { field: PersonOrderField!  direction: OrderDirection = ASC }
input CompanyWhere { AND: [CompanyWhere!] OR: [CompanyWhere!] NOT: CompanyWhere  id: IDFilter
  employs: IDFilter  founded: DateFilter  name: StringFilter  revenue: DecimalFilter }
input PersonWhere { AND: [PersonWhere!] OR: [PersonWhere!] NOT: PersonWhere  id: IDFilter  age: LongFilter
  knows: IDFilter  level: StringFilter  motto: LangStringFilter  name: StringFilter  site: StringFilter  tags: StringFilter }
type Query {
  companies(where: CompanyWhere, orderBy: [CompanyOrderBy!], limit: Int, offset: Int): [Company!]!
  companies_count(where: CompanyWhere): Long!   company(id: ID!): Company   person(id: ID!): Person
  persons(where: PersonWhere, orderBy: [PersonOrderBy!], limit: Int, offset: Int): [Person!]!
  persons_count(where: PersonWhere): Long! }
`;

const SHAPED_T2 = `${PRELUDE}
type Company { id: ID!  employs${R}: [Person!]  founded: Date  name: String!  revenue: Decimal }
"""Someone known to the ledger."""
type Person { id: ID!  age: Long  employer: [Company!]  knows${R}: [Person!]  level: PersonLevel
  motto(lang: String, orderBy: OrderDirection, limit: Int): [String!]  """Display name.""" name: String!
  site${L}: [String!]  tags${L}: [String!] }
enum PersonLevel { junior senior }
input PersonLevelFilter { EQ: PersonLevel NEQ: PersonLevel IN: [PersonLevel!] NIN: [PersonLevel!] EXISTS: Boolean }
enum CompanyOrderField { founded id name revenue }     enum PersonOrderField { age id level name }
input CompanyOrderBy { field: CompanyOrderField!  direction: OrderDirection = ASC }
input PersonOrderBy { field: PersonOrderField!  direction: OrderDirection = ASC }
input CompanyWhere { AND: [CompanyWhere!] OR: [CompanyWhere!] NOT: CompanyWhere  id: IDFilter
  employs: IDFilter  founded: DateFilter  name: StringFilter  revenue: DecimalFilter }
input PersonWhere { AND: [PersonWhere!] OR: [PersonWhere!] NOT: PersonWhere  id: IDFilter  age: LongFilter
  knows: IDFilter  level: PersonLevelFilter  motto: LangStringFilter  name: StringFilter  site: StringFilter  tags: StringFilter }
type Query {
  companies(where: CompanyWhere, orderBy: [CompanyOrderBy!], limit: Int, offset: Int): [Company!]!
  companies_count(where: CompanyWhere): Long!   company(id: ID!): Company   person(id: ID!): Person
  persons(where: PersonWhere, orderBy: [PersonOrderBy!], limit: Int, offset: Int): [Person!]!
  persons_count(where: PersonWhere): Long! }
`;

/** SDL normalised as the spec's tests do (§2). */
export function normal(sdl: string): string {
  return printSchema(lexicographicSortSchema(buildSchema(sdl)));
}

let srv: TestServer;
const gql = (ledger: string, query: string, extra = ''): Promise<Response> =>
  fetch(`${srv.api}/graphql/${ledger}?${CTX_Q}${extra}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query }) });
async function body(r: Response): Promise<unknown> {
  const text = await r.text();
  expect(r.status, text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  return JSON.parse(text);
}

beforeAll(async () => {
  srv = await startTestServer();
  expect((await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'people:main' }) })).status).toBe(201);
  const r = await fetch(`${srv.api}/insert/people:main`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: PEOPLE_TTL });
  expect(r.status, await r.clone().text()).toBe(200);
});
afterAll(async () => { await srv?.close(); });

describe('graphql.md §16 worked example (inferred tier, t = 1)', () => {
  it('serves the inferred schema as SDL', async () => {
    const r = await fetch(`${srv.api}/graphql-schema/people:main@t:1?${CTX_Q}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const sdl = await r.text();
    expect(normal(sdl)).toBe(normal(INFERRED_T1));
  });

  it('Q1: plural, nested references, default order', async () => {
    expect(await body(await gql('people:main@t:1', '{ persons { id name age knows { id } } }'))).toEqual({ data: { persons: [
      { id: 'ex:ana', name: ['Ana'], age: [34], knows: [{ id: 'ex:ben' }, { id: 'ex:caro' }] },
      { id: 'ex:ben', name: ['Ben'], age: [27], knows: [{ id: 'ex:caro' }] },
      { id: 'ex:caro', name: ['Caro'], age: [41], knows: [] }] } });
  });

  it('Q2: filter, order, paging, count', async () => {
    expect(await body(await gql('people:main@t:1', '{ persons(where: {age: {GT: 30}}, orderBy: [{field: id, direction: DESC}], limit: 1) { id } n: persons_count(where: {age: {GT: 30}}) }')))
      .toEqual({ data: { persons: [{ id: 'ex:caro' }], n: 2 } });
  });

  it('Q3: multi-valued semantics, NOT, EXISTS: false', async () => {
    expect(await body(await gql('people:main@t:1', '{ a: persons(where: {tags: {NEQ: "ops"}}) { id } b: persons(where: {NOT: {tags: {EQ: "ops"}}}) { id } c: persons(where: {site: {EXISTS: false}}) { id } }')))
      .toEqual({ data: { a: [{ id: 'ex:ana' }], b: [{ id: 'ex:ben' }, { id: 'ex:caro' }], c: [{ id: 'ex:caro' }] } });
  });

  it('Q4: language preference', async () => {
    expect(await body(await gql('people:main@t:1', '{ persons(where: {motto: {EXISTS: true}}) { id pt: motto(lang: "pt,en") all: motto } }'))).toEqual({ data: { persons: [
      { id: 'ex:ben', pt: ['Anda depressa'], all: ['Anda depressa', 'Move fast'] },
      { id: 'ex:caro', pt: [], all: ['Carpe diem'] }] } });
  });

  it('Q5: singular by IRI, nested orderBy/limit, typed scalars, wrong class', async () => {
    expect(await body(await gql('people:main@t:1', '{ company(id: "ex:acme") { name founded revenue employs(orderBy: [{field: id, direction: DESC}], limit: 1) { id name } } nobody: company(id: "ex:ana") { id } }')))
      .toEqual({ data: { company: { name: ['Acme'], founded: ['1999-05-01'], revenue: ['1250000.5'], employs: [{ id: 'ex:ben', name: ['Ben'] }] }, nobody: null } });
  });

  it('Q6: explain and the mixed field', async () => {
    const b = await body(await gql('people:main@t:1', '{ persons(where: {site: {EXISTS: true}}) { id site } }', '&explain=true')) as Record<string, any>;
    expect(b.data).toEqual({ persons: [{ id: 'ex:ana', site: ['http://ana.example/'] }, { id: 'ex:ben', site: ['ben.example'] }] });
    expect(b.extensions.explain).toEqual({
      tier: 'inferred', warnings: ['Person.site: ex:site holds references and literals; typed String'],
      fields: [
        { field: 'persons', provenance: 'inferred', query: { selectDistinct: ['?s'], where: [{ '@id': '?s', '@type': 'ex:Person' }, ['exists', { '@id': '?s', 'ex:site': '?v0' }]], orderBy: '?s' } },
        { field: 'persons.id', provenance: 'builtin' }, { field: 'persons.site', provenance: 'inferred' }],
    });
    // The query explain shows returns the same subjects on /query.
    const q = await fetch(`${srv.api}/query/people:main@t:1`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ '@context': PEOPLE_CTX, ...b.extensions.explain.fields[0].query }) });
    expect(await q.json()).toEqual(['ex:ana', 'ex:ben']);
  });

  it('Q7: errors', async () => {
    expect(await body(await gql('people:main@t:1', '{ persons { id nickname } }'))).toEqual({ errors: [{ message: 'Cannot query field "nickname" on type "Person". Did you mean "name"?', locations: [{ line: 1, column: 16 }], extensions: { code: 'SCHEMA_ERROR' } }] });
    expect(await body(await gql('people:main@t:1', '{ persons { id }'))).toEqual({ errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 17 }], extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
    expect(await body(await gql('people:main@t:1', '{ persons { knows(where: {age: {GT: 30}}) { id } } }'))).toEqual({ errors: [{ message: '"where" is only supported on root list fields (Person.knows).', locations: [{ line: 1, column: 19 }], extensions: { code: 'UNSUPPORTED_QUERY' } }] });
  });
});

describe('graphql.md §16 worked example (shaped tier, t = 2)', () => {
  beforeAll(async () => {
    const r = await fetch(`${srv.api}/insert/people:main`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: SHAPES_TTL });
    expect(r.status, await r.clone().text()).toBe(200);
  });

  it('serves the shaped schema as SDL, the inferred one still at t = 1', async () => {
    const sdl = await (await fetch(`${srv.api}/graphql-schema/people:main@t:2?${CTX_Q}`)).text();
    expect(normal(sdl)).toBe(normal(SHAPED_T2));
    expect(normal(await (await fetch(`${srv.api}/graphql-schema/people:main@t:1?${CTX_Q}`)).text())).toBe(normal(INFERRED_T1));
  });

  it('Q8: single values, enum, reverse field, order by a single-valued field', async () => {
    expect(await body(await gql('people:main@t:2', '{ persons(orderBy: [{field: age, direction: DESC}]) { name age level employer { name } } seniors: persons(where: {level: {EQ: senior}}) { id } }')))
      .toEqual({ data: { persons: [
        { name: 'Caro', age: 41, level: null, employer: [] },
        { name: 'Ana', age: 34, level: 'senior', employer: [{ name: 'Acme' }] },
        { name: 'Ben', age: 27, level: 'junior', employer: [{ name: 'Acme' }] }],
      seniors: [{ id: 'ex:ana' }] } });
  });

  it('explain reports the shaped tier, the warning and per-field provenance', async () => {
    const b = await body(await gql('people:main@t:2', '{ persons(limit: 1) { name site employer { id } } }', '&explain=true')) as Record<string, any>;
    expect(b.extensions.explain.tier).toBe('shaped');
    expect(b.extensions.explain.warnings).toEqual(['Person.site: ex:site holds references and literals; typed String']);
    expect(b.extensions.explain.fields.map((f: any) => [f.field, f.provenance])).toEqual([
      ['persons', 'shaped'], ['persons.name', 'shaped'], ['persons.site', 'inferred'], ['persons.employer', 'shaped'], ['persons.employer.id', 'builtin']]);
  });
});

const CURATED_TTL = `@prefix ex: <http://example.org/> .  @prefix schema: <http://schema.org/> . @prefix f: <https://ns.ledgraph.dev/> .
ex:gql a f:GraphQLSchema ; f:graphqlType ex:gqlMember, ex:gqlCompany ; f:graphqlInterface ex:gqlNamed .
ex:gqlNamed a f:GraphQLInterface ; f:graphqlName "Named" ; f:graphqlField [ f:graphqlPath schema:name ] .
ex:gqlMember a f:GraphQLType ; f:graphqlClass ex:Person ; f:graphqlName "Member" ; f:graphqlPlural "members" ;
  f:graphqlImplements ex:gqlNamed ; f:graphqlMutation "create", "update", "delete" .
ex:gqlCompany a f:GraphQLType ; f:graphqlClass ex:Company ; f:graphqlImplements ex:gqlNamed .
`;

describe('graphql.md §16 worked example (curated tier, t = 3)', () => {
  beforeAll(async () => {
    const r = await fetch(`${srv.api}/insert/people:main`, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: CURATED_TTL });
    expect(r.status, await r.clone().text()).toBe(200);
  });

  it('publishes the curated types, names, plural and interface', async () => {
    const sdl = normal(await (await fetch(`${srv.api}/graphql-schema/people:main@t:3?${CTX_Q}`)).text());
    expect(sdl).toContain('interface Named {\n  id: ID!\n  name: String!\n}');
    expect(sdl).toContain('type Member implements Named {');
    expect(sdl).toContain('type Company implements Named {');
    expect(sdl).toContain('enum MemberLevel {\n  junior\n  senior\n}');
    expect(sdl).not.toContain('type Person ');
    const query = /type Query \{\n([^}]*)\}/.exec(sdl)![1]!.trim().split('\n').map((l) => l.trim().split('(')[0]!.split(':')[0]);
    expect(query).toEqual(['companies', 'companies_count', 'company', 'member', 'members', 'members_count']);
  });

  it('answers queries through the curated names, explain says curated', async () => {
    const b = await body(await gql('people:main@t:3', '{ members(where: {level: {EQ: junior}}) { id name knows { name } } company(id: "ex:acme") { ... on Named { name } } }', '&explain=true')) as Record<string, any>;
    expect(b.data).toEqual({ members: [{ id: 'ex:ben', name: 'Ben', knows: [{ name: 'Caro' }] }], company: { name: 'Acme' } });
    expect(b.extensions.explain.tier).toBe('curated');
    expect(b.extensions.explain.warnings).toEqual(['Member.site: ex:site holds references and literals; typed String']);
    expect(b.extensions.explain.fields.slice(0, 3).map((f: any) => [f.field, f.provenance])).toEqual([['members', 'curated'], ['members.id', 'builtin'], ['members.name', 'shaped']]);
  });

  it('createMember runs as one transaction, reads at the new commit, and explains', async () => {
    const doc = 'mutation { createMember(input: {id: "ex:dan", name: "Dan", age: 19, level: junior, knows: ["ex:ana"]}) { id name knows { name } } }';
    const b = await body(await gql('people:main', doc, '&explain=true')) as Record<string, any>;
    expect(b.data).toEqual({ createMember: { id: 'ex:dan', name: 'Dan', knows: [{ name: 'Ana' }] } });
    expect(b.extensions.commit.t).toBe(4);
    expect(b.extensions.commit.commit_id).toMatch(/^bag/);
    expect(b.extensions.explain).toEqual({ tier: 'curated', warnings: ['Member.site: ex:site holds references and literals; typed String'],
      fields: [{ field: 'createMember', provenance: 'curated' }, { field: 'createMember.id', provenance: 'builtin' },
        { field: 'createMember.name', provenance: 'shaped' }, { field: 'createMember.knows', provenance: 'shaped' }, { field: 'createMember.knows.name', provenance: 'shaped' }],
      transaction: [{ '@graph': [{ '@id': 'ex:dan', '@type': 'ex:Person', 'schema:name': 'Dan', 'ex:age': 19, 'ex:level': 'junior', 'ex:knows': [{ '@id': 'ex:ana' }] }] }] });
    expect(await body(await gql('people:main', doc))).toEqual({ data: { createMember: null }, errors: [{ message: 'ex:dan already exists', locations: [{ line: 1, column: 12 }], path: ['createMember'], extensions: { code: 'EXECUTION_ERROR' } }] });
    const log = await (await fetch(`${srv.api}/info/people:main`)).json() as { t: number };
    expect(log.t).toBe(4);
  });

  it('update and delete in one document are one commit; failures write nothing', async () => {
    // Deleting Caro alone leaves ana and ben knowing a node that is no Person (sh:class): 422, nothing written.
    const alone = await body(await gql('people:main', 'mutation { d: deleteMember(id: "ex:caro") }')) as Record<string, any>;
    expect(alone.data).toEqual({ d: null });
    expect(alone.errors.map((e: any) => e.extensions)).toEqual([{ code: 'EXECUTION_ERROR', status: 422, '@type': 'err:db/ConstraintViolation' }]);
    expect(alone.errors[0].message).toContain('focus node <http://example.org/ana>, path <http://example.org/knows>: sh:ClassConstraintComponent, value <http://example.org/caro>');
    // With the references to her removed in the same document, it conforms.
    const b = await body(await gql('people:main', 'mutation { u: updateMember(id: "ex:dan", input: {age: 20, tags: ["x", "y"], level: null}) { age level tags } k1: updateMember(id: "ex:ana", input: {knows: ["ex:ben"]}) { id } k2: updateMember(id: "ex:ben", input: {knows: null}) { id } d: deleteMember(id: "ex:caro") gone: deleteMember(id: "ex:nobody") }')) as Record<string, any>;
    expect(b.data).toEqual({ u: { age: 20, level: null, tags: ['x', 'y'] }, k1: { id: 'ex:ana' }, k2: { id: 'ex:ben' }, d: 'ex:caro', gone: null });
    expect(b.extensions.commit.t).toBe(5);
    expect((await body(await gql('people:main', '{ members { id } }')) as any).data.members).toEqual([{ id: 'ex:ana' }, { id: 'ex:ben' }, { id: 'ex:dan' }]);
    const f = await body(await gql('people:main', 'mutation { a: createMember(input: {id: "ex:eve", name: "Eve"}) { id } b: updateMember(id: "ex:nobody", input: {age: 1}) { id } }')) as Record<string, any>;
    expect(f.data).toEqual({ a: null, b: null });
    expect(f.errors.map((e: any) => [e.message, e.extensions.code])).toEqual([['not written: b failed', 'EXECUTION_ERROR'], ['ex:nobody not found', 'EXECUTION_ERROR']]);
    expect((await body(await gql('people:main', '{ members_count }')) as any).data.members_count).toBe(3);
    const viewOnly = JSON.stringify([{ '@id': 'http://example.org/viewAll', '@type': 'https://ns.ledgraph.dev/AccessPolicy', 'https://ns.ledgraph.dev/action': { '@id': 'https://ns.ledgraph.dev/view' }, 'https://ns.ledgraph.dev/allow': true }]);
    const denied = await fetch(`${srv.api}/graphql/people:main?${CTX_Q}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Ledgraph-Policy': viewOnly }, body: JSON.stringify({ query: 'mutation { createMember(input: {id: "ex:eve", name: "Eve"}) { id } }' }) });
    const db = await body(denied) as Record<string, any>;
    expect(db.data).toEqual({ createMember: null });
    expect(db.errors[0].extensions).toEqual({ code: 'EXECUTION_ERROR', status: 403, '@type': 'err:db/Forbidden' });
    expect((await body(await gql('people:main', '{ members_count }')) as any).data.members_count).toBe(3);
    const u = await body(await gql('people:main', 'mutation { createMember(input: {id: "::1", name: "X"}) { id } }')) as Record<string, any>;
    expect(u.errors.map((e: any) => e.extensions.code)).toEqual(['UNSUPPORTED_QUERY']);
    // Removing the value of a required field (sh:minCount 1) is a shape violation: 422, nothing written.
    const v = await body(await gql('people:main', 'mutation { a: updateMember(id: "ex:dan", input: {age: 21}) { id } b: updateMember(id: "ex:ben", input: {name: null}) { id } }')) as Record<string, any>;
    expect(v.data).toEqual({ a: null, b: null });
    expect(v.errors.map((e: any) => [e.message, e.extensions])).toEqual([
      ['not written: b failed', { code: 'EXECUTION_ERROR', status: 422, '@type': 'err:db/ConstraintViolation' }],
      ['Member.name is required (sh:minCount >= 1): it cannot be left without a value', { code: 'EXECUTION_ERROR', status: 422, '@type': 'err:db/ConstraintViolation' }],
    ]);
    expect((await body(await gql('people:main', '{ member(id: "ex:dan") { age } }')) as any).data.member.age).toBe(20);
  });
});
