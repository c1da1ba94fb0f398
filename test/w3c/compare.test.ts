/** Unit tests of the W3C harness pieces: result comparison, manifests, expected results. */
import { describe, expect, it } from 'vitest';
import { blankNode, defaultGraph, literal, namedNode, type Quad, type Term } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import type { ResultTable } from '../../src/core/query/results/sparql-json.js';
import { compareDatasets, compareTables, matchRows, sameTerm } from './compare.js';
import { iriOf, loadManifest, localPathOf, w3cAvailable } from './manifest.js';
import { parseKnownFailures, summaryLine } from './harness.js';
import { queryShape, readExpected, resultSetFromRdf } from './expected.js';
import { parseRdfText } from './rdf-files.js';

const ex = (s: string) => namedNode('http://ex/' + s);
const b = blankNode;
const int = (v: string) => literal(v, namedNode(xsd.integer));
const table = (variables: string[], rows: Record<string, Term>[]): ResultTable => ({ type: 'bindings', variables, rows });

describe('term equality', () => {
  it('compares literals by lexical form, datatype and case-insensitive language', () => {
    expect(sameTerm(literal('a'), literal('a', namedNode(xsd.string)))).toBe(true);
    expect(sameTerm(int('01'), int('1'))).toBe(false);
    expect(sameTerm({ termType: 'Literal', value: 'x', language: 'EN-gb', datatype: namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#langString') }, literal('x', 'en-GB'))).toBe(true);
    expect(sameTerm(literal('x', 'en'), literal('x'))).toBe(false);
    expect(sameTerm(ex('a'), literal('http://ex/a'))).toBe(false);
    expect(sameTerm(undefined, undefined)).toBe(true);
    expect(sameTerm(ex('a'), undefined)).toBe(false);
  });
});

describe('solution multisets', () => {
  it('ignores row order and variable order, respects multiplicity', () => {
    const e = table(['x', 'y'], [{ x: ex('a'), y: int('1') }, { x: ex('a'), y: int('1') }, { x: ex('b') }]);
    expect(compareTables(e, table(['y', 'x'], [{ x: ex('b') }, { x: ex('a'), y: int('1') }, { x: ex('a'), y: int('1') }]))).toBeUndefined();
    expect(compareTables(e, table(['x', 'y'], [{ x: ex('b') }, { x: ex('a'), y: int('1') }]))).toMatch(/expected 3 rows, got 2/);
    expect(compareTables(e, table(['x', 'y'], [{ x: ex('b') }, { x: ex('a'), y: int('1') }, { x: ex('b') }]))).toMatch(/missing \(1\)[\s\S]*unexpected \(1\)/);
    expect(compareTables(e, table(['x'], []))).toMatch(/variables/);
  });

  it('distinguishes unbound from bound', () => {
    expect(compareTables(table(['x', 'y'], [{ x: ex('a') }]), table(['x', 'y'], [{ x: ex('a'), y: ex('a') }]))).toBeDefined();
  });

  it('rejects bindings of variables outside the projection', () => {
    expect(compareTables(table(['x'], [{ x: ex('a') }]), table(['x'], [{ x: ex('a'), z: ex('b') }]))).toMatch(/not a result variable/);
  });

  it('compares booleans', () => {
    expect(compareTables({ type: 'boolean', value: true }, { type: 'boolean', value: true })).toBeUndefined();
    expect(compareTables({ type: 'boolean', value: true }, { type: 'boolean', value: false })).toMatch(/expected true/);
    expect(compareTables({ type: 'boolean', value: true }, table([], [{}]))).toMatch(/boolean/);
  });
});

describe('blank node isomorphism', () => {
  it('matches relabelled blank nodes', () => {
    const e = table(['s', 'o'], [{ s: b('a'), o: b('b') }, { s: b('b'), o: ex('x') }]);
    expect(compareTables(e, table(['s', 'o'], [{ s: b('q'), o: ex('x') }, { s: b('p'), o: b('q') }]))).toBeUndefined();
  });

  it('uses one bijection across the whole result set (co-reference)', () => {
    // expected: the same node in both rows; actual: two different nodes
    const e = table(['x', 'n'], [{ x: b('a'), n: int('1') }, { x: b('a'), n: int('2') }]);
    expect(compareTables(e, table(['x', 'n'], [{ x: b('p'), n: int('1') }, { x: b('q'), n: int('2') }]))).toMatch(/bijection/);
    // and the converse: distinct expected nodes must stay distinct
    const e2 = table(['x', 'n'], [{ x: b('a'), n: int('1') }, { x: b('c'), n: int('2') }]);
    expect(compareTables(e2, table(['x', 'n'], [{ x: b('p'), n: int('1') }, { x: b('p'), n: int('2') }]))).toMatch(/bijection/);
    expect(compareTables(e2, table(['x', 'n'], [{ x: b('p'), n: int('2') }, { x: b('q'), n: int('1') }]))).toBeUndefined();
  });

  it('does not let a blank node match an IRI or literal', () => {
    expect(compareTables(table(['x'], [{ x: b('a') }]), table(['x'], [{ x: ex('a') }]))).toBeDefined();
  });

  it('needs backtracking when colours cannot separate nodes (two 3-cycles vs one 6-cycle)', () => {
    const p = ex('p');
    const cycle = (labels: string[]): Quad[] => labels.map((l, i) => ({ subject: b(l), predicate: p, object: b(labels[(i + 1) % labels.length]!), graph: defaultGraph }));
    const twoTriangles = [...cycle(['a', 'b', 'c']), ...cycle(['d', 'e', 'f'])];
    const hexagon = cycle(['1', '2', '3', '4', '5', '6']);
    expect(compareDatasets(twoTriangles, hexagon)).toMatch(/bijection/);
    expect(compareDatasets(twoTriangles, [...cycle(['u', 'v', 'w']), ...cycle(['x', 'y', 'z'])])).toBeUndefined();
    expect(compareDatasets(hexagon, cycle(['f', 'a', 'b', 'c', 'd', 'e']).reverse())).toBeUndefined();
  });

  it('handles many interchangeable blank nodes quickly', () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ x: b('e' + i), y: int(String(i % 3)) }));
    const act = Array.from({ length: 300 }, (_, i) => ({ x: b('a' + (299 - i)), y: int(String((299 - i) % 3)) }));
    expect(compareTables(table(['x', 'y'], rows), table(['x', 'y'], act))).toBeUndefined();
    const star = (c: string, n: number) => Array.from({ length: n }, (_, i) => ({ s: b(c), o: b(c + i) }));
    expect(compareTables(table(['s', 'o'], [...star('h', 40), ...star('k', 40)]), table(['s', 'o'], [...star('K', 40), ...star('H', 40)]))).toBeUndefined();
    expect(compareTables(table(['s', 'o'], [...star('h', 40), ...star('k', 40)]), table(['s', 'o'], [...star('K', 41), ...star('H', 39)]))).toMatch(/bijection/);
  });

  it('matches a blank node used twice in one row only with one used twice', () => {
    const e = table(['x', 'y'], [{ x: b('a'), y: b('a') }]);
    expect(compareTables(e, table(['x', 'y'], [{ x: b('p'), y: b('q') }]))).toMatch(/bijection/);
    expect(compareTables(e, table(['x', 'y'], [{ x: b('p'), y: b('p') }]))).toBeUndefined();
  });
});

describe('ordered results', () => {
  const e = table(['x', 'k'], [{ x: ex('a'), k: int('1') }, { x: ex('b'), k: int('2') }, { x: ex('c'), k: int('2') }, { x: ex('d'), k: int('3') }]);
  it('requires the expected order between different keys', () => {
    const swapped = table(['x', 'k'], [e.type === 'bindings' ? e.rows[3]! : {}, ...(e as { rows: Record<string, Term>[] }).rows.slice(1, 3), (e as { rows: Record<string, Term>[] }).rows[0]!]);
    expect(compareTables(e, swapped, { order: { tieVars: ['k'] } })).toMatch(/wrong order/);
    expect(compareTables(e, swapped)).toBeUndefined();
  });
  it('accepts any order among ties', () => {
    const rows = (e as { rows: Record<string, Term>[] }).rows;
    const tieSwap = table(['x', 'k'], [rows[0]!, rows[2]!, rows[1]!, rows[3]!]);
    expect(compareTables(e, tieSwap, { order: { tieVars: ['k'] } })).toBeUndefined();
    expect(compareTables(e, tieSwap, { order: { tieVars: ['x', 'k'] } })).toMatch(/wrong order/);
    expect(compareTables(e, tieSwap, { order: 'strict' })).toMatch(/wrong order/);
  });
  it('keeps blank node bijection global across positions', () => {
    const eb = table(['x', 'k'], [{ x: b('a'), k: int('1') }, { x: b('a'), k: int('2') }]);
    expect(compareTables(eb, table(['x', 'k'], [{ x: b('z'), k: int('1') }, { x: b('z'), k: int('2') }]), { order: { tieVars: ['k'] } })).toBeUndefined();
    expect(compareTables(eb, table(['x', 'k'], [{ x: b('z'), k: int('1') }, { x: b('y'), k: int('2') }]), { order: { tieVars: ['k'] } })).toBeDefined();
  });
});

describe('REDUCED (lax cardinality)', () => {
  const e = table(['x'], [{ x: ex('a') }, { x: ex('a') }, { x: ex('a') }, { x: ex('b') }]);
  it('accepts any count between distinct and full', () => {
    for (const n of [1, 2, 3]) {
      const act = table(['x'], [...Array.from({ length: n }, () => ({ x: ex('a') })), { x: ex('b') }]);
      expect(compareTables(e, act, { lax: true })).toBeUndefined();
    }
  });
  it('rejects missing distinct solutions and too many rows', () => {
    expect(compareTables(e, table(['x'], [{ x: ex('a') }, { x: ex('a') }]), { lax: true })).toBeDefined();
    expect(compareTables(e, table(['x'], [{ x: ex('a') }, { x: ex('a') }, { x: ex('a') }, { x: ex('a') }, { x: ex('b') }]), { lax: true })).toMatch(/between 2 and 4/);
  });
});

describe('dataset isomorphism', () => {
  const q = (s: Term, o: Term, g: Quad['graph'] = defaultGraph): Quad => ({ subject: s, predicate: ex('p'), object: o, graph: g });
  it('treats graphs as sets and keeps graph names apart', () => {
    expect(compareDatasets([q(ex('a'), ex('b'))], [q(ex('a'), ex('b')), q(ex('a'), ex('b'))])).toBeUndefined();
    expect(compareDatasets([q(ex('a'), ex('b'))], [q(ex('a'), ex('b'), ex('g'))])).toBeDefined();
    expect(compareDatasets([q(b('x'), ex('b'), ex('g')), q(b('x'), ex('c'))], [q(b('y'), ex('b'), ex('g')), q(b('y'), ex('c'))])).toBeUndefined();
    expect(compareDatasets([q(b('x'), ex('b'), ex('g')), q(b('x'), ex('c'))], [q(b('y'), ex('b'), ex('g')), q(b('z'), ex('c'))])).toBeDefined();
  });
  it('maps blank graph names too', () => {
    expect(compareDatasets([q(ex('a'), ex('b'), b('g1'))], [q(ex('a'), ex('b'), b('zz'))])).toBeUndefined();
  });
  it('reports a budget overrun as an error rather than hanging', () => {
    expect(() => matchRows([[b('a')], [b('b')]], [[b('c')], [b('d')]], ['x'], 0)).toThrow(/budget/);
  });
});

describe('harness pieces', () => {
  it('reads known-failures lines', () => {
    const m = parseKnownFailures('# comment\n\n<http://a#t1>  # engine bug\nhttp://a#t2\n');
    expect([...m]).toEqual([['http://a#t1', 'engine bug'], ['http://a#t2', '']]);
  });

  it('summarises', () => {
    const r = (status: 'pass' | 'fail' | 'skip' | 'known-failure' | 'known-failure-passed') => ({ id: 'x', folder: 'f', name: 'n', status });
    expect(summaryLine('s', [r('pass'), r('pass'), r('fail'), r('skip')])).toBe('s: 2 passed, 1 failed, 1 skipped');
    expect(summaryLine('s', [r('pass'), r('known-failure'), r('known-failure-passed')]))
      .toBe('s: 1 passed, 0 failed, 0 skipped, 1 known failures (1 known failures now PASS: remove them from known-failures.txt)');
  });

  it('reads RDF result sets with rs:index order', () => {
    const quads = parseRdfText(`@prefix rs: <http://www.w3.org/2001/sw/DataAccess/tests/result-set#> .
      [] a rs:ResultSet ; rs:resultVariable "x" ;
         rs:solution [ rs:index 2 ; rs:binding [ rs:variable "x" ; rs:value <b> ] ] ,
                     [ rs:index 1 ; rs:binding [ rs:variable "x" ; rs:value _:n ] ] .`, { format: 'Turtle', baseIri: 'http://ex/' });
    const rs = resultSetFromRdf(quads)!;
    expect(rs.indexed).toBe(true);
    expect(rs.table.type === 'bindings' && rs.table.rows.map((r) => r.x!.termType)).toEqual(['BlankNode', 'NamedNode']);
    const boolQuads = parseRdfText(`@prefix rs: <http://www.w3.org/2001/sw/DataAccess/tests/result-set#> . [] a rs:ResultSet ; rs:boolean true .`, { format: 'Turtle', baseIri: 'http://ex/' });
    expect(resultSetFromRdf(boolQuads)!.table).toEqual({ type: 'boolean', value: true });
  });

  it('reads query shape: form and top-level ORDER BY variables only', () => {
    expect(queryShape('SELECT ?x WHERE { ?x ?p ?o } ORDER BY DESC(?o) STR(?x)', 'http://ex/')).toEqual({ form: 'select', orderVars: ['o', 'x'] });
    expect(queryShape('SELECT * WHERE { { SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?x } }', 'http://ex/')).toEqual({ form: 'select' });
    expect(queryShape('ASK {}', 'http://ex/')).toEqual({ form: 'ask' });
    expect(queryShape('not sparql', 'http://ex/')).toEqual({});
  });
});

describe.skipIf(!w3cAvailable())('W3C data', () => {
  it('maps IRIs to local files', () => {
    expect(localPathOf('https://w3c.github.io/rdf-tests/sparql/sparql11/bind/manifest.ttl#bind01')).toMatch(/sparql11\/bind\/manifest\.ttl$/);
    expect(localPathOf('http://example.org/x')).toBeUndefined();
  });

  it('loads the SPARQL manifests with the README counts', () => {
    const tests = loadManifest(iriOf('sparql11/manifest.ttl'));
    const count = (type: string) => tests.filter((t) => t.type === type).length;
    expect(tests).toHaveLength(495);
    expect(count('QueryEvaluationTest')).toBe(232);
    expect(count('UpdateEvaluationTest')).toBe(94);
    expect(count('PositiveSyntaxTest11')).toBe(63);
    expect(count('NegativeSyntaxTest11')).toBe(48);
    expect(count('PositiveUpdateSyntaxTest11')).toBe(42);
    expect(count('NegativeUpdateSyntaxTest11')).toBe(13);
    expect(count('CSVResultFormatTest')).toBe(3);
    expect(tests.filter((t) => t.approval === 'Approved')).toHaveLength(429);
    expect(tests.filter((t) => t.approval === 'Proposed')).toHaveLength(23);
    expect(new Set(tests.map((t) => t.id)).size).toBe(495);
  });

  it('resolves actions against the manifest IRI and reads graph labels', () => {
    const tests = loadManifest(iriOf('sparql11/add/manifest.ttl'));
    const add1 = tests.find((t) => t.id.endsWith('#add01'))!;
    expect(add1.query).toBe('https://w3c.github.io/rdf-tests/sparql/sparql11/add/add-01.ru');
    expect(add1.dataset).toEqual({ data: [iriOf('sparql11/add/add-default.ttl')], graphData: [{ file: iriOf('sparql11/add/add-01-pre.ttl'), name: 'http://example.org/g1' }] });
    expect(add1.resultDataset!.graphData[0]!.name).toBe('http://example.org/g1');
    const pp = loadManifest(iriOf('sparql11/property-path/manifest.ttl')).find((t) => t.dataset?.graphData.length === 2)!;
    expect(pp.dataset!.graphData.map((g) => g.name)).toEqual(pp.dataset!.graphData.map((g) => g.file));
  });

  it('loads the RDF manifests with the README counts', () => {
    const tests = ['rdf-turtle', 'rdf-trig', 'rdf-n-triples', 'rdf-n-quads'].flatMap((f) => loadManifest(iriOf(`rdf11/${f}/manifest.ttl`)));
    expect(tests).toHaveLength(826);
    expect(tests.filter((t) => t.type.endsWith('Eval'))).toHaveLength(288);
    expect(tests[0]!.id).toBe('https://w3c.github.io/rdf-tests/rdf/rdf11/rdf-turtle/manifest.ttl#IRI_subject');
  });

  it('parses every expected result file of the query tests', () => {
    const tests = loadManifest(iriOf('sparql11/manifest-sparql11-query.ttl')).concat(loadManifest(iriOf('sparql11/manifest-sparql11-results.ttl')));
    let n = 0;
    for (const t of tests) {
      if (!t.result || t.type === 'PositiveSyntaxTest11' || t.type === 'NegativeSyntaxTest11') continue;
      const e = readExpected(t.result, undefined);
      expect(e.kind, t.id).toBeDefined();
      n++;
    }
    expect(n).toBe(235);
    const agg = readExpected(iriOf('sparql11/aggregates/agg-empty-group-count-graph.ttl'), 'select');
    expect(agg.kind === 'table' && agg.table.type === 'bindings' && agg.table.rows[0]!.g).toEqual(namedNode(iriOf('sparql11/aggregates/singleton.ttl')));
  });
});

describe('ordered results over blank nodes', () => {
  it('lets blank nodes tie with each other in ORDER BY keys', () => {
    const e = table(['x', 'v'], [{ x: b('a'), v: int('1') }, { x: b('c'), v: int('2') }, { x: ex('z'), v: int('3') }]);
    const swapped = table(['x', 'v'], [{ x: b('q'), v: int('2') }, { x: b('p'), v: int('1') }, { x: ex('z'), v: int('3') }]);
    expect(compareTables(e, swapped, { order: { tieVars: ['x'] } })).toBeUndefined();
    const iriFirst = table(['x', 'v'], [{ x: ex('z'), v: int('3') }, { x: b('q'), v: int('2') }, { x: b('p'), v: int('1') }]);
    expect(compareTables(e, iriFirst, { order: { tieVars: ['x'] } })).toMatch(/wrong order/);
  });
});
