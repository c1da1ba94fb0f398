import { describe, expect, it } from 'vitest';
import { LedgraphError } from '../errors.js';
import type { Expr, Op } from '../query/algebra/algebra.js';
import { type Term, type Variable, blankNode, defaultGraph, literal, namedNode, variable } from '../rdf/terms.js';
import { parseJsonLdTxn } from './parse-jsonld.js';
import type { GraphName, GraphRef, TemplateQuad, TxnQuad, TxnRequest } from './txn-request.js';

// jsonld.js expands keys in sorted order, so quads and metadata come out in that order: compare their arrays as multisets.
const isQuadArray = (a: unknown): a is object[] => Array.isArray(a) && a.length > 0 && a.every((x) => typeof x === 'object' && x !== null && 'predicate' in x);
expect.addEqualityTesters([function quadMultiset(this: { equals(a: unknown, b: unknown): boolean }, a: unknown, b: unknown) {
  if (!isQuadArray(a) || !isQuadArray(b)) return undefined;
  if (a.length !== b.length) return false;
  const key = (x: object) => JSON.stringify(x, Object.keys(x).sort().concat(['termType', 'value', 'language', 'datatype', 'subject', 'predicate', 'object', 'graph', 'listIndex', 'looseObject']));
  const ka = a.map(key).sort(), kb = b.map(key).sort();
  return ka.every((k, i) => k === kb[i]);
}]);

const EX = 'http://example.org/';
const SCHEMA = 'http://schema.org/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const F = 'https://ns.ledgraph.dev/';
const C = { ex: EX, schema: SCHEMA, xsd: XSD };

const ex = (l: string) => namedNode(EX + l);
const sc = (l: string) => namedNode(SCHEMA + l);
const type = namedNode(RDF + 'type');
const str = (v: string) => literal(v);
const typed = (v: string, dt: string) => literal(v, namedNode(dt));
const int = (n: number) => typed(String(n), XSD + 'integer');
const v = (n: string) => variable(n);
const tv = (n: string): Expr => ({ type: 'var', name: n });
const tt = (t: Term): Expr => ({ type: 'term', term: t });

function q(s: TxnQuad['subject'], p: TxnQuad['predicate'], o: Term, g: GraphName = defaultGraph, listIndex?: number): TxnQuad {
  const out: TxnQuad = { subject: s, predicate: p, object: o, graph: g };
  if (listIndex !== undefined) out.listIndex = listIndex;
  return out;
}
function t(s: TemplateQuad['subject'], p: TemplateQuad['predicate'], o: Term | Variable, extra: Partial<TemplateQuad> = {}): TemplateQuad {
  return { subject: s, predicate: p, object: o, graph: defaultGraph, ...extra };
}

async function error400(fn: () => unknown): Promise<LedgraphError> {
  try { await fn(); } catch (e) {
    expect(e).toBeInstanceOf(LedgraphError);
    expect((e as LedgraphError).status).toBe(400);
    expect((e as LedgraphError).type).toBe('err:db/BadRequest');
    return e as LedgraphError;
  }
  throw new Error('expected a 400');
}
const msg = async (fn: () => unknown) => (await error400(fn)).message;

function update(r: TxnRequest) {
  if (r.kind !== 'update') throw new Error('not an update: ' + r.kind);
  return r;
}

describe('spec examples (jsonld-transactions.md)', () => {
  it('Example 1: document form with a nested blank node', async () => {
    const r = await parseJsonLdTxn({
      '@context': C,
      '@graph': [
        { '@id': 'ex:ana', '@type': 'ex:Person', 'schema:name': 'Ana', 'schema:age': 34, 'ex:address': { 'ex:city': 'Lisbon' } },
        { '@id': 'ex:ben', '@type': 'ex:Person', 'schema:name': 'Ben', 'ex:knows': { '@id': 'ex:ana' } },
      ],
    }, 'insert');
    expect(r).toEqual({
      kind: 'insert',
      quads: [
        q(ex('ana'), type, ex('Person')),
        q(ex('ana'), sc('name'), str('Ana')),
        q(ex('ana'), sc('age'), int(34)),
        q(blankNode('b0'), ex('city'), str('Lisbon')),
        q(ex('ana'), ex('address'), blankNode('b0')),
        q(ex('ben'), type, ex('Person')),
        q(ex('ben'), sc('name'), str('Ben')),
        q(ex('ben'), ex('knows'), ex('ana')),
      ],
      meta: [],
      opts: {},
    });
  });

  it('Example 2: term coercion, language, list, @json and typed values', async () => {
    const r = await parseJsonLdTxn({
      '@context': [C, { 'ex:born': { '@type': 'xsd:date' }, 'ex:likes': { '@type': '@id' } }],
      '@graph': [{
        '@id': 'ex:ben', 'ex:born': '1998-02-03', 'ex:likes': 'ex:ana',
        'ex:greeting': { '@value': 'Olá', '@language': 'pt' },
        'ex:steps': { '@list': ['wake', 'coffee', 'work'] },
        'ex:prefs': { '@value': { theme: 'dark' }, '@type': '@json' },
        'ex:rating': { '@value': '4.75', '@type': 'xsd:decimal' },
      }],
    }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([
      q(ex('ben'), ex('born'), typed('1998-02-03', XSD + 'date')),
      q(ex('ben'), ex('likes'), ex('ana')),
      q(ex('ben'), ex('greeting'), literal('Olá', 'pt')),
      q(ex('ben'), ex('steps'), str('wake'), defaultGraph, 0),
      q(ex('ben'), ex('steps'), str('coffee'), defaultGraph, 1),
      q(ex('ben'), ex('steps'), str('work'), defaultGraph, 2),
      q(ex('ben'), ex('prefs'), typed('{"theme":"dark"}', RDF + 'JSON')),
      q(ex('ben'), ex('rating'), typed('4.75', XSD + 'decimal')),
    ]);
  });

  it('Example 3: upsert', async () => {
    expect(await parseJsonLdTxn({ '@context': C, '@graph': [{ '@id': 'ex:ana', 'schema:age': 35, 'ex:nick': 'Annie' }] }, 'upsert')).toEqual({
      kind: 'upsert',
      quads: [q(ex('ana'), sc('age'), int(35)), q(ex('ana'), ex('nick'), str('Annie'))],
      meta: [],
      opts: {},
    });
  });

  it('§5 multi-valued upsert keeps every payload value', async () => {
    const r = await parseJsonLdTxn({ '@context': C, '@id': 'ex:x', 'ex:tags': ['b', 'c'] }, 'upsert');
    expect(r.kind === 'upsert' && r.quads).toEqual([q(ex('x'), ex('tags'), str('b')), q(ex('x'), ex('tags'), str('c'))]);
  });

  it('§6.2 increment', async () => {
    const r = update(await parseJsonLdTxn({
      '@context': C,
      where: [{ '@id': 'ex:ana', 'schema:age': '?a' }, ['bind', '?b', '(+ ?a 1)']],
      delete: { '@id': 'ex:ana', 'schema:age': '?a' },
      insert: { '@id': 'ex:ana', 'schema:age': '?b' },
    }, 'update'));
    expect(r).toEqual({
      kind: 'update',
      where: {
        type: 'extend',
        input: { type: 'bgp', patterns: [{ s: ex('ana'), p: sc('age'), o: v('a') }] },
        variable: 'b',
        expr: { type: 'call', fn: '+', args: [tv('a'), tt(int(1))] },
      },
      delete: [t(ex('ana'), sc('age'), v('a'))],
      insert: [t(ex('ana'), sc('age'), v('b'))],
      meta: [],
      opts: {},
    });
  });

  it('§6.2 compare-and-set: literal objects match by value in where, loosely in delete', async () => {
    const r = update(await parseJsonLdTxn({
      '@context': C,
      where: { '@id': '?s', 'schema:name': 'Ana', 'schema:age': 40 },
      delete: { '@id': '?s', 'schema:age': 40 }, insert: { '@id': '?s', 'schema:age': 41 },
    }, 'update'));
    expect(r.where).toEqual({
      type: 'filter',
      expr: { type: 'call', fn: '=', args: [tv('__h0'), tt(int(40))] },
      input: { type: 'bgp', patterns: [{ s: v('s'), p: sc('name'), o: str('Ana') }, { s: v('s'), p: sc('age'), o: v('__h0') }] },
    });
    expect(r.delete).toEqual([t(v('s'), sc('age'), int(40), { looseObject: true })]);
    expect(r.insert).toEqual([t(v('s'), sc('age'), int(41))]);
  });

  it('§6.2 retract all values of one property', async () => {
    const r = update(await parseJsonLdTxn({ '@context': C, where: { '@id': 'ex:ana', 'ex:nick': '?n' }, delete: { '@id': 'ex:ana', 'ex:nick': '?n' } }, 'update'));
    expect(r.where).toEqual({ type: 'bgp', patterns: [{ s: ex('ana'), p: ex('nick'), o: v('n') }] });
    expect(r.delete).toEqual([t(ex('ana'), ex('nick'), v('n'))]);
    expect(r.insert).toEqual([]);
  });

  it('§6.2 retract a whole subject (variable predicate)', async () => {
    const r = update(await parseJsonLdTxn({ '@context': C, where: { '@id': 'ex:ben', '?p': '?o' }, delete: { '@id': 'ex:ben', '?p': '?o' } }, 'update'));
    expect(r.where).toEqual({ type: 'bgp', patterns: [{ s: ex('ben'), p: v('p'), o: v('o') }] });
    expect(r.delete).toEqual([t(ex('ben'), v('p'), v('o'))]);
  });

  it('§6.2 ground delete without where, using the ledger default context', async () => {
    const r = await parseJsonLdTxn({ delete: { '@id': 'ex:ana', 'schema:name': 'Ana' } }, 'update', { ledgerDefaultContext: C });
    expect(r).toEqual({
      kind: 'update', where: null,
      delete: [t(ex('ana'), sc('name'), str('Ana'), { looseObject: true })],
      insert: [], meta: [], opts: {},
    });
  });

  it('§6.2 guarded batch update with filter', async () => {
    const r = update(await parseJsonLdTxn({
      '@context': C,
      where: [{ '@id': '?p', '@type': 'ex:Person', 'schema:age': '?a' }, ['filter', '(>= ?a 18)']],
      insert: { '@id': '?p', 'ex:adult': true },
    }, 'update'));
    expect(r.where).toEqual({
      type: 'filter',
      expr: { type: 'call', fn: '>=', args: [tv('a'), tt(int(18))] },
      input: { type: 'bgp', patterns: [{ s: v('p'), p: type, o: ex('Person') }, { s: v('p'), p: sc('age'), o: v('a') }] },
    });
    expect(r.insert).toEqual([t(v('p'), ex('adult'), typed('true', XSD + 'boolean'))]);
    expect(r.delete).toEqual([]);
  });

  it('§6.4 conditional create', async () => {
    const r = update(await parseJsonLdTxn({
      '@context': C,
      where: [['optional', { '@id': 'ex:cat', 'schema:name': '?existing' }],
        ['filter', '(not (bound ?existing))'],
        ['bind', '?name', '"Cat"']],
      insert: { '@id': 'ex:cat', 'schema:name': '?name' },
    }, 'update'));
    expect(r.where).toEqual({
      type: 'filter',
      expr: { type: 'call', fn: '!', args: [{ type: 'call', fn: 'bound', args: [tv('existing')] }] },
      input: {
        type: 'extend', variable: 'name', expr: tt(str('Cat')),
        input: { type: 'leftjoin', left: { type: 'unit' }, right: { type: 'bgp', patterns: [{ s: ex('cat'), p: sc('name'), o: v('existing') }] } },
      },
    });
    expect(r.insert).toEqual([t(ex('cat'), sc('name'), v('name'))]);
  });

  it('§6.3 objectVarParsing false: bare "?x" objects are strings, {"@variable"} and subjects stay variables', async () => {
    const r = update(await parseJsonLdTxn({
      '@context': C,
      where: { '@id': '?s', 'ex:code': '?x', 'ex:val': { '@variable': '?v' } },
      insert: { '@id': '?s', 'ex:copy': { '@variable': '?v' }, 'ex:label': '?x' },
      opts: { objectVarParsing: false },
    }, 'update'));
    expect(r.where).toEqual({ type: 'bgp', patterns: [{ s: v('s'), p: ex('code'), o: str('?x') }, { s: v('s'), p: ex('val'), o: v('v') }] });
    expect(r.insert).toEqual([t(v('s'), ex('copy'), v('v')), t(v('s'), ex('label'), str('?x'))]);
  });

  it('§6.3 "?x" is a literal in insert bodies and in updates without where/values', async () => {
    const r = await parseJsonLdTxn({ '@context': C, '@id': 'ex:a', 'ex:q': '?x' }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([q(ex('a'), ex('q'), str('?x'))]);
    const u = update(await parseJsonLdTxn({ '@context': C, insert: { '@id': 'ex:a', 'ex:q': '?x' } }, 'update'));
    expect(u.insert).toEqual([t(ex('a'), ex('q'), str('?x'))]);
    const w = update(await parseJsonLdTxn({ '@context': C, values: ['?x', [1]], insert: { '@id': 'ex:a', 'ex:q': '?x' } }, 'update'));
    expect(w.where).toEqual({ type: 'values', variables: ['x'], rows: [[int(1)]] });
    expect(w.insert).toEqual([t(ex('a'), ex('q'), v('x'))]);
  });

  it('Example 4: named graphs in an update (graph, ["graph", G, node])', async () => {
    const r = update(await parseJsonLdTxn({
      '@context': C, graph: 'http://example.org/g/hr',
      where: { '@id': 'ex:ana', 'ex:salary': '?s' },
      delete: { '@id': 'ex:ana', 'ex:salary': '?s' },
      insert: [{ '@id': 'ex:ana', 'ex:salary': 5400 },
        ['graph', 'http://example.org/g/audit', { '@id': 'ex:ana', 'ex:changedBy': 'hr-bot' }]],
    }, 'update'));
    const hr = namedNode(EX + 'g/hr');
    expect(r).toEqual({
      kind: 'update',
      where: { type: 'bgp', patterns: [{ s: ex('ana'), p: ex('salary'), o: v('s') }] },
      delete: [t(ex('ana'), ex('salary'), v('s'), { graph: hr })],
      insert: [t(ex('ana'), ex('salary'), int(5400), { graph: hr }),
        t(ex('ana'), ex('changedBy'), str('hr-bot'), { graph: namedNode(EX + 'g/audit') })],
      meta: [], opts: {}, using: [hr],
    });
  });

  it('Example 5: document metadata', async () => {
    const r = await parseJsonLdTxn({
      '@context': [C, { f: F }],
      '@graph': [{ '@id': 'ex:dan', 'schema:name': 'Dan' }],
      'f:message': 'nightly import', 'ex:batch': 7,
    }, 'insert');
    expect(r).toEqual({
      kind: 'insert',
      quads: [q(ex('dan'), sc('name'), str('Dan'))],
      meta: [{ predicate: F + 'message', object: str('nightly import') }, { predicate: EX + 'batch', object: int(7) }],
      opts: {},
    });
  });

  it('§10 receipt example body parses with opts', async () => {
    const r = await parseJsonLdTxn({
      '@context': C, '@graph': [{ '@id': 'ex:a', 'ex:p': 1 }],
      opts: { eventTime: '2025-03-01T10:00:00.000Z', meta: { time: true, fuel: false }, 'max-fuel': 1000, identity: 'ex:alice',
        'policy-class': ['ex:EmployeePolicy'], policy: [{ '@id': 'ex:p1' }], 'policy-values': { '?x': 1 }, 'default-allow': true },
    }, 'insert');
    expect(r.opts).toEqual({
      eventTime: '2025-03-01T10:00:00.000Z', meta: { time: true, fuel: false }, maxFuel: 1000, identity: EX + 'alice',
      policyClass: [EX + 'EmployeePolicy'], policy: [{ '@id': 'ex:p1' }], policyValues: { '?x': 1 }, defaultAllow: true,
    });
  });

  it('jsonld-query.md running example t=1 (types array, arrays, language)', async () => {
    const r = await parseJsonLdTxn({
      '@context': C,
      '@graph': [
        { '@id': 'ex:ana', '@type': 'ex:Person', 'ex:knows': [{ '@id': 'ex:ben' }, { '@id': 'ex:caro' }], 'ex:scores': [7, 9] },
        { '@id': 'ex:caro', '@type': ['ex:Person', 'ex:Admin'], 'ex:motto': { '@value': 'Carpe diem', '@language': 'la' } },
        { '@id': 'ex:trip1', 'ex:cost': { '@value': '1250.5', '@type': 'xsd:decimal' }, 'ex:start': { '@value': '2024-05-01', '@type': 'xsd:date' } },
      ],
    }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([
      q(ex('ana'), type, ex('Person')),
      q(ex('ana'), ex('knows'), ex('ben')),
      q(ex('ana'), ex('knows'), ex('caro')),
      q(ex('ana'), ex('scores'), int(7)),
      q(ex('ana'), ex('scores'), int(9)),
      q(ex('caro'), type, ex('Person')),
      q(ex('caro'), type, ex('Admin')),
      q(ex('caro'), ex('motto'), literal('Carpe diem', 'la')),
      q(ex('trip1'), ex('cost'), typed('1250.5', XSD + 'decimal')),
      q(ex('trip1'), ex('start'), typed('2024-05-01', XSD + 'date')),
    ]);
  });

  it('jsonld-query.md t=4: node form with "@graph": IRI', async () => {
    const r = await parseJsonLdTxn({ '@context': C, '@id': 'ex:ana', '@graph': 'http://example.org/g/hr', 'ex:salary': 5200 }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([q(ex('ana'), ex('salary'), int(5200), namedNode(EX + 'g/hr'))]);
  });
});

describe('forms', () => {
  it('array form: each node may carry its own context; others use the ledger default', async () => {
    const r = await parseJsonLdTxn([
      { '@context': { s: SCHEMA }, '@id': 'http://example.org/a', 's:name': 'A' },
      { '@id': 'ex:b', 'schema:name': 'B' },
    ], 'insert', { ledgerDefaultContext: C });
    expect(r).toEqual({ kind: 'insert', quads: [q(ex('a'), sc('name'), str('A')), q(ex('b'), sc('name'), str('B'))], meta: [], opts: {} });
  });

  it('applies the ledger default context to a body without @context', async () => {
    const r = await parseJsonLdTxn({ '@id': 'ex:a', 'ex:p': 1 }, 'insert', { ledgerDefaultContext: C });
    expect(r.kind === 'insert' && r.quads).toEqual([q(ex('a'), ex('p'), int(1))]);
  });

  it('a body @context replaces the ledger default context', async () => {
    const r = await parseJsonLdTxn({ '@context': {}, '@id': 'ex:a', 'schema:name': 'A' }, 'insert', { ledgerDefaultContext: C });
    expect(r.kind === 'insert' && r.quads).toEqual([q(namedNode('ex:a'), namedNode('schema:name'), str('A'))]);
  });

  it('node form has no metadata: every key is data; opts and ledger are still request keys', async () => {
    const r = await parseJsonLdTxn({ '@context': C, '@id': 'ex:a', 'ex:batch': 7, ledger: 'crm:main', opts: { maxFuel: 5 } }, 'insert');
    expect(r).toEqual({ kind: 'insert', quads: [q(ex('a'), ex('batch'), int(7))], meta: [], opts: { maxFuel: 5 } });
  });

  it('document form with @id: a JSON-LD named graph', async () => {
    const r = await parseJsonLdTxn({ '@context': C, '@id': 'ex:g1', '@graph': [{ '@id': 'ex:a', 'ex:p': 'x' }, { '@id': 'ex:b', '@graph': 'ex:g2', 'ex:p': 'y' }] }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([q(ex('a'), ex('p'), str('x'), ex('g1')), q(ex('b'), ex('p'), str('y'), ex('g2'))]);
  });

  it('document form: top-level @vocab/@base act as context; ledger is not metadata', async () => {
    const r = await parseJsonLdTxn({ '@vocab': SCHEMA, '@base': EX, '@graph': [{ '@id': 'ana', name: 'Ana' }], ledger: 'x:main' }, 'insert');
    expect(r).toEqual({ kind: 'insert', quads: [q(ex('ana'), sc('name'), str('Ana'))], meta: [], opts: {} });
  });

  it('document form: a single node object under @graph', async () => {
    const r = await parseJsonLdTxn({ '@context': C, '@graph': { '@id': 'ex:a', 'ex:p': 1 } }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([q(ex('a'), ex('p'), int(1))]);
  });

  it('update endpoint: a body without where/delete/insert/values is an insert', async () => {
    expect(await parseJsonLdTxn({ '@context': C, '@id': 'ex:a', 'ex:p': 1 }, 'update')).toEqual(
      { kind: 'insert', quads: [q(ex('a'), ex('p'), int(1))], meta: [], opts: {} });
  });

  it('insert endpoint: update keys are refused unless the context defines them', async () => {
    expect(await msg(() => parseJsonLdTxn({ '@context': C, where: {}, insert: {} }, 'insert')))
      .toBe('where/insert are update keys: send where/delete/insert bodies to the update endpoint');
    const r = await parseJsonLdTxn({ '@context': [C, { insert: 'ex:insert' }], '@id': 'ex:a', insert: 'yes' }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([q(ex('a'), ex('insert'), str('yes'))]);
  });

  it('keyword aliases in data', async () => {
    const r = await parseJsonLdTxn({ '@context': [C, { id: '@id', type: '@type', name: 'schema:name' }], id: 'ex:a', type: 'ex:T', name: 'A' }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([q(ex('a'), type, ex('T')), q(ex('a'), sc('name'), str('A'))]);
  });
});

describe('nodes and values', () => {
  const one = async (node: Record<string, unknown>, ctx: unknown = C) => {
    const r = await parseJsonLdTxn({ '@context': ctx, ...node }, 'insert');
    return r.kind === 'insert' ? r.quads : [];
  };

  it('§3.3 value table', async () => {
    expect(await one({ '@id': 'ex:a', 'ex:s': 'http://example.org/b', 'ex:i': 34, 'ex:d': 3.5, 'ex:b': false, 'ex:big': 1e21, 'ex:small': 1e-7 })).toEqual([
      q(ex('a'), ex('s'), str('http://example.org/b')),
      q(ex('a'), ex('i'), int(34)),
      q(ex('a'), ex('d'), typed('3.5', XSD + 'double')),
      q(ex('a'), ex('b'), typed('false', XSD + 'boolean')),
      // JSON-LD 1.1 toRdf: integral numbers from 10^21 on are xsd:double.
      q(ex('a'), ex('big'), typed('1.0E21', XSD + 'double')),
      q(ex('a'), ex('small'), typed('1e-7', XSD + 'double')),
    ]);
  });

  it('a reference with extra keys is a nested node that is also written', async () => {
    expect(await one({ '@id': 'ex:a', 'ex:knows': { '@id': 'ex:b', 'schema:name': 'B' } })).toEqual([
      q(ex('b'), sc('name'), str('B')), q(ex('a'), ex('knows'), ex('b')),
    ]);
  });

  it('§3.2 blank node labels: b0, b1, ... in document order, skipping labels used in the document', async () => {
    const r = await parseJsonLdTxn({
      '@context': C,
      '@graph': [
        { 'ex:p': { 'ex:q': 1 } },
        { '@id': '_:b1', 'ex:r': { '@id': '_:b0' } },
        { '@id': 'ex:z', 'ex:s': { 'ex:t': 2 } },
      ],
    }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([
      q(blankNode('b3'), ex('q'), int(1)),
      q(blankNode('b2'), ex('p'), blankNode('b3')),
      q(blankNode('b1'), ex('r'), blankNode('b0')),
      q(blankNode('b4'), ex('t'), int(2)),
      q(ex('z'), ex('s'), blankNode('b4')),
    ]);
  });

  it('the same _:label is one node; a @type @id string "_:x" counts as a used label', async () => {
    const r = await parseJsonLdTxn({ '@context': [C, { ref: { '@id': 'ex:ref', '@type': '@id' } }], '@graph': [
      { '@id': '_:x', 'ex:p': 1 }, { '@id': 'ex:a', ref: '_:b0', 'ex:q': { '@id': '_:x' }, 'ex:n': { 'ex:v': 2 } }] }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([
      q(blankNode('x'), ex('p'), int(1)),
      q(ex('a'), ex('ref'), blankNode('b0')),
      q(ex('a'), ex('q'), blankNode('x')),
      q(blankNode('b1'), ex('v'), int(2)),
      q(ex('a'), ex('n'), blankNode('b1')),
    ]);
  });

  it('null values are ignored; nested arrays are flattened; duplicates collapse', async () => {
    expect(await one({ '@id': 'ex:a', 'ex:p': null, 'ex:q': [1, [2, 1], null], 'ex:r': 'x' })).toEqual([
      q(ex('a'), ex('q'), int(1)), q(ex('a'), ex('q'), int(2)), q(ex('a'), ex('r'), str('x')),
    ]);
  });

  it('context coercion: @vocab type, @container @list and @set, @language, language maps, scoped contexts', async () => {
    const ctx = [C, {
      '@language': 'en',
      steps: { '@id': 'ex:steps', '@container': '@list' },
      tags: { '@id': 'ex:tags', '@container': '@set' },
      kind: { '@id': 'ex:kind', '@type': '@vocab' },
      code: { '@id': 'ex:code', '@language': null },
      label: { '@id': 'ex:label', '@container': '@language' },
      addr: { '@id': 'ex:addr', '@context': { city: 'ex:city' } },
      n: { '@id': 'ex:n', '@type': 'xsd:int' },
    }];
    expect(await one({ '@id': 'ex:a', steps: ['x', 'y'], tags: 't', kind: 'ex:Big', code: 'c', 'ex:note': 'hi', label: { en: 'Hi', pt: ['Olá'], '@none': 'hey' },
      addr: { city: 'Porto' }, n: 5 }, ctx)).toEqual([
      q(ex('a'), ex('steps'), literal('x', 'en'), defaultGraph, 0),
      q(ex('a'), ex('steps'), literal('y', 'en'), defaultGraph, 1),
      q(ex('a'), ex('tags'), literal('t', 'en')),
      q(ex('a'), ex('kind'), ex('Big')),
      q(ex('a'), ex('code'), str('c')),
      q(ex('a'), ex('note'), literal('hi', 'en')),
      q(ex('a'), ex('label'), literal('Hi', 'en')),
      q(ex('a'), ex('label'), literal('Olá', 'pt')),
      q(ex('a'), ex('label'), str('hey')),
      q(blankNode('b0'), ex('city'), literal('Porto', 'en')),
      q(ex('a'), ex('addr'), blankNode('b0')),
      q(ex('a'), ex('n'), typed('5', XSD + 'int')),
    ]);
  });

  it('@json terms take the whole value; canonical JSON sorts keys (RFC 8785)', async () => {
    expect(await one({ '@id': 'ex:a', cfg: { b: [1, 2.5, 'x'], a: { z: null, y: true } }, list: [3, 1] },
      [C, { cfg: { '@id': 'ex:cfg', '@type': '@json' }, list: { '@id': 'ex:list', '@type': '@json' } }])).toEqual([
      q(ex('a'), ex('cfg'), typed('{"a":{"y":true,"z":null},"b":[1,2.5,"x"]}', RDF + 'JSON')),
      q(ex('a'), ex('list'), typed('[3,1]', RDF + 'JSON')),
    ]);
  });

  it('§3.4 coercion of typed values keeps the given datatype', async () => {
    expect(await one({ '@id': 'ex:a',
      'ex:i': { '@value': 36, '@type': 'xsd:int' },
      'ex:s': { '@value': '12', '@type': 'xsd:integer' },
      'ex:b': { '@value': '1', '@type': 'xsd:boolean' },
      'ex:c': { '@value': 'x y', '@type': 'ex:Custom' },
    })).toEqual([
      q(ex('a'), ex('i'), typed('36', XSD + 'int')),
      q(ex('a'), ex('s'), typed('12', XSD + 'integer')),
      q(ex('a'), ex('b'), typed('1', XSD + 'boolean')),
      q(ex('a'), ex('c'), typed('x y', EX + 'Custom')),
    ]);
  });

  it('§3.4 impossible coercions are 400', async () => {
    const bad = async (value: unknown, dt: string) => await msg(() => one({ '@id': 'ex:a', 'ex:p': { '@value': value, '@type': dt } }));
    expect(await bad(36, 'xsd:string')).toBe('cannot coerce number 36 to xsd:string; send it as a JSON string to store text');
    expect(await bad(true, 'xsd:string')).toBe('cannot coerce boolean true to xsd:string');
    expect(await bad(1, 'xsd:boolean')).toBe('cannot coerce number 1 to xsd:boolean; use true or false');
    expect(await bad(3.5, 'xsd:integer')).toBe('cannot coerce non-integral number 3.5 to xsd:integer');
    expect(await bad(200, 'xsd:byte')).toBe('value 200 is out of range for xsd:byte (-128..127)');
    expect(await bad('abc', 'xsd:decimal')).toBe('cannot coerce "abc" to xsd:decimal: not a valid xsd:decimal lexical form');
    expect(await bad('1990-13-01', 'xsd:date')).toBe('cannot coerce "1990-13-01" to xsd:date: not a valid xsd:date lexical form');
    expect(await msg(() => one({ '@id': 'ex:a', 'ex:p': { '@value': 'x', '@type': 'xsd:string', '@language': 'en' } })))
      .toMatch(/^invalid JSON-LD \(invalid value object\)/);
    expect(await msg(() => one({ '@id': 'ex:a', 'ex:born': '1990' }, [C, { 'ex:born': { '@type': 'xsd:date' } }])))
      .toBe('cannot coerce "1990" to xsd:date: not a valid xsd:date lexical form');
  });

  it('rejects what §3.1 and §11 forbid, naming JSON-LD error codes', async () => {
    expect(await msg(() => parseJsonLdTxn({}, 'insert'))).toBe('nothing to write: the transaction contains no facts');
    expect(await msg(() => one({ '@id': 'ex:a' }))).toBe('nothing to write: the transaction contains no facts');
    expect(await msg(() => parseJsonLdTxn({ '@context': C, '@graph': [] }, 'insert'))).toBe('nothing to write: the transaction contains no facts');
    expect(await msg(() => parseJsonLdTxn({ '@id': 'http://example.org/a', name: 'A' }, 'insert')))
      .toBe('nothing to write: the transaction contains no facts ("name" expand to no IRI: define them in the @context or set @vocab)');
    expect(await msg(() => one({ '@id': 'ex:a', 'rdf:type': 'ex:T' }))).toBe('rdf:type cannot be used as a property: write the type with @type');
    expect(await msg(() => one({ '@id': 'ex:a', '@type': 5 }))).toMatch(/^invalid JSON-LD \(invalid type value\)/);
    expect(await msg(() => one({ '@id': 'ex:a', '@type': ['ex:T', {}] }))).toMatch(/^invalid JSON-LD \(invalid type value\)/);
    expect(await msg(() => one({ '@id': 'ex:a', reaches: { '@id': 'ex:b' } }, [C, { reaches: { '@path': 'ex:knows+' } }])))
      .toMatch(/^invalid JSON-LD \(invalid term definition\)/);
    expect(await msg(() => one({ '@id': 'ex:a', 'ex:l': { '@list': [[1]] } }))).toBe('nested lists are not supported: a list item cannot be a list');
    expect(await msg(() => one({ '@id': 'ex:a', 'ex:l': { '@list': [{ '@list': [1] }] } }))).toBe('nested lists are not supported: a list item cannot be a list');
    expect(await msg(() => one({ '@id': '?s', 'ex:p': 1 }))).toBe('variables such as ?s are only allowed in update templates');
    expect(await msg(() => one({ '@id': 'ex:a b', 'ex:p': 1 })))
      .toBe('nothing to write: the transaction contains no facts; ill-formed IRI "http://example.org/a b": 1 statement not stored (JSON-LD drops it)');
    expect(await msg(() => one({ '@id': 'rel/a', 'ex:p': 1 })))
      .toBe('relative IRI "rel/a": give "@base" in the context or the base request parameter, or write an absolute IRI');
    expect(await msg(() => one({ '@id': 5, 'ex:p': 1 }))).toMatch(/^invalid JSON-LD \(invalid @id value\)/);
    expect(await msg(() => one({ '@id': 'ex:a', p: 1 }, [C, { p: { '@id': 'ex:q', '@protected': true } }, { p: 'ex:r' }])))
      .toMatch(/^invalid JSON-LD \(protected term redefinition\)/);
    expect(await msg(() => parseJsonLdTxn({ '@context': 'http://schema.org/', '@id': 'ex:a', 'ex:p': 1 }, 'insert')))
      .toMatch(/^invalid JSON-LD \(loading remote context failed\): loading remote context failed: http:\/\/schema.org\/ is not fetched/);
    expect(await msg(() => parseJsonLdTxn('x', 'insert'))).toBe('a JSON-LD transaction must be a JSON object or an array of node objects');
    expect(await msg(() => parseJsonLdTxn([1], 'insert'))).toBe('each element of a transaction array must be a node object, got 1');
  });

  it('drops what JSON-LD toRdf drops (ill-formed IRIs and language tags, blank-node properties) and names each value in warnings', async () => {
    const req = await parseJsonLdTxn({
      '@context': C,
      '@graph': [
        { '@id': 'ex:a', 'ex:p': [1, { '@id': 'ex:b c' }, { '@value': 'x', '@language': 'a b' }], 'ex:bad#p#q': 2, '_:bp': 3, '@type': 'ex:T U' },
        { '@id': 'ex:a b', 'ex:p': 4, 'ex:q': 5 },
        { '@id': 'ex:g h', '@graph': [{ '@id': 'ex:c', 'ex:p': 6 }] },
        { '@id': 'ex:d', 'ex:p': { '@value': 'v', '@type': 'ex:dt#a#b' } },
      ],
    }, 'insert');
    expect(req.kind === 'insert' && req.quads).toEqual([q(ex('a'), ex('p'), int(1))]);
    expect(req.warnings).toEqual([
      'ill-formed IRI "http://example.org/T U": 1 statement not stored (JSON-LD drops it)',
      'blank-node property "_:bp": 1 statement not stored (JSON-LD drops it)',
      'ill-formed IRI "http://example.org/bad#p#q": 1 statement not stored (JSON-LD drops it)',
      'ill-formed IRI "http://example.org/b c": 1 statement not stored (JSON-LD drops it)',
      'ill-formed language tag "a b": 1 statement not stored (JSON-LD drops it)',
      'ill-formed IRI "http://example.org/a b": 2 statements not stored (JSON-LD drops them)',
      'ill-formed IRI "http://example.org/g h": 1 statement not stored (JSON-LD drops it)',
      'ill-formed IRI "http://example.org/dt#a#b": 1 statement not stored (JSON-LD drops it)',
    ]);
    // Relative IRIs are never dropped: still a 400 naming the value.
    expect(await msg(() => one({ '@id': 'ex:a', 'ex:p': { '@id': 'rel' } }))).toMatch(/^relative IRI "rel"/);
    // Metadata keeps refusing: it is not JSON-LD data but the commit's own description.
    expect(await msg(() => parseJsonLdTxn({ '@context': C, 'ex:m': { '@value': 'x', '@language': 'a b' }, '@graph': [{ '@id': 'ex:a', 'ex:p': 1 }] }, 'insert')))
      .toBe('invalid @language "a b": not a BCP 47 language tag');
  });

  it('writes @reverse properties as the swapped triple (JSON-LD 1.1)', async () => {
    expect(await one({ '@id': 'ex:a', knownBy: { '@id': 'ex:b' } }, [C, { knownBy: { '@reverse': 'ex:knows' } }])).toEqual([q(ex('b'), ex('knows'), ex('a'))]);
    expect(await one({ '@id': 'ex:a', '@reverse': { 'ex:k': { '@id': 'ex:b', 'ex:p': 1 } } })).toEqual([q(ex('b'), ex('p'), int(1)), q(ex('b'), ex('k'), ex('a'))]);
  });

  it('resolves relative references against @base or the base option (RFC 3986)', async () => {
    const r = await parseJsonLdTxn({ '@context': { '@vocab': EX }, '@id': 'g', p: { '@id': '../x' } }, 'insert', { base: 'http://a/bb/ccc/d;p?q' });
    expect(r.kind === 'insert' && r.quads).toEqual([q(namedNode('http://a/bb/ccc/g'), ex('p'), namedNode('http://a/bb/x'))]);
    const r2 = await parseJsonLdTxn({ '@context': { '@base': 'http://b/dir/', '@vocab': EX }, '@id': 'g', p: 1 }, 'insert', { base: 'http://a/' });
    expect(r2.kind === 'insert' && r2.quads).toEqual([q(namedNode('http://b/dir/g'), ex('p'), int(1))]);
  });
});

describe('named graphs and limits', () => {
  it('txn-meta is reserved; default means the default graph', async () => {
    expect(await msg(() => parseJsonLdTxn({ '@context': C, '@id': 'ex:a', '@graph': 'txn-meta', 'ex:p': 1 }, 'insert')))
      .toBe('the graph name "txn-meta" is reserved: txn-meta cannot be written directly; use document metadata');
    const r = await parseJsonLdTxn({ '@context': C, '@id': 'ex:a', '@graph': 'default', 'ex:p': 1 }, 'insert');
    expect(r.kind === 'insert' && r.quads).toEqual([q(ex('a'), ex('p'), int(1))]);
    expect(await msg(() => parseJsonLdTxn({ '@context': C, graph: 'txn-meta', insert: { '@id': 'ex:a', 'ex:p': 1 } }, 'update')))
      .toBe('the graph name "txn-meta" is reserved: txn-meta cannot be written directly; use document metadata');
  });

  it('graphs named by a blank node: the same node as where the label is a subject or object', async () => {
    // A document whose @id is a blank node, a node's "@graph": "_:g" shorthand, and an @graph container.
    const doc = await parseJsonLdTxn({ '@context': C, '@id': '_:d', '@graph': [{ '@id': 'ex:a', 'ex:p': 1 }] }, 'insert');
    expect(doc.kind === 'insert' && doc.quads).toEqual([q(ex('a'), ex('p'), int(1), blankNode('d'))]);
    const node = await parseJsonLdTxn({ '@context': C, '@graph': [{ '@id': 'ex:a', '@graph': '_:g', 'ex:p': 1 }, { '@id': 'ex:b', 'ex:in': { '@id': '_:g' } }] }, 'insert');
    expect(node.kind === 'insert' && node.quads).toEqual([q(ex('a'), ex('p'), int(1), blankNode('g')), q(ex('b'), ex('in'), blankNode('g'))]);
    const box = await parseJsonLdTxn({ '@context': [C, { box: { '@id': 'ex:box', '@container': '@graph' } }], '@id': 'ex:a', box: { '@id': 'ex:a', 'ex:p': 1 } }, 'insert');
    expect(box.kind === 'insert' && box.quads).toEqual([q(ex('a'), ex('box'), blankNode('b0')), q(ex('a'), ex('p'), int(1), blankNode('b0'))]);
  });

  it('graph IRIs are at most 8 KiB', async () => {
    const long = 'http://example.org/' + 'g'.repeat(8192);
    expect(await msg(() => parseJsonLdTxn({ '@context': C, '@id': 'ex:a', '@graph': long, 'ex:p': 1 }, 'insert'))).toBe('graph IRI too long: at most 8192 bytes');
    const ok = 'http://example.org/' + 'g'.repeat(8192 - 19);
    const r = await parseJsonLdTxn({ '@context': C, '@id': 'ex:a', '@graph': ok, 'ex:p': 1 }, 'insert');
    expect(r.kind === 'insert' && r.quads[0]!.graph).toEqual(namedNode(ok));
  });

  it('metadata: values, limits and forbidden shapes (§8)', async () => {
    const doc = (meta: Record<string, unknown>) => parseJsonLdTxn({ '@context': [C, { f: F }], '@graph': [{ '@id': 'ex:a', 'ex:p': 1 }], ...meta }, 'insert');
    const r = await doc({ 'ex:tags': ['a', { '@id': 'ex:x' }, { '@value': '2024-01-01', '@type': 'xsd:date' }, { '@value': 'oi', '@language': 'pt' }, true] });
    expect(r.meta).toEqual([
      { predicate: EX + 'tags', object: str('a') },
      { predicate: EX + 'tags', object: ex('x') },
      { predicate: EX + 'tags', object: typed('2024-01-01', XSD + 'date') },
      { predicate: EX + 'tags', object: literal('oi', 'pt') },
      { predicate: EX + 'tags', object: typed('true', XSD + 'boolean') },
    ]);
    expect(await msg(() => doc({ 'ex:m': null }))).toBe('metadata ex:m cannot be null');
    expect(await msg(() => doc({ 'ex:m': { 'ex:nested': 1 } }))).toBe('metadata http://example.org/m must be a string, number, boolean, {"@id": ...} or a value object (no nested nodes or lists)');
    expect(await msg(() => doc({ 'ex:m': { '@list': [1] } }))).toBe('metadata http://example.org/m must be a string, number, boolean, {"@id": ...} or a value object (no nested nodes or lists)');
    expect(await msg(() => doc({ 'f:t': 5 }))).toBe('<https://ns.ledgraph.dev/t> is written by the server and cannot be supplied as metadata');
    expect(await msg(() => doc({ 'f:message': 5 }))).toBe('the commit message (f:message) must be a string');
    const many: Record<string, unknown> = {};
    for (let i = 0; i < 257; i++) many['ex:k' + i] = i;
    expect(await msg(() => doc(many))).toBe('too much metadata: 257 entries, at most 256');
    expect(await msg(() => doc({ 'ex:big': 'x'.repeat(65536) }))).toBe('too much metadata: 65549 bytes, at most 65536');
  });
});

describe('update form', () => {
  it('templates: @type variables, nested nodes, lists, "@graph" forms and graph variables', async () => {
    const r = update(await parseJsonLdTxn({
      '@context': C,
      where: { '@id': '?s', '@type': '?t', 'ex:g': '?g' },
      insert: { '@graph': [
        { '@id': '?s', '@type': ['?t', 'ex:Copy'], 'ex:addr': { 'ex:city': 'Faro' }, 'ex:l': { '@list': ['?t', 'x'] } },
        { '@id': '?s', '@graph': '?g', 'ex:seen': true },
      ] },
    }, 'update'));
    expect(r.insert).toEqual([
      t(v('s'), type, v('t')),
      t(v('s'), type, ex('Copy')),
      t(blankNode('b0'), ex('city'), str('Faro')),
      t(v('s'), ex('addr'), blankNode('b0')),
      t(v('s'), ex('l'), v('t'), { listIndex: 0 }),
      t(v('s'), ex('l'), str('x'), { listIndex: 1 }),
      t(v('s'), ex('seen'), typed('true', XSD + 'boolean'), { graph: v('g') }),
    ]);
  });

  it('delete templates: exact typed values are not loose; existing blank nodes by label; unlabeled nodes are 400', async () => {
    const r = update(await parseJsonLdTxn({ '@context': C,
      delete: [{ '@id': '_:lg1-b0', 'ex:city': 'Lisbon', 'ex:n': { '@value': 34, '@type': 'xsd:long' }, 'ex:m': { '@value': 'Olá', '@language': 'pt' } }] }, 'update'));
    expect(r.delete).toEqual([
      t(blankNode('lg1-b0'), ex('city'), str('Lisbon'), { looseObject: true }),
      t(blankNode('lg1-b0'), ex('n'), typed('34', XSD + 'long')),
      t(blankNode('lg1-b0'), ex('m'), literal('Olá', 'pt')),
    ]);
    expect(await msg(() => parseJsonLdTxn({ '@context': C, delete: { '@id': 'ex:a', 'ex:addr': { 'ex:city': 'x' } } }, 'update')))
      .toBe('a delete template cannot contain a node without @id: use a variable ("@id": "?x")');
  });

  it('delete/insert need a predicate; empty arrays are allowed', async () => {
    expect(await msg(() => parseJsonLdTxn({ '@context': C, delete: { '@id': 'ex:x' } }, 'update')))
      .toBe('delete template {"@id":"ex:x"} has no predicate or @type: say which facts to delete');
    expect(await msg(() => parseJsonLdTxn({ '@context': C, where: { '@id': '?s', 'ex:p': '?o' }, insert: {} }, 'update')))
      .toBe('insert template {} has no predicate or @type: say which facts to insert');
    expect(await msg(() => parseJsonLdTxn({ '@context': C, where: { '@id': '?s', 'ex:p': '?o' } }, 'update')))
      .toBe('nothing to write: an update needs delete and/or insert');
    const r = update(await parseJsonLdTxn({ '@context': C, where: { '@id': '?s', 'ex:p': '?o' }, delete: [] }, 'update'));
    expect(r.delete).toEqual([]);
    expect(r.insert).toEqual([]);
  });

  it('from / fromNamed / aliases in where and templates', async () => {
    const r = update(await parseJsonLdTxn({
      '@context': C,
      from: ['ex:g/a', { graph: 'ex:g/b' }],
      fromNamed: ['ex:g/c', { alias: 'hr', graph: 'ex:g/hr' }],
      where: [{ '@id': '?p', 'ex:x': '?x' }, ['graph', 'hr', { '@id': '?p', 'ex:salary': '?s' }]],
      insert: ['graph', 'hr', { '@id': '?p', 'ex:seen': '?x' }],
    }, 'update'));
    expect(r.using).toEqual([namedNode(EX + 'g/a'), namedNode(EX + 'g/b')]);
    expect(r.usingNamed).toEqual([namedNode(EX + 'g/c'), namedNode(EX + 'g/hr')]);
    expect(r.where).toEqual({ type: 'join', inputs: [
      { type: 'bgp', patterns: [{ s: v('p'), p: ex('x'), o: v('x') }] },
      { type: 'graph', name: namedNode(EX + 'g/hr'), input: { type: 'bgp', patterns: [{ s: v('p'), p: ex('salary'), o: v('s') }] } },
    ] });
    expect(r.insert).toEqual([t(v('p'), ex('seen'), v('x'), { graph: namedNode(EX + 'g/hr') })]);
  });

  it('from "default" means the default graph and beats graph', async () => {
    const r = update(await parseJsonLdTxn({ '@context': C, graph: 'ex:g', from: 'default', where: { '@id': '?s', 'ex:p': '?o' }, delete: { '@id': '?s', 'ex:p': '?o' } }, 'update'));
    expect(r.using).toBeUndefined();
    expect(r.delete).toEqual([t(v('s'), ex('p'), v('o'), { graph: ex('g') })]);
    expect(await msg(() => parseJsonLdTxn({ '@context': C, from: ['default', 'ex:g'], where: { '@id': '?s', 'ex:p': '?o' }, delete: [] }, 'update')))
      .toBe('from: "default" cannot be combined with graph IRIs');
  });

  it('values join before where', async () => {
    const r = update(await parseJsonLdTxn({ '@context': C, values: [['?s', '?n'], [[{ '@id': 'ex:a' }, 1], [{ '@id': 'ex:b' }, null]]],
      where: { '@id': '?s', 'ex:p': '?o' }, insert: { '@id': '?s', 'ex:n': '?n' } }, 'update'));
    expect(r.where).toEqual({ type: 'join', inputs: [
      { type: 'values', variables: ['s', 'n'], rows: [[ex('a'), int(1)], [ex('b'), undefined]] },
      { type: 'bgp', patterns: [{ s: v('s'), p: ex('p'), o: v('o') }] },
    ] });
  });

  it('rejects unknown keys (metadata belongs in the document form)', async () => {
    expect(await msg(() => parseJsonLdTxn({ '@context': C, 'f:message': 'x', insert: { '@id': 'ex:a', 'ex:p': 1 } }, 'update')))
      .toBe('unknown key "f:message" in an update body (commit metadata is only accepted in the document form)');
  });

  it('invalid where clauses are 400', async () => {
    expect(await msg(() => parseJsonLdTxn({ '@context': C, where: [['frobnicate', 1]], insert: { '@id': 'ex:a', 'ex:p': 1 } }, 'update')))
      .toBe('unknown where keyword: frobnicate');
    expect(await msg(() => parseJsonLdTxn({ '@context': C, where: [{ '@id': '?s', 'ex:p': '?o' }, ['filter', '(frob ?o)']], insert: { '@id': 'ex:a', 'ex:p': 1 } }, 'update')))
      .toBe('unknown function: frob');
  });
});

describe('opts', () => {
  const withOpts = async (opts: unknown) => (await parseJsonLdTxn({ '@context': C, '@graph': [{ '@id': 'ex:a', 'ex:p': 1 }], opts }, 'insert')).opts;

  it('accepts every spelling of max-fuel, policy-class, policy-values and default-allow', async () => {
    expect(await withOpts({ maxFuel: 10 })).toEqual({ maxFuel: 10 });
    expect(await withOpts({ max_fuel: '20' })).toEqual({ maxFuel: 20 });
    expect(await withOpts({ policyClass: 'ex:P', policyValues: {}, defaultAllow: false, meta: true })).toEqual({ policyClass: [EX + 'P'], policyValues: {}, defaultAllow: false, meta: true });
    expect(await withOpts({ policy_class: ['ex:P'], policy_values: { '?u': 'ex:u' }, default_allow: true })).toEqual({ policyClass: [EX + 'P'], policyValues: { '?u': 'ex:u' }, defaultAllow: true });
    expect(await withOpts({ eventTime: '2024-02-29T23:59:59+01:00', unknownKey: 1 })).toEqual({ eventTime: '2024-02-29T23:59:59+01:00' });
  });

  it('rejects malformed options', async () => {
    expect(await msg(() => withOpts({ eventTime: '2025-02-29T10:00:00Z' }))).toBe('opts.eventTime must be an RFC 3339 instant such as 2025-03-01T10:00:00Z, got "2025-02-29T10:00:00Z"');
    expect(await msg(() => withOpts({ eventTime: '2025-03-01' }))).toBe('opts.eventTime must be an RFC 3339 instant such as 2025-03-01T10:00:00Z, got "2025-03-01"');
    expect(await msg(() => withOpts({ maxFuel: -1 }))).toBe('opts.max-fuel must be a non-negative integer');
    expect(await msg(() => withOpts({ meta: { time: 'yes' } }))).toBe('opts.meta must be true/false or {"time": bool, "fuel": bool, "policy": bool}');
    expect(await msg(() => withOpts({ defaultAllow: 'true' }))).toBe('opts.default-allow must be a boolean');
    expect(await msg(() => withOpts({ policyClass: 5 }))).toBe('opts.policy-class must be an IRI or an array of IRIs');
    expect(await msg(() => withOpts({ policyValues: [] }))).toBe('opts.policy-values must be an object {"?var": value}');
    expect(await msg(() => withOpts({ objectVarParsing: 'no' }))).toBe('opts.objectVarParsing must be a boolean');
    expect(await msg(() => withOpts(5))).toBe('opts must be an object');
  });
});

describe('where helpers reach the algebra unchanged', () => {
  it('keeps an Op type the pipeline can run', async () => {
    const r = update(await parseJsonLdTxn({ '@context': C, where: { '@id': '?s', 'ex:p': '?o' }, delete: { '@id': '?s', 'ex:p': '?o' } }, 'update'));
    const op: Op | null = r.where;
    expect(op?.type).toBe('bgp');
  });
});
