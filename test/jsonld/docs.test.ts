/** The examples of docs/jsonld-query.md return what the page says. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { runJsonLdQuery } from '../../src/core/query/jsonld/service.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const ctx = { ex: 'http://example.org/', schema: 'http://schema.org/' };
let conn: Connection;
beforeAll(async () => {
  conn = new Connection(openMemoryStorage());
  await conn.create('demo:main');
  await conn.transact('demo:main', await parseJsonLdTxn({
    '@context': ctx, '@graph': [
      { '@id': 'ex:ana', '@type': 'ex:Person', 'schema:name': 'Ana', 'schema:age': 34, 'ex:knows': { '@id': 'ex:ben' } },
      { '@id': 'ex:ben', '@type': 'ex:Person', 'schema:name': 'Ben', 'schema:age': 27 },
    ],
  }, 'insert'));
});
const q = async (body: Record<string, unknown>) => (await runJsonLdQuery(conn, { '@context': ctx, ...body }, { ledger: 'demo:main' })).result;

describe('docs/jsonld-query.md', () => {
  it('a first query', async () => {
    expect(await q({ select: ['?name', '?age'], where: { '@id': '?p', '@type': 'ex:Person', 'schema:name': '?name', 'schema:age': '?age' }, orderBy: '?name' }))
      .toEqual([['Ana', 34], ['Ben', 27]]);
  });

  it('result shapes follow the select', async () => {
    const where = { '@id': '?p', 'schema:name': '?name', 'schema:age': '?age' };
    expect(await q({ select: '?name', where, orderBy: '?name' })).toEqual(['Ana', 'Ben']);
    expect(await q({ select: '*', where, orderBy: '?name' })).toEqual([{ '?p': 'ex:ana', '?name': 'Ana', '?age': 34 }, { '?p': 'ex:ben', '?name': 'Ben', '?age': 27 }]);
    expect(await q({ selectOne: ['?name', '?age'], where, orderBy: '?name' })).toEqual(['Ana', 34]);
  });

  it('graph crawl', async () => {
    expect(await q({ select: { '?p': ['schema:name', { 'ex:knows': ['schema:name'] }] }, where: { '@id': '?p', 'schema:age': 34 } }))
      .toEqual([{ 'ex:knows': { '@id': 'ex:ben', 'schema:name': 'Ben' }, 'schema:name': 'Ana' }]);
  });

  it('where clauses', async () => {
    expect(await q({
      select: ['?name', '?nick', '?next'],
      where: [
        { '@id': '?p', '@type': 'ex:Person', 'schema:name': '?name', 'schema:age': '?age' },
        ['optional', { '@id': '?p', 'ex:nick': '?nick' }],
        ['filter', '(> ?age 30)', ['strStarts', '?name', 'A']],
        ['bind', '?next', '(+ ?age 1)'],
      ],
    })).toEqual([['Ana', null, 35]]);
  });

  it('aggregates', async () => {
    expect(await q({ select: ['?t', '(count ?p)', '(as (avg ?age) ?avgAge)'], where: { '@id': '?p', '@type': '?t', 'schema:age': '?age' }, groupBy: '?t', having: '(>= (count ?p) 2)' }))
      .toEqual([['ex:Person', 2, 30.5]]);
  });
});
