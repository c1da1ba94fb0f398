import { describe, expect, it } from 'vitest';
import type { DbView } from '../index/view.js';
import type { Quad, Term } from '../rdf/terms.js';
import { explainQuery, parseSparql, querySparql, type QueryContext } from './engine.js';
import { collect } from './results/types.js';

// The fixture lives outside src (tsconfig rootDir), so it is loaded by a path tsc does not follow.
const FIXTURE = '../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const DATA = `
@prefix : <http://ex/> .
:alice :name "Alice" ; :age 30 ; :knows :bob, :carol .
:bob :name "Bob" ; :age 25 ; :knows :carol .
:carol :name "Carol" ; :age 35 .
:dave :name "Dave" .
:g1 { :alice :likes :tea . :bob :likes :coffee . }
:g2 { :alice :likes :cake . :carol :likes :tea . }
`;

function show(t: Term | undefined): string {
  if (!t) return '-';
  if (t.termType === 'NamedNode') return t.value.replace('http://ex/', ':');
  if (t.termType === 'BlankNode') return '_:';
  return t.language ? `${t.value}@${t.language}` : t.value;
}

const view = viewFromRdf(DATA);

async function rows(q: string, ctx: Partial<QueryContext> = {}, sort = true): Promise<string[]> {
  const r = await querySparql('PREFIX : <http://ex/> ' + q, { view, ...ctx });
  if (r.type !== 'bindings') throw new Error('not bindings');
  const out = (await collect(r.rows)).map((b) => r.variables.map((v) => show(b[v])).join(' '));
  return sort ? out.sort() : out;
}

async function quads(q: string): Promise<string[]> {
  const r = await querySparql('PREFIX : <http://ex/> ' + q, { view });
  if (r.type !== 'quads') throw new Error('not quads');
  return (await collect(r.quads)).map((x: Quad) => [x.subject, x.predicate, x.object].map(show).join(' ')).sort();
}

describe('basic graph patterns and joins', () => {
  it('matches a single pattern', async () => {
    expect(await rows('SELECT ?x ?n { ?x :name ?n }')).toEqual([':alice Alice', ':bob Bob', ':carol Carol', ':dave Dave']);
  });
  it('joins on shared variables', async () => {
    expect(await rows('SELECT ?x ?m { ?x :knows ?y . ?y :name ?m }')).toEqual([':alice Bob', ':alice Carol', ':bob Carol']);
  });
  it('checks repeated variables within a pattern', async () => {
    const v = viewFromRdf('@prefix : <http://ex/> . :a :p :a . :a :p :b .');
    const r = await querySparql('SELECT ?x { ?x <http://ex/p> ?x }', { view: v });
    expect((await collect((r as { rows: AsyncIterable<Record<string, Term>> }).rows)).map((b) => show(b.x))).toEqual([':a']);
  });
  it('returns nothing for a constant not in the store', async () => {
    expect(await rows('SELECT ?x { ?x :name "Nobody" }')).toEqual([]);
  });
  it('treats blank nodes in patterns as hidden variables', async () => {
    expect(await rows('SELECT * { _:k :knows ?y }')).toEqual([':bob', ':carol', ':carol']);
  });
  it('produces the cross product of unconnected patterns', async () => {
    expect((await rows('SELECT ?a ?b { ?a :age 25 . ?b :age 35 }'))).toEqual([':bob :carol']);
  });
});

describe('filters, BIND and VALUES', () => {
  it('filters with comparisons', async () => {
    expect(await rows('SELECT ?x { ?x :age ?a FILTER(?a >= 30) }')).toEqual([':alice', ':carol']);
  });
  it('treats filter errors as false', async () => {
    expect(await rows('SELECT ?x { ?x :name ?n FILTER(?n > 3) }')).toEqual([]);
  });
  it('applies || and && with error semantics', async () => {
    expect(await rows('SELECT ?x { ?x :name ?n OPTIONAL { ?x :age ?a } FILTER(?a > 30 || ?n = "Dave") }')).toEqual([':carol', ':dave']);
    expect(await rows('SELECT ?x { ?x :name ?n OPTIONAL { ?x :age ?a } FILTER(!(?a > 30 && ?n = "Dave")) }')).toEqual([':alice', ':bob', ':carol']);
  });
  it('binds computed values', async () => {
    expect(await rows('SELECT ?x ?b { ?x :age ?a BIND(?a + 1 AS ?b) }')).toEqual([':alice 31', ':bob 26', ':carol 36']);
  });
  it('leaves BIND unbound on error and joins computed terms with stored ones', async () => {
    expect(await rows('SELECT ?x ?b { ?x :name ?n BIND(?n + 1 AS ?b) } LIMIT 1')).toEqual([':alice -']);
    expect(await rows('SELECT ?y { BIND(:alice AS ?x) ?x :knows ?y }')).toEqual([':bob', ':carol']);
  });
  it('joins inline VALUES including UNDEF', async () => {
    expect(await rows('SELECT ?x ?n { VALUES (?x ?n) { (:alice UNDEF) (UNDEF "Bob") } ?x :name ?n }')).toEqual([':alice Alice', ':bob Bob']);
  });
  it('joins a trailing VALUES clause', async () => {
    expect(await rows('SELECT ?x ?a { ?x :age ?a } VALUES ?x { :bob :dave }')).toEqual([':bob 25']);
  });
  it('evaluates IN and NOT IN', async () => {
    expect(await rows('SELECT ?x { ?x :age ?a FILTER(?a IN (25, 35)) }')).toEqual([':bob', ':carol']);
    expect(await rows('SELECT ?x { ?x :age ?a FILTER(?a NOT IN (25, 35)) }')).toEqual([':alice']);
  });
  it('evaluates IF, COALESCE and BOUND', async () => {
    expect(await rows('SELECT ?x ?v { ?x :name ?n OPTIONAL { ?x :age ?a } BIND(COALESCE(?a, 0) AS ?v) }')).toEqual([':alice 30', ':bob 25', ':carol 35', ':dave 0']);
    expect(await rows('SELECT ?x ?v { ?x :name ?n OPTIONAL { ?x :age ?a } BIND(IF(BOUND(?a), "y", "n") AS ?v) }')).toEqual([':alice y', ':bob y', ':carol y', ':dave n']);
  });
});

describe('OPTIONAL, UNION, MINUS', () => {
  it('keeps unmatched left rows', async () => {
    expect(await rows('SELECT ?x ?a { ?x :name ?n OPTIONAL { ?x :age ?a } }')).toEqual([':alice 30', ':bob 25', ':carol 35', ':dave -']);
  });
  it('applies the OPTIONAL filter as the left join condition', async () => {
    expect(await rows('SELECT ?x ?a { ?x :name ?n OPTIONAL { ?x :age ?a FILTER(?a > 28) } }')).toEqual([':alice 30', ':bob -', ':carol 35', ':dave -']);
  });
  it('does not let the OPTIONAL side see variables only bound outside (scoping)', async () => {
    // ?n is not in scope inside the nested group, so its FILTER is an error for every row.
    expect(await rows('SELECT ?x ?a { ?x :name ?n OPTIONAL { { ?x :age ?a FILTER(?n = "Alice") } } }')).toEqual([':alice -', ':bob -', ':carol -', ':dave -']);
  });
  it('handles nested OPTIONALs', async () => {
    expect(await rows('SELECT ?x ?y ?a { ?x :name ?n OPTIONAL { ?x :knows ?y OPTIONAL { ?y :age ?a } } }'))
      .toEqual([':alice :bob 25', ':alice :carol 35', ':bob :carol 35', ':carol - -', ':dave - -']);
  });
  it('concatenates UNION branches with duplicates', async () => {
    expect(await rows('SELECT ?x { { ?x :age 30 } UNION { ?x :knows :carol } }')).toEqual([':alice', ':alice', ':bob']);
  });
  it('removes compatible rows with MINUS', async () => {
    expect(await rows('SELECT ?x { ?x :name ?n MINUS { ?x :knows :carol } }')).toEqual([':carol', ':dave']);
  });
  it('MINUS with no shared variable removes nothing', async () => {
    expect(await rows('SELECT ?x { ?x :age ?a MINUS { ?y :knows :carol } }')).toEqual([':alice', ':bob', ':carol']);
  });
});

describe('EXISTS', () => {
  it('filters with EXISTS and NOT EXISTS', async () => {
    expect(await rows('SELECT ?x { ?x :name ?n FILTER EXISTS { ?x :knows ?y } }')).toEqual([':alice', ':bob']);
    expect(await rows('SELECT ?x { ?x :name ?n FILTER NOT EXISTS { ?x :knows ?y } }')).toEqual([':carol', ':dave']);
  });
  it('substitutes outer bindings inside the pattern, filters included', async () => {
    expect(await rows('SELECT ?x { ?x :age ?a FILTER EXISTS { ?y :age ?b FILTER(?b > ?a) } }')).toEqual([':alice', ':bob']);
  });
  it('evaluates EXISTS inside expressions', async () => {
    expect(await rows('SELECT ?x ?k { ?x :name ?n BIND(EXISTS { ?x :knows ?z } AS ?k) }')).toEqual([':alice true', ':bob true', ':carol false', ':dave false']);
  });
});

describe('subqueries and solution modifiers', () => {
  it('orders, slices and projects', async () => {
    expect(await rows('SELECT ?n { ?x :name ?n } ORDER BY DESC(?n) LIMIT 2 OFFSET 1', {}, false)).toEqual(['Carol', 'Bob']);
  });
  it('orders unbound first and by several keys', async () => {
    expect(await rows('SELECT ?x ?a { ?x :name ?n OPTIONAL { ?x :age ?a } } ORDER BY ?a ?x', {}, false)).toEqual([':dave -', ':bob 25', ':alice 30', ':carol 35']);
  });
  it('removes duplicates with DISTINCT', async () => {
    expect(await rows('SELECT DISTINCT ?y { ?x :knows ?y }')).toEqual([':bob', ':carol']);
  });
  it('scopes subquery variables', async () => {
    // The inner ?n is projected away, so the outer ?n is a different variable.
    expect(await rows('SELECT ?x ?n { { SELECT ?x { ?x :name ?n } } ?x :age ?n }')).toEqual([':alice 30', ':bob 25', ':carol 35']);
  });
  it('limits a subquery independently', async () => {
    expect(await rows('SELECT ?x ?a { { SELECT ?x { ?x :age ?z } ORDER BY ?x LIMIT 1 } ?x :age ?a }')).toEqual([':alice 30']);
  });
  it('ASK answers', async () => {
    const yes = await querySparql('PREFIX : <http://ex/> ASK { :alice :knows :bob }', { view });
    const no = await querySparql('PREFIX : <http://ex/> ASK { :bob :knows :alice }', { view });
    expect([yes, no]).toEqual([{ type: 'boolean', value: true }, { type: 'boolean', value: false }]);
  });
});

describe('graphs and datasets', () => {
  it('queries the default graph by default', async () => {
    expect(await rows('SELECT ?x { ?x :likes ?o }')).toEqual([]);
  });
  it('binds GRAPH variables over named graphs', async () => {
    expect(await rows('SELECT ?g ?x ?o { GRAPH ?g { ?x :likes ?o } }')).toEqual([':g1 :alice :tea', ':g1 :bob :coffee', ':g2 :alice :cake', ':g2 :carol :tea']);
  });
  it('queries one named graph', async () => {
    expect(await rows('SELECT ?x { GRAPH :g2 { ?x :likes :tea } }')).toEqual([':carol']);
  });
  it('evaluates GRAPH ?g per graph when the pattern may not bind from scans', async () => {
    expect(await rows('SELECT ?g ?n { GRAPH ?g { OPTIONAL { :bob :likes ?n } } }')).toEqual([':g1 :coffee', ':g2 -']);
  });
  it('joins graph data with default graph data', async () => {
    expect(await rows('SELECT ?n ?o { ?x :name ?n GRAPH :g1 { ?x :likes ?o } }')).toEqual(['Alice :tea', 'Bob :coffee']);
  });
  it('uses FROM as the default graph and FROM NAMED as the named graphs', async () => {
    expect(await rows('SELECT ?x ?o FROM :g1 FROM :g2 { ?x :likes ?o }')).toEqual([':alice :cake', ':alice :tea', ':bob :coffee', ':carol :tea']);
    expect(await rows('SELECT ?g FROM NAMED :g2 { GRAPH ?g { ?x ?p ?o } }')).toEqual([':g2', ':g2']);
  });
  it('merges several default graphs as a set', async () => {
    const v = viewFromRdf('@prefix : <http://ex/> . :a { :s :p :o } :b { :s :p :o . :s :p :o2 }');
    const r = await querySparql('SELECT ?o FROM <http://ex/a> FROM <http://ex/b> { ?s ?p ?o }', { view: v });
    expect((await collect((r as { rows: AsyncIterable<Record<string, Term>> }).rows)).map((b) => show(b.o)).sort()).toEqual([':o', ':o2']);
  });
});

describe('CONSTRUCT and DESCRIBE', () => {
  it('instantiates templates, skipping unbound and invalid triples', async () => {
    expect(await quads('CONSTRUCT { ?x :friend ?y . ?y :age ?a } WHERE { ?x :knows ?y OPTIONAL { ?y :age ?a } }'))
      .toEqual([':alice :friend :bob', ':alice :friend :carol', ':bob :age 25', ':bob :friend :carol', ':carol :age 35']);
  });
  it('makes template blank nodes fresh per solution', async () => {
    const r = await querySparql('PREFIX : <http://ex/> CONSTRUCT { _:b :of ?x } WHERE { ?x :age ?a }', { view });
    const qs = await collect((r as { quads: AsyncIterable<Quad> }).quads);
    expect(qs.length).toBe(3);
    expect(new Set(qs.map((q) => q.subject.value)).size).toBe(3);
  });
  it('supports CONSTRUCT WHERE (triples only)', async () => {
    expect(await quads('CONSTRUCT WHERE { ?x :age ?a }')).toEqual([':alice :age 30', ':bob :age 25', ':carol :age 35']);
    await expect(quads('CONSTRUCT WHERE { ?x :age ?a FILTER(?a > 30) }')).rejects.toThrow(/line 1, column 52/);
  });
  it('describes resources with their blank-node closure', async () => {
    const v = viewFromRdf('@prefix : <http://ex/> . :a :p [ :q [ :r 1 ] ] ; :s 2 . :b :p :a .');
    const r = await querySparql('DESCRIBE <http://ex/a>', { view: v });
    const qs = (await collect((r as { quads: AsyncIterable<Quad> }).quads)).map((x) => [x.subject, x.predicate, x.object].map(show).join(' ')).sort();
    expect(qs).toEqual(['1', ':a :p _:', ':a :s 2', '_: :q _:'].map((x) => (x === '1' ? '_: :r 1' : x)).sort());
  });
  it('describes variables bound by the WHERE clause', async () => {
    expect(await quads('DESCRIBE ?x WHERE { ?x :age 25 }')).toEqual([':bob :age 25', ':bob :knows :carol', ':bob :name Bob']);
  });
});

describe('planning', () => {
  it('starts with the most selective pattern and probes the rest', async () => {
    const plan = explainQuery(parseSparql('PREFIX : <http://ex/> SELECT * { ?x :name ?n . ?x :age 25 }'), { view });
    const age = view.dict.idOf({ termType: 'NamedNode', value: 'http://ex/age' });
    expect(plan.indexOf(`tp(?0 ${age} `)).toBeLessThan(plan.indexOf('tp(?0', plan.indexOf(`tp(?0 ${age} `) + 1));
    expect(plan).toContain('inl');
  });
  it('moves patterns after an OPTIONAL into its left side when that is safe', async () => {
    const plan = explainQuery(parseSparql('PREFIX : <http://ex/> SELECT * { ?x :name ?n OPTIONAL { ?x :age ?a } ?x :knows ?y }'), { view });
    // The root's projection runs without input: no hash join around it.
    expect(plan.startsWith('project(')).toBe(true);
    expect(plan).toMatch(/leftjoin\[seed\]\(seq\[/);
  });
});

describe('batched bindings', () => {
  it('gives the same solutions in the same order as the rows, a batch at a time', async () => {
    const q = 'PREFIX : <http://ex/> SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o';
    const a = await querySparql(q, { view });
    const b = await querySparql(q, { view });
    if (a.type !== 'bindings' || b.type !== 'bindings' || !b.batches) throw new Error('no batches');
    const rowsOut = await collect(a.rows);
    const batched = (await collect(b.batches)).flat();
    expect(rowsOut.length).toBeGreaterThan(3);
    expect(batched).toEqual(rowsOut);
  });
});
