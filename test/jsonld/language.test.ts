/**
 * The JSON-LD query language beyond the numbered examples: every rule of jsonld-query.md §2–§13
 * with an exact expected result, on the sample ledger (demo:main) and a ledger of odd values
 * (misc:main: a list, @json, xsd:long/int/float, NaN, a reference cycle).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/core/ledger/connection.js';
import { type JsonLdQueryRequest, runJsonLdQuery } from '../../src/core/query/jsonld/service.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { C, sampleConnection } from './sample.js';

let conn: Connection;
beforeAll(async () => {
  conn = await sampleConnection();
  await conn.create('misc:main');
  await conn.transact('misc:main', await parseJsonLdTxn({
    '@context': C, '@graph': [
      {
        '@id': 'ex:a', 'ex:steps': { '@list': ['wake', 'coffee', 'work'] }, 'ex:prefs': { '@value': { theme: 'dark' }, '@type': '@json' },
        'ex:big': { '@value': '9007199254740993', '@type': 'xsd:long' }, 'ex:l': { '@value': '5', '@type': 'xsd:long' },
        'ex:i': { '@value': '5', '@type': 'xsd:int' }, 'ex:nan': { '@value': 'NaN', '@type': 'xsd:double' },
        'ex:inf': { '@value': '-INF', '@type': 'xsd:double' }, 'ex:d': 2.5, 'ex:ok': true,
        'ex:f': { '@value': '1.5', '@type': 'xsd:float' }, 'ex:next': { '@id': 'ex:b' },
      },
      { '@id': 'ex:b', 'ex:next': { '@id': 'ex:a' }, 'schema:name': 'B' },
    ],
  }, 'insert'));
});

const demo = { ledger: 'demo:main', defaultContext: C };
async function q(body: unknown, req: JsonLdQueryRequest = demo): Promise<unknown> {
  return (await runJsonLdQuery(conn, body, req)).result;
}
const misc = (body: unknown) => q(body, { ledger: 'misc:main', defaultContext: C });
/** The 400 message of a query. */
async function bad(body: unknown, req: JsonLdQueryRequest = demo): Promise<string> {
  try { await runJsonLdQuery(conn, body, req); } catch (e) {
    expect(e).toMatchObject({ status: 400, type: 'err:db/BadRequest' });
    return (e as Error).message;
  }
  throw new Error('expected a 400');
}
async function status(body: unknown, req: JsonLdQueryRequest = demo): Promise<[number, string]> {
  try { await runJsonLdQuery(conn, body, req); } catch (e) { return [(e as { status: number }).status, (e as { type: string }).type]; }
  return [200, ''];
}

describe('§2 context: expansion and compaction', () => {
  it('term aliases and keyword aliases expand in where; terms compact property keys', async () => {
    expect(await q({ '@context': [C, { id: '@id', type: '@type', name: 'schema:name' }], select: { '?s': ['id', 'name'] }, where: { id: '?s', type: 'ex:Admin' } }))
      .toEqual([{ '@id': 'ex:caro', name: 'Caro' }]);
  });

  it('@vocab expands bare property words and compacts keys, never @id values or IRI bindings', async () => {
    const ctx = { '@vocab': 'http://schema.org/', ex: 'http://example.org/' };
    expect(await q({ '@context': ctx, select: { 'ex:ben': ['name', 'age'] } })).toEqual([{ age: 27, name: 'Ben' }]);
    expect(await q({ '@context': ctx, select: '?p', where: [{ '@id': 'ex:ana', '?p': '?o' }, ['filter', '(= ?o "Ana")']] })).toEqual(['http://schema.org/name']);
  });

  it('@base resolves bare words in @id position', async () => {
    expect(await q({ '@context': { '@base': 'http://example.org/', schema: 'http://schema.org/' }, select: '?n', where: { '@id': 'ben', 'schema:name': '?n' } })).toEqual(['Ben']);
  });

  it('{"@type": "@id"} makes string values IRIs', async () => {
    expect(await q({ '@context': [C, { owner: { '@id': 'ex:owner', '@type': '@id' } }], select: '?t', where: { '@id': '?t', owner: 'ex:ana' } })).toEqual(['ex:trip1']);
  });

  it('a typed term coerces string values', async () => {
    expect(await q({ '@context': [C, { start: { '@id': 'ex:start', '@type': 'xsd:date' } }], select: '?t', where: { '@id': '?t', start: '2024-05-01' } })).toEqual(['ex:trip1']);
  });

  it('built-in prefixes expand but do not compact', async () => {
    expect(await q({ select: '?s', where: { '@id': '?s', 'rdf:type': { '@id': 'ex:Trip' } } })).toEqual(['ex:trip1']);
    expect(await q({ select: '?p', where: { '@id': 'ex:trip1', '?p': { '@id': 'ex:Trip' } } })).toEqual(['http://www.w3.org/1999/02/22-rdf-syntax-ns#type']);
  });

  it('the query @context replaces the default one; null means no compaction', async () => {
    expect(await q({ '@context': null, select: ['?s', '?n'], where: { '@id': '?s', 'http://schema.org/name': '?n' }, orderBy: '?s', limit: 1 })).toEqual([['http://example.org/ana', 'Ana']]);
    expect(await q({ '@context': {}, select: '?s', where: { '@id': '?s', 'http://example.org/nick': '?n' } })).toEqual(['http://example.org/ben']);
    expect(await q({ context: { e: 'http://example.org/' }, select: '?s', where: { '@id': '?s', 'e:nick': '?n' } })).toEqual(['e:ben']);
  });

  it('without a default context, IRIs print in full', async () => {
    expect(await q({ select: '?s', where: { '@id': '?s', 'http://example.org/nick': '?n' } }, { ledger: 'demo:main' })).toEqual(['http://example.org/ben']);
  });

  it('remote contexts and @reverse with @path are 400', async () => {
    expect(await bad({ '@context': 'https://example.org/ctx.jsonld', select: '?s', where: { '@id': '?s' } })).toBe('remote contexts are not supported (got "https://example.org/ctx.jsonld"); send the context as a JSON object');
    expect(await bad({ '@context': { x: { '@reverse': 'ex:knows', '@path': 'ex:knows+' } }, select: '?s', where: { '@id': '?s' } })).toBe('invalid term definition for "x": @reverse and @path cannot be combined');
  });
});

describe('§3 select forms', () => {
  it('a one-element array is flat; aggregates give arrays', async () => {
    expect(await q({ select: ['?n'], where: { '@id': 'ex:ben', 'schema:name': '?n' } })).toEqual(['Ben']);
    expect(await q({ select: ['?c', '(count ?p)'], where: { '@id': '?p', 'ex:city': '?c' }, groupBy: '?c' })).toEqual([['Lisbon', 2], ['Porto', 1]]);
  });

  it('mixed variables and a crawl object', async () => {
    expect(await q({ select: ['?age', { '?s': ['schema:name'] }], where: { '@id': '?s', 'schema:age': '?age' }, orderBy: '?age' }))
      .toEqual([[27, { 'schema:name': 'Ben' }], [34, { 'schema:name': 'Ana' }], [41, { 'schema:name': 'Caro' }]]);
  });

  it('selectOne without rows is null; "*" rows omit unbound variables', async () => {
    expect(await q({ selectOne: '?x', where: { '@id': '?s', 'ex:zzz': '?x' } })).toBeNull();
    expect(await q({ select: '*', where: [{ '@id': '?s', '@type': 'ex:Person' }, ['optional', { '@id': '?s', 'ex:nick': '?nick' }]], orderBy: '?s' }))
      .toEqual([{ '?s': 'ex:ana' }, { '?s': 'ex:ben', '?nick': 'Benny' }, { '?s': 'ex:caro' }]);
  });

  it('distinct: true is selectDistinct', async () => {
    expect(await q({ select: '?c', distinct: true, where: { '@id': '?p', 'ex:city': '?c' } })).toEqual(['Lisbon', 'Porto']);
  });

  it('non-aggregate select expressions', async () => {
    expect(await q({ select: ['?n', '(as (strlen ?n) ?len)'], where: { '@id': '?p', 'schema:name': '?n' }, orderBy: '?n' }))
      .toEqual([['Ana', 3], ['Ben', 3], ['Caro', 4], ['Dan', 3]]);
  });
});

describe('§3.1–3.3 graph crawl', () => {
  it('an IRI root with no facts is one node; with a where without solutions, none', async () => {
    expect(await q({ select: { 'ex:nobody': ['*'] } })).toEqual([{ '@id': 'ex:nobody' }]);
    expect(await q({ select: { 'ex:ben': ['schema:name'] }, where: { '@id': 'ex:ben', 'ex:zzz': '?x' } })).toEqual([]);
    expect(await q({ select: { 'ex:ben': ['schema:name'] }, where: { '@id': '?s', 'schema:name': '?n' } })).toEqual([{ 'schema:name': 'Ben' }]);
  });

  it('@id selection, literal sub-selection as a value object', async () => {
    expect(await q({ select: { 'ex:ana': [{ 'schema:name': ['*'] }, '@id'] } })).toEqual([{ '@id': 'ex:ana', 'schema:name': { '@value': 'Ana', '@type': 'xsd:string' } }]);
  });

  it('@type selection and {"@reverse": "@type"}', async () => {
    expect(await q({ select: { 'ex:caro': ['@type'] } })).toEqual([{ '@type': ['ex:Admin', 'ex:Person'] }]);
    expect(await q({ '@context': [C, { instances: { '@reverse': '@type' } }], select: { 'ex:Person': ['instances'] } }))
      .toEqual([{ instances: [{ '@id': 'ex:ana' }, { '@id': 'ex:ben' }, { '@id': 'ex:caro' }] }]);
  });

  it('a reverse term with a nested selection expands the referring nodes', async () => {
    expect(await q({ '@context': [C, { knownBy: { '@reverse': 'ex:knows' } }], selectOne: { 'ex:caro': [{ knownBy: ['schema:name'] }] } }))
      .toEqual({ knownBy: [{ '@id': 'ex:ana', 'schema:name': 'Ana' }, { '@id': 'ex:ben', 'schema:name': 'Ben' }] });
  });

  it('@set terms are always arrays', async () => {
    expect(await q({ '@context': [C, { scores: { '@id': 'ex:scores', '@container': '@set' } }], select: { '?p': ['scores'] }, where: { '@id': '?p', 'ex:city': 'Lisbon' }, orderBy: '?p' }))
      .toEqual([{ scores: [7, 9] }, { scores: [5] }]);
  });

  it('values render per §13; lists keep list order', async () => {
    expect(await misc({ select: { 'ex:a': ['*'] } })).toEqual([{
      '@id': 'ex:a', 'ex:big': { '@value': '9007199254740993', '@type': 'xsd:long' }, 'ex:d': 2.5,
      'ex:f': { '@value': '1.5', '@type': 'xsd:float' }, 'ex:i': { '@value': 5, '@type': 'xsd:int' }, 'ex:inf': '-INF', 'ex:l': 5,
      'ex:nan': 'NaN', 'ex:next': { '@id': 'ex:b' }, 'ex:ok': true, 'ex:prefs': { theme: 'dark' }, 'ex:steps': ['wake', 'coffee', 'work'],
    }]);
  });

  it('typed-json renders every crawl literal as a value object', async () => {
    expect(await misc({ select: { 'ex:a': ['ex:l', 'ex:d', 'ex:ok', 'ex:prefs', 'ex:next'] }, opts: { format: 'typed-json' } })).toEqual([{
      'ex:d': { '@value': 2.5, '@type': 'xsd:double' }, 'ex:l': { '@value': 5, '@type': 'xsd:long' }, 'ex:next': { '@id': 'ex:b' },
      'ex:ok': { '@value': true, '@type': 'xsd:boolean' }, 'ex:prefs': { '@value': { theme: 'dark' }, '@type': '@json' },
    }]);
  });

  it('depth expands references with the parent selection and stops at cycles', async () => {
    expect(await misc({ selectOne: { 'ex:b': ['schema:name', 'ex:next'] }, depth: 5 }))
      .toEqual({ 'ex:next': { '@id': 'ex:a', 'ex:next': { '@id': 'ex:b' } }, 'schema:name': 'B' });
  });

  it('normalizeArrays (opts and request option) makes every property an array', async () => {
    const body = { select: { 'ex:ben': ['schema:name', '@type', 'ex:knows'] } };
    const expected = [{ '@type': ['ex:Person'], 'ex:knows': [{ '@id': 'ex:caro' }], 'schema:name': ['Ben'] }];
    expect(await q({ ...body, opts: { normalizeArrays: true } })).toEqual(expected);
    expect(await q(body, { ...demo, normalizeArrays: true })).toEqual(expected);
  });

  it('crawl nodes read the default graph only', async () => {
    expect(await q({ select: { 'ex:ana': ['ex:salary', 'schema:age'] } })).toEqual([{ 'schema:age': 34 }]);
  });

  it('crawl errors', async () => {
    expect(await bad({ select: [{ '?s': ['*'] }, { '?t': ['*'] }], where: { '@id': '?s', 'ex:knows': '?t' } })).toBe('only one graph crawl object is allowed per select');
    expect(await bad({ select: { '?s': ['?x'] }, where: { '@id': '?s' } })).toBe('variables are not allowed in a crawl selection (got ?x)');
    expect(await bad({ select: { '?s': ['*'], '?t': ['*'] }, where: { '@id': '?s' } })).toBe('a graph crawl select is {ROOT: [SPEC...]} with exactly one root, got 2 keys');
  });
});

describe('§4 where patterns', () => {
  it('objectVarParsing false: "?x" is a string; {"@variable"} is a variable', async () => {
    expect(await q({ select: '?s', where: { '@id': '?s', 'schema:name': '?x' }, opts: { objectVarParsing: false } })).toEqual([]);
    expect(await q({ select: '?s', where: { '@id': '?s', 'ex:nick': { '@variable': '?n' } }, opts: { objectVarParsing: false } })).toEqual(['ex:ben']);
  });

  it('a plain string matches xsd:string only; value objects match language-tagged strings', async () => {
    expect(await q({ select: '?s', where: { '@id': '?s', 'ex:motto': { '@value': 'Carpe diem', '@language': 'la' } } })).toEqual(['ex:caro']);
  });

  it('numbers match any numeric type of equal value', async () => {
    expect(await misc({ select: '?s', where: { '@id': '?s', 'ex:i': 5 } })).toEqual(['ex:a']);
    expect(await misc({ select: '?s', where: { '@id': '?s', 'ex:l': 5.0 } })).toEqual(['ex:a']);
  });

  it('@t binds the transaction of the matched fact outside history queries', async () => {
    expect(await q({ select: ['?st', '?t'], where: { '@id': 'ex:ben', 'ex:status': { '@value': '?st', '@t': '?t' } } })).toEqual([['away', 3]]);
    expect(await q({ select: ['?n', '?t', '?op'], where: [{ '@id': '?s', 'schema:name': '?n' }, ['bind', '?t', '(t ?n)', '?op', '(op ?n)']], orderBy: '?n' }))
      .toEqual([['Ana', 1, 'assert'], ['Ben', 1, 'assert'], ['Caro', 1, 'assert'], ['Dan', 5, 'assert']]);
  });

  it('t / op need a variable that a node pattern binds as its object', async () => {
    expect(await bad({ select: '?x', where: [{ '@id': '?s', 'schema:name': '?n' }, ['bind', '?x', '(t ?s)']] })).toBe('(t ?s): ?s must be the object of a where node pattern');
    expect(await bad({ select: '?x', where: [{ '@id': '?s', 'schema:name': '?n' }, ['bind', '?x', '(op "a")']] })).toBe('(op ...) takes a variable bound by a where pattern');
  });

  it('@t with a graph clause: named graphs by IRI work, graph variables are refused', async () => {
    expect(await q({ select: ['?sal', '?t'], where: [{ '@id': '?p', 'schema:name': { '@value': '?n', '@t': '?t' } }, ['graph', 'ex:g/hr', { '@id': '?p', 'ex:salary': '?sal' }]] }))
      .toEqual([[5200, 1]]);
    expect(await bad({ select: ['?t'], where: [{ '@id': '?p', 'schema:name': { '@value': '?n', '@t': '?t' } }, ['graph', '?g', { '@id': '?p', 'ex:salary': '?sal' }]] }))
      .toBe('["graph", "?g", ...] with a graph variable cannot be combined with @t / @op or the t / op functions');
  });

  it('pattern errors', async () => {
    expect(await bad({ select: '?s', where: { '@id': '?s', 'ex:knows': ['?a', '?b'] } })).toBe('invalid value for ex:knows in a where pattern: an array (use one pattern per value)');
    expect(await bad({ select: '?s', where: { '@id': '?s', 'ex:knows': null } })).toBe('invalid value for ex:knows in a where pattern: null (use one pattern per value)');
    expect(await bad({ select: '?s', where: { '@context': {}, '@id': '?s' } })).toBe('@context is not allowed inside a where pattern; put it at the top of the query');
    expect(await bad({ select: '?s', where: { '@id': '?s', '?p': 'Ana' } })).toBe('with a variable property (?p) the object must be a variable, {"@id": ...} or a value object');
  });

  it('value object errors', async () => {
    const v = (o: unknown) => bad({ select: '?s', where: { '@id': '?s', 'ex:p': o } });
    expect(await v({ '@value': '?x', '@type': 'xsd:string', '@language': 'en' })).toBe('a value object cannot have both @type and @language');
    expect(await v({ '@value': 36, '@type': 'xsd:string' })).toBe('cannot coerce number 36 to xsd:string; send it as a JSON string to store text');
    expect(await v({ '@value': 'abc', '@type': 'xsd:decimal' })).toBe('cannot coerce "abc" to xsd:decimal: not a valid xsd:decimal lexical form');
    expect(await v({ '@value': 3.5, '@type': 'xsd:integer' })).toBe('cannot coerce non-integral number 3.5 to xsd:integer');
    expect(await v({ '@value': 1, '@type': 'xsd:boolean' })).toBe('cannot coerce number 1 to xsd:boolean; use true or false');
    expect(await v({ '@value': '?x', '@t': 5 })).toBe('@t must be a variable');
    expect(await v({ '@value': '?x', '@op': 'delete' })).toBe('@op must be a variable, "assert" or "retract"');
    expect(await v({ '@value': '?x', '@type': '@id', '@t': '?t' })).toBe('@t and @op cannot be used with "@type": "@id"');
  });
});

describe('§5 keyword forms and expressions', () => {
  const person = { '@id': '?p', 'schema:name': '?n', 'schema:age': '?a' };
  it('keywords are case-insensitive; optional splits at node objects', async () => {
    expect(await q({ select: ['?n', '?k', '?m'], where: [person, ['OPTIONAL', { '@id': '?p', 'ex:nick': '?k' }, { '@id': '?p', 'ex:motto': '?m' }]], orderBy: '?n' }))
      .toEqual([['Ana', null, null], ['Ben', 'Benny', null], ['Caro', null, { '@value': 'Carpe diem', '@language': 'la' }]]);
  });

  it('integer division truncates toward zero; a double operand divides exactly', async () => {
    expect(await q({ select: ['?a', '?b', '?c', '?d'], where: [['bind', '?a', '(/ 7 2)', '?b', '(/ -7 2)', '?c', '(/ 7 2.0)', '?d', '(/ 7 0)']] }))
      .toEqual([[3, -3, 3.5, null]]);
  });

  it('incomparable values: = false, != true, < false', async () => {
    const f = (e: string) => q({ select: '?n', where: [person, ['filter', e]], orderBy: '?n' });
    expect(await f('(= ?n 1)')).toEqual([]);
    expect(await f('(!= ?n 1)')).toEqual(['Ana', 'Ben', 'Caro']);
    expect(await f('(< ?n 1)')).toEqual([]);
  });

  it('unary minus, arithmetic folding, case functions keep the language tag', async () => {
    expect(await q({ select: ['?x', '?y', '?z'], where: [['bind', '?x', '(- 5)', '?y', '(- 10 1 2)', '?z', '(ucase (strlang "abc" "en"))']] }))
      .toEqual([[-5, 7, { '@value': 'ABC', '@language': 'en' }]]);
  });

  it('datatype returns the compacted datatype IRI', async () => {
    expect(await q({ select: '?d', where: [{ '@id': 'ex:trip1', 'ex:cost': '?c' }, ['bind', '?d', '(datatype ?c)']] })).toEqual(['xsd:decimal']);
  });

  it('data-array exists inside filter, bind with ["expr", ...]', async () => {
    expect(await q({ select: ['?n', '?x'], orderBy: '?n', where: [person, ['filter', ['exists', { '@id': '?p', 'ex:nick': '?k' }]], ['bind', '?x', ['expr', ['*', '?a', 2]]]] }))
      .toEqual([['Ben', 54]]);
  });

  it('expression errors', async () => {
    const f = (e: unknown) => bad({ select: '?n', where: [person, ['filter', e]] });
    expect(await f('(frob ?n)')).toBe('unknown function: frob');
    expect(await f('(strlen ?n ?a)')).toBe('wrong number of arguments to strlen: expected 1, got 2');
    expect(await f('(in ?a 1 2)')).toBe('wrong number of arguments to in: expected 2, got 3');
    expect(await f('(in ?a 1)')).toBe('in needs a list as its second argument, e.g. (in ?x [1 2])');
    expect(await bad({ select: '?n', where: [person, ['bind', 'n2', '(str ?n)']] })).toBe("Invalid variable: n2 (variables must start with '?')");
  });

  it('keyword errors', async () => {
    expect(await bad({ select: '?n', where: [person, ['frobnicate']] })).toBe('unknown where keyword: frobnicate');
    expect(await bad({ select: '?n', where: [person, []] })).toBe('invalid where item: empty array');
    expect(await bad({ select: '?n', where: [person, ['optional', ['filter', '(> ?a 1)']]] })).toBe('filter cannot be the first item of an optional');
    expect(await bad({ select: '?n', where: [person, ['union', { '@id': '?p' }]] })).toBe('union needs at least two branches');
  });

  it('path errors', async () => {
    const p = (path: unknown) => bad({ '@context': [C, { r: { '@path': path } }], select: '?x', where: { '@id': 'ex:ana', r: '?x' } });
    expect(await p('ex:knows?')).toBe('the ? path operator is not supported');
    expect(await p('(ex:a|ex:b)+')).toBe('transitive paths (+, *) apply to a single predicate only');
    expect(await p(['~', 'ex:a'])).toBe('invalid path operator "~" (use +, *, ^, | or /)');
  });
});

describe('§6 aggregates', () => {
  it('median, variance (population) and stddev are doubles', async () => {
    expect(await q({ select: ['(median ?s)', '(variance ?s)', '(stddev ?s)'], where: { 'ex:scores': '?s' } })).toEqual([[7, 8 / 3, Math.sqrt(8 / 3)]]);
    expect(await q({ select: ['?p', '(as (median ?s) ?m)'], where: { '@id': '?p', 'ex:scores': '?s' }, groupBy: '?p' })).toEqual([['ex:ana', 8], ['ex:caro', 5]]);
  });

  it('empty input: count 0, sum and avg unbound', async () => {
    expect(await q({ select: ['(count ?s)', '(sum ?s)', '(avg ?s)'], where: { 'ex:nothing': '?s' } })).toEqual([[0, null, null]]);
  });

  it('sum of non-integers is a double; groupconcat defaults to a space', async () => {
    expect(await q({ select: ['(sum ?c)'], where: { 'ex:cost': '?c' } })).toEqual([1250.5]);
    expect(await q({ select: ['(groupconcat ?n)'], where: { '@id': '?p', 'schema:name': '?n' } })).toEqual(['Ana Ben Caro Dan']);
  });

  it('count *, count-distinct naming', async () => {
    expect(await q({ select: ['(count *)', '(count-distinct ?c)'], where: { '@id': '?p', 'ex:city': '?c' } })).toEqual([[3, 2]]);
  });

  it('having may use a select alias; an aggregate alias orders', async () => {
    expect(await q({ select: ['?c', '(as (count ?p) ?n)'], where: { '@id': '?p', 'ex:city': '?c' }, groupBy: '?c', having: '(> ?n 1)' })).toEqual([['Lisbon', 2]]);
    expect(await q({ select: ['?c', '(as (count ?p) ?n)'], where: { '@id': '?p', 'ex:city': '?c' }, groupBy: '?c', orderBy: '(asc ?n)' })).toEqual([['Porto', 1], ['Lisbon', 2]]);
  });

  it('aggregate errors', async () => {
    const w = { '@id': '?p', 'ex:scores': '?s' };
    expect(await bad({ select: ['(count ?s ?p)'], where: w })).toBe('wrong number of arguments to count: expected 1, got 2');
    expect(await bad({ select: ['(sum *)'], where: w })).toBe('* is only allowed in (count *), not in sum');
    expect(await bad({ select: ['(mode ?s)'], where: w })).toBe('unknown function: mode');
    expect(await bad({ select: ['?p', '(count ?s)'], where: w, having: '(> (median ?s) 1)', groupBy: '?p' })).toBe('median, variance and stddev cannot be used in having');
    expect(await bad({ select: ['?p', '(as (+ 1 (median ?s)) ?m)'], where: w, groupBy: '?p' })).toBe('median must be a whole select item, e.g. "(as (median ?x) ?alias)"');
    expect(await bad({ select: ['?s'], where: w, having: '(> ?s 1)' })).toBe('having needs groupBy or an aggregate');
    expect(await bad({ select: ['(count ?s)', '(count ?p)'], where: w })).toBe('duplicate select name ?count; name each expression with (as EXPR ?alias)');
  });
});

describe('§7 ordering', () => {
  const w = { '@id': '?p', 'schema:name': '?n', 'schema:age': '?a' };
  it('every orderBy form', async () => {
    const expected = ['Caro', 'Ana', 'Ben'];
    expect(await q({ select: '?n', where: w, orderBy: ['desc', '?a'] })).toEqual(expected);
    expect(await q({ select: '?n', where: w, orderBy: '(DESC ?a)' })).toEqual(expected);
    expect(await q({ select: '?n', where: w, orderBy: { var: '?a', direction: 'desc' } })).toEqual(expected);
    expect(await q({ select: '?n', where: w, 'order-by': [['ASC', '?a']] })).toEqual(['Ben', 'Ana', 'Caro']);
  });

  it('unbound first, then IRIs, then literals', async () => {
    expect(await q({ select: '?x', where: [{ '@id': '?s', '@type': 'ex:Person' }, ['optional', { '@id': '?s', 'ex:nick': '?x' }]], orderBy: '?x' })).toEqual([null, null, 'Benny']);
    expect(await q({ select: '?o', where: ['union', { '@id': 'ex:ben', 'ex:nick': '?o' }, { '@id': 'ex:ben', 'ex:knows': '?o' }], orderBy: '?o' })).toEqual(['ex:caro', 'Benny']);
  });

  it('ordering errors', async () => {
    expect(await bad({ select: '?n', where: w, orderBy: [['up', '?a']] })).toBe('invalid sort direction "up"');
    expect(await bad({ select: '?n', where: w, orderBy: 'a' })).toBe("Invalid variable: a (variables must start with '?')");
    expect(await bad({ select: '?n', where: w, limit: -1 })).toBe('limit must be a non-negative integer, got -1');
    expect(await bad({ select: '?n', where: w, offset: 1.5 })).toBe('offset must be a non-negative integer, got 1.5');
    expect(await bad({ select: '?n', where: w, depth: -2 })).toBe('depth must be a non-negative integer, got -2');
    expect(await bad({ select: '?n', where: w, groupBy: 'n' })).toBe("Invalid variable: n (variables must start with '?')");
  });
});

describe('§8–§9 datasets and time', () => {
  const W = { '@id': 'ex:ben', 'ex:status': '?st' };
  const cq = (body: unknown) => q(body, { defaultContext: C });
  it('ledger-scoped shorthands: default, txn-meta, a graph IRI (full or compact)', async () => {
    expect(await q({ from: 'default', select: '?st', where: W })).toEqual(['away']);
    expect(await q({ '@context': [C, { f: 'https://ns.ledgraph.dev/' }], from: 'txn-meta', select: '?t', where: { '@id': '?c', 'f:t': '?t' }, orderBy: '?t' })).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await q({ from: 'http://example.org/g/hr', select: '?s', where: { '@id': '?s', 'ex:salary': '?x' } })).toEqual(['ex:ana']);
    expect(await q({ from: 'ex:g/hr', select: '?s', where: { '@id': '?s', 'ex:salary': '?x' } })).toEqual(['ex:ana']);
  });

  it('fromNamed: a reference is its own alias; a past snapshot of the same ledger as a named graph', async () => {
    const hr = 'demo:main#http://example.org/g/hr';
    expect(await cq({ fromNamed: [hr], select: ['?g', '?sal'], where: ['graph', '?g', { '@id': '?p', 'ex:salary': '?sal' }] })).toEqual([[hr, 5200]]);
    expect(await cq({ fromNamed: hr, select: '?sal', where: ['graph', hr, { '@id': '?p', 'ex:salary': '?sal' }] })).toEqual([5200]);
    expect(await cq({
      from: 'demo:main', fromNamed: { old: { '@id': 'demo:main', t: 2 } }, select: ['?now', '?then'],
      where: [{ '@id': 'ex:ben', 'ex:status': '?now' }, ['graph', 'old', { '@id': 'ex:ben', 'ex:status': '?then' }]],
    })).toEqual([['away', 'active']]);
  });

  it('object from with t and at (ISO instant, commit prefix)', async () => {
    expect(await cq({ from: { '@id': 'demo:main', t: 2 }, select: '?st', where: W })).toEqual(['active']);
    expect(await cq({ from: { '@id': 'demo:main', at: '2999-01-01T00:00:00Z' }, select: '?st', where: W })).toEqual(['away']);
    const ledger = await conn.ledger('demo:main');
    const prefix = ledger.head.cid;
    expect(await cq({ from: { '@id': 'demo:main', at: `commit:${prefix}` }, select: '?st', where: W })).toEqual(['away']);
  });

  it('@time and its @iso alias', async () => {
    expect(await cq({ from: 'demo:main@time:2999-01-01T00:00:00Z', select: '?st', where: W })).toEqual(['away']);
    expect(await cq({ from: 'demo:main@iso:2999-01-01T00:00:00Z', select: '?st', where: W })).toEqual(['away']);
  });

  it('time specifier errors are 400; unknown ledgers, commits and graphs 404', async () => {
    const at = (from: unknown) => bad({ from, select: '?st', where: W }, { defaultContext: C });
    expect(await at('demo:main@t:x')).toBe('invalid time specifier "@t:x": t must be a non-negative integer');
    expect(await at('demo:main@t:')).toBe('invalid time specifier "@t:": t must be a non-negative integer');
    expect(await at('demo:main@when:1')).toBe('invalid time specifier "@when:1": use @t:N, @time:ISO or @commit:REF');
    expect(await at('demo:main@commit:abc')).toBe('invalid time specifier "@commit:abc": expected a CID or a hex digest prefix of at least 6 characters');
    expect(await at('demo:main@time:1999-01-01T00:00:00Z')).toBe("no data as of 1999-01-01T00:00:00Z: the instant is before the ledger's first commit");
    const st = (body: unknown, req: JsonLdQueryRequest = { defaultContext: C }) => status(body, req);
    expect(await st({ from: 'nope:main', select: '?st', where: W })).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await st({ from: 'demo:main@commit:abcdef', select: '?st', where: W })).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await st({ from: 'demo:main#http://example.org/g/none', select: '?st', where: W })).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await st({ from: 'http://example.org/g/none', select: '?st', where: W }, demo)).toEqual([404, 'err:db/LedgerNotFound']);
    expect(await st({ select: '?st', where: W }, { ledger: 'nope' })).toEqual([404, 'err:db/LedgerNotFound']);
  });

  it('dataset errors', async () => {
    expect(await bad({ select: '?st', where: W }, { defaultContext: C })).toBe('no ledger to query: name one in the path, the Ledgraph-Ledger header, or the query (from / FROM)');
    expect(await bad({ from: 'misc:main', select: '?st', where: W })).toBe('a ledger-scoped query cannot read another ledger in from (misc:main); use the connection-scoped endpoint');
    expect(await bad({ from: { '@id': 'demo:main', alias: 'a' }, fromNamed: { a: { '@id': 'demo:main', '@graph': 'http://example.org/g/hr' } }, select: '?s', where: { '@id': '?s' } }, { defaultContext: C })).toBe('duplicate dataset alias "a"');
    expect(await bad({ from: { '@id': 'demo:main', t: 1, at: '2024-01-01T00:00:00Z' }, select: '?s', where: W }, { defaultContext: C })).toBe('from demo:main: give either t or at, not both');
  });

  it('history errors', async () => {
    const h = (body: Record<string, unknown>) => bad({ select: '?st', where: W, ...body }, { defaultContext: C });
    expect(await h({ to: 'demo:main@t:3' })).toBe('a history query (to) needs exactly one from naming the same ledger');
    expect(await h({ from: ['demo:main@t:1', 'demo:main@t:2'], to: 'demo:main@t:3' })).toBe('a history query (to) needs exactly one from naming the same ledger');
    expect(await h({ from: 'demo:main@t:1', to: 'misc:main@t:1' })).toBe('from and to must name the same ledger (got demo:main and misc:main)');
    expect(await h({ from: 'demo:main', to: 'demo:main@t:3' })).toBe('a history query needs a time specifier on from (e.g. ledger@t:1)');
    expect(await h({ from: 'demo:main@t:4', to: 'demo:main@t:3' })).toBe('from (t 4) is after to (t 3)');
    expect(await h({ from: 'demo:main@t:1', to: 'demo:main@t:3', where: ['graph', 'x', W] })).toBe('graph clauses are not supported in history queries; select the graph in from (ledger#graph)');
  });

  it('history with a variable property and a value object carrying @t / @op', async () => {
    expect(await q({
      select: ['?p', '?st', '?op'], where: { '@id': 'ex:ben', '?p': { '@value': '?st', '@t': '?t', '@op': '?op' } },
      orderBy: ['?p', '?op'], opts: { from: 'demo:main@t:3', to: 'demo:main@t:3' },
    }, { defaultContext: C })).toEqual([['ex:status', 'away', 'assert'], ['ex:status', 'active', 'retract']]);
  });

  it('history over one transaction, and dataset keys inside opts', async () => {
    expect(await q({ select: ['?st', '?op'], where: { '@id': 'ex:ben', 'ex:status': { '@value': '?st', '@op': '?op' } }, opts: { from: 'demo:main@t:3', to: 'demo:main@t:3' } }, { defaultContext: C }))
      .toEqual([['active', 'retract'], ['away', 'assert']]);
  });
});

describe('§11 ask and construct', () => {
  it('construct: true reuses the where node patterns; unbound template triples are skipped', async () => {
    expect(await q({ construct: true, where: { '@id': '?p', 'ex:nick': '?n' } })).toEqual({ '@context': C, '@graph': [{ '@id': 'ex:ben', 'ex:nick': ['Benny'] }] });
    expect(await q({ construct: [{ '@id': '?p', '@type': 'ex:Named', 'ex:motto': '?m' }], where: [{ '@id': '?p', 'schema:name': '?n', 'schema:age': '?a' }, ['optional', { '@id': '?p', 'ex:motto': '?m' }]] })).toEqual({
      '@context': C, '@graph': [
        { '@id': 'ex:ana', '@type': ['ex:Named'] }, { '@id': 'ex:ben', '@type': ['ex:Named'] },
        { '@id': 'ex:caro', '@type': ['ex:Named'], 'ex:motto': [{ '@value': 'Carpe diem', '@language': 'la' }] },
      ],
    });
  });

  it('ask and construct errors', async () => {
    expect(await bad({ ask: true })).toBe('ask takes the where clause (a pattern or an array of patterns), got true');
    expect(await bad({ construct: { '@id': '?p', 'ex:x': '?c' }, where: { '@id': '?p', 'ex:city': '?c' }, groupBy: '?c' })).toBe('groupBy is not allowed in a construct query');
  });
});

describe('§12 opts', () => {
  it('max-fuel: exceeded is a 400; tracking reports fuel', async () => {
    expect(await bad({ select: '?n', where: { '@id': '?s', 'schema:name': '?n' }, opts: { 'max-fuel': 2 } })).toBe('fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 2');
    const r = await runJsonLdQuery(conn, { select: '?n', where: { '@id': '?s', 'schema:name': '?n' }, opts: { maxFuel: 100 } }, demo);
    expect(r.tracking).toMatchObject({ fuel: 4, members: ['fuel'] });
    expect(await bad({ select: '?n', where: { '@id': '?s', 'schema:name': '?n' } }, { ...demo, maxFuel: 3 })).toBe('fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 3');
    // The body's max-fuel wins over the header's.
    expect(await q({ select: '?n', where: { '@id': 'ex:ben', 'schema:name': '?n' }, opts: { 'max-fuel': 100 } }, { ...demo, maxFuel: 0 })).toEqual(['Ben']);
  });

  it('crawling spends fuel too', async () => {
    expect(await bad({ select: { '?s': ['*'] }, where: { '@id': '?s', 'schema:name': '?n' }, opts: { 'max-fuel': 6 } })).toBe('fuel limit exceeded (fuel_exhausted): the query needed more than max-fuel 6');
  });

  it('meta object selects members', async () => {
    const r = await runJsonLdQuery(conn, { select: '?n', where: { '@id': 'ex:ben', 'schema:name': '?n' }, opts: { meta: { time: true } } }, demo);
    expect(r.tracking?.members).toEqual(['time']);
  });

  it('min-t: reached passes; not reached times out', async () => {
    expect(await q({ select: '?n', where: { '@id': 'ex:ben', 'schema:name': '?n' }, opts: { 'min-t': 5 } })).toEqual(['Ben']);
    expect(await status({ select: '?n', where: { '@id': 'ex:ben', 'schema:name': '?n' }, opts: { minT: 9 } }, { ...demo, timeoutMs: 60 })).toEqual([408, 'err:db/Timeout']);
    expect(await status({ select: '?n', where: { '@id': 'ex:ben', 'schema:name': '?n' } }, { ...demo, minT: 9, timeoutMs: 60 })).toEqual([408, 'err:db/Timeout']);
  });

  it('format in the body wins over the request option', async () => {
    expect(await q({ select: '?a', where: { '@id': 'ex:ben', 'schema:age': '?a' }, opts: { format: 'json' } }, { ...demo, outputFormat: 'typed-json' })).toEqual([27]);
    expect(await q({ select: '?a', where: { '@id': 'ex:ben', 'schema:age': '?a' } }, { ...demo, outputFormat: 'typed-json' })).toEqual([{ '?a': { '@value': 27, '@type': 'xsd:integer' } }]);
  });

  it('opts errors', async () => {
    const o = (opts: unknown) => bad({ select: '?n', where: { '@id': '?s', 'schema:name': '?n' }, opts });
    expect(await o({ format: 'xml' })).toBe('opts.format must be "json" or "typed-json", got "xml"');
    expect(await o({ meta: 'yes' })).toBe('opts.meta must be true/false or {"time": bool, "fuel": bool, "policy": bool}');
    expect(await o({ 'max-fuel': -1 })).toBe('opts.max-fuel must be a non-negative integer, got -1');
    expect(await o({ t: 3 })).toBe('opts.t is not supported; pin the time in from (ledger@t:N)');
  });
});

describe('§13 typed-json and value rendering in rows', () => {
  it('tabular rows of every datatype', async () => {
    expect(await misc({ select: ['?p', '?o'], where: { '@id': 'ex:a', '?p': '?o' }, orderBy: '?p' })).toEqual([
      ['ex:big', { '@value': '9007199254740993', '@type': 'xsd:long' }], ['ex:d', 2.5], ['ex:f', { '@value': '1.5', '@type': 'xsd:float' }],
      ['ex:i', { '@value': 5, '@type': 'xsd:int' }], ['ex:inf', '-INF'], ['ex:l', 5], ['ex:nan', 'NaN'], ['ex:next', 'ex:b'], ['ex:ok', true],
      ['ex:prefs', { theme: 'dark' }], ['ex:steps', 'wake'], ['ex:steps', 'coffee'], ['ex:steps', 'work'],
    ]);
  });

  it('typed-json reports the stored datatype and IRIs as {"@id"}', async () => {
    expect(await misc({ select: ['?l', '?n'], where: { '@id': '?s', 'ex:l': '?l', 'ex:next': '?n' }, opts: { format: 'typed-json' } }))
      .toEqual([{ '?l': { '@value': 5, '@type': 'xsd:long' }, '?n': { '@id': 'ex:b' } }]);
  });
});

describe('§14 query-level errors', () => {
  it('a compact IRI with an undefined prefix is a 400 naming the prefix (as in SPARQL)', async () => {
    const noSchema = { ex: 'http://example.org/' };
    expect(await bad({ '@context': noSchema, select: '?n', where: { '@id': '?p', 'schema:name': '?n' } }))
      .toBe('undefined prefix "schema" in "schema:name": declare it in the query\'s @context (or write the full IRI)');
    expect(await bad({ '@context': noSchema, select: '?p', where: { '@id': '?p', '@type': 'foaf:Person' } })).toContain('undefined prefix "foaf"');
    expect(await bad({ '@context': noSchema, select: '?p', where: { '@id': 'exx:ana', 'ex:knows': '?p' } })).toContain('undefined prefix "exx"');
    // Absolute IRIs of URI schemes, built-in prefixes (xsd, rdf, ...) and defined prefixes still work.
    expect(await q({ '@context': noSchema, select: '?n', where: { '@id': 'http://example.org/ana', 'http://schema.org/name': '?n' } })).toEqual(['Ana']);
    expect(await q({ '@context': noSchema, select: '?p', where: { '@id': '?p', 'urn:x:nothing': '?o' } })).toEqual([]);
  });


  it('body and form errors', async () => {
    expect(await bad([1, 2])).toBe('a JSON-LD query must be a JSON object, got an array');
    expect(await bad({ where: { '@id': '?s' } })).toBe('a query needs one of select, selectOne, selectDistinct, construct or ask');
    expect(await bad({ select: '?s', selectOne: '?s', where: { '@id': '?s' } })).toBe('a query takes exactly one of select, selectOne, selectDistinct, construct and ask (got select, selectOne)');
    expect(await bad({ select: '?s' })).toBe('a query needs a where clause');
    expect(await bad({ select: ['*', '?s'], where: { '@id': '?s' } })).toBe('"*" cannot be mixed with other select items');
    expect(await bad({ select: [5], where: { '@id': '?s' } })).toBe('invalid select item 5: expected a variable, an aggregate string or a crawl object');
    expect(await bad({ select: ['(+ 1 2)'], where: { '@id': '?s' } })).toBe('select expression (+ 1 2) needs a name: write "(as (+ 1 2) ?name)"');
    expect(await bad({ select: ['?__h0'], where: { '@id': '?s' } })).toBe('Invalid variable: ?__h0 (names starting with ?__ are reserved)');
  });

  it('a values-only query needs no where', async () => {
    expect(await q({ select: '?x', values: ['?x', [1, 2]] })).toEqual([1, 2]);
  });

  it('unknown top-level keys are ignored', async () => {
    expect(await q({ select: '?n', where: { '@id': 'ex:ben', 'schema:name': '?n' }, comment: 'hi', frobs: [1] })).toEqual(['Ben']);
  });
});
