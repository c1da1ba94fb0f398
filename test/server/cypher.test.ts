/**
 * Cypher reads over real HTTP (cypher.md §1, §8, §9, §11): the worked examples on `social:main`,
 * equivalence with SPARQL at the head and a past t, policy on reads, and the error forms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postText, startTestServer, type TestServer } from '../support/server.js';
import { expectError, json } from './helpers.js';
import { D, DATA } from './cypher-fixtures.js';


// Example 1's reifier, written as plain RDF here (test/server/cypher-write.test.ts writes it with Cypher).
const REIFIER = `@prefix ex: <http://example.org/> . @prefix f: <https://ns.ledgraph.dev/> .
_:r f:reifiesSubject ex:ana ; f:reifiesPredicate ex:WORKS_AT ; f:reifiesObject ex:acme ; ex:since 2019 .`;

let srv: TestServer;
type Env = { results: { columns: string[]; data: { row: unknown[]; meta: null[] }[] }[] };

function cypher(path: string, statement: string, params?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  const body = JSON.stringify({ cypher: statement, ...(params ? { params } : {}), '@context': D });
  return postText(`${srv.api}${path}`, 'application/cypher', body, headers);
}
async function table(statement: string, params?: Record<string, unknown>, path = '/query/social:main'): Promise<{ columns: string[]; rows: unknown[][] }> {
  const env = await json<Env>(await cypher(path, statement, params));
  for (const d of env.results[0]!.data) expect(d.meta).toEqual(d.row.map(() => null));
  return { columns: env.results[0]!.columns, rows: env.results[0]!.data.map((d) => d.row) };
}
async function sparqlRows(path: string, q: string): Promise<string[][]> {
  const r = await postText(`${srv.api}${path}`, 'application/sparql-query', q, { Accept: 'application/sparql-results+json' });
  const body = await json<{ head: { vars: string[] }; results: { bindings: Record<string, { value: string }>[] } }>(r);
  return body.results.bindings.map((b) => body.head.vars.map((v) => b[v]?.value ?? ''));
}

beforeAll(async () => {
  srv = await startTestServer();
  await createLedger(srv, 'social:main');
  for (const ttl of [DATA, REIFIER]) expect((await postText(`${srv.api}/insert/social:main`, 'text/turtle', ttl)).status).toBe(200);
});
afterAll(async () => { await srv?.close(); });

describe('cypher.md §11 worked examples (reads)', () => {
  it('2. projection and order: exact body', async () => {
    const r = await cypher('/query/social:main', 'MATCH (p:Person) RETURN p.name AS name, p.age AS age ORDER BY age DESC');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json(r)).toEqual({ results: [{ columns: ['name', 'age'], data: [
      { row: ['Caro', 41], meta: [null, null] }, { row: ['Ana', 34], meta: [null, null] }, { row: ['Ben', 27], meta: [null, null] }] }] });
  });
  it('3. WITH, ORDER BY, collect', async () => {
    expect(await table('MATCH (p:Person)-[:KNOWS]->(f:Person) WHERE p.city = "Lisbon" WITH p, f ORDER BY f.name RETURN p.name AS name, collect(f.name) AS friends'))
      .toEqual({ columns: ['name', 'friends'], rows: [['Ana', ['Ben', 'Caro']]] });
  });
  it('4. OPTIONAL MATCH and count', async () => {
    expect((await table('MATCH (p:Person) OPTIONAL MATCH (p)-[:KNOWS]->(f) RETURN p.name AS name, count(f) AS knows ORDER BY name')).rows)
      .toEqual([['Ana', 2], ['Ben', 1], ['Caro', 0]]);
  });
  it('5. variable length: reachability vs paths', async () => {
    expect((await table('MATCH (:Person {name: "Ana"})-[:KNOWS*1..2]->(x) RETURN x.name AS name ORDER BY name')).rows).toEqual([['Ben'], ['Caro']]);
    expect(await table('MATCH p = (:Person {name: "Ana"})-[:KNOWS*1..2]->(:Person {name: "Caro"}) RETURN length(p) AS hops, nodes(p) AS path ORDER BY hops'))
      .toEqual({ columns: ['hops', 'path'], rows: [[1, ['ex:ana', 'ex:caro']], [2, ['ex:ana', 'ex:ben', 'ex:caro']]] });
  });
  it('6. graph functions', async () => {
    expect((await table('MATCH (n:Person {name: "Caro"}) RETURN id(n) AS id, labels(n) AS labels, keys(n) AS keys, properties(n) AS props')).rows)
      .toEqual([['ex:caro', ['Admin', 'Person'], ['age', 'city', 'name'], { age: 41, city: 'Lisbon', name: 'Caro' }]]);
  });
  it('7. aggregate then filter', async () => {
    expect(await table('MATCH (p:Person) WITH p.city AS city, count(*) AS c WHERE c > 1 RETURN city, c')).toEqual({ columns: ['city', 'c'], rows: [['Lisbon', 2]] });
  });
  it('8. parameters; a missing one is 400 ParameterMissing', async () => {
    const q = 'MATCH (p:Person) WHERE p.age >= $min RETURN p.name AS name ORDER BY name';
    expect((await table(q, { min: 30 })).rows).toEqual([['Ana'], ['Caro']]);
    const body = await expectError(await cypher('/query/social:main', q), 400, 'err:db/BadRequest');
    expect((body.cause as Record<string, unknown>)['@type']).toBe('err:cypher/ParameterMissing');
  });
  it('9. list property and scalar functions', async () => {
    expect((await table('MATCH (p:Person {name: "Ana"}) RETURN p.tags AS tags, size(p.tags) AS n, toUpper(p.name) AS up, coalesce(p.nick, "none") AS nick, "ops" IN p.tags AS isOps')).rows)
      .toEqual([[['admin', 'ops'], 2, 'ANA', 'none', true]]);
    // a pattern map matches any value; equality on the list does not
    expect((await table('MATCH (n {tags: "ops"}) RETURN n.name AS n')).rows).toEqual([['Ana']]);
    expect((await table('MATCH (n:Person) WHERE n.tags = "ops" RETURN n.name AS n')).rows).toEqual([]);
  });
  it('10. relationship variables and reifiers; the reifier is not a node', async () => {
    expect((await table('MATCH (a:Person)-[r:WORKS_AT]->(c:Company) RETURN a.name AS who, type(r) AS rel, r.since AS since, r AS edge ORDER BY who')).rows).toEqual([
      ['Ana', 'WORKS_AT', 2019, { start: 'ex:ana', type: 'WORKS_AT', end: 'ex:acme' }],
      ['Ben', 'WORKS_AT', null, { start: 'ex:ben', type: 'WORKS_AT', end: 'ex:acme' }],
    ]);
    expect((await table('MATCH (n) RETURN count(n) AS nodes')).rows).toEqual([[4]]);
    expect((await table('MATCH (a)-[:WORKS_AT {since: 2019}]->(c) RETURN a.name AS a')).rows).toEqual([['Ana']]);
  });
  it('15. syntax error with line and column', async () => {
    const body = await expectError(await cypher('/query/social:main', 'MATCH (n:Person RETURN n'), 400, 'err:db/BadRequest', 'line 1, column 17');
    expect(body.cause).toEqual({ error: "expected ')'", status: 400, '@type': 'err:cypher/SyntaxError' });
  });
});

describe('reading clauses and expressions', () => {
  it('UNWIND, DISTINCT, SKIP/LIMIT, RETURN *, map projection, undirected, CASE', async () => {
    expect((await table('UNWIND [3, 1, null, 2] AS x WITH x WHERE x IS NOT NULL RETURN x ORDER BY x SKIP 1 LIMIT 1')).rows).toEqual([[2]]);
    expect((await table('UNWIND [] AS x RETURN x')).rows).toEqual([]);
    expect((await table('MATCH (p:Person) RETURN DISTINCT p.city AS c ORDER BY c')).rows).toEqual([['Lisbon'], ['Porto']]);
    expect(await table('MATCH (p:Person {name: "Ben"}) WITH p.name AS b, p.age AS a RETURN *')).toEqual({ columns: ['a', 'b'], rows: [[27, 'Ben']] });
    expect((await table('MATCH (p:Person {name: "Ben"}) RETURN p{.name, .age, n: 1} AS m')).rows).toEqual([[{ name: 'Ben', age: 27, n: 1 }]]);
    expect((await table('MATCH (:Person {name: "Caro"})-[:KNOWS]-(x) RETURN x.name AS n ORDER BY n')).rows).toEqual([['Ana'], ['Ben']]);
    expect((await table('MATCH (p:Person) RETURN CASE WHEN p.age > 30 THEN "old" ELSE "young" END AS k, p.name AS n ORDER BY n')).rows)
      .toEqual([['old', 'Ana'], ['young', 'Ben'], ['old', 'Caro']]);
    expect((await table('RETURN 7 / 2 AS a, -7 / 2 AS b, 1 + 2.5 AS c, "a" + 1 AS d, null = null AS e, 1 = "1" AS f, [1,2,3][-1] AS g, [1,2,3][1..] AS h')).rows)
      .toEqual([[3, -3, 3.5, 'a1', null, false, 3, [2, 3]]]);
    expect((await table('MATCH (c:Company) RETURN c.founded AS d, c.founded.year AS y')).rows).toEqual([['1999-05-01', 1999]]);
    expect((await table('MATCH (:Person {name: "Ana"})-[:KNOWS*0..]->(x) RETURN count(x) AS n')).rows).toEqual([[3]]);
  });
  it('EXISTS { pattern [WHERE] } and NOT EXISTS', async () => {
    expect((await table('MATCH (p:Person) WHERE EXISTS { (p)-[:KNOWS]->(:Person {city: "Lisbon"}) } RETURN p.name AS n ORDER BY n')).rows).toEqual([['Ana'], ['Ben']]);
    expect((await table('MATCH (p:Person) WHERE NOT EXISTS { MATCH (p)-[:KNOWS]->(f) WHERE f.age > 40 } RETURN p.name AS n ORDER BY n')).rows).toEqual([['Caro']]);
  });
  it('relationship uniqueness within one MATCH', async () => {
    expect((await table('MATCH (a)-[:KNOWS]->(b)<-[:KNOWS]-(c) RETURN a.name AS a, c.name AS c ORDER BY a')).rows).toEqual([['Ana', 'Ben'], ['Ben', 'Ana']]);
  });
  it('Accept: application/ld+json gives rows as objects', async () => {
    const r = await cypher('/query/social:main', 'MATCH (p:Person) RETURN p.name AS name ORDER BY name LIMIT 2', undefined, { Accept: 'application/ld+json' });
    expect(await json(r)).toEqual([{ name: 'Ana' }, { name: 'Ben' }]);
  });
});

describe('equivalence with SPARQL, at the head and a past t', () => {
  it('the same rows as the SPARQL form', async () => {
    const c = await table('MATCH (p:Person)-[:KNOWS]->(f) RETURN p.name AS a, f.name AS b ORDER BY a, b');
    const s = await sparqlRows('/query/social:main', 'PREFIX ex: <http://example.org/> SELECT ?a ?b { ?p a ex:Person ; ex:KNOWS ?f ; ex:name ?a . ?f ex:name ?b } ORDER BY ?a ?b');
    expect(c.rows).toEqual(s);
    expect(c.rows.length).toBe(3);
  });
  it('a time specifier reads that state', async () => {
    expect((await postText(`${srv.api}/insert/social:main`, 'text/turtle', '<http://example.org/dan> a <http://example.org/Person> ; <http://example.org/name> "Dan" .')).status).toBe(200);
    const q = 'MATCH (p:Person) RETURN p.name AS n ORDER BY n';
    const past = await table(q, undefined, '/query/social:main@t:1');
    const head = await table(q);
    expect(past.rows).toEqual([['Ana'], ['Ben'], ['Caro']]);
    expect(head.rows).toEqual([['Ana'], ['Ben'], ['Caro'], ['Dan']]);
    expect(past.rows).toEqual((await sparqlRows('/query/social:main@t:1', 'PREFIX ex: <http://example.org/> SELECT ?n { ?p a ex:Person ; ex:name ?n } ORDER BY ?n')));
  });
  it('policy filters reads as for SPARQL', async () => {
    const policy = JSON.stringify([{ '@id': 'ex:hideAge', 'f:action': { '@id': 'f:view' }, 'f:onProperty': [{ '@id': 'http://example.org/age' }], 'f:allow': false }]);
    const headers = { 'Ledgraph-Policy': policy, 'Ledgraph-Default-Allow': 'true' };
    const r = await postText(`${srv.api}/query/social:main`, 'application/cypher', JSON.stringify({ cypher: 'MATCH (p:Person {name: "Ana"}) RETURN p.name AS n, p.age AS a', '@context': D }), headers);
    const s = await postText(`${srv.api}/query/social:main`, 'application/sparql-query', 'SELECT ?a { <http://example.org/ana> <http://example.org/age> ?a }', { ...headers, Accept: 'application/sparql-results+json' });
    const sb = await json<{ results: { bindings: unknown[] } }>(s);
    const rb = await json<Env>(r);
    expect(rb.results[0]!.data[0]!.row).toEqual(['Ana', sb.results.bindings.length ? 34 : null]);
  });
});

describe('endpoint rules and errors (§1, §9, §10)', () => {
  const cause = async (r: Response, status: number, type: string) => {
    const b = await expectError(r, status, 'err:db/BadRequest');
    expect((b.cause as Record<string, unknown>)['@type']).toBe(type);
    return b;
  };
  it('raw text bodies work (no parameters, no context: a name with a colon is an IRI)', async () => {
    const r = await postText(`${srv.api}/query/social:main`, 'application/cypher', 'MATCH (p:`http://example.org/Person`) RETURN count(*) AS n;');
    expect((await json<Env>(r)).results[0]!.data[0]!.row).toEqual([4]);
  });
  it('ledger-less /query is 400; bad envelope JSON is JsonParse', async () => {
    await expectError(await postText(`${srv.api}/query`, 'application/cypher', 'MATCH (n) RETURN n'), 400, 'err:db/BadRequest', 'ledger');
    await expectError(await postText(`${srv.api}/query/social:main`, 'application/cypher', '{"cypher": '), 400, 'err:db/JsonParse');
  });
  it('two statements, write clauses on /query, unknown functions are SemanticErrors', async () => {
    await cause(await cypher('/query/social:main', 'RETURN 1 AS a; RETURN 2 AS b'), 400, 'err:cypher/SemanticError');
    await cause(await cypher('/query/social:main', 'CREATE (n:Person) RETURN n'), 400, 'err:cypher/SemanticError');
    await cause(await cypher('/query/social:main', 'RETURN nope(1) AS x'), 400, 'err:cypher/SemanticError');
    await cause(await cypher('/query/social:main', 'MATCH (n:Nothing) RETURN m'), 400, 'err:cypher/SemanticError');
    await cause(await cypher('/query/social:main', 'MATCH (n:Person) WITH n.name AS name RETURN n'), 400, 'err:cypher/SemanticError');
    await cause(await cypher('/query/social:main', 'MATCH (n) WITH n.name RETURN 1 AS x'), 400, 'err:cypher/SemanticError');
    await cause(await cypher('/query/social:main', 'RETURN 1 - "a" AS x'), 400, 'err:cypher/TypeError');
  });
  it('forms outside the subset name the construct', async () => {
    const cases: [string, string][] = [
      ['MATCH p = shortestPath((a)-[*]-(b)) RETURN p', 'shortestPath'],
      ['UNWIND [1] AS x FOREACH (y IN [1] | CREATE (n)) RETURN x', 'FOREACH'],
      ['LOAD CSV FROM "x" AS r RETURN r', 'LOAD CSV'],
      ['RETURN reduce(a = 0, x IN [1] | a + x) AS s', 'reduce'],
      ['RETURN [x IN [1,2] | x * 2] AS l', 'comprehension'],
      ['MATCH (n) RETURN n.a.b AS x', 'chained property'],
    ];
    for (const [q, name] of cases) {
      const b = await cause(await cypher('/query/social:main', q), 400, 'err:cypher/Unsupported');
      expect(b.error as string).toContain(name);
    }
  });
  it('deep nesting is a 400 syntax error, not a crash; a zero-length path binds nodes, not classes', async () => {
    const deep = 'RETURN ' + '('.repeat(400) + '1' + ')'.repeat(400) + ' AS x';
    await cause(await cypher('/query/social:main', deep), 400, 'err:cypher/SyntaxError');
    expect((await table('MATCH (c:Company)-[:KNOWS*0..1]-(x) RETURN x.name AS n')).rows).toEqual([['Acme']]);
  });
  it('Cypher is not offered on the stream endpoint', async () => {
    await expectError(await postText(`${srv.api}/stream/query/social:main`, 'application/cypher', 'RETURN 1 AS a'), 415, 'err:db/UnsupportedMediaType');
  });
});

describe('procedures and UNION (§5)', () => {
  it('CALL db.labels(), db.relationshipTypes(), db.propertyKeys(); YIELD … RETURN', async () => {
    expect(await table('CALL db.labels()')).toEqual({ columns: ['label'], rows: [['Admin'], ['Company'], ['Person']] });
    expect((await table('CALL db.relationshipTypes()')).rows).toEqual([['KNOWS'], ['WORKS_AT']]);
    expect((await table('CALL db.propertyKeys() YIELD propertyKey RETURN collect(propertyKey) AS ks')).rows).toEqual([[['age', 'city', 'founded', 'name', 'since', 'tags']]]);
    const b = await expectError(await cypher('/query/social:main', 'CALL apoc.help("x")'), 400, 'err:db/BadRequest');
    expect((b.cause as Record<string, unknown>)['@type']).toBe('err:cypher/Unsupported');
  });
  it('UNION removes duplicates, UNION ALL keeps them; the forms cannot be mixed', async () => {
    expect((await table('MATCH (p:Person {city: "Lisbon"}) RETURN p.city AS c UNION MATCH (p:Person {name: "Ana"}) RETURN p.city AS c')).rows).toEqual([['Lisbon']]);
    expect((await table('RETURN 1 AS x UNION ALL RETURN 1 AS x')).rows).toEqual([[1], [1]]);
    await expectError(await cypher('/query/social:main', 'RETURN 1 AS x UNION RETURN 1 AS x UNION ALL RETURN 1 AS x'), 400, 'err:db/BadRequest');
    await expectError(await cypher('/query/social:main', 'RETURN 1 AS x UNION RETURN 1 AS y'), 400, 'err:db/BadRequest');
  });
});

describe('the README example', () => {
  it('stores the context, reads the demo ledger at the head and at t = 1, writes and deletes', async () => {
    await createLedger(srv, 'demo');
    const ctx = { ex: 'http://example.org/', schema: 'http://schema.org/' };
    const ins = await postText(`${srv.api}/insert/demo`, 'application/json', JSON.stringify({ '@context': ctx, '@graph': [
      { '@id': 'ex:ana', '@type': 'ex:Person', 'schema:name': 'Ana', 'schema:age': 34, 'ex:knows': { '@id': 'ex:ben' } },
      { '@id': 'ex:ben', '@type': 'ex:Person', 'schema:name': 'Ben', 'schema:age': 27 }] }));
    expect(ins.status).toBe(200);
    expect((await postText(`${srv.api}/insert/demo`, 'application/json', JSON.stringify({ '@context': ctx, '@id': 'ex:ben', 'schema:nick': 'B' }))).status).toBe(200);
    const put = await fetch(`${srv.api}/context/demo`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{"@context": {"@vocab": "http://schema.org/", "ex": "http://example.org/"}}' });
    expect(put.status).toBe(200);
    const r1 = await postText(`${srv.api}/query/demo`, 'application/cypher', JSON.stringify({
      cypher: 'MATCH (p:`ex:Person`)-[:`ex:knows`]->(f) WHERE p.age > $min RETURN p.name AS name, collect(f.name) AS friends', params: { min: 30 } }));
    expect(await r1.text()).toBe('{"results":[{"columns":["name","friends"],"data":[{"row":["Ana",["Ben"]],"meta":[null,null]}]}]}');
    const r2 = await postText(`${srv.api}/query/demo@t:1`, 'application/cypher', 'MATCH (p) RETURN p.name AS name, p.age AS age ORDER BY age');
    expect(await r2.text()).toBe('{"results":[{"columns":["name","age"],"data":[{"row":["Ben",27],"meta":[null,null]},{"row":["Ana",34],"meta":[null,null]}]}]}');
    const w = await json<Record<string, unknown>>(await postText(`${srv.api}/update/demo`, 'application/cypher',
      'MATCH (a:`ex:Person` {name: "Ana"}) CREATE (a)-[:`ex:knows` {since: 2019}]->(c:`ex:Person` {name: "Caro", age: 41}) RETURN id(c) AS caro'));
    expect(w.results).toEqual([{ columns: ['caro'], data: [{ row: ['_:lg3-n0'], meta: [null] }] }]);
    expect(w.receipt).toMatchObject({ ledger_id: 'demo:main', t: 3, flakes_added: 8, flakes_retracted: 0 });
    expect(await json(await postText(`${srv.api}/update/demo`, 'application/cypher', 'MATCH (c {name: "Caro"}) DETACH DELETE c')))
      .toMatchObject({ ledger_id: 'demo:main', t: 4, flakes_added: 0, flakes_retracted: 8 });
  });
});

describe('OpenAPI', () => {
  it('lists application/cypher on /query/{ledger} and /update/{ledger} only', async () => {
    const spec = await json<{ paths: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }> }>(await fetch(`${srv.url}/swagger.json`));
    expect(Object.keys(spec.paths['/v1/ledgraph/query/{ledger}']!.post.requestBody.content)).toContain('application/cypher');
    expect(Object.keys(spec.paths['/v1/ledgraph/query']!.post.requestBody.content)).not.toContain('application/cypher');
    expect(Object.keys(spec.paths['/v1/ledgraph/update/{ledger}']!.post.requestBody.content)).toContain('application/cypher');
    expect(Object.keys(spec.paths['/v1/ledgraph/update']!.post.requestBody.content)).not.toContain('application/cypher');
  });
});
