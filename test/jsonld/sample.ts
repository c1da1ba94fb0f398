/** The sample ledger of jsonld-query.md §1 (`demo:main`, five commits) built through the write pipeline. */
import { Connection } from '../../src/core/ledger/connection.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { openMemoryStorage } from '../../src/storage/index.js';

export const C = { ex: 'http://example.org/', schema: 'http://schema.org/', xsd: 'http://www.w3.org/2001/XMLSchema#' };

/** The five commits of §1, in order (t = 1..5). */
export const COMMITS: [unknown, 'insert' | 'update'][] = [
  [{
    '@context': C,
    '@graph': [
      { '@id': 'ex:ana', '@type': 'ex:Person', 'schema:name': 'Ana', 'schema:age': 34, 'ex:city': 'Lisbon', 'ex:knows': [{ '@id': 'ex:ben' }, { '@id': 'ex:caro' }], 'ex:scores': [7, 9] },
      { '@id': 'ex:ben', '@type': 'ex:Person', 'schema:name': 'Ben', 'schema:age': 27, 'ex:city': 'Porto', 'ex:knows': { '@id': 'ex:caro' }, 'ex:nick': 'Benny' },
      { '@id': 'ex:caro', '@type': ['ex:Person', 'ex:Admin'], 'schema:name': 'Caro', 'schema:age': 41, 'ex:city': 'Lisbon', 'ex:scores': 5, 'ex:motto': { '@value': 'Carpe diem', '@language': 'la' } },
      { '@id': 'ex:trip1', '@type': 'ex:Trip', 'ex:owner': { '@id': 'ex:ana' }, 'ex:cost': { '@value': '1250.5', '@type': 'xsd:decimal' }, 'ex:start': { '@value': '2024-05-01', '@type': 'xsd:date' } },
    ],
  }, 'insert'],
  [{ '@context': C, '@id': 'ex:ben', 'ex:status': 'active' }, 'insert'],
  [{ '@context': C, delete: { '@id': 'ex:ben', 'ex:status': 'active' }, insert: { '@id': 'ex:ben', 'ex:status': 'away' } }, 'update'],
  [{ '@context': C, '@id': 'ex:ana', '@graph': 'http://example.org/g/hr', 'ex:salary': 5200 }, 'insert'],
  [{ '@context': C, 'f:message': 'nightly import', '@graph': [{ '@id': 'ex:dan', 'schema:name': 'Dan' }] }, 'insert'],
];

/** A memory connection holding `demo:main` at t = 5 (plus any extra ledgers the caller adds). */
export async function sampleConnection(): Promise<Connection> {
  const conn = new Connection(openMemoryStorage());
  await conn.create('demo:main');
  for (const [body, mode] of COMMITS) await conn.transact('demo:main', await parseJsonLdTxn(body, mode));
  return conn;
}
