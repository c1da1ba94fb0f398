import { beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { collect } from '../../src/core/query/results/types.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const C = { ex: 'http://example.org/', schema: 'http://schema.org/' };
const P = 'PREFIX ex: <http://example.org/> PREFIX schema: <http://schema.org/> PREFIX f: <https://ns.ledgraph.dev/> ';

async function rows(conn: Connection, text: string, ledger?: string): Promise<string[]> {
  const { result } = await runSparql(conn, P + text, ledger ? { ledger } : {});
  if (result.type !== 'bindings') throw new Error('bindings');
  return (await collect(result.rows)).map((r) => result.variables.map((v) => r[v]?.value ?? '-').join(' ')).sort();
}

describe('datasets across ledgers and times', () => {
  const conn = new Connection(openMemoryStorage());
  beforeAll(async () => {
    await conn.create('people');
    await conn.create('names/v1');
    await conn.transact('people', await parseJsonLdTxn({ '@context': C, '@id': 'ex:ana', 'ex:knows': { '@id': 'ex:ben' } }, 'insert'));
    await conn.transact('names/v1', await parseJsonLdTxn({ '@context': C, '@id': 'ex:ben', 'schema:name': 'Ben' }, 'insert'));
    await conn.transact('names/v1', await parseJsonLdTxn({ '@context': C, '@id': 'ex:ben', 'schema:name': 'Benjamin' }, 'upsert'));
    await conn.transact('people', await parseJsonLdTxn({ '@context': C, '@id': 'http://example.org/g1', '@graph': [{ '@id': 'ex:cat', 'schema:name': 'Cat' }] }, 'insert'));
  });

  it('joins two ledgers in one default graph', async () => {
    expect(await rows(conn, 'SELECT ?n FROM <people> FROM <names/v1> { ?x ex:knows ?y . ?y schema:name ?n }')).toEqual(['Benjamin']);
  });

  it('pins each ledger at its own time', async () => {
    expect(await rows(conn, 'SELECT ?n FROM <people:main> FROM <names/v1@t:1> { ?x ex:knows ?y . ?y schema:name ?n }')).toEqual(['Ben']);
  });

  it('names ledgers as named graphs', async () => {
    expect(await rows(conn, 'SELECT ?g ?o FROM NAMED <people> FROM NAMED <names/v1@t:1> { GRAPH ?g { ?s ?p ?o } }')).toEqual(['names/v1@t:1 Ben', 'people http://example.org/ben']);
  });

  it('reads a ledger named graph and the txn-meta graph', async () => {
    expect(await rows(conn, 'SELECT ?n FROM NAMED <http://example.org/g1> { GRAPH <http://example.org/g1> { ?s schema:name ?n } }', 'people')).toEqual(['Cat']);
    expect(await rows(conn, 'SELECT ?t FROM <people#txn-meta> { ?c f:t ?t }')).toEqual(['0', '1', '2']);
    expect(await rows(conn, 'SELECT ?s { ?s ?p ?o }', 'people@t:1')).toEqual(['http://example.org/ana']);
  });

  it('reports missing ledgers and missing defaults', async () => {
    await expect(rows(conn, 'SELECT * FROM <nope:main> { ?s ?p ?o }')).rejects.toMatchObject({ status: 404 });
    await expect(rows(conn, 'SELECT * { ?s ?p ?o }')).rejects.toMatchObject({ status: 400 });
  });
});
