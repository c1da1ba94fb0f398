import { describe, expect, it } from 'vitest';
import { LedgraphError } from '../../errors.js';
import { ActiveContext } from '../../rdf/jsonld-context.js';
import { type Term, blankNode, literal, namedNode, variable } from '../../rdf/terms.js';
import type { Expr, Op, TriplePattern } from '../algebra/algebra.js';
import { canonicalJson, compileExpr } from './expr.js';
import { WhereCompiler, compileValues, compileWhere, parsePath } from './where.js';

const EX = 'http://example.org/';
const SCHEMA = 'http://schema.org/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const F = 'https://ns.ledgraph.dev/';
const ctx = ActiveContext.create({ ex: EX, schema: SCHEMA, xsd: XSD });

const ex = (l: string) => namedNode(EX + l);
const sc = (l: string) => namedNode(SCHEMA + l);
const type = namedNode(RDF + 'type');
const v = (n: string) => variable(n);
const str = (s: string) => literal(s);
const typed = (s: string, dt: string) => literal(s, namedNode(dt));
const int = (n: number) => typed(String(n), XSD + 'integer');
const dbl = (s: string) => typed(s, XSD + 'double');
const bool = (b: boolean) => typed(String(b), XSD + 'boolean');
const tv = (n: string): Expr => ({ type: 'var', name: n });
const tt = (t: Term): Expr => ({ type: 'term', term: t });
const call = (fn: string, ...args: Expr[]): Expr => ({ type: 'call', fn, args });
const bgp = (...patterns: TriplePattern[]): Op => ({ type: 'bgp', patterns });
const tp = (s: TriplePattern['s'], p: TriplePattern['p'], o: TriplePattern['o']): TriplePattern => ({ s, p, o });

const where = (w: unknown, c: ActiveContext = ctx, opts = {}) => compileWhere(w, c, opts);
const expr = (e: unknown, aggregates = false) => compileExpr(e, { ctx, aggregates, patterns: (p) => compileWhere(p, ctx) });

function msg(fn: () => unknown): string {
  try { fn(); } catch (e) {
    expect(e).toBeInstanceOf(LedgraphError);
    expect((e as LedgraphError).status).toBe(400);
    return (e as LedgraphError).message;
  }
  throw new Error('expected a 400');
}

describe('node patterns (jsonld-query.md §4)', () => {
  it('Example 1: one triple pattern per property, @type as rdf:type', () => {
    expect(where({ '@id': '?p', '@type': 'ex:Person', 'schema:name': '?name', 'schema:age': '?age' })).toEqual(
      bgp(tp(v('p'), type, ex('Person')), tp(v('p'), sc('name'), v('name')), tp(v('p'), sc('age'), v('age'))));
  });

  it('Example 2: omitted @id is a hidden variable; plain strings are xsd:string', () => {
    expect(where({ 'ex:city': 'Lisbon', 'schema:name': '?name' })).toEqual(
      bgp(tp(v('__h0'), ex('city'), str('Lisbon')), tp(v('__h0'), sc('name'), v('name'))));
  });

  it('numbers match by value through a hidden variable; booleans are exact', () => {
    expect(where({ '@id': '?s', 'ex:n': 3, 'ex:d': 2.5, 'ex:b': true })).toEqual({
      type: 'filter', expr: call('=', tv('__h1'), tt(dbl('2.5'))),
      input: {
        type: 'filter', expr: call('=', tv('__h0'), tt(int(3))),
        input: bgp(tp(v('s'), ex('n'), v('__h0')), tp(v('s'), ex('d'), v('__h1')), tp(v('s'), ex('b'), bool(true))),
      },
    });
  });

  it('references, nested node patterns and @type arrays', () => {
    expect(where({ '@id': '?p', '@type': ['ex:A', '?t'], 'ex:knows': { 'ex:city': 'Lisbon' }, 'ex:owner': { '@id': 'ex:ana' }, 'ex:r': { '@id': '?r', 'schema:name': '?n' } })).toEqual(
      bgp(tp(v('p'), type, ex('A')), tp(v('p'), type, v('t')),
        tp(v('__h0'), ex('city'), str('Lisbon')), tp(v('p'), ex('knows'), v('__h0')),
        tp(v('p'), ex('owner'), ex('ana')),
        tp(v('r'), sc('name'), v('n')), tp(v('p'), ex('r'), v('r'))));
  });

  it('blank node ids are constants (stored blank nodes are addressed by label)', () => {
    expect(where({ '@id': '_:lg1-b0', 'ex:city': '?c' })).toEqual(bgp(tp(blankNode('lg1-b0'), ex('city'), v('c'))));
  });

  it('Example 8: value objects with variables bind language / datatype; constants are exact', () => {
    expect(where({ '@id': '?s', 'ex:motto': { '@value': '?m', '@language': '?lang' } })).toEqual({
      type: 'extend', input: bgp(tp(v('s'), ex('motto'), v('m'))), variable: 'lang', expr: call('lang', tv('m')),
    });
    expect(where({ '@id': '?s', 'ex:start': { '@value': '2024-05-01', '@type': 'xsd:date' } })).toEqual(
      bgp(tp(v('s'), ex('start'), typed('2024-05-01', XSD + 'date'))));
    expect(where({ '@id': '?s', 'ex:motto': { '@value': 'Carpe diem', '@language': 'la' } })).toEqual(
      bgp(tp(v('s'), ex('motto'), literal('Carpe diem', 'la'))));
  });

  it('value objects: variable value with constant @type / @language / @type @id become filters', () => {
    expect(where({ '@id': '?s', 'ex:p': { '@value': '?x', '@type': 'xsd:date' } })).toEqual({
      type: 'filter', expr: call('=', call('datatype', tv('x')), tt(namedNode(XSD + 'date'))), input: bgp(tp(v('s'), ex('p'), v('x'))),
    });
    expect(where({ '@id': '?s', 'ex:p': { '@value': '?x', '@language': 'PT' } })).toEqual({
      type: 'filter', expr: call('=', call('lang', tv('x')), tt(str('pt'))), input: bgp(tp(v('s'), ex('p'), v('x'))),
    });
    expect(where({ '@id': '?s', 'ex:p': { '@value': '?x', '@type': '@id' } })).toEqual({
      type: 'filter', expr: call('isiri', tv('x')), input: bgp(tp(v('s'), ex('p'), v('x'))),
    });
  });

  it('value objects: constant value with a variable @type matches by text and binds the datatype', () => {
    expect(where({ '@id': '?s', 'ex:p': { '@value': '2024-05-01', '@type': '?dt' } })).toEqual({
      type: 'filter', expr: call('=', call('str', tv('__h0')), tt(str('2024-05-01'))),
      input: { type: 'extend', input: bgp(tp(v('s'), ex('p'), v('__h0'))), variable: 'dt', expr: call('datatype', tv('__h0')) },
    });
  });

  it('§9 history: @t and @op bind event metadata; a constant @op filters', () => {
    expect(where({ '@id': 'ex:ben', 'ex:status': { '@value': '?st', '@t': '?t', '@op': '?op' } })).toEqual({
      type: 'extend', variable: 'op', expr: call(F + 'op', tv('st')),
      input: { type: 'extend', variable: 't', expr: call(F + 't', tv('st')), input: bgp(tp(ex('ben'), ex('status'), v('st'))) },
    });
    expect(where({ '@id': 'ex:ben', 'ex:status': { '@value': '?st', '@op': 'retract' } })).toEqual({
      type: 'filter', expr: call('=', call(F + 'op', tv('st')), tt(str('retract'))), input: bgp(tp(ex('ben'), ex('status'), v('st'))),
    });
  });

  it('Example 9: variable predicate', () => {
    expect(where({ '@id': 'ex:trip1', '?p': '?o' })).toEqual(bgp(tp(ex('trip1'), v('p'), v('o'))));
    expect(where({ '@id': '?s', '?p': { '@id': 'ex:ana' } })).toEqual(bgp(tp(v('s'), v('p'), ex('ana'))));
  });

  it('Example 7: reverse terms swap subject and object', () => {
    const c = ActiveContext.create([{ ex: EX }, { knownBy: { '@reverse': 'ex:knows' } }]);
    expect(where({ '@id': 'ex:caro', knownBy: '?who' }, c)).toEqual(bgp(tp(v('who'), ex('knows'), ex('caro'))));
  });

  it('context coercion applies to pattern objects', () => {
    const c = ActiveContext.create([{ ex: EX, xsd: XSD }, { likes: { '@id': 'ex:likes', '@type': '@id' }, born: { '@id': 'ex:born', '@type': 'xsd:date' } }]);
    expect(where({ '@id': '?s', likes: 'ex:ana', born: '1990-01-02' }, c)).toEqual(
      bgp(tp(v('s'), ex('likes'), ex('ana')), tp(v('s'), ex('born'), typed('1990-01-02', XSD + 'date'))));
  });

  it('objectVarParsing false: "?x" objects are strings, {"@variable"} is a variable', () => {
    expect(where({ '@id': '?s', 'ex:a': '?x', 'ex:b': { '@variable': '?y' } }, ctx, { objectVarParsing: false })).toEqual(
      bgp(tp(v('s'), ex('a'), str('?x')), tp(v('s'), ex('b'), v('y'))));
  });

  it('rejects invalid node patterns', () => {
    expect(msg(() => where({ '@id': '?s', 'ex:p': ['a', 'b'] }))).toBe('invalid value for ex:p in a where pattern: an array (use one pattern per value)');
    expect(msg(() => where({ '@id': '?s', 'ex:p': null }))).toBe('invalid value for ex:p in a where pattern: null (use one pattern per value)');
    expect(msg(() => where({ '@context': {}, '@id': '?s' }))).toBe('@context is not allowed inside a where pattern; put it at the top of the query');
    expect(msg(() => where({ '@id': '?s', '?p': 'lit' }))).toBe('with a variable property (?p) the object must be a variable, {"@id": ...} or a value object');
    expect(msg(() => where({ '@id': 'name', 'schema:name': '?__x' }))).toBe('Invalid variable: ?__x (names starting with ?__ are reserved)');
    expect(msg(() => where({ '@id': '?s', 'ex:p': { '@value': 'x', '@type': 'xsd:string', '@language': 'en' } }))).toBe('a value object cannot have both @type and @language');
    expect(msg(() => where({ '@id': '?s', 'ex:p': { '@value': '?x', '@t': 5 } }))).toBe('@t must be a variable');
    expect(msg(() => where({ '@id': '?s', 'ex:p': { '@value': '?x', '@op': 'maybe' } }))).toBe('@op must be a variable, "assert" or "retract"');
    expect(msg(() => where({ '@id': '?s', 'ex:p': { '@value': '?x', '@type': '@id', '@t': '?t' } }))).toBe('@t and @op cannot be used with "@type": "@id"');
    expect(msg(() => where({ '@id': '?s', 'ex:p': { '@value': 36, '@type': 'xsd:string' } }))).toBe('cannot coerce number 36 to xsd:string; send it as a JSON string to store text');
    expect(msg(() => where('x'))).toBe('invalid where: expected a node pattern or an array of patterns, got "x"');
    expect(msg(() => where({ '@id': '?s', '@foo': '?x' }))).toBe('unknown keyword @foo in a where pattern');
    expect(msg(() => where({ '@id': '?s', '@graph': 'ex:g' }))).toBe('@graph is not allowed in a where node pattern');
  });
});

describe('keyword forms (§5)', () => {
  const person = { '@id': '?p', 'schema:name': '?name' };
  const personBgp = bgp(tp(v('p'), sc('name'), v('name')));

  it('Example 10: filter with both expression syntaxes', () => {
    expect(where([{ '@id': '?p', 'schema:name': '?name', 'schema:age': '?age' }, ['filter', '(> ?age 30)', ['strStarts', '?name', 'C']]])).toEqual({
      type: 'filter', expr: call('strstarts', tv('name'), tt(str('C'))),
      input: { type: 'filter', expr: call('>', tv('age'), tt(int(30))), input: bgp(tp(v('p'), sc('name'), v('name')), tp(v('p'), sc('age'), v('age'))) },
    });
  });

  it('§5.2 optional; each node object is its own left join; filters attach as the join condition', () => {
    expect(where([person, ['optional', { '@id': '?p', 'ex:nick': '?nick' }]])).toEqual({
      type: 'leftjoin', left: personBgp, right: bgp(tp(v('p'), ex('nick'), v('nick'))),
    });
    expect(where([person, ['optional', { '@id': '?p', 'ex:a': '?a' }, ['filter', '(> ?a 1)'], { '@id': '?p', 'ex:b': '?b' }]])).toEqual({
      type: 'leftjoin',
      left: { type: 'leftjoin', left: personBgp, right: bgp(tp(v('p'), ex('a'), v('a'))), expr: call('>', tv('a'), tt(int(1))) },
      right: bgp(tp(v('p'), ex('b'), v('b'))),
    });
    expect(msg(() => where([person, ['optional', ['filter', '(bound ?x)'], { '@id': '?p' }]]))).toBe('filter cannot be the first item of an optional');
  });

  it('§5.3 union', () => {
    expect(where([person, ['union', { '@id': '?p', 'ex:city': 'Porto' }, [{ '@id': '?p', '@type': 'ex:Admin' }]]])).toEqual({
      type: 'join', inputs: [personBgp, { type: 'union', inputs: [bgp(tp(v('p'), ex('city'), str('Porto'))), bgp(tp(v('p'), type, ex('Admin')))] }],
    });
    expect(msg(() => where([['union', person]]))).toBe('union needs at least two branches');
  });

  it('§5.4 bind, several pairs, both syntaxes including ["expr", ...]', () => {
    expect(where([person, ['bind', '?next', '(+ ?age 1)', '?u', ['expr', ['ucase', '?name']]]])).toEqual({
      type: 'extend', variable: 'u', expr: call('ucase', tv('name')),
      input: { type: 'extend', variable: 'next', expr: call('+', tv('age'), tt(int(1))), input: personBgp },
    });
    expect(msg(() => where([person, ['bind', '?x']]))).toBe('bind takes pairs of a variable and an expression: ["bind", "?v", expr, ...]');
    expect(msg(() => where([person, ['bind', 'x', '1']]))).toBe("Invalid variable: x (variables must start with '?')");
  });

  it('§5.5 values clauses and cells', () => {
    expect(compileValues([['?city', '?min'], [['Lisbon', 40], ['Porto', 20]]], ctx)).toEqual({
      type: 'values', variables: ['city', 'min'], rows: [[str('Lisbon'), int(40)], [str('Porto'), int(20)]],
    });
    expect(compileValues(['?p', [{ '@id': 'ex:ana' }, { '@value': 'ex:caro', '@type': '@id' }, null, { '@value': '5', '@type': 'xsd:int' }, { '@value': 'oi', '@language': 'pt' }]], ctx)).toEqual({
      type: 'values', variables: ['p'], rows: [[ex('ana')], [ex('caro')], [undefined], [typed('5', XSD + 'int')], [literal('oi', 'pt')]],
    });
    expect(where([['values', ['?x', [1]]], person])).toEqual({ type: 'join', inputs: [{ type: 'values', variables: ['x'], rows: [[int(1)]] }, personBgp] });
    expect(msg(() => compileValues([['?a', '?b'], [[1]]], ctx))).toBe('values: each row must be an array of 2 values, got [1]');
    expect(msg(() => compileValues(['a', [1]], ctx))).toBe("Invalid variable: a (variables must start with '?')");
  });

  it('§5.6 minus, exists, not-exists (also inside data-array filters)', () => {
    const knows = { '@id': '?p', 'ex:knows': { 'ex:city': 'Lisbon' } };
    const knowsBgp = bgp(tp(v('__h0'), ex('city'), str('Lisbon')), tp(v('p'), ex('knows'), v('__h0')));
    expect(where([person, ['exists', knows]])).toEqual({ type: 'filter', expr: { type: 'exists', not: false, op: knowsBgp }, input: personBgp });
    expect(where([person, ['not-exists', knows]])).toEqual({ type: 'filter', expr: { type: 'exists', not: true, op: knowsBgp }, input: personBgp });
    expect(where([person, ['minus', { '@id': '?p', 'ex:nick': '?n' }]])).toEqual({ type: 'minus', left: personBgp, right: bgp(tp(v('p'), ex('nick'), v('n'))) });
    expect(where([person, ['filter', ['not', ['exists', { '@id': '?p', 'ex:nick': '?n' }]]]])).toEqual({
      type: 'filter', expr: call('!', { type: 'exists', not: false, op: bgp(tp(v('p'), ex('nick'), v('n'))) }), input: personBgp,
    });
  });

  it('§8 graph: alias, IRI and variable', () => {
    const aliases = new Map([['hr', EX + 'g/hr']]);
    expect(where([person, ['graph', 'hr', { '@id': '?p', 'ex:salary': '?sal' }]], ctx, { graphAliases: aliases })).toEqual({
      type: 'join', inputs: [personBgp, { type: 'graph', name: namedNode(EX + 'g/hr'), input: bgp(tp(v('p'), ex('salary'), v('sal'))) }],
    });
    expect(where(['graph', '?g', { '@id': '?s', 'ex:p': '?o' }])).toEqual({ type: 'graph', name: v('g'), input: bgp(tp(v('s'), ex('p'), v('o'))) });
    expect(where(['graph', 'ex:g1', { '@id': '?s', 'ex:p': '?o' }])).toEqual({ type: 'graph', name: ex('g1'), input: bgp(tp(v('s'), ex('p'), v('o'))) });
  });

  it('§5.7 subquery with aggregate, groupBy (ordered by its keys) and projection', () => {
    expect(where([person, ['query', { select: ['?p', '(as (max ?s) ?best)'], where: { '@id': '?p', 'ex:scores': '?s' }, groupBy: '?p' }]])).toEqual({
      type: 'join', inputs: [personBgp, {
        type: 'project', variables: ['p', 'best'],
        input: {
          type: 'orderby', keys: [{ expr: tv('p'), desc: false }],
          input: {
            type: 'extend', variable: 'best', expr: tv('__h0'),
            input: { type: 'group', input: bgp(tp(v('p'), ex('scores'), v('s'))), keys: [{ expr: tv('p'), variable: 'p' }],
              aggregates: [{ variable: '__h0', agg: { name: 'max', distinct: false, expr: tv('s') } }] },
          },
        },
      }],
    });
  });

  it('subquery: count naming, having, orderBy, distinct, limit/offset, own context', () => {
    const op = where(['query', {
      '@context': { s: SCHEMA }, selectDistinct: ['?city', '(count-distinct ?p)'], where: { '@id': '?p', 's:city': '?city' },
      groupBy: ['?city'], having: '(> (count-distinct ?p) 1)', orderBy: [['desc', '?city']], limit: 5, offset: 1,
    }]);
    const agg = { name: 'count', distinct: true, expr: tv('p') };
    expect(op).toEqual({
      type: 'slice', offset: 1, limit: 5,
      input: { type: 'distinct', input: { type: 'project', variables: ['city', 'count_distinct'], input: {
        type: 'orderby', keys: [{ expr: tv('city'), desc: true }],
        // having runs after the select expressions, so it may also use their aliases.
        input: { type: 'filter', expr: call('>', tv('__h0'), tt(int(1))), input: {
          type: 'extend', variable: 'count_distinct', expr: tv('__h0'),
          input: { type: 'group', input: bgp(tp(v('p'), sc('city'), v('city'))), keys: [{ expr: tv('city'), variable: 'city' }], aggregates: [{ variable: '__h0', agg }] },
        } },
      } } },
    });
    expect(msg(() => where(['query', { select: ['?p', '?x'], where: { '@id': '?p', 'ex:a': '?x' }, groupBy: '?p' }]))).toBe('?x must be grouped or aggregated in a subquery');
    expect(msg(() => where(['query', { where: { '@id': '?p' } }]))).toBe('a subquery needs select, selectDistinct or selectOne');
    expect(msg(() => where(['query', { select: '?p', where: { '@id': '?p', 'ex:a': '?x' }, orderBy: [['up', '?p']] }]))).toBe('invalid sort direction "up"');
  });

  it('§5.8 path aliases: string and array syntax', () => {
    const c = ActiveContext.create([{ ex: EX }, { reaches: { '@path': 'ex:knows+' }, back: { '@path': '^ex:knows' }, chain: { '@path': ['/', 'ex:a', ['|', 'ex:b', 'ex:c']] }, just: { '@path': 'ex:p' } }]);
    expect(where({ '@id': 'ex:ana', reaches: '?x' }, c)).toEqual({ type: 'path', s: ex('ana'), path: { type: 'oneOrMore', path: { type: 'link', iri: ex('knows') } }, o: v('x') });
    expect(where({ '@id': 'ex:ana', back: '?x' }, c)).toEqual(bgp(tp(v('x'), ex('knows'), ex('ana'))));
    expect(where({ '@id': 'ex:ana', just: '?x' }, c)).toEqual(bgp(tp(ex('ana'), ex('p'), v('x'))));
    expect(where({ '@id': 'ex:ana', chain: '?x' }, c)).toEqual({ type: 'path', s: ex('ana'), o: v('x'), path: { type: 'seq', items: [
      { type: 'link', iri: ex('a') }, { type: 'alt', items: [{ type: 'link', iri: ex('b') }, { type: 'link', iri: ex('c') }] }] } });
  });

  it('parsePath: precedence, inverse closures, full IRIs; rejects ? and closures over alternatives', () => {
    const c = ActiveContext.create({ ex: EX });
    expect(parsePath('ex:a/^ex:b*|<http://x.org/c>', c)).toEqual({ type: 'alt', items: [
      { type: 'seq', items: [{ type: 'link', iri: ex('a') }, { type: 'inv', path: { type: 'zeroOrMore', path: { type: 'link', iri: ex('b') } } }] },
      { type: 'link', iri: namedNode('http://x.org/c') }] });
    expect(msg(() => parsePath('ex:p?', c))).toBe('the ? path operator is not supported');
    expect(msg(() => parsePath('(ex:a|ex:b)+', c))).toBe('transitive paths (+, *) apply to a single predicate only');
    expect(msg(() => parsePath(['+', ['|', 'ex:a', 'ex:b']], c))).toBe('transitive paths (+, *) apply to a single predicate only');
    expect(msg(() => parsePath('ex:a/', c))).toBe('invalid path expression "ex:a/": unexpected end');
    expect(msg(() => parsePath(['~', 'ex:a'], c))).toBe('invalid path operator "~" (use +, *, ^, | or /)');
  });

  it('keyword errors', () => {
    expect(msg(() => where([person, ['Frobnicate']]))).toBe('unknown where keyword: Frobnicate');
    expect(msg(() => where([person, []]))).toBe('invalid where item: empty array');
    expect(msg(() => where([person, 5]))).toBe('invalid where item: expected a node pattern or a keyword array, got 5');
    expect(where([person, ['FILTER', '(bound ?name)']])).toEqual({ type: 'filter', expr: call('bound', tv('name')), input: personBgp });
  });
});

describe('expressions (§5.1)', () => {
  it('maps operators and aliases to algebra call names', () => {
    expect(expr('(and (> ?age 30) (strStarts ?name "C"))')).toEqual(call('&&', call('>', tv('age'), tt(int(30))), call('strstarts', tv('name'), tt(str('C')))));
    expect(expr('(or ?a ?b ?c)')).toEqual(call('||', call('||', tv('a'), tv('b')), tv('c')));
    expect(expr('(eq ?a 1)')).toEqual(call('closed-eq', tv('a'), tt(int(1))));
    expect(expr('(<> ?a 1)')).toEqual(call('closed-ne', tv('a'), tt(int(1))));
    expect(expr('(ne ?a 1)')).toEqual(call('closed-ne', tv('a'), tt(int(1))));
    expect(expr('(le ?a 1)')).toEqual(call('<=', tv('a'), tt(int(1))));
    expect(expr(['gt', '?a', 1])).toEqual(call('>', tv('a'), tt(int(1))));
    expect(expr('(isURI ?x)')).toEqual(call('isiri', tv('x')));
    expect(expr('(str-dt "1" ?dt)')).toEqual(call('strdt', tt(str('1')), tv('dt')));
    expect(expr('(encode_for_uri ?x)')).toEqual(call('encode_for_uri', tv('x')));
    expect(expr('(t ?x)')).toEqual(call(F + 't', tv('x')));
    expect(expr('(sha512 ?x)')).toEqual(call('sha512', tv('x')));
    expect(expr('(now)')).toEqual(call('now'));
  });

  it('chains comparisons, folds arithmetic, negates with one argument', () => {
    expect(expr('(< ?a ?b ?c)')).toEqual(call('&&', call('<', tv('a'), tv('b')), call('<', tv('b'), tv('c'))));
    expect(expr('(+ 1 2 3)')).toEqual(call('+', call('+', tt(int(1)), tt(int(2))), tt(int(3))));
    expect(expr('(- ?x)')).toEqual(call('neg', tv('x')));
    expect(expr('(/ ?x 2.0)')).toEqual(call('/', tv('x'), tt(dbl('2.0'))));
    expect(expr('(* -1.5e2 +3)')).toEqual(call('*', tt(dbl('-1.5e2')), tt(int(3))));
    expect(expr('(and ?a)')).toEqual(call('&&', tv('a'), tt(bool(true))));
  });

  it('in / not-in take a list in both syntaxes', () => {
    expect(expr('(in ?x [1 2])')).toEqual(call('in', tv('x'), tt(int(1)), tt(int(2))));
    expect(expr(['not-in', '?x', ['a', 'b']])).toEqual(call('notin', tv('x'), tt(str('a')), tt(str('b'))));
    expect(msg(() => expr('(in ?x 1)'))).toBe('in needs a list as its second argument, e.g. (in ?x [1 2])');
  });

  it('constants: strings with escapes, booleans, value objects and IRIs', () => {
    expect(expr('(concat "a \\"b\\"" ?x)')).toEqual(call('concat', tt(str('a "b"')), tv('x')));
    expect(expr('(if true 1 false)')).toEqual(call('if', tt(bool(true)), tt(int(1)), tt(bool(false))));
    expect(expr(['=', '?d', { '@value': '2024-01-01', '@type': 'xsd:date' }])).toEqual(call('closed-eq', tv('d'), tt(typed('2024-01-01', XSD + 'date'))));
    expect(expr(['=', '?s', { '@id': 'ex:ana' }])).toEqual(call('closed-eq', tv('s'), tt(ex('ana'))));
    expect(expr('(= ?s (iri "ex:ana"))')).toEqual(call('closed-eq', tv('s'), tt(ex('ana'))));
    expect(expr('(iri ?x)')).toEqual(call('iri', tv('x')));
    expect(expr('(xsd:integer ?x)')).toEqual(call(XSD + 'integer', tv('x')));
    expect(expr('?flag')).toEqual(tv('flag'));
    expect(expr(5)).toEqual(tt(int(5)));
  });

  it('aggregates only where allowed', () => {
    expect(expr('(count *)', true)).toEqual({ type: 'aggregate', agg: { name: 'count', distinct: false } });
    expect(expr('(groupconcat ?x ", ")', true)).toEqual({ type: 'aggregate', agg: { name: 'group_concat', distinct: false, expr: tv('x'), separator: ', ' } });
    expect(expr('(countdistinct ?x)', true)).toEqual({ type: 'aggregate', agg: { name: 'count', distinct: true, expr: tv('x') } });
    expect(msg(() => expr('(count ?x)'))).toBe('aggregate count is only allowed in select and having');
    expect(msg(() => expr('(sum (max ?x))', true))).toBe('aggregate max cannot be nested inside another aggregate');
    expect(msg(() => expr('(sum *)', true))).toBe('* is only allowed in (count *), not in sum');
    // median / variance / stddev compile to a marker the translator computes at result shaping.
    expect(expr('(median ?x)', true)).toEqual(call('ledgraph:stat:median', tv('x')));
    expect(msg(() => expr('(median ?x)'))).toBe('aggregate median is only allowed in select and having');
  });

  it('reports syntax errors, unknown functions and wrong arity as 400', () => {
    expect(msg(() => expr('(> ?a 1'))).toBe('invalid expression "(> ?a 1": missing ")"');
    expect(msg(() => expr('(> ?a 1))'))).toBe('invalid expression "(> ?a 1))": unexpected ")" after the end of the expression at position 9');
    expect(msg(() => expr('(?a 1)'))).toBe('invalid expression "(?a 1)": expected a function name after "(" at position 2');
    expect(msg(() => expr('(strlen "abc)'))).toBe('invalid expression "(strlen \\"abc)": unterminated string at position 9');
    expect(msg(() => expr('(frob ?a)'))).toBe('unknown function: frob');
    expect(msg(() => expr('(strlen ?a ?b)'))).toBe('wrong number of arguments to strlen: expected 1, got 2');
    expect(msg(() => expr('(substr ?a)'))).toBe('wrong number of arguments to substr: expected 2 to 3, got 1');
    expect(msg(() => expr('(> ?a)'))).toBe('wrong number of arguments to >: expected at least 2, got 1');
    expect(msg(() => expr('(= ?a foo)'))).toBe('unexpected symbol "foo" in expression (strings must be double-quoted, variables start with ?)');
    expect(msg(() => expr('(bound 1)'))).toBe('bound takes a variable');
    expect(msg(() => expr('(exists ?x)'))).toBe('exists needs patterns: use the data-array form ["exists", {...}]');
    expect(msg(() => compileExpr(['exists', {}], { ctx }))).toBe('exists / not-exists are not allowed here');
    expect(msg(() => expr([]))).toBe('invalid expression: empty array');
    expect(msg(() => expr(null))).toBe('invalid expression: null');
  });
});

describe('canonicalJson (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units and uses ECMAScript number text', () => {
    expect(canonicalJson({ b: 1, a: [1e21, 0.1, -0, 'é', null], '\u20ac': true, '\r': false })).toBe('{"\\r":false,"a":[1e+21,0.1,0,"é",null],"b":1,"€":true}');
  });
});

describe('subject-only patterns', () => {
  it('{"@id": "?s"} alone matches each subject that has any fact, once', () => {
    expect(where({ '@id': '?s' })).toEqual({ type: 'distinct', input: { type: 'project', variables: ['s'], input: bgp(tp(v('s'), v('__h0'), v('__h1'))) } });
    expect(where([{ '@id': 'ex:a' }, { '@id': 'ex:a', 'ex:p': '?o' }])).toEqual({ type: 'join', inputs: [
      { type: 'distinct', input: { type: 'project', variables: [], input: bgp(tp(ex('a'), v('__h0'), v('__h1'))) } },
      bgp(tp(ex('a'), ex('p'), v('o'))),
    ] });
  });
});

describe('event mode (history queries, @t / @op)', () => {
  it('matches each triple pattern in its own event graph and remembers which one bound each object', () => {
    const wc = new WhereCompiler({ events: 'history' });
    expect(wc.where({ '@id': '?s', 'ex:status': { '@value': '?st', '@t': '?t' }, 'ex:knows': { '@id': '?f' } }, ctx)).toEqual({
      type: 'extend', variable: 't', expr: call(F + 't', tv('st')),
      input: { type: 'join', inputs: [
        { type: 'graph', name: v('__h0'), input: bgp(tp(v('s'), ex('status'), v('st'))) },
        { type: 'graph', name: v('__h1'), input: bgp(tp(v('s'), ex('knows'), v('f'))) },
      ] },
    });
    expect([...wc.eventOf]).toEqual([['st', '__h0'], ['f', '__h1']]);
  });

  it('history refuses graph clauses and complex paths; current mode refuses graph variables only', () => {
    const pathCtx = ActiveContext.create([{ ex: EX }, { reaches: { '@path': 'ex:knows+' } }]);
    expect(msg(() => new WhereCompiler({ events: 'history' }).where(['graph', 'ex:g', { '@id': '?s', 'ex:p': '?o' }], ctx)))
      .toBe('graph clauses are not supported in history queries; select the graph in from (ledger#graph)');
    expect(msg(() => new WhereCompiler({ events: 'history' }).where({ '@id': 'ex:a', reaches: '?x' }, pathCtx))).toBe('property path reaches cannot range over history events');
    expect(new WhereCompiler({ events: 'current' }).where(['graph', 'ex:g', { '@id': '?s', 'ex:p': '?o' }], ctx))
      .toEqual({ type: 'graph', name: ex('g'), input: bgp(tp(v('s'), ex('p'), v('o'))) });
    expect(msg(() => new WhereCompiler({ events: 'current' }).where(['graph', '?g', { '@id': '?s', 'ex:p': '?o' }], ctx)))
      .toBe('["graph", "?g", ...] with a graph variable cannot be combined with @t / @op or the t / op functions');
  });
});
