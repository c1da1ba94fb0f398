/**
 * Cross-language equivalence: each JSON-LD query and its SPARQL form return the same solutions on
 * the same data — at the head, at past t, across graphs and ledgers. JSON-LD runs with typed-json
 * output (rows keyed by variable, every value with its datatype); the SPARQL bindings are rendered
 * through the same formatter, so a difference in any term, datatype or row count fails.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/core/ledger/connection.js';
import { ActiveContext } from '../../src/core/rdf/jsonld-context.js';
import { formatter } from '../../src/core/query/jsonld/format.js';
import { runJsonLdQuery } from '../../src/core/query/jsonld/service.js';
import { collect } from '../../src/core/query/results/types.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { C, sampleConnection } from './sample.js';

const P = `PREFIX ex: <http://example.org/> PREFIX schema: <http://schema.org/>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> PREFIX f: <https://ns.ledgraph.dev/>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
`;
const CITIES = ['Lisbon', 'Porto', 'Braga', 'Faro'];

let conn: Connection;

/**
 * Ledger eq:main: 24 people over four commits — names, ages (xsd:integer, some xsd:int), cities,
 * `knows` edges, scores, birth dates, language-tagged mottos, salaries in a named graph — then
 * an upsert of every city (t=3) and a retraction of some edges (t=4), so past t differ.
 */
async function buildEq(): Promise<void> {
  await conn.create('eq:main');
  const people = Array.from({ length: 24 }, (_, i) => {
    const node: Record<string, unknown> = {
      '@id': `ex:p${i}`, '@type': i % 5 === 0 ? ['ex:Person', 'ex:Admin'] : 'ex:Person',
      'schema:name': `N${String.fromCharCode(65 + (i * 7) % 26)}${i}`,
      'schema:age': i % 4 === 0 ? { '@value': String(20 + (i * 3) % 40), '@type': 'xsd:int' } : 20 + (i * 3) % 40,
      'ex:city': CITIES[i % 4],
      'ex:knows': [{ '@id': `ex:p${(i + 1) % 24}` }, { '@id': `ex:p${(i + 5) % 24}` }],
      'ex:scores': [i % 10, (i * 3) % 7],
      'ex:born': { '@value': `19${70 + (i % 30)}-0${1 + (i % 9)}-1${i % 10}`, '@type': 'xsd:date' },
    };
    if (i % 3 === 0) node['ex:nick'] = `nick${i}`;
    if (i % 6 === 1) node['ex:motto'] = { '@value': `motto ${i}`, '@language': i % 12 === 1 ? 'en' : 'pt' };
    return node;
  });
  await conn.transact('eq:main', await parseJsonLdTxn({ '@context': C, '@graph': people }, 'insert'));
  await conn.transact('eq:main', await parseJsonLdTxn({
    '@context': C, '@id': 'http://example.org/g/pay',
    '@graph': Array.from({ length: 8 }, (_, i) => ({ '@id': `ex:p${i * 3}`, 'ex:salary': 1000 + i * 250 })),
  }, 'insert'));
  await conn.transact('eq:main', await parseJsonLdTxn({
    '@context': C, '@graph': Array.from({ length: 24 }, (_, i) => ({ '@id': `ex:p${i}`, 'ex:city': CITIES[(i + 1) % 4] })),
  }, 'upsert'));
  await conn.transact('eq:main', await parseJsonLdTxn({
    '@context': C, where: { '@id': '?s', 'ex:knows': '?o', 'ex:nick': '?n' }, delete: { '@id': '?s', 'ex:knows': '?o' },
  }, 'update'));
}

beforeAll(async () => {
  conn = await sampleConnection();
  await buildEq();
});

const fmt = formatter(ActiveContext.create(C), 'typed-json');

function canonical(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (v !== null && typeof v === 'object') return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonical((v as Record<string, unknown>)[k])).join(',') + '}';
  return JSON.stringify(v);
}

interface Opts { ledger?: string; ordered?: boolean; empty?: boolean }

/** Assert the JSON-LD query and the SPARQL query have the same solutions; returns the row count. */
async function same(jsonld: Record<string, unknown>, sparql: string, o: Opts = {}): Promise<number> {
  const ledger = o.ledger === undefined ? { ledger: 'eq:main' } : o.ledger === '' ? {} : { ledger: o.ledger };
  const j = await runJsonLdQuery(conn, { ...jsonld, opts: { ...(jsonld['opts'] as object), format: 'typed-json' } }, { ...ledger, defaultContext: C });
  const s = await runSparql(conn, P + sparql, ledger);
  if (s.result.type !== 'bindings') throw new Error('expected bindings');
  const vars = s.result.variables;
  const srows = (await collect(s.result.rows)).map((b) => Object.fromEntries(vars.map((v) => ['?' + v, fmt.cell(b[v])])));
  const jrows = j.result as unknown[];
  expect(Array.isArray(jrows)).toBe(true);
  if (o.ordered) expect(jrows).toEqual(srows);
  else expect(jrows.map(canonical).sort()).toEqual(srows.map(canonical).sort());
  if (!o.empty) expect(jrows.length).toBeGreaterThan(0);
  expect(j.ledgers).toEqual(s.ledgers);
  return jrows.length;
}

describe('JSON-LD ≡ SPARQL: patterns', () => {
  it('1 basic node pattern', () => same({ select: ['?s', '?n'], where: { '@id': '?s', 'schema:name': '?n' } }, 'SELECT ?s ?n { ?s schema:name ?n }'));
  it('2 @type and several properties', () => same(
    { select: ['?s', '?n', '?a'], where: { '@id': '?s', '@type': 'ex:Admin', 'schema:name': '?n', 'schema:age': '?a' } },
    'SELECT ?s ?n ?a { ?s a ex:Admin ; schema:name ?n ; schema:age ?a }'));
  it('3 variable predicate', () => same({ select: ['?p', '?o'], where: { '@id': 'ex:p3', '?p': '?o' } }, 'SELECT ?p ?o { ex:p3 ?p ?o }'));
  it('4 nested node pattern', () => same(
    { select: ['?s', '?f'], where: { '@id': '?s', 'ex:knows': { '@id': '?f', 'ex:city': 'Lisbon' } } },
    'SELECT ?s ?f { ?s ex:knows ?f . ?f ex:city "Lisbon" }'));
  it('5 nested pattern without @id', () => same(
    { select: '?s', where: { '@id': '?s', 'ex:knows': { '@type': 'ex:Admin' } } },
    'SELECT ?s { ?s ex:knows ?x . ?x a ex:Admin }'));
  it('6 reverse property', () => same(
    { '@context': [C, { knownBy: { '@reverse': 'ex:knows' } }], select: '?who', where: { '@id': 'ex:p7', knownBy: '?who' } },
    'SELECT ?who { ?who ex:knows ex:p7 }'));
  it('7 numbers match by value across numeric datatypes', () => same(
    { select: '?s', where: { '@id': '?s', 'schema:age': 32 } },
    'SELECT ?s { ?s schema:age ?a FILTER(?a = 32) }'));
  it('8 typed value object constant', () => same(
    { select: '?s', where: { '@id': '?s', 'ex:born': { '@value': '1973-04-13', '@type': 'xsd:date' } } },
    'SELECT ?s { ?s ex:born "1973-04-13"^^xsd:date }'));
  it('9 value object binding language and datatype', () => same(
    { select: ['?s', '?m', '?l'], where: { '@id': '?s', 'ex:motto': { '@value': '?m', '@language': '?l' } } },
    'SELECT ?s ?m ?l { ?s ex:motto ?m BIND(LANG(?m) AS ?l) }'));
  it('10 datatype variable', () => same(
    { select: ['?s', '?dt'], where: { '@id': '?s', 'schema:age': { '@value': '?a', '@type': '?dt' } } },
    'SELECT ?s ?dt { ?s schema:age ?a BIND(DATATYPE(?a) AS ?dt) }'));
  it('11 {"@id": "?s"} alone: every subject with a fact', () => same(
    { selectDistinct: '?s', where: { '@id': '?s' } },
    'SELECT DISTINCT ?s { ?s ?p ?o } ORDER BY ?s', { ordered: true }));
});

describe('JSON-LD ≡ SPARQL: filters and expressions', () => {
  const person = { '@id': '?s', 'schema:name': '?n', 'schema:age': '?a' };
  it('12 comparison', () => same({ select: ['?n', '?a'], where: [person, ['filter', '(> ?a 40)']] }, 'SELECT ?n ?a { ?s schema:name ?n ; schema:age ?a FILTER(?a > 40) }'));
  it('13 chained comparison', () => same({ select: '?n', where: [person, ['filter', '(< 25 ?a 45)']] }, 'SELECT ?n { ?s schema:name ?n ; schema:age ?a FILTER(25 < ?a && ?a < 45) }'));
  it('14 string functions, data-array syntax', () => same(
    { select: '?n', where: [person, ['filter', ['or', ['strStarts', '?n', 'NA'], ['contains', '?n', '1'], ['regex', '?n', '^N[B-D]']]]] },
    'SELECT ?n { ?s schema:name ?n ; schema:age ?a FILTER(STRSTARTS(?n, "NA") || CONTAINS(?n, "1") || REGEX(?n, "^N[B-D]")) }'));
  it('15 in / not-in', async () => {
    await same({ select: '?n', where: [person, ['filter', '(in ?a [20 23 26 29])']] }, 'SELECT ?n { ?s schema:name ?n ; schema:age ?a FILTER(?a IN (20, 23, 26, 29)) }');
    await same({ select: '?n', where: [person, ['filter', ['not-in', '?a', [20, 23, 26, 29]]]] }, 'SELECT ?n { ?s schema:name ?n ; schema:age ?a FILTER(?a NOT IN (20, 23, 26, 29)) }');
  });
  it('16 bind arithmetic and strings', () => same(
    { select: ['?n', '?x', '?u'], where: [person, ['bind', '?x', '(* (+ ?a 1) 2)', '?u', '(ucase (concat ?n "-" (str ?a)))']] },
    'SELECT ?n ?x ?u { ?s schema:name ?n ; schema:age ?a BIND((?a + 1) * 2 AS ?x) BIND(UCASE(CONCAT(?n, "-", STR(?a))) AS ?u) }'));
  it('17 if, coalesce, bound over an optional', () => same(
    { select: ['?n', '?k', '?b'], where: [person, ['optional', { '@id': '?s', 'ex:nick': '?nick' }], ['bind', '?k', '(coalesce ?nick "none")', '?b', '(if (bound ?nick) 1 0)']] },
    'SELECT ?n ?k ?b { ?s schema:name ?n ; schema:age ?a OPTIONAL { ?s ex:nick ?nick } BIND(COALESCE(?nick, "none") AS ?k) BIND(IF(BOUND(?nick), 1, 0) AS ?b) }'));
  it('18 dates', () => same(
    { select: ['?s', '?y'], where: [{ '@id': '?s', 'ex:born': '?d' }, ['bind', '?y', '(year ?d)'], ['filter', '(>= (month ?d) 5)']] },
    'SELECT ?s ?y { ?s ex:born ?d BIND(YEAR(?d) AS ?y) FILTER(MONTH(?d) >= 5) }'));
  it('19 lang and langMatches', () => same(
    { select: '?m', where: [{ '@id': '?s', 'ex:motto': '?m' }, ['filter', '(langMatches (lang ?m) "pt")']] },
    'SELECT ?m { ?s ex:motto ?m FILTER(LANGMATCHES(LANG(?m), "pt")) }'));
  it('20 hashes and term tests', () => same(
    { select: ['?s', '?h', '?i'], where: [{ '@id': '?s', 'ex:nick': '?k' }, ['bind', '?h', '(sha256 ?k)', '?i', '(isIRI ?s)']] },
    'SELECT ?s ?h ?i { ?s ex:nick ?k BIND(SHA256(?k) AS ?h) BIND(isIRI(?s) AS ?i) }'));
});

describe('JSON-LD ≡ SPARQL: keyword forms', () => {
  it('21 optional', () => same(
    { select: ['?s', '?nick'], where: [{ '@id': '?s', '@type': 'ex:Person' }, ['optional', { '@id': '?s', 'ex:nick': '?nick' }]] },
    'SELECT ?s ?nick { ?s a ex:Person OPTIONAL { ?s ex:nick ?nick } }'));
  it('22 optional with a filter inside', () => same(
    { select: ['?s', '?a'], where: [{ '@id': '?s', '@type': 'ex:Person' }, ['optional', { '@id': '?s', 'schema:age': '?a' }, ['filter', '(> ?a 50)']]] },
    'SELECT ?s ?a { ?s a ex:Person OPTIONAL { ?s schema:age ?a FILTER(?a > 50) } }'));
  it('23 union', () => same(
    { select: '?s', where: ['union', { '@id': '?s', 'ex:city': 'Faro' }, { '@id': '?s', '@type': 'ex:Admin' }] },
    'SELECT ?s { { ?s ex:city "Faro" } UNION { ?s a ex:Admin } }'));
  it('24 minus', () => same(
    { select: '?s', where: [{ '@id': '?s', '@type': 'ex:Person' }, ['minus', { '@id': '?s', 'ex:nick': '?k' }]] },
    'SELECT ?s { ?s a ex:Person MINUS { ?s ex:nick ?k } }'));
  it('25 exists / not-exists', async () => {
    await same({ select: '?s', where: [{ '@id': '?s', '@type': 'ex:Person' }, ['exists', { '@id': '?s', 'ex:motto': '?m' }]] },
      'SELECT ?s { ?s a ex:Person FILTER EXISTS { ?s ex:motto ?m } }');
    await same({ select: '?s', where: [{ '@id': '?s', '@type': 'ex:Person' }, ['not-exists', { '@id': '?s', 'ex:knows': '?x' }]] },
      'SELECT ?s { ?s a ex:Person FILTER NOT EXISTS { ?s ex:knows ?x } }');
  });
  it('26 values in where and at the top level', async () => {
    await same({ select: ['?s', '?n'], where: [['values', ['?s', [{ '@id': 'ex:p1' }, { '@id': 'ex:p2' }]]], { '@id': '?s', 'schema:name': '?n' }] },
      'SELECT ?s ?n { VALUES ?s { ex:p1 ex:p2 } ?s schema:name ?n }');
    await same({ select: ['?s', '?c'], values: [['?c', '?min'], [['Porto', 30], ['Faro', 50]]], where: [{ '@id': '?s', 'ex:city': '?c', 'schema:age': '?a' }, ['filter', '(> ?a ?min)']] },
      'SELECT ?s ?c { VALUES (?c ?min) { ("Porto" 30) ("Faro" 50) } ?s ex:city ?c ; schema:age ?a FILTER(?a > ?min) }');
  });
  it('27 subquery', () => same(
    { select: ['?n', '?best'], where: [{ '@id': '?s', 'schema:name': '?n' }, ['query', { select: ['?s', '(as (max ?x) ?best)'], where: { '@id': '?s', 'ex:scores': '?x' }, groupBy: '?s' }]] },
    'SELECT ?n ?best { ?s schema:name ?n { SELECT ?s (MAX(?x) AS ?best) { ?s ex:scores ?x } GROUP BY ?s } }'));
});

describe('JSON-LD ≡ SPARQL: paths', () => {
  const ctx = (path: unknown) => [C, { p: { '@path': path } }];
  it('28 one or more', () => same({ '@context': ctx('ex:knows+'), selectDistinct: '?x', where: { '@id': 'ex:p1', p: '?x' } }, 'SELECT DISTINCT ?x { ex:p1 ex:knows+ ?x } ORDER BY ?x', { ordered: true }));
  it('29 zero or more', () => same({ '@context': ctx('ex:knows*'), selectDistinct: '?x', where: { '@id': 'ex:p3', p: '?x' } }, 'SELECT DISTINCT ?x { ex:p3 ex:knows* ?x } ORDER BY ?x', { ordered: true }));
  it('30 inverse', () => same({ '@context': ctx('^ex:knows'), select: '?x', where: { '@id': 'ex:p5', p: '?x' } }, 'SELECT ?x { ex:p5 ^ex:knows ?x }'));
  it('31 sequence', () => same({ '@context': ctx(['/', 'ex:knows', 'schema:name']), select: '?x', where: { '@id': 'ex:p2', p: '?x' } }, 'SELECT ?x { ex:p2 ex:knows/schema:name ?x }'));
  it('32 alternative', () => same({ '@context': ctx('ex:nick|ex:motto'), select: ['?s', '?x'], where: { '@id': '?s', p: '?x' } }, 'SELECT ?s ?x { ?s ex:nick|ex:motto ?x }'));
});

describe('JSON-LD ≡ SPARQL: grouping and ordering', () => {
  it('33 count per group', () => same(
    { select: ['?c', '(count ?s)'], where: { '@id': '?s', 'ex:city': '?c' }, groupBy: '?c' },
    'SELECT ?c (COUNT(?s) AS ?count) { ?s ex:city ?c } GROUP BY ?c ORDER BY ?c', { ordered: true }));
  it('34 count-distinct, min, max, sum of integers', () => same(
    { select: ['?c', '(count-distinct ?x)', '(as (min ?x) ?lo)', '(as (max ?x) ?hi)', '(as (sum ?x) ?total)'], where: { '@id': '?s', 'ex:city': '?c', 'ex:scores': '?x' }, groupBy: '?c' },
    'SELECT ?c (COUNT(DISTINCT ?x) AS ?count_distinct) (MIN(?x) AS ?lo) (MAX(?x) AS ?hi) (SUM(?x) AS ?total) { ?s ex:city ?c ; ex:scores ?x } GROUP BY ?c ORDER BY ?c', { ordered: true }));
  it('35 avg is a double', () => same(
    { select: ['?c', '(as (avg ?a) ?m)'], where: { '@id': '?s', 'ex:city': '?c', 'schema:age': '?a' }, groupBy: '?c' },
    'SELECT ?c (xsd:double(AVG(?a)) AS ?m) { ?s ex:city ?c ; schema:age ?a } GROUP BY ?c ORDER BY ?c', { ordered: true }));
  it('36 having', () => same(
    { select: ['?s', '(count ?f)'], where: { '@id': '?s', 'ex:knows': '?f' }, groupBy: '?s', having: '(>= (count ?f) 2)' },
    'SELECT ?s (COUNT(?f) AS ?count) { ?s ex:knows ?f } GROUP BY ?s HAVING(COUNT(?f) >= 2) ORDER BY ?s', { ordered: true }));
  it('37 count(*) without groupBy', () => same({ select: ['(count *)'], where: { '@id': '?s', 'ex:knows': '?f' } }, 'SELECT (COUNT(*) AS ?count) { ?s ex:knows ?f }', { ordered: true }));
  it('38 groupconcat with separator', () => same(
    { select: ['?s', '(as (groupconcat ?k "|") ?all)'], where: { '@id': '?s', 'ex:nick': '?k' }, groupBy: '?s' },
    'SELECT ?s (GROUP_CONCAT(?k; SEPARATOR="|") AS ?all) { ?s ex:nick ?k } GROUP BY ?s ORDER BY ?s', { ordered: true }));
  it('39 orderBy desc with tie-break, offset, limit', () => same(
    { select: ['?n', '?a'], where: { '@id': '?s', 'schema:name': '?n', 'schema:age': '?a' }, orderBy: [['desc', '?a'], '?n'], offset: 3, limit: 7 },
    'SELECT ?n ?a { ?s schema:name ?n ; schema:age ?a } ORDER BY DESC(?a) ?n OFFSET 3 LIMIT 7', { ordered: true }));
  it('40 selectDistinct', () => same({ selectDistinct: '?c', where: { '@id': '?s', 'ex:city': '?c' } }, 'SELECT DISTINCT ?c { ?s ex:city ?c } ORDER BY ?c', { ordered: true }));
  it('41 orderBy on a variable that is not selected', () => same(
    { select: '?n', where: { '@id': '?s', 'schema:name': '?n', 'ex:born': '?d' }, orderBy: '(desc ?d)' },
    'SELECT ?n { ?s schema:name ?n ; ex:born ?d } ORDER BY DESC(?d)', { ordered: true }));
});

describe('JSON-LD ≡ SPARQL: graphs, datasets and time', () => {
  it('42 named graph by alias and by variable', async () => {
    await same({ from: 'eq:main', fromNamed: { pay: { '@id': 'eq:main', '@graph': 'http://example.org/g/pay' } }, select: ['?n', '?sal'], where: [{ '@id': '?s', 'schema:name': '?n' }, ['graph', 'pay', { '@id': '?s', 'ex:salary': '?sal' }]] },
      'SELECT ?n ?sal FROM <eq:main> FROM NAMED <http://example.org/g/pay> { ?s schema:name ?n GRAPH <http://example.org/g/pay> { ?s ex:salary ?sal } }');
    await same({ select: ['?g', '?s'], where: ['graph', '?g', { '@id': '?s', 'ex:salary': '?sal' }] },
      'SELECT ?g ?s { GRAPH ?g { ?s ex:salary ?sal } }');
  });
  it('43 a named graph as the default graph', () => same(
    { from: { '@id': 'eq:main', graph: 'http://example.org/g/pay' }, select: ['?s', '?sal'], where: { '@id': '?s', 'ex:salary': '?sal' } },
    'SELECT ?s ?sal FROM <eq:main#http://example.org/g/pay> { ?s ex:salary ?sal }', { ledger: '' }));
  it('44 past t: before and after the upsert', async () => {
    for (const t of [1, 2, 3, 4]) {
      await same({ from: `eq:main@t:${t}`, select: ['?s', '?c'], where: { '@id': '?s', 'ex:city': '?c' } }, `SELECT ?s ?c FROM <eq:main@t:${t}> { ?s ex:city ?c }`, { ledger: '' });
    }
  });
  it('45 past t: edges retracted at t=4 are still there at t=3', async () => {
    const at3 = await same({ from: 'eq:main@t:3', select: ['?s', '?f'], where: [{ '@id': '?s', 'ex:knows': '?f' }, ['optional', { '@id': '?s', 'ex:nick': '?k' }]] },
      'SELECT ?s ?f FROM <eq:main@t:3> { ?s ex:knows ?f OPTIONAL { ?s ex:nick ?k } }', { ledger: '' });
    const at4 = await same({ from: 'eq:main@t:4', select: ['?s', '?f'], where: { '@id': '?s', 'ex:knows': '?f' } },
      'SELECT ?s ?f FROM <eq:main@t:4> { ?s ex:knows ?f }', { ledger: '' });
    expect(at3 - at4).toBe(16);
  });
  it('46 object-form from with t', () => same(
    { from: { '@id': 'eq:main', t: 2 }, select: ['?s', '?c'], where: { '@id': '?s', 'ex:city': '?c' }, orderBy: '?s' },
    'SELECT ?s ?c FROM <eq:main@t:2> { ?s ex:city ?c } ORDER BY ?s', { ledger: '', ordered: true }));
  it('47 two ledgers as one default graph', () => same(
    { from: ['demo:main', 'eq:main@t:1'], select: ['?s', '?c'], where: { '@id': '?s', 'ex:city': '?c' } },
    'SELECT ?s ?c FROM <demo:main> FROM <eq:main@t:1> { ?s ex:city ?c }', { ledger: '' }));
  it('48 the txn-meta graph', () => same(
    { '@context': [C, { f: 'https://ns.ledgraph.dev/' }], from: 'eq:main#txn-meta', select: ['?t', '?a', '?r'], where: { '@id': '?c', 'f:t': '?t', 'f:asserts': '?a', 'f:retracts': '?r' } },
    'SELECT ?t ?a ?r FROM <eq:main#txn-meta> { ?c f:t ?t ; f:asserts ?a ; f:retracts ?r }', { ledger: '' }));
  it('49 the sample ledger at t=2 and at the head', async () => {
    await same({ from: 'demo:main@t:2', select: ['?p', '?o'], where: { '@id': 'ex:ben', '?p': '?o' } }, 'SELECT ?p ?o FROM <demo:main@t:2> { ex:ben ?p ?o }', { ledger: '' });
    await same({ select: ['?p', '?o'], where: { '@id': 'ex:ben', '?p': '?o' } }, 'SELECT ?p ?o { ex:ben ?p ?o }', { ledger: 'demo:main' });
  });
});
