/**
 * Cypher writes over real HTTP (cypher.md §1, §7, §11 examples 1 and 10–14): `POST /update/<ledger>`
 * with `application/cypher` on a ledger whose names resolve through its stored default context;
 * receipts, reifiers, MERGE branches, SET/REMOVE, DELETE vs DETACH DELETE, reading writes back via
 * SPARQL and JSON-LD, Idempotency-Key, policy on writes, and "nothing written on error".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, postText, startTestServer, type TestServer } from '../support/server.js';
import { expectError, json } from './helpers.js';
import { D, DATA } from './cypher-fixtures.js';



type Env = { results: { columns: string[]; data: { row: unknown[]; meta: null[] }[] }[]; receipt?: Record<string, unknown> };
let srv: TestServer;

const update = (statement: string, headers: Record<string, string> = {}, ledger = 'social:main') =>
  postText(`${srv.api}/update/${ledger}`, 'application/cypher', statement, headers);
const updateJson = (body: unknown, headers: Record<string, string> = {}) =>
  postText(`${srv.api}/update/social:main`, 'application/cypher', JSON.stringify(body), headers);
async function rows(statement: string, ledger = 'social:main'): Promise<unknown[][]> {
  const env = await json<Env>(await postText(`${srv.api}/query/${ledger}`, 'application/cypher', statement));
  return env.results[0]!.data.map((d) => d.row);
}
async function sparql(q: string): Promise<string[][]> {
  const r = await postText(`${srv.api}/query/social:main`, 'application/sparql-query', q, { Accept: 'application/sparql-results+json' });
  const body = await json<{ head: { vars: string[] }; results: { bindings: Record<string, { value: string }>[] } }>(r);
  return body.results.bindings.map((b) => body.head.vars.map((v) => b[v]?.value ?? ''));
}
const head = async () => (await json<{ t: number }>(await fetch(`${srv.api}/info/social:main`))).t;
const cause = async (r: Response, status: number, type: string) => {
  const b = await expectError(r, status, 'err:db/BadRequest');
  expect((b.cause as Record<string, unknown>)['@type']).toBe(type);
  return b;
};

beforeAll(async () => {
  srv = await startTestServer();
  expect((await postJson(`${srv.api}/create`, { ledger: 'social:main', '@context': D })).status).toBe(201);
  expect((await postText(`${srv.api}/insert/social:main`, 'text/turtle', DATA)).status).toBe(200);
});
afterAll(async () => { await srv?.close(); });

describe('cypher.md §11 worked examples (writes, in order)', () => {
  it('1. relationship property: only the reifier is added (t = 2)', async () => {
    const r = await json<Record<string, unknown>>(await update('MATCH (a:Person {name: "Ana"}), (c:Company {name: "Acme"}) CREATE (a)-[:WORKS_AT {since: 2019}]->(c)'));
    expect(r).toMatchObject({ ledger_id: 'social:main', t: 2, flakes_added: 4, flakes_retracted: 0 });
    expect(Object.keys(r).sort()).toEqual(['commit', 'commit_id', 'flakes_added', 'flakes_retracted', 'ledger_id', 'previous_commit_id', 't', 'timestamp', 'tx-id']);
    expect(await sparql('PREFIX f: <https://ns.ledgraph.dev/> PREFIX ex: <http://example.org/> SELECT ?r ?s ?p ?o ?since { ?r f:reifiesSubject ?s ; f:reifiesPredicate ?p ; f:reifiesObject ?o ; ex:since ?since }'))
      .toEqual([['lg2-r0', 'http://example.org/ana', 'http://example.org/WORKS_AT', 'http://example.org/acme', '2019']]);
  });

  it('10. the written reifier reads as the relationship property; it is not a node', async () => {
    expect(await rows('MATCH (a:Person)-[r:WORKS_AT]->(c:Company) RETURN a.name AS who, type(r) AS rel, r.since AS since, r AS edge ORDER BY who')).toEqual([
      ['Ana', 'WORKS_AT', 2019, { start: 'ex:ana', type: 'WORKS_AT', end: 'ex:acme' }],
      ['Ben', 'WORKS_AT', null, { start: 'ex:ben', type: 'WORKS_AT', end: 'ex:acme' }],
    ]);
    expect(await rows('MATCH (n) RETURN count(n) AS nodes')).toEqual([[4]]);
  });

  it('11. CREATE with RETURN (t = 3): envelope plus receipt', async () => {
    const r = await json<Env>(await update('CREATE (d:Person {`@id`: "ex:dan", name: "Dan", age: 19})-[:KNOWS]->(e:Person {name: "Eve"}) RETURN id(d) AS dan, id(e) AS eve'));
    expect(r.results).toEqual([{ columns: ['dan', 'eve'], data: [{ row: ['ex:dan', '_:lg3-n0'], meta: [null, null] }] }]);
    expect(r.receipt).toMatchObject({ ledger_id: 'social:main', t: 3, flakes_added: 6, flakes_retracted: 0 });
  });

  it('12. MERGE: match (t = 4), create (t = 5), a repeat that cancels out (no commit)', async () => {
    const ben = 'MERGE (p:Person {name: "Ben"}) ON CREATE SET p.created = true ON MATCH SET p.seen = 1';
    expect(await json(await update(ben))).toMatchObject({ t: 4, flakes_added: 1, flakes_retracted: 0 });
    expect(await json(await update(ben.replace('Ben', 'Zoe')))).toMatchObject({ t: 5, flakes_added: 3, flakes_retracted: 0 });
    expect(await rows('MATCH (p:Person {name: "Zoe"}) RETURN id(p), p.created, p.seen')).toEqual([['_:lg5-n0', true, null]]);
    const again = await json<Record<string, unknown>>(await update(ben));
    expect(again).toMatchObject({ t: 5, flakes_added: 0, flakes_retracted: 0 });
    expect(again['commit_id']).toBe(again['previous_commit_id']);
    expect(await head()).toBe(5);
    // Repeating the Zoe statement now takes the ON MATCH branch.
    expect(await json(await update(ben.replace('Ben', 'Zoe')))).toMatchObject({ t: 6, flakes_added: 1 });
    expect(await rows('MATCH (p:Person {name: "Zoe"}) RETURN count(*), p.seen')).toEqual([[1, 1]]);
  });

  it('13. SET and REMOVE (t = 7)', async () => {
    expect(await json(await update('MATCH (p:Person {name: "Ana"}) SET p.age = 35, p:Manager REMOVE p.tags'))).toMatchObject({ t: 7, flakes_added: 2, flakes_retracted: 3 });
    expect(await rows('MATCH (p:Person {name: "Ana"}) RETURN p.age, p.tags, labels(p)')).toEqual([[35, null, ['Manager', 'Person']]]);
  });

  it('14. DELETE of a node with relationships is 422 and writes nothing; DETACH DELETE (t = 8)', async () => {
    const b = await expectError(await update('MATCH (p:Person {name: "Ben"}) DELETE p'), 422, 'err:db/ConstraintViolation', 'Cannot delete node ex:ben: it still has relationships; use DETACH DELETE');
    expect(b.error).toBe('Cannot delete node ex:ben: it still has relationships; use DETACH DELETE');
    expect(await head()).toBe(7);
    expect(await rows('MATCH (p:Person {name: "Ben"}) RETURN p.age')).toEqual([[27]]);
    expect(await json(await update('MATCH (p:Person {name: "Ben"}) DETACH DELETE p'))).toMatchObject({ t: 8, flakes_added: 0, flakes_retracted: 8 });
    const env = await json<Env>(await postText(`${srv.api}/query/social:main`, 'application/cypher', 'MATCH (p:Person) RETURN p.name ORDER BY p.name'));
    expect(env.results[0]!.columns).toEqual(['p.name']);
    expect(env.results[0]!.data.map((d) => d.row)).toEqual([['Ana'], ['Caro'], ['Dan'], ['Eve'], ['Zoe']]);
  });
});

describe('writes read back through SPARQL and JSON-LD', () => {
  it('a created node and relationship are ordinary facts', async () => {
    expect(await sparql('PREFIX ex: <http://example.org/> SELECT ?n ?m { ex:dan ex:name ?n ; ex:KNOWS ?e . ?e ex:name ?m }')).toEqual([['Dan', 'Eve']]);
    const q = { select: { 'ex:dan': ['*'] } };
    expect(await json(await postJson(`${srv.api}/query/social:main`, q)))
      .toEqual([{ '@id': 'ex:dan', '@type': 'ex:Person', 'ex:name': 'Dan', 'ex:age': 19, 'ex:KNOWS': { '@id': '_:lg3-n0' } }]);
  });
});

describe('§7 semantics beyond the examples', () => {
  it('UNWIND + MERGE: a later row sees an earlier row\'s node; SET n += / SET n =', async () => {
    const r = await json<Env>(await updateJson({ cypher: 'UNWIND $names AS n MERGE (p:Tag {name: n}) RETURN count(*) AS rows', params: { names: ['a', 'b', 'a'] } }));
    expect(r.results[0]!.data[0]!.row).toEqual([3]);
    expect(r.receipt).toMatchObject({ flakes_added: 4 });
    expect(await rows('MATCH (t:Tag) RETURN t.name ORDER BY t.name')).toEqual([['a'], ['b']]);
    await json(await update('MATCH (t:Tag {name: "a"}) SET t += {x: 1, y: [2, 3]}'));
    expect(await rows('MATCH (t:Tag {name: "a"}) RETURN properties(t)')).toEqual([[{ name: 'a', x: 1, y: [2, 3] }]]);
    expect(await json(await update('MATCH (t:Tag {name: "a"}) SET t = {name: "a2"}'))).toMatchObject({ flakes_added: 1, flakes_retracted: 4 });
    expect(await rows('MATCH (t:Tag) RETURN t.name, labels(t) ORDER BY t.name')).toEqual([['a2', ['Tag']], ['b', ['Tag']]]);
  });

  it('a MERGE path is one key: a missing path creates new nodes even when one endpoint exists', async () => {
    expect(await json(await update('MERGE (a:City {name: "Rome"})-[:NEAR]->(b:City {name: "Ostia"})'))).toMatchObject({ flakes_added: 5 });
    expect(await json(await update('MERGE (a:City {name: "Rome"})-[:NEAR]->(b:City {name: "Ostia"})'))).toMatchObject({ flakes_added: 0 });
    expect(await json(await update('MERGE (a:City {name: "Rome"})-[:NEAR]->(b:City {name: "Tivoli"})'))).toMatchObject({ flakes_added: 5 });
    expect(await rows('MATCH (c:City {name: "Rome"}) RETURN count(c)')).toEqual([[2]]);
    // Between bound nodes: found or created per row; with a property map only reified ones match.
    expect(await json(await update('MATCH (a:City {name: "Ostia"}), (b:City {name: "Tivoli"}) MERGE (a)-[:ROAD {km: 40}]->(b)'))).toMatchObject({ flakes_added: 5 });
    expect(await json(await update('MATCH (a:City {name: "Ostia"}), (b:City {name: "Tivoli"}) MERGE (a)-[:ROAD {km: 40}]->(b)'))).toMatchObject({ flakes_added: 0 });
    expect(await rows('MATCH (:City {name: "Ostia"})-[r:ROAD]->(:City {name: "Tivoli"}) RETURN r.km')).toEqual([[40]]);
  });

  it('relationship properties: SET mints a reifier, parallel reifiers, DELETE r keeps the base fact while another remains', async () => {
    await json(await update('CREATE (:Box {name: "x"})-[:IN]->(:Box {name: "y"})'));
    expect(await json(await update('MATCH (:Box {name: "x"})-[r:IN]->() SET r.w = 1 RETURN r.w AS w'))).toMatchObject({ results: [{ columns: ['w'], data: [{ row: [1] }] }], receipt: { flakes_added: 4 } });
    await json(await update('MATCH (a:Box {name: "x"}), (b:Box {name: "y"}) CREATE (a)-[:IN {w: 2}]->(b)'));
    expect(await rows('MATCH (:Box)-[r:IN]->(:Box) RETURN r.w ORDER BY r.w')).toEqual([[1], [2]]);
    expect(await json(await update('MATCH (:Box)-[r:IN {w: 1}]->(:Box) DELETE r'))).toMatchObject({ flakes_retracted: 4 });
    expect(await rows('MATCH (:Box)-[r:IN]->(:Box) RETURN r.w')).toEqual([[2]]);
    expect(await json(await update('MATCH (:Box)-[r:IN]->(:Box) DELETE r'))).toMatchObject({ flakes_retracted: 5 });
    expect(await rows('MATCH (:Box)-[r:IN]->(:Box) RETURN count(r)')).toEqual([[0]]);
    // DELETE r, n in one clause: the node's relationships are gone when the statement ends.
    await json(await update('CREATE (:Box {name: "z"})-[:IN]->(:Box {name: "w"})'));
    expect(await json(await update('MATCH (n:Box {name: "z"})-[r:IN]->() DELETE n, r'))).toMatchObject({ flakes_retracted: 3 });
    expect(await rows('MATCH (n:Box) RETURN n.name ORDER BY n.name')).toEqual([['w'], ['x'], ['y']]);
  });

  it('a node created without labels or properties is marked f:Node and hidden from labels()', async () => {
    const r = await json<Env>(await update('CREATE (n) RETURN labels(n) AS l, id(n) AS id'));
    expect(r.results[0]!.data[0]!.row).toEqual([[], `_:lg${r.receipt!['t']}-n0`]);
    expect(await sparql('SELECT ?s { ?s a <https://ns.ledgraph.dev/Node> }')).toEqual([[`lg${r.receipt!['t']}-n0`]]);
  });

  it('after a delete in the same statement the node reads with no labels and null properties', async () => {
    await json(await update('CREATE (:Tmp {name: "t"})'));
    const r = await json<Env>(await update('MATCH (n:Tmp) DELETE n RETURN labels(n) AS l, n.name AS name'));
    expect(r.results[0]!.data[0]!.row).toEqual([[], null]);
  });
});

describe('endpoint rules and errors', () => {
  it('read/write mismatch, ledger-less and time-pinned paths, JSON sent as application/json', async () => {
    await cause(await update('MATCH (n) RETURN count(n) AS c'), 400, 'err:cypher/SemanticError');
    await cause(await postText(`${srv.api}/query/social:main`, 'application/cypher', 'CREATE (n:X)'), 400, 'err:cypher/SemanticError');
    await expectError(await postText(`${srv.api}/update`, 'application/cypher', 'CREATE (n:X)'), 400, 'err:db/BadRequest', 'ledger');
    await expectError(await postText(`${srv.api}/update?ledger=social:main`, 'application/cypher', 'CREATE (n:X)'), 400, 'err:db/BadRequest', 'ledger');
    await expectError(await update('CREATE (n:X)', {}, 'social:main@t:1'), 400, 'err:db/BadRequest', 'past state');
    await expectError(await postJson(`${srv.api}/update/social:main`, { cypher: 'CREATE (n:X)' }), 400, 'err:db/BadRequest', 'application/cypher');
  });

  it('errors write nothing: type errors, f:reifies keys, undirected CREATE, unknown ledger', async () => {
    const t = await head();
    await cause(await update('CREATE (n:X {m: {a: 1}})'), 400, 'err:cypher/TypeError');
    await cause(await update('CREATE (n:X {`f:reifiesSubject`: "a"})'), 400, 'err:cypher/SemanticError');
    await cause(await update('CREATE (a:X)-[:R]-(b:X)'), 400, 'err:cypher/SemanticError');
    await cause(await update('CREATE (a:X)-[:R|S]->(b:X)'), 400, 'err:cypher/SemanticError');
    await cause(await update('MATCH (n:Person) CREATE (n:Other)'), 400, 'err:cypher/SemanticError');
    await cause(await update('CREATE (n:X {a: 1}) SET n.b = 1 - "x"'), 400, 'err:cypher/TypeError');
    await cause(await updateJson({ cypher: 'CREATE (n:X {a: $v})' }), 400, 'err:cypher/ParameterMissing');
    await expectError(await update('CREATE (n:X)', {}, 'nope:main'), 404, 'err:db/LedgerNotFound');
    expect(await head()).toBe(t);
    expect(await rows('MATCH (n:X) RETURN count(n)')).toEqual([[0]]);
  });

  it('Idempotency-Key replays the response without a second commit', async () => {
    const h = { 'Idempotency-Key': 'k-1' };
    const a = await json<Record<string, unknown>>(await update('CREATE (:Once {n: 1})', h));
    const b = await json<Record<string, unknown>>(await update('CREATE (:Once {n: 1})', h));
    expect(b).toEqual(a);
    expect(await rows('MATCH (o:Once) RETURN count(o)')).toEqual([[1]]);
  });

  it('policy: f:modify denies the write (403), nothing is written', async () => {
    const t = await head();
    const policy = JSON.stringify([
      { '@id': 'ex:noAge', 'f:action': { '@id': 'f:modify' }, 'f:onProperty': [{ '@id': 'http://example.org/age' }], 'f:allow': false },
    ]);
    const headers = { 'Ledgraph-Policy': policy, 'Ledgraph-Default-Allow': 'true' };
    await expectError(await update('MATCH (p:Person {name: "Caro"}) SET p.age = 42', headers), 403, 'err:db/Forbidden');
    expect(await head()).toBe(t);
    expect(await json(await update('MATCH (p:Person {name: "Caro"}) SET p.city = "Porto"', headers))).toMatchObject({ t: t + 1, flakes_added: 1, flakes_retracted: 1 });
  });
});
