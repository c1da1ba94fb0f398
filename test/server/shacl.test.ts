/**
 * SHACL validation of writes over real HTTP (docs/shacl.md): every write path — JSON-LD insert,
 * upsert and update, SPARQL UPDATE, Turtle and TriG, the Graph Store's PUT and POST, Cypher,
 * GraphQL mutations and pushed commits — is checked against the shapes stored in the ledger. A
 * violation answers 422 err:db/ConstraintViolation and leaves t where it was; a conforming write
 * commits.
 */
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Codec, cidOf } from '../../src/core/commit/cid.js';
import { encodeCommit, type CommitFlake } from '../../src/core/commit/commit-codec.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { rdf } from '../../src/core/rdf/vocab.js';
import { postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { EX, expectError, json } from './helpers.js';

const CTX = { '@vocab': EX, ex: EX, xsd: 'http://www.w3.org/2001/XMLSchema#' };
const LEDGER = 'shapes:main';
const SHAPES = `@prefix ex: <${EX}> . @prefix sh: <http://www.w3.org/ns/shacl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ;
  sh:property [ sh:path ex:name ; sh:datatype xsd:string ; sh:minCount 1 ; sh:maxCount 1 ; sh:pattern "^[A-Z]" ] ,
    [ sh:path ex:age ; sh:datatype xsd:integer ; sh:maxCount 1 ] .
`;
const VIOLATION = 'err:db/ConstraintViolation';

let srv: TestServer;
const head = async (): Promise<number> => (await json<{ t: number }>(await fetch(`${srv.api}/info/${LEDGER}`))).t;

/** A write that must be refused with 422 naming `part`, writing nothing. */
async function refused(r: Promise<Response>, part: string): Promise<void> {
  const before = await head();
  const body = await expectError(await r, 422, VIOLATION, part);
  expect(body.error).toMatch(/SHACL violation: focus node (<|_:)/);
  expect(await head()).toBe(before);
}

/** A write that must commit (t moves by one). */
async function accepted(r: Promise<Response>, status = 200): Promise<void> {
  const before = await head();
  const res = await r;
  expect(res.status, await res.clone().text()).toBe(status);
  expect(await head()).toBe(before + 1);
}

beforeAll(async () => {
  srv = await startTestServer();
  expect((await postJson(`${srv.api}/create`, { ledger: LEDGER, '@context': CTX })).status).toBe(201);
  await accepted(postText(`${srv.api}/insert/${LEDGER}`, 'text/turtle', `@prefix ex: <${EX}> . ex:ana a ex:Person ; ex:name "Ana" ; ex:age 34 .`));
  await accepted(postText(`${srv.api}/insert/${LEDGER}`, 'text/turtle', SHAPES));
});
afterAll(async () => { await srv?.close(); });

describe('SHACL on every write path', () => {
  it('a transaction adding shapes its data breaks is refused', async () => {
    await refused(postText(`${srv.api}/insert/${LEDGER}`, 'text/turtle', `@prefix ex: <${EX}> . @prefix sh: <http://www.w3.org/ns/shacl#> .
      ex:AgeShape a sh:NodeShape ; sh:targetClass ex:Person ; sh:property [ sh:path ex:age ; sh:minInclusive 40 ] .`),
    'focus node <http://example.org/ana>, path <http://example.org/age>: sh:MinInclusiveConstraintComponent, value "34"^^<http://www.w3.org/2001/XMLSchema#integer>');
  });

  it('JSON-LD insert', async () => {
    await refused(postJson(`${srv.api}/insert/${LEDGER}`, { '@context': CTX, '@id': 'ex:bo', '@type': 'ex:Person', 'ex:age': 3 }),
      'SHACL violation: focus node <http://example.org/bo>, path <http://example.org/name>: sh:MinCountConstraintComponent (Less than 1 values)');
    await accepted(postJson(`${srv.api}/insert/${LEDGER}`, { '@context': CTX, '@id': 'ex:bo', '@type': 'ex:Person', 'ex:name': 'Bo', 'ex:age': 3 }));
  });

  it('JSON-LD upsert', async () => {
    await refused(postJson(`${srv.api}/upsert/${LEDGER}`, { '@context': CTX, '@id': 'ex:bo', 'ex:age': 'three' }),
      'path <http://example.org/age>: sh:DatatypeConstraintComponent, value "three"^^<http://www.w3.org/2001/XMLSchema#string>');
    await accepted(postJson(`${srv.api}/upsert/${LEDGER}`, { '@context': CTX, '@id': 'ex:bo', 'ex:age': 4 }));
  });

  it('JSON-LD update', async () => {
    await refused(postJson(`${srv.api}/update/${LEDGER}`, { '@context': CTX, where: { '@id': '?s', 'ex:name': 'Bo' }, delete: { '@id': '?s', 'ex:name': 'Bo' } }),
      'focus node <http://example.org/bo>, path <http://example.org/name>: sh:MinCountConstraintComponent');
    await accepted(postJson(`${srv.api}/update/${LEDGER}`, { '@context': CTX, where: { '@id': '?s', 'ex:name': 'Bo' }, delete: { '@id': '?s', 'ex:name': 'Bo' }, insert: { '@id': '?s', 'ex:name': 'Boris' } }));
  });

  it('SPARQL UPDATE', async () => {
    await refused(postText(`${srv.api}/update/${LEDGER}`, 'application/sparql-update', `PREFIX ex: <${EX}> INSERT DATA { ex:ana ex:age 35 }`),
      'focus node <http://example.org/ana>, path <http://example.org/age>: sh:MaxCountConstraintComponent (More than 1 values)');
    await accepted(postText(`${srv.api}/update/${LEDGER}`, 'application/sparql-update', `PREFIX ex: <${EX}> DELETE { ex:ana ex:age ?a } INSERT { ex:ana ex:age 35 } WHERE { ex:ana ex:age ?a }`));
  });

  it('Turtle and TriG', async () => {
    await refused(postText(`${srv.api}/insert/${LEDGER}`, 'text/turtle', `@prefix ex: <${EX}> . ex:cy a ex:Person ; ex:name "cy" .`),
      'focus node <http://example.org/cy>, path <http://example.org/name>: sh:PatternConstraintComponent, value "cy"^^<http://www.w3.org/2001/XMLSchema#string>');
    await refused(postText(`${srv.api}/upsert/${LEDGER}`, 'application/trig', `@prefix ex: <${EX}> . ex:cy a ex:Person . GRAPH ex:g { ex:cy ex:name "Cy" }`),
      'focus node <http://example.org/cy>, path <http://example.org/name>: sh:MinCountConstraintComponent');
    // The data graph is the default graph: a named graph holds no focus nodes.
    await accepted(postText(`${srv.api}/insert/${LEDGER}`, 'application/trig', `@prefix ex: <${EX}> . ex:cy a ex:Person ; ex:name "Cy" . GRAPH ex:g { ex:dee a ex:Person }`));
  });

  it('Graph Store PUT and POST', async () => {
    const put = (body: string) => fetch(`${srv.api}/data/${LEDGER}?default`, { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body });
    const post = (body: string) => postText(`${srv.api}/data/${LEDGER}?default`, 'text/turtle', body);
    await refused(post(`@prefix ex: <${EX}> . ex:ana ex:name "Anna" .`), 'focus node <http://example.org/ana>, path <http://example.org/name>: sh:MaxCountConstraintComponent');
    await accepted(post(`@prefix ex: <${EX}> . ex:dan a ex:Person ; ex:name "Dan" .`), 204);
    // PUT replaces the default graph, shapes included: the new graph is checked against its own shapes.
    const current = await (await fetch(`${srv.api}/data/${LEDGER}?default`)).text();
    await refused(put(`${current}\n<${EX}eve> a <${EX}Person> .`), 'focus node <http://example.org/eve>, path <http://example.org/name>: sh:MinCountConstraintComponent');
    await accepted(put(`${current}\n<${EX}eve> a <${EX}Person> ; <${EX}name> "Eve" .`), 204);
  });

  it('Cypher CREATE and SET (cypher.md §9: 422)', async () => {
    await refused(postText(`${srv.api}/update/${LEDGER}`, 'application/cypher', 'CREATE (p:Person {age: 5})'),
      'path <http://example.org/name>: sh:MinCountConstraintComponent');
    await refused(postText(`${srv.api}/update/${LEDGER}`, 'application/cypher', 'MATCH (p:Person {name: "Ana"}) SET p.name = "ana"'),
      'focus node <http://example.org/ana>, path <http://example.org/name>: sh:PatternConstraintComponent');
    await accepted(postText(`${srv.api}/update/${LEDGER}`, 'application/cypher', 'CREATE (p:Person {`@id`: "ex:fay", name: "Fay", age: 5})'));
  });

  it('GraphQL mutations (graphql.md §12: EXECUTION_ERROR, status 422)', async () => {
    await accepted(postText(`${srv.api}/insert/${LEDGER}`, 'text/turtle', `@prefix ex: <${EX}> . @prefix f: <https://ns.ledgraph.dev/> .
      ex:gql a f:GraphQLSchema ; f:graphqlType ex:gqlPerson . ex:gqlPerson a f:GraphQLType ; f:graphqlClass ex:Person ; f:graphqlMutation "create" .`));
    const gql = (query: string) => postJson(`${srv.api}/graphql/${LEDGER}`, { query });
    const before = await head();
    const bad = await json<{ data: unknown; errors: { message: string; extensions: unknown }[] }>(await gql('mutation { createPerson(input: {id: "ex:gus", name: "gus"}) { id } }'));
    expect(bad.data).toEqual({ createPerson: null });
    expect(bad.errors.length).toBe(1);
    expect(bad.errors[0]!.extensions).toEqual({ code: 'EXECUTION_ERROR', status: 422, '@type': VIOLATION });
    expect(bad.errors[0]!.message).toContain('focus node <http://example.org/gus>, path <http://example.org/name>: sh:PatternConstraintComponent');
    expect(await head()).toBe(before);
    const good = await json<{ data: unknown; extensions: { commit: { t: number } } }>(await gql('mutation { createPerson(input: {id: "ex:gus", name: "Gus"}) { id name } }'));
    expect(good.data).toEqual({ createPerson: { id: 'ex:gus', name: 'Gus' } });
    expect(good.extensions.commit.t).toBe(before + 1);
  });

  it('a merge whose result breaks a shape is refused (branches: each side conformed alone)', async () => {
    const L = 'shapes-merge';
    expect((await postJson(`${srv.api}/create`, { ledger: L, '@context': CTX })).status).toBe(201);
    const ttl = (ref: string, body: string) => postText(`${srv.api}/insert/${ref}`, 'text/turtle', `@prefix ex: <${EX}> . ${body}`);
    expect((await postText(`${srv.api}/insert/${L}`, 'text/turtle', SHAPES)).status).toBe(200);
    expect((await ttl(L, 'ex:zoe a ex:Person ; ex:name "Zoe" .')).status).toBe(200);
    expect((await postJson(`${srv.api}/branch`, { ledger: L, branch: 'dev' })).status).toBe(201);
    expect((await ttl(`${L}:main`, 'ex:zoe ex:age 30 .')).status).toBe(200);
    expect((await ttl(`${L}:dev`, 'ex:zoe ex:age 31 .')).status).toBe(200);
    const t = async () => (await json<{ t: number }>(await fetch(`${srv.api}/info/${L}:main`))).t;
    const before = await t();
    await expectError(await postJson(`${srv.api}/merge`, { ledger: L, source: 'dev', strategy: 'take-both' }), 422, VIOLATION,
      'SHACL violation: focus node <http://example.org/zoe>, path <http://example.org/age>: sh:MaxCountConstraintComponent (More than 1 values)');
    expect(await t()).toBe(before);
  });

  it('pushed commits are checked as transactions (http-api.md §4.3)', async () => {
    const ledger = await srv.conn.ledger(LEDGER);
    const commit = async (flakes: CommitFlake[]): Promise<string> => {
      const { bytes } = encodeCommit({
        t: ledger.t + 1, parents: [CID.parse(ledger.head.cid)], time: new Date().toISOString(), txn: null, author: '',
        nsDelta: [], graphDelta: [], meta: [], flakes,
      }, ledger.ns);
      expect((await cidOf(Codec.commit, bytes)).code).toBe(Codec.commit);
      return Buffer.from(bytes).toString('base64');
    };
    const hal = namedNode(`${EX}hal`);
    const typed: CommitFlake = { g: 0, s: hal, p: namedNode(rdf.type), o: namedNode(`${EX}Person`), op: true };
    await refused(postJson(`${srv.api}/push/${LEDGER}`, { commits: [await commit([typed])] }),
      `commits[0] (t ${ledger.t + 1}): SHACL violation: focus node <http://example.org/hal>, path <http://example.org/name>: sh:MinCountConstraintComponent`);
    const named: CommitFlake = { g: 0, s: hal, p: namedNode(`${EX}name`), o: literal('Hal'), op: true };
    await accepted(postJson(`${srv.api}/push/${LEDGER}`, { commits: [await commit([typed, named])] }));
  });
});
