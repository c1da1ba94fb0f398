/**
 * The translation of Cypher writing clauses into staged facts (cypher.md §2, §4, §7), checked on
 * the exact flakes the pipeline would commit (Connection.stage, nothing committed), plus the parser's
 * write forms and the one-commit / nothing-on-error behaviour through Connection.transact.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { isWriteStatement } from '../../src/core/query/cypher/ast.js';
import { parseCypher } from '../../src/core/query/cypher/parse.js';
import { prepareCypherWrite, runCypherWrite } from '../../src/core/query/cypher/service.js';
import { fromParam } from '../../src/core/query/cypher/values.js';
import type { Term } from '../../src/core/rdf/terms.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const CTX = { '@vocab': 'http://example.org/', ex: 'http://example.org/' };
const X = 'http://example.org/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const F = 'https://ns.ledgraph.dev/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

function show(t: Term): string {
  if (t.termType === 'NamedNode') return t.value.startsWith(X) ? `ex:${t.value.slice(X.length)}` : t.value === RDF_TYPE ? 'a' : t.value.startsWith(F) ? `f:${t.value.slice(F.length)}` : `<${t.value}>`;
  if (t.termType === 'BlankNode') return `_:${t.value}`;
  if (t.termType === 'Literal') return t.datatype.value === XSD + 'string' ? JSON.stringify(t.value) : `${JSON.stringify(t.value)}^^xsd:${t.datatype.value.slice(XSD.length)}`;
  return t.value;
}

let conn: Connection;
beforeEach(async () => {
  conn = new Connection(openMemoryStorage());
  await conn.create('w:main', { context: CTX });
  await conn.transact('w:main', parseRdfTxn(`@prefix ex: <${X}> . ex:a a ex:P ; ex:name "A" ; ex:n 1, 2 ; ex:R ex:b . ex:b a ex:P ; ex:name "B" .`, 'text/turtle', 'insert'));
});

/** The flakes a statement would commit at t = 2, sorted, as `+ s p o` lines. */
async function staged(statement: string, params: Record<string, unknown> = {}): Promise<string[]> {
  const w = await prepareCypherWrite(conn, { text: statement, params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, fromParam(v)])) }, 'w:main');
  const { flakes } = await conn.stage('w:main', w.req);
  return flakes.map((f) => `${f.op ? '+' : '-'} ${show(f.s)} ${show(f.p)} ${show(f.o)}`).sort();
}

describe('parsing write statements', () => {
  it('write clauses make a write statement; a trailing RETURN is optional', () => {
    expect(isWriteStatement(parseCypher('CREATE (n:P)'))).toBe(true);
    expect(isWriteStatement(parseCypher('MATCH (n) SET n.a = 1, n:Q REMOVE n.b, n:R RETURN n'))).toBe(true);
    expect(isWriteStatement(parseCypher('MATCH (n) RETURN n'))).toBe(false);
    expect(parseCypher('MERGE (n:P {k: 1}) ON CREATE SET n.c = 1 ON MATCH SET n.m = 1 SET n.x = 2').clauses.map((c) => c.k)).toEqual(['merge', 'set']);
    expect(parseCypher('MATCH (n) DETACH DELETE n').clauses[1]).toMatchObject({ k: 'delete', detach: true });
  });
  it('malformed or unsupported write forms are 400s with their kind', () => {
    const kind = (q: string) => { try { parseCypher(q); return 'ok'; } catch (e) { return ((e as { cause?: { type: string } }).cause)!.type; } };
    expect(kind('MATCH (n) SET n.a.b = 1')).toBe('err:cypher/Unsupported');
    expect(kind('CREATE (n) UNION CREATE (m)')).toBe('err:cypher/Unsupported');
    expect(kind('MATCH (n) RETURN n UNION MATCH (m) SET m.a = 1 RETURN m')).toBe('err:cypher/Unsupported');
    expect(kind('MATCH (n) SET n')).toBe('err:cypher/SyntaxError');
    expect(kind('MERGE (n) ON DELETE SET n.a = 1')).toBe('err:cypher/SyntaxError');
    expect(kind('MATCH (n) SET n:$L')).toBe('err:cypher/Unsupported');
    expect(kind('CREATE (n) MATCH (m) RETURN m')).toBe('ok');
  });
});

describe('translation into facts', () => {
  it('CREATE: labels, scalar and list values, the f:Node mark, a relationship with a reifier', async () => {
    expect(await staged('CREATE (a:P:Q {name: "x", tags: ["u", "v"], w: 1.5, ok: true, d: date("2020-01-02")})-[:R {since: 2019}]->(b)')).toEqual([
      '+ _:lg2-n0 a ex:P', '+ _:lg2-n0 a ex:Q', '+ _:lg2-n0 ex:R _:lg2-n1', '+ _:lg2-n0 ex:d "2020-01-02"^^xsd:date',
      '+ _:lg2-n0 ex:name "x"', '+ _:lg2-n0 ex:ok "true"^^xsd:boolean', '+ _:lg2-n0 ex:tags "u"', '+ _:lg2-n0 ex:tags "v"',
      '+ _:lg2-n0 ex:w "1.5E0"^^xsd:double', '+ _:lg2-n1 a f:Node',
      '+ _:lg2-r0 ex:since "2019"^^xsd:integer', '+ _:lg2-r0 f:reifiesObject _:lg2-n1', '+ _:lg2-r0 f:reifiesPredicate ex:R', '+ _:lg2-r0 f:reifiesSubject _:lg2-n0',
    ]);
  });
  it('`@id` names the subject (expanded with the context); null values are not stored', async () => {
    expect(await staged('CREATE (:P {`@id`: "ex:c", name: null, k: $k})', { k: 7 })).toEqual(['+ ex:c a ex:P', '+ ex:c ex:k "7"^^xsd:integer']);
  });
  it('SET replaces every literal value, keeps relationships; SET n = map clears the other properties', async () => {
    expect(await staged('MATCH (a {name: "A"}) SET a.n = 3')).toEqual(['+ ex:a ex:n "3"^^xsd:integer', '- ex:a ex:n "1"^^xsd:integer', '- ex:a ex:n "2"^^xsd:integer']);
    expect(await staged('MATCH (a {name: "A"}) SET a.n = null')).toEqual(['- ex:a ex:n "1"^^xsd:integer', '- ex:a ex:n "2"^^xsd:integer']);
    expect(await staged('MATCH (a {name: "A"}) SET a = {z: 1}')).toEqual(['+ ex:a ex:z "1"^^xsd:integer', '- ex:a ex:n "1"^^xsd:integer', '- ex:a ex:n "2"^^xsd:integer', '- ex:a ex:name "A"']);
    expect(await staged('MATCH (a {name: "A"}) SET a.n = a.n[0] + 10')).toEqual(['+ ex:a ex:n "11"^^xsd:integer', '- ex:a ex:n "1"^^xsd:integer', '- ex:a ex:n "2"^^xsd:integer']);
  });
  it('relationship properties live on reifiers: SET r.p mints one, REMOVE on an unreified relationship does nothing', async () => {
    expect(await staged('MATCH (:P)-[r:R]->(:P) SET r.w = 2')).toEqual([
      '+ _:lg2-r0 ex:w "2"^^xsd:integer', '+ _:lg2-r0 f:reifiesObject ex:b', '+ _:lg2-r0 f:reifiesPredicate ex:R', '+ _:lg2-r0 f:reifiesSubject ex:a',
    ]);
    expect(await staged('MATCH (:P)-[r:R]->(:P) REMOVE r.w')).toEqual([]);
  });
  it('DELETE r retracts the base fact; DETACH DELETE retracts the node and incoming relationships', async () => {
    expect(await staged('MATCH (:P)-[r:R]->(:P) DELETE r')).toEqual(['- ex:a ex:R ex:b']);
    expect(await staged('MATCH (b {name: "B"}) DETACH DELETE b')).toEqual(['- ex:a ex:R ex:b', '- ex:b a ex:P', '- ex:b ex:name "B"']);
  });
  it('values that cannot be stored are TypeErrors; later rows see earlier rows\' writes', async () => {
    await expect(staged('CREATE (:P {m: [[1]]})')).rejects.toMatchObject({ cause: { type: 'err:cypher/TypeError' } });
    await expect(staged('MATCH (a {name: "A"}) CREATE (:P {x: a})')).rejects.toMatchObject({ cause: { type: 'err:cypher/TypeError' } });
    expect(await staged('UNWIND [1, 1, 2] AS k MERGE (:K {k: k})')).toEqual([
      '+ _:lg2-n0 a ex:K', '+ _:lg2-n0 ex:k "1"^^xsd:integer', '+ _:lg2-n1 a ex:K', '+ _:lg2-n1 ex:k "2"^^xsd:integer',
    ]);
  });
});

describe('one commit, nothing on error', () => {
  it('a statement is one commit; a failing one leaves the head', async () => {
    const r = await runCypherWrite(conn, { text: 'CREATE (:P {name: "C"}) WITH 1 AS x MATCH (p:P) SET p.seen = true RETURN count(p) AS n', params: {} }, 'w:main');
    expect(r.receipt.t).toBe(2);
    expect(r.table.rows).toEqual([[3n]]);
    await expect(runCypherWrite(conn, { text: 'CREATE (:P {name: "D"}) WITH 1 AS x MATCH (p:P) SET p.bad = 1 - "x"', params: {} }, 'w:main')).rejects.toMatchObject({ status: 400 });
    expect((await conn.ledger('w:main')).t).toBe(2);
  });
});
