/**
 * Every example of jsonld-query.md, run against the sample ledger of §1 (built through the write
 * pipeline), asserting the exact result JSON the spec shows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/core/ledger/connection.js';
import { type JsonLdQueryRequest, runJsonLdQuery } from '../../src/core/query/jsonld/service.js';
import { C, sampleConnection } from './sample.js';

let conn: Connection;
beforeAll(async () => { conn = await sampleConnection(); });

/** Run a query on the ledger-scoped endpoint of demo:main, whose default context is C. */
async function q(body: unknown, req: JsonLdQueryRequest = {}): Promise<unknown> {
  return (await runJsonLdQuery(conn, body, { ledger: 'demo:main', defaultContext: C, ...req })).result;
}

/** Run a query on the connection-scoped endpoint (ledgers from `from`). */
async function cq(body: unknown, req: JsonLdQueryRequest = {}): Promise<unknown> {
  return (await runJsonLdQuery(conn, body, { defaultContext: C, ...req })).result;
}

describe('§3 select forms and result shapes', () => {
  it('Example 1 — tabular', async () => {
    expect(await q({
      select: ['?name', '?age'],
      where: { '@id': '?p', '@type': 'ex:Person', 'schema:name': '?name', 'schema:age': '?age' },
      orderBy: '?name',
    })).toEqual([['Ana', 34], ['Ben', 27], ['Caro', 41]]);
  });

  it('Example 2 — one column, selectOne, wildcard', async () => {
    expect(await q({ select: '?name', where: { 'ex:city': 'Lisbon', 'schema:name': '?name' }, orderBy: '?name' })).toEqual(['Ana', 'Caro']);
    expect(await q({ selectOne: ['?name', '?age'], where: { '@id': 'ex:caro', 'schema:name': '?name', 'schema:age': '?age' } })).toEqual(['Caro', 41]);
    expect(await q({ select: '*', where: { '@id': '?p', 'ex:nick': '?nick' } })).toEqual([{ '?p': 'ex:ben', '?nick': 'Benny' }]);
  });

  it('Example 3 — selectDistinct sorts by the selected variables', async () => {
    expect(await q({ selectDistinct: '?city', where: { 'ex:city': '?city' } })).toEqual(['Lisbon', 'Porto']);
  });

  it('Example 4 — IRI root crawl', async () => {
    expect(await q({ select: { 'ex:ben': ['*'] } })).toEqual([{
      '@id': 'ex:ben', '@type': 'ex:Person', 'ex:city': 'Porto', 'ex:knows': { '@id': 'ex:caro' },
      'ex:nick': 'Benny', 'ex:status': 'away', 'schema:age': 27, 'schema:name': 'Ben',
    }]);
  });

  it('Example 5 — variable root with a nested sub-selection', async () => {
    expect(await q({
      select: { '?p': ['schema:name', { 'ex:knows': ['schema:name'] }] },
      where: { '@id': '?p', 'ex:city': 'Lisbon' }, orderBy: '?p',
    })).toEqual([
      { 'ex:knows': [{ '@id': 'ex:ben', 'schema:name': 'Ben' }, { '@id': 'ex:caro', 'schema:name': 'Caro' }], 'schema:name': 'Ana' },
      { 'schema:name': 'Caro' },
    ]);
  });

  it('Example 6 — depth', async () => {
    expect(await q({ selectOne: { 'ex:trip1': ['*'] }, depth: 1 })).toEqual({
      '@id': 'ex:trip1', '@type': 'ex:Trip',
      'ex:cost': { '@value': '1250.5', '@type': 'xsd:decimal' },
      'ex:owner': {
        '@id': 'ex:ana', '@type': 'ex:Person', 'ex:city': 'Lisbon',
        'ex:knows': [{ '@id': 'ex:ben' }, { '@id': 'ex:caro' }], 'ex:scores': [7, 9],
        'schema:age': 34, 'schema:name': 'Ana',
      },
      'ex:start': { '@value': '2024-05-01', '@type': 'xsd:date' },
    });
  });

  it('Example 7 — reverse properties in a crawl and in where', async () => {
    const context = [{ ex: 'http://example.org/', schema: 'http://schema.org/' }, { knownBy: { '@reverse': 'ex:knows' } }];
    expect(await q({ '@context': context, selectOne: { 'ex:caro': ['schema:name', 'knownBy'] } })).toEqual(
      { knownBy: [{ '@id': 'ex:ana' }, { '@id': 'ex:ben' }], 'schema:name': 'Caro' });
    expect(await q({ '@context': context, where: { '@id': 'ex:caro', knownBy: '?who' }, select: '?who' })).toEqual(['ex:ana', 'ex:ben']);
  });
});

describe('§4 node patterns', () => {
  it('Example 8 — value objects', async () => {
    expect(await q({ select: ['?m', '?lang', '?s'], where: { '@id': '?s', 'ex:motto': { '@value': '?m', '@language': '?lang' } } }))
      .toEqual([[{ '@value': 'Carpe diem', '@language': 'la' }, 'la', 'ex:caro']]);
    expect(await q({ select: '?s', where: { '@id': '?s', 'ex:start': { '@value': '2024-05-01', '@type': 'xsd:date' } } })).toEqual(['ex:trip1']);
    expect(await q({ select: '?s', where: { '@id': '?s', 'ex:motto': 'Carpe diem' } })).toEqual([]);
  });

  it('Example 9 — variable predicate', async () => {
    expect(await q({ select: ['?p', '?o'], where: { '@id': 'ex:trip1', '?p': '?o' }, orderBy: '?p' })).toEqual([
      ['ex:cost', { '@value': '1250.5', '@type': 'xsd:decimal' }], ['ex:owner', 'ex:ana'],
      ['ex:start', { '@value': '2024-05-01', '@type': 'xsd:date' }],
      ['http://www.w3.org/1999/02/22-rdf-syntax-ns#type', 'ex:Trip'],
    ]);
  });
});

describe('§5 keyword forms', () => {
  it('Example 10 — filter with both expression syntaxes', async () => {
    expect(await q({
      select: '?name',
      where: [{ '@id': '?p', 'schema:name': '?name', 'schema:age': '?age' }, ['filter', '(> ?age 30)', ['strStarts', '?name', 'C']]],
    })).toEqual(['Caro']);
    expect(await q({
      select: '?name', orderBy: '?name',
      where: [{ '@id': '?p', 'schema:name': '?name', 'schema:age': '?age' }, ['filter', '(> ?age 30)']],
    })).toEqual(['Ana', 'Caro']);
  });

  it('§5.2 optional', async () => {
    expect(await q({
      select: ['?name', '?nick'],
      where: [{ '@id': '?p', '@type': 'ex:Person', 'schema:name': '?name' }, ['optional', { '@id': '?p', 'ex:nick': '?nick' }]],
      orderBy: '?name',
    })).toEqual([['Ana', null], ['Ben', 'Benny'], ['Caro', null]]);
  });

  it('§5.3 union', async () => {
    expect(await q({
      select: '?name', orderBy: '?name',
      where: [{ '@id': '?p', 'schema:name': '?name' }, ['union', { '@id': '?p', 'ex:city': 'Porto' }, { '@id': '?p', '@type': 'ex:Admin' }]],
    })).toEqual(['Ben', 'Caro']);
  });

  it('§5.4 bind', async () => {
    expect(await q({
      select: ['?name', '?next'], orderBy: '?name',
      where: [{ '@id': '?p', 'schema:name': '?name', 'schema:age': '?age' }, ['bind', '?next', '(+ ?age 1)']],
    })).toEqual([['Ana', 35], ['Ben', 28], ['Caro', 42]]);
  });

  it('Example 11 — values', async () => {
    expect(await q({
      select: '?name', orderBy: '?name',
      values: [['?city', '?min'], [['Lisbon', 40], ['Porto', 20]]],
      where: [{ '@id': '?p', 'ex:city': '?city', 'schema:age': '?age', 'schema:name': '?name' }, ['filter', '(> ?age ?min)']],
    })).toEqual(['Ben', 'Caro']);
    expect(await q({
      select: '?name', orderBy: '?name',
      values: ['?p', [{ '@id': 'ex:ana' }, { '@id': 'ex:caro' }]],
      where: { '@id': '?p', 'schema:name': '?name' },
    })).toEqual(['Ana', 'Caro']);
  });

  it('§5.6 exists, not-exists, minus', async () => {
    const base = { '@id': '?p', '@type': 'ex:Person', 'schema:name': '?name' };
    const knowsLisbon = { '@id': '?p', 'ex:knows': { 'ex:city': 'Lisbon' } };
    expect(await q({ select: '?name', orderBy: '?name', where: [base, ['exists', knowsLisbon]] })).toEqual(['Ana', 'Ben']);
    expect(await q({ select: '?name', orderBy: '?name', where: [base, ['not-exists', knowsLisbon]] })).toEqual(['Caro']);
    expect(await q({ select: '?name', orderBy: '?name', where: [base, ['minus', { '@id': '?p', 'ex:nick': '?n' }]] })).toEqual(['Ana', 'Caro']);
    // minus with no shared variable removes nothing
    expect(await q({ select: '?name', orderBy: '?name', where: [base, ['minus', { '@id': '?x', 'ex:nick': '?n' }]] })).toEqual(['Ana', 'Ben', 'Caro']);
  });

  it('§5.7 subqueries', async () => {
    expect(await q({
      select: ['?name', '?best'], orderBy: '?name',
      where: [{ '@id': '?p', 'schema:name': '?name' },
        ['query', { select: ['?p', '(as (max ?s) ?best)'], where: { '@id': '?p', 'ex:scores': '?s' }, groupBy: '?p' }]],
    })).toEqual([['Ana', 9], ['Caro', 5]]);
  });

  it('§5.8 property paths', async () => {
    expect(await q({
      '@context': [{ ex: 'http://example.org/' }, { reaches: { '@path': 'ex:knows+' } }],
      selectDistinct: '?x', where: { '@id': 'ex:ana', reaches: '?x' },
    })).toEqual(['ex:ben', 'ex:caro']);
  });
});

describe('§6 grouping and aggregates', () => {
  const where = { '@id': '?p', '@type': 'ex:Person', 'ex:city': '?city', 'schema:age': '?age' };
  it('Example 12', async () => {
    expect(await q({ select: ['?city', '(count ?p)', '(as (avg ?age) ?avgAge)'], where, groupBy: '?city' }))
      .toEqual([['Lisbon', 2, 37.5], ['Porto', 1, 27]]);
    expect(await q({ select: ['?city', '(count ?p)', '(as (avg ?age) ?avgAge)'], where, groupBy: '?city', having: '(>= (count ?p) 2)' }))
      .toEqual([['Lisbon', 2, 37.5]]);
    const arrays = await q({ select: ['?city', '?name'], where: { ...where, 'schema:name': '?name' }, groupBy: '?city' }) as [string, string[]][];
    expect(arrays.map(([c, names]) => [c, [...names].sort()])).toEqual([['Lisbon', ['Ana', 'Caro']], ['Porto', ['Ben']]]);
    expect(await q({ select: ['(sum ?s)'], where: { 'ex:scores': '?s' } })).toEqual([21]);
  });
});

describe('§7 ordering and paging', () => {
  it('orderBy desc, offset, limit', async () => {
    expect(await q({
      select: '?name', where: { '@id': '?p', 'schema:name': '?name', 'schema:age': '?age' },
      orderBy: [['desc', '?age']], offset: 1, limit: 2,
    })).toEqual(['Ana', 'Ben']);
  });
});

describe('§8 datasets', () => {
  it('from a named graph of a ledger; fromNamed with a graph clause', async () => {
    expect(await cq({
      from: { '@id': 'demo:main', graph: 'http://example.org/g/hr' },
      select: ['?p', '?sal'], where: { '@id': '?p', 'ex:salary': '?sal' },
    })).toEqual([['ex:ana', 5200]]);
    expect(await cq({
      from: 'demo:main',
      fromNamed: { hr: { '@id': 'demo:main', '@graph': 'http://example.org/g/hr' } },
      select: ['?name', '?sal'],
      where: [{ '@id': '?p', 'schema:name': '?name' }, ['graph', 'hr', { '@id': '?p', 'ex:salary': '?sal' }]],
    })).toEqual([['Ana', 5200]]);
  });

  it('["graph", "?g", ...] binds the alias\'s graph IRI (compacted like any IRI binding)', async () => {
    expect(await cq({
      from: 'demo:main',
      fromNamed: { hr: { '@id': 'demo:main', '@graph': 'http://example.org/g/hr' } },
      select: ['?g', '?sal'],
      where: ['graph', '?g', { '@id': '?p', 'ex:salary': '?sal' }],
    })).toEqual([['ex:g/hr', 5200]]);
  });
});

describe('§9 time travel and history', () => {
  it('from with @t', async () => {
    const at = (ref: string) => cq({ from: ref, select: '?st', where: { '@id': 'ex:ben', 'ex:status': '?st' } });
    expect(await at('demo:main@t:2')).toEqual(['active']);
    expect(await at('demo:main@t:1')).toEqual([]);
    expect(await at('demo:main')).toEqual(['away']);
  });

  it('history query', async () => {
    expect(await cq({
      from: 'demo:main@t:1', to: 'demo:main@t:latest',
      select: ['?st', '?t', '?op'],
      where: { '@id': 'ex:ben', 'ex:status': { '@value': '?st', '@t': '?t', '@op': '?op' } },
      orderBy: ['?t', '?op'],
    })).toEqual([['active', 2, 'assert'], ['away', 3, 'assert'], ['active', 3, 'retract']]);
    expect(await cq({
      from: 'demo:main@t:1', to: 'demo:main@t:latest',
      select: ['?st', '?t'],
      where: { '@id': 'ex:ben', 'ex:status': { '@value': '?st', '@t': '?t', '@op': 'retract' } },
    })).toEqual([['active', 3]]);
  });
});

describe('§10 commit metadata graph', () => {
  it('txn-meta', async () => {
    expect(await cq({
      '@context': { f: 'https://ns.ledgraph.dev/' }, from: 'demo:main#txn-meta',
      select: ['?t', '?msg'], where: { '@id': '?c', 'f:t': '?t', 'f:message': '?msg' },
    })).toEqual([[5, 'nightly import']]);
  });
});

describe('§11 ask and construct', () => {
  it('ask', async () => {
    expect(await q({ ask: { '@id': '?p', 'ex:nick': 'Benny' } })).toBe(true);
    expect(await q({ ask: { '@id': '?p', 'ex:nick': 'Bob' } })).toBe(false);
  });

  it('construct', async () => {
    expect(await q({
      construct: { '@id': '?p', 'ex:livesIn': '?city' },
      where: { '@id': '?p', '@type': 'ex:Person', 'ex:city': '?city' },
    })).toEqual({
      '@context': C,
      '@graph': [{ '@id': 'ex:ana', 'ex:livesIn': ['Lisbon'] }, { '@id': 'ex:ben', 'ex:livesIn': ['Porto'] }, { '@id': 'ex:caro', 'ex:livesIn': ['Lisbon'] }],
    });
  });
});

describe('§12 opts', () => {
  it('meta tracking', async () => {
    const r = await runJsonLdQuery(conn, { select: '?n', where: { '@id': 'ex:ben', 'schema:name': '?n' }, opts: { meta: true } }, { ledger: 'demo:main', defaultContext: C });
    expect(r.result).toEqual(['Ben']);
    expect(r.tracking?.time).toMatch(/^\d+\.\d\dms$/);
    expect(r.tracking?.fuel).toBe(1);
    expect(r.ledgers).toEqual({ 'demo:main': 5 });
  });
});

describe('§13 typed-json', () => {
  it('rows are objects keyed by variable name', async () => {
    expect(await q({ select: ['?name', '?age'], where: { '@id': 'ex:ben', 'schema:name': '?name', 'schema:age': '?age' }, opts: { format: 'typed-json' } }))
      .toEqual([{ '?age': { '@value': 27, '@type': 'xsd:integer' }, '?name': { '@value': 'Ben', '@type': 'xsd:string' } }]);
  });
});

describe('§14 errors', () => {
  it('a bare word in select', async () => {
    await expect(q({ select: ['name'], where: { 'schema:name': '?name' } })).rejects.toMatchObject({
      status: 400, type: 'err:db/BadRequest', message: "Invalid variable: name (variables must start with '?')",
    });
  });
});
