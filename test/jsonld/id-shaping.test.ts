/**
 * Select results shaped from the engine's term ids (shapeIdRows, with its per-context cache of
 * cells by id) give exactly the JSON of the row path (shapeRows over decoded bindings), for the
 * same queries: language tags, datatypes, numbers, booleans, blank nodes, compacted and
 * uncompacted IRIs, @type values, unbound variables, and terms computed by BIND, VALUES and
 * aggregates. Each query runs twice per path, so the second id run answers from the warm cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/core/ledger/connection.js';
import { setIdShaping } from '../../src/core/query/jsonld/shape.js';
import { runJsonLdQuery } from '../../src/core/query/jsonld/service.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { C, sampleConnection } from './sample.js';

let conn: Connection;

/** Extra terms the sample lacks: blank nodes, booleans, doubles, other datatypes, an IRI no prefix compacts, odd strings. */
const EXTRA = {
  '@context': C,
  '@graph': [
    { '@id': 'ex:ana', 'ex:likes': { 'schema:name': 'a blank friend', 'ex:active': true }, 'ex:ratio': { '@value': '0.25', '@type': 'xsd:double' } },
    { '@id': 'ex:ben', 'ex:active': false, 'ex:home': { '@id': 'urn:isbn:0451450523' }, 'ex:ratio': { '@value': 'INF', '@type': 'xsd:double' } },
    { '@id': 'ex:caro', 'ex:note': 'quote " backslash \\ tab \t é 🙂', 'ex:big': { '@value': '123456789012345678901234567890', '@type': 'xsd:integer' }, 'ex:flag': { '@value': '1', '@type': 'xsd:boolean' } },
    { '@id': 'http://other.example/z', 'ex:when': { '@value': '2024-05-01T10:00:00Z', '@type': 'xsd:dateTime' }, 'ex:motto': { '@value': 'hello', '@language': 'en-GB' } },
  ],
};

beforeAll(async () => {
  conn = await sampleConnection();
  await conn.transact('demo:main', await parseJsonLdTxn(EXTRA, 'insert'));
  await conn.create('demo:other');
  await conn.transact('demo:other', await parseJsonLdTxn({ '@context': C, '@graph': [{ '@id': 'ex:zed', 'schema:name': 'Zed', 'schema:age': 50 }, { '@id': 'ex:ana', 'schema:name': 'Ana two' }] }, 'insert'));
});
afterAll(async () => {
  setIdShaping(true);
  await conn.close();
});

/** The query's response text from the row path and from the id path (each run twice). */
async function both(body: Record<string, unknown>, ledger = 'demo:main'): Promise<{ rows: string; ids: string }> {
  const text = JSON.stringify({ '@context': C, ...body });
  const run = async () => JSON.stringify((await runJsonLdQuery(conn, text, { ledger })).result);
  setIdShaping(false);
  const rows = await run();
  expect(await run()).toBe(rows);
  setIdShaping(true);
  const ids = await run();
  expect(await run()).toBe(ids);
  return { rows, ids };
}

const person = { '@id': '?s', 'schema:name': '?n' };
const QUERIES: [string, Record<string, unknown>][] = [
  ['every fact (IRIs, blank nodes, every datatype, language tags)', { select: ['?s', '?p', '?o'], where: { '@id': '?s', '?p': '?o' }, orderBy: ['?s', '?p', '?o'] }],
  ['"*" with unbound variables', { select: '*', where: [{ '@id': '?s', '@type': 'ex:Person' }, ['optional', { '@id': '?s', 'ex:nick': '?nick' }], ['optional', { '@id': '?s', 'ex:motto': '?m' }]], orderBy: '?s' }],
  ['@type values', { select: ['?s', '?t'], where: { '@id': '?s', '@type': '?t' }, orderBy: ['?s', '?t'] }],
  ['one variable bare (flat)', { select: '?o', where: { '@id': '?s', '?p': '?o' }, orderBy: '?o' }],
  ['selectOne', { selectOne: ['?n', '?a'], where: { '@id': 'ex:ana', 'schema:name': '?n', 'schema:age': '?a' } }],
  ['a variable never bound', { select: ['?n', '?nothing'], where: [person, ['optional', { '@id': '?s', 'ex:none': '?nothing' }]], orderBy: '?n' }],
  ['computed terms (BIND)', {
    select: ['?n', '?x', '?u', '?k', '?b', '?d'],
    where: [person, ['optional', { '@id': '?s', 'schema:age': '?a' }], ['optional', { '@id': '?s', 'ex:nick': '?nick' }],
      ['bind', '?x', '(* (+ ?a 1) 2)', '?u', '(ucase (concat ?n "-" (str ?a)))', '?k', '(coalesce ?nick "none")', '?b', '(bound ?nick)', '?d', '(/ ?a 3)']],
    orderBy: '?n',
  }],
  // (bnode) is left out: it makes a new label per run, so no two runs could be compared.
  ['computed IRIs', { select: ['?n', '?i', '?j', '?len'], where: [person, ['bind', '?i', '(iri (concat "http://example.org/made/" ?n))', '?j', '(iri (concat "urn:x:" ?n))', '?len', '(strlen ?n)']], orderBy: '?n' }],
  ['VALUES', { select: ['?s', '?n', '?v'], where: [['values', ['?v', [1, 'two', { '@value': 'drei', '@language': 'de' }]]], person], orderBy: ['?s', '?v'] }],
  ['aggregates', { select: ['?c', '(count ?s)', '(as (avg ?a) ?avg)', '(as (sum ?a) ?sum)', '(as (min ?n) ?first)', '(as (sample ?s) ?one)'], where: { '@id': '?s', 'ex:city': '?c', 'schema:name': '?n', 'schema:age': '?a' }, groupBy: '?c', orderBy: '?c' }],
  ['distinct', { selectDistinct: ['?c'], where: { '@id': '?s', 'ex:city': '?c' }, orderBy: '?c' }],
  ['a past t', { select: ['?s', '?st'], where: { '@id': '?s', 'ex:status': '?st' }, from: 'demo:main@t:2' }],
];

describe('JSON-LD select shaping from term ids', () => {
  for (const [name, body] of QUERIES) {
    it(name, async () => {
      const { rows, ids } = await both(body);
      expect(ids).toBe(rows);
      expect(JSON.parse(rows)).not.toEqual([]);
    });
  }

  it('the same context over two ledgers: each ledger\'s ids keep their own cells', async () => {
    const q = { select: ['?s', '?n'], where: person, orderBy: ['?s', '?n'] };
    const a = await both(q, 'demo:main');
    const b = await both(q, 'demo:other');
    expect(a.ids).toBe(a.rows);
    expect(b.ids).toBe(b.rows);
    expect(JSON.parse(b.ids)).toEqual([['ex:ana', 'Ana two'], ['ex:zed', 'Zed']]);
    // Back to the first ledger, and two ledgers' queries shaping at once.
    expect((await both(q, 'demo:main')).ids).toBe(a.rows);
    const text = JSON.stringify({ '@context': C, ...q });
    const [x, y] = await Promise.all([runJsonLdQuery(conn, text, { ledger: 'demo:main' }), runJsonLdQuery(conn, text, { ledger: 'demo:other' })]);
    expect(JSON.stringify(x.result)).toBe(a.rows);
    expect(JSON.stringify(y.result)).toBe(b.rows);
  });

  it('a cached cell is never shared as an object a caller could change', async () => {
    const q = JSON.stringify({ '@context': C, select: ['?m'], where: { '@id': 'ex:caro', 'ex:motto': '?m' } });
    const first = (await runJsonLdQuery(conn, q, { ledger: 'demo:main' })).result as unknown[];
    expect(first).toEqual([{ '@value': 'Carpe diem', '@language': 'la' }]);
    (first[0] as Record<string, unknown>)['@value'] = 'changed';
    expect((await runJsonLdQuery(conn, q, { ledger: 'demo:main' })).result).toEqual([{ '@value': 'Carpe diem', '@language': 'la' }]);
  });
});
