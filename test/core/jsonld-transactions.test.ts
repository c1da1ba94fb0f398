/** The worked examples of jsonld-transactions.md, end to end: parser -> pipeline -> engine. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { querySparql } from '../../src/core/query/engine.js';
import { collect } from '../../src/core/query/results/types.js';
import type { Term } from '../../src/core/rdf/terms.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const C = { ex: 'http://example.org/', schema: 'http://schema.org/', xsd: 'http://www.w3.org/2001/XMLSchema#' };
const PREFIXES = 'PREFIX ex: <http://example.org/> PREFIX schema: <http://schema.org/> PREFIX f: <https://ns.ledgraph.dev/> PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> ';

function show(t: Term | undefined): string {
  if (!t) return 'UNDEF';
  if (t.termType === 'NamedNode') return t.value.replace('http://example.org/', 'ex:').replace('http://schema.org/', 'schema:').replace('http://www.w3.org/1999/02/22-rdf-syntax-ns#', 'rdf:');
  if (t.termType === 'BlankNode') return '_:' + t.value;
  const dt = t.datatype.value.replace('http://www.w3.org/2001/XMLSchema#', 'xsd:').replace('http://www.w3.org/1999/02/22-rdf-syntax-ns#', 'rdf:');
  return t.language ? `"${t.value}"@${t.language}` : dt === 'xsd:string' ? `"${t.value}"` : `"${t.value}"^^${dt}`;
}

async function select(conn: Connection, ref: string, q: string): Promise<string[][]> {
  const res = await querySparql(PREFIXES + q, { view: await conn.db(ref) });
  if (res.type !== 'bindings') throw new Error('expected bindings');
  return (await collect(res.rows)).map((row) => res.variables.map((v) => show(row[v])));
}

const tx = async (conn: Connection, body: unknown, mode: 'insert' | 'upsert' | 'update' = 'insert') =>
  conn.transact('crm', await parseJsonLdTxn(body, mode), { body, contentType: 'application/json' });

describe('jsonld-transactions.md examples', () => {
  const conn = new Connection(openMemoryStorage());
  beforeAll(async () => { await conn.create('crm'); });

  it('Example 1: insert with a nested blank node (t = 1, 8 flakes)', async () => {
    const r = await tx(conn, {
      '@context': C,
      '@graph': [
        { '@id': 'ex:ana', '@type': 'ex:Person', 'schema:name': 'Ana', 'schema:age': 34, 'ex:address': { 'ex:city': 'Lisbon' } },
        { '@id': 'ex:ben', '@type': 'ex:Person', 'schema:name': 'Ben', 'ex:knows': { '@id': 'ex:ana' } },
      ],
    });
    expect(r).toMatchObject({ ledger_id: 'crm:main', t: 1, flakes_added: 8, flakes_retracted: 0 });
    expect(r['tx-id']).toMatch(/^ledgraph:tx:sha256:[0-9a-f]{64}$/);
    expect(r.commit).toEqual({ hash: r.commit_id });
    expect(await select(conn, 'crm', 'SELECT ?s ?p ?o { ?s ?p ?o } ORDER BY ?s ?p')).toEqual([
      ['_:lg1-b0', 'ex:city', '"Lisbon"'],
      ['ex:ana', 'ex:address', '_:lg1-b0'],
      ['ex:ana', 'schema:age', '"34"^^xsd:integer'],
      ['ex:ana', 'schema:name', '"Ana"'],
      ['ex:ana', 'rdf:type', 'ex:Person'],
      ['ex:ben', 'ex:knows', 'ex:ana'],
      ['ex:ben', 'schema:name', '"Ben"'],
      ['ex:ben', 'rdf:type', 'ex:Person'],
    ]);
  });

  it('Example 2: typed values, language, list, JSON and decimal (t = 2, 8 flakes)', async () => {
    const r = await tx(conn, {
      '@context': [C, { 'ex:born': { '@type': 'xsd:date' }, 'ex:likes': { '@type': '@id' } }],
      '@graph': [{
        '@id': 'ex:ben', 'ex:born': '1998-02-03', 'ex:likes': 'ex:ana',
        'ex:greeting': { '@value': 'Olá', '@language': 'pt' },
        'ex:steps': { '@list': ['wake', 'coffee', 'work'] },
        'ex:prefs': { '@value': { theme: 'dark' }, '@type': '@json' },
        'ex:rating': { '@value': '4.75', '@type': 'xsd:decimal' },
      }],
    });
    expect(r).toMatchObject({ t: 2, flakes_added: 8, flakes_retracted: 0 });
    expect(await select(conn, 'crm', 'SELECT ?p ?o { ex:ben ?p ?o FILTER(?p != ex:steps && ?p != rdf:type && ?p != schema:name && ?p != ex:knows) } ORDER BY ?p')).toEqual([
      ['ex:born', '"1998-02-03"^^xsd:date'],
      ['ex:greeting', '"Olá"@pt'],
      ['ex:likes', 'ex:ana'],
      ['ex:prefs', '"{"theme":"dark"}"^^rdf:JSON'],
      ['ex:rating', '"4.75"^^xsd:decimal'],
    ].map(([p, o]) => [p!, o!]));
    expect(await select(conn, 'crm', 'SELECT ?o { ex:ben ex:steps ?o } ORDER BY ?o')).toEqual([['"coffee"'], ['"wake"'], ['"work"']]);
  });

  it('Example 3: upsert replaces the supplied predicates only; repeating it is a no-op', async () => {
    const body = { '@context': C, '@graph': [{ '@id': 'ex:ana', 'schema:age': 35, 'ex:nick': 'Annie' }] };
    const r = await tx(conn, body, 'upsert');
    expect(r).toMatchObject({ t: 3, flakes_added: 2, flakes_retracted: 1 });
    const again = await tx(conn, body, 'upsert');
    expect(again).toMatchObject({ t: 3, flakes_added: 0, flakes_retracted: 0, commit_id: r.commit_id });
    expect(await select(conn, 'crm', 'SELECT ?p ?o { ex:ana ?p ?o } ORDER BY ?p')).toEqual([
      ['ex:address', '_:lg1-b0'], ['ex:nick', '"Annie"'], ['schema:age', '"35"^^xsd:integer'], ['schema:name', '"Ana"'], ['rdf:type', 'ex:Person'],
    ]);
  });

  it('§6.2: increment, compare-and-set without match, retract a whole subject', async () => {
    const inc = await tx(conn, {
      '@context': C,
      where: [{ '@id': 'ex:ana', 'schema:age': '?a' }, ['bind', '?b', '(+ ?a 1)']],
      delete: { '@id': 'ex:ana', 'schema:age': '?a' },
      insert: { '@id': 'ex:ana', 'schema:age': '?b' },
    }, 'update');
    expect(inc).toMatchObject({ t: 4, flakes_added: 1, flakes_retracted: 1 });
    expect(await select(conn, 'crm', 'SELECT ?a { ex:ana schema:age ?a }')).toEqual([['"36"^^xsd:integer']]);
    const cas = await tx(conn, {
      '@context': C,
      where: { '@id': '?s', 'schema:name': 'Ana', 'schema:age': 40 },
      delete: { '@id': '?s', 'schema:age': 40 }, insert: { '@id': '?s', 'schema:age': 41 },
    }, 'update');
    expect(cas).toMatchObject({ t: 4, flakes_added: 0, flakes_retracted: 0 });
    const wipe = await tx(conn, { '@context': C, where: { '@id': 'ex:ben', '?p': '?o' }, delete: { '@id': 'ex:ben', '?p': '?o' } }, 'update');
    expect(wipe).toMatchObject({ t: 5, flakes_added: 0, flakes_retracted: 11 });
    expect(await select(conn, 'crm', 'SELECT ?p { ex:ben ?p ?o }')).toEqual([]);
    // History keeps it: at t 4 Ben still has 11 facts.
    expect((await select(conn, 'crm@t:4', 'SELECT ?p { ex:ben ?p ?o }')).length).toBe(11);
  });

  it('§6.4: conditional create happens once', async () => {
    const body = {
      '@context': C,
      where: [['optional', { '@id': 'ex:cat', 'schema:name': '?existing' }], ['filter', '(not (bound ?existing))'], ['bind', '?name', '"Cat"']],
      insert: { '@id': 'ex:cat', 'schema:name': '?name' },
    };
    expect(await tx(conn, body, 'update')).toMatchObject({ t: 6, flakes_added: 1 });
    expect(await tx(conn, body, 'update')).toMatchObject({ t: 6, flakes_added: 0 });
  });

  it('Example 4 (§7): update inside a named graph with an audit graph', async () => {
    await tx(conn, { '@context': C, '@id': 'http://example.org/g/hr', '@graph': [{ '@id': 'ex:ana', 'ex:salary': 5200 }] });
    const r = await tx(conn, {
      '@context': C, graph: 'http://example.org/g/hr',
      where: { '@id': 'ex:ana', 'ex:salary': '?s' },
      delete: { '@id': 'ex:ana', 'ex:salary': '?s' },
      insert: [{ '@id': 'ex:ana', 'ex:salary': 5400 }, ['graph', 'http://example.org/g/audit', { '@id': 'ex:ana', 'ex:changedBy': 'hr-bot' }]],
    }, 'update');
    expect(r).toMatchObject({ flakes_added: 2, flakes_retracted: 1 });
    expect(await select(conn, 'crm', 'SELECT ?g ?p ?o { GRAPH ?g { ex:ana ?p ?o } } ORDER BY ?g')).toEqual([
      ['ex:g/audit', 'ex:changedBy', '"hr-bot"'],
      ['ex:g/hr', 'ex:salary', '"5400"^^xsd:integer'],
    ]);
    expect(await select(conn, 'crm', 'SELECT ?o { ex:ana ex:salary ?o }')).toEqual([]);
  });

  it('Example 5 (§8): document metadata lands in txn-meta and f:message', async () => {
    const r = await tx(conn, { '@context': [C, { f: 'https://ns.ledgraph.dev/' }], '@graph': [{ '@id': 'ex:dan', 'schema:name': 'Dan' }], 'f:message': 'nightly import', 'ex:batch': 7 });
    expect(r.flakes_added).toBe(1);
    const db = await conn.db('crm');
    const g = db.graphId('#txn-meta')!;
    // txn-meta is not one of the user's named graphs; it is addressed as its own dataset (graph 1).
    expect(await select(conn, 'crm', 'SELECT ?c { GRAPH ?g { ?c f:message ?m } }')).toEqual([]);
    const res = await querySparql(PREFIXES + 'SELECT ?t ?b ?m { ?c f:t ?t ; ex:batch ?b ; f:message ?m }', { view: db, defaultGraphs: [g] });
    if (res.type !== 'bindings') throw new Error('bindings');
    expect((await collect(res.rows)).map((row) => [show(row.t), show(row.b), show(row.m)])).toEqual([[`"${r.t}"^^xsd:integer`, '"7"^^xsd:integer', '"nightly import"']]);
  });

  it('§9: a plain number retracts by value; a plain string does not retract a language string', async () => {
    await tx(conn, { '@context': C, '@graph': [{ '@id': 'ex:eve', 'ex:n': { '@value': 34, '@type': 'xsd:int' }, 'ex:hi': { '@value': 'Olá', '@language': 'pt' } }] });
    expect(await tx(conn, { '@context': C, delete: { '@id': 'ex:eve', 'ex:hi': 'Olá' } }, 'update')).toMatchObject({ flakes_retracted: 0 });
    expect(await tx(conn, { '@context': C, where: { '@id': 'ex:eve', 'ex:n': '?x' }, delete: { '@id': 'ex:eve', 'ex:n': 34 } }, 'update')).toMatchObject({ flakes_retracted: 1 });
  });

  it('errors write nothing: empty body 400, bad eventTime 422, Turtle syntax 400 with line and column', async () => {
    const before = (await conn.ledger('crm')).t;
    await expect(tx(conn, { '@context': C, '@graph': [] })).rejects.toMatchObject({ status: 400, type: 'err:db/BadRequest' });
    await expect(tx(conn, { '@context': C, '@graph': [{ '@id': 'ex:x', 'ex:y': 1 }], opts: { eventTime: '2999-01-01T00:00:00Z' } }))
      .rejects.toMatchObject({ status: 422, type: 'err:db/ConstraintViolation' });
    await expect(tx(conn, { '@context': C, '@graph': [{ '@id': 'ex:x', 'ex:y': 1 }], opts: { eventTime: '2000-01-01T00:00:00Z' } }))
      .rejects.toMatchObject({ status: 422 });
    expect(() => parseRdfTxn('@prefix ex: <http://example.org/> .\nex:a ex:b "x" ;\n ex:c .', 'text/turtle', 'insert')).toThrow(/line 3/);
    expect((await conn.ledger('crm')).t).toBe(before);
  });

  it('Turtle and TriG insert into named graphs with a txn-meta message', async () => {
    const trig = `@prefix ex: <http://example.org/> . @prefix f: <https://ns.ledgraph.dev/> .
      ex:t1 ex:v 1 .
      GRAPH ex:g2 { ex:t2 ex:v 2 . }
      ex:g3 { ex:t3 ex:v 3 . }
      <#txn-meta> { [] f:message "from trig" . }`;
    const r = await conn.transact('crm', parseRdfTxn(trig, 'application/trig', 'insert'));
    expect(r.flakes_added).toBe(3);
    expect(await select(conn, 'crm', 'SELECT ?g ?s { GRAPH ?g { ?s ex:v ?o } } ORDER BY ?g')).toEqual([['ex:g2', 'ex:t2'], ['ex:g3', 'ex:t3']]);
    expect(await select(conn, 'crm', 'SELECT ?s { ?s ex:v ?o }')).toEqual([['ex:t1']]);
  });
});
