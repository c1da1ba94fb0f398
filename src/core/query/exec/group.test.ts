import { describe, expect, it } from 'vitest';
import type { DbView } from '../../index/view.js';
import type { Term } from '../../rdf/terms.js';
import { querySparql } from '../engine.js';
import { collect } from '../results/types.js';

const FIXTURE = '../../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const view = viewFromRdf(`
@prefix : <http://ex/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:o1 :cust :c1 ; :total 10 ; :tag "a" .
:o2 :cust :c1 ; :total 20 ; :tag "b" .
:o3 :cust :c2 ; :total 5 ; :tag "a" .
:o4 :cust :c2 ; :total "x" .
:o5 :cust :c3 .
`);

const show = (t: Term | undefined) => (t ? t.value.replace('http://ex/', ':') : '-');

async function rows(q: string): Promise<string[]> {
  const r = await querySparql('PREFIX : <http://ex/> ' + q, { view });
  if (r.type !== 'bindings') throw new Error('not bindings');
  return (await collect(r.rows)).map((b) => r.variables.map((v) => show(b[v])).join(' ')).sort();
}

describe('grouping and aggregates', () => {
  it('counts per group', async () => {
    expect(await rows('SELECT ?c (COUNT(?o) AS ?n) { ?o :cust ?c } GROUP BY ?c')).toEqual([':c1 2', ':c2 2', ':c3 1']);
  });
  it('COUNT counts bound values only; COUNT(*) counts rows', async () => {
    expect(await rows('SELECT ?c (COUNT(?t) AS ?n) (COUNT(*) AS ?all) { ?o :cust ?c OPTIONAL { ?o :total ?t } } GROUP BY ?c')).toEqual([':c1 2 2', ':c2 2 2', ':c3 0 1']);
  });
  it('sums and averages; an error leaves the aggregate unbound', async () => {
    expect(await rows('SELECT ?c (SUM(?t) AS ?s) (AVG(?t) AS ?a) { ?o :cust ?c ; :total ?t } GROUP BY ?c')).toEqual([':c1 30 15.0', ':c2 - -']);
  });
  it('takes MIN, MAX and SAMPLE', async () => {
    expect(await rows('SELECT (MIN(?t) AS ?lo) (MAX(?t) AS ?hi) { ?o :total ?t FILTER(isNumeric(?t)) }')).toEqual(['5 20']);
    expect(await rows('SELECT ?c (SAMPLE(?t) AS ?s) { ?o :cust ?c ; :total ?t FILTER(?c = :c1 && ?t = 10) } GROUP BY ?c')).toEqual([':c1 10']);
  });
  it('concatenates with a separator, distinct values once', async () => {
    expect(await rows('SELECT (GROUP_CONCAT(DISTINCT ?g; SEPARATOR="|") AS ?all) { ?o :tag ?g }')).toEqual(['a|b']);
  });
  it('counts distinct values and distinct solutions', async () => {
    expect(await rows('SELECT (COUNT(DISTINCT ?g) AS ?n) (COUNT(DISTINCT *) AS ?m) { ?o :tag ?g }')).toEqual(['2 3']);
  });
  it('forms one group over no rows without GROUP BY, none with it', async () => {
    expect(await rows('SELECT (COUNT(*) AS ?n) (SUM(?x) AS ?s) (MAX(?x) AS ?m) { ?o :nothing ?x }')).toEqual(['0 0 -']);
    expect(await rows('SELECT ?o (COUNT(*) AS ?n) { ?o :nothing ?x } GROUP BY ?o')).toEqual([]);
  });
  it('groups by expressions, with HAVING and ORDER BY on aggregates', async () => {
    expect(await rows('SELECT ?k (COUNT(*) AS ?n) { ?o :tag ?g } GROUP BY (UCASE(?g) AS ?k) HAVING (COUNT(*) > 1)')).toEqual(['A 2']);
    const r = await querySparql('PREFIX : <http://ex/> SELECT ?c { ?o :cust ?c } GROUP BY ?c ORDER BY DESC(COUNT(?o)) ?c', { view });
    expect((await collect((r as { rows: AsyncIterable<Record<string, Term>> }).rows)).map((b) => show(b.c))).toEqual([':c1', ':c2', ':c3']);
  });
  it('uses aggregates in select expressions', async () => {
    expect(await rows('SELECT ?c ((SUM(?t) * 2) AS ?d) { ?o :cust ?c ; :total ?t FILTER(isNumeric(?t)) } GROUP BY ?c')).toEqual([':c1 60', ':c2 10']);
  });
  it('MIN, MAX and SAMPLE return the selected term as written; SUM and AVG are canonical', async () => {
    const nums = viewFromRdf(`
@prefix : <http://ex/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:a :d 2E-1 , 2.2 , "1.0E2"^^xsd:double .
:b :d "007"^^xsd:integer , 1.50 .
`);
    const q = async (text: string) => {
      const r = await querySparql('PREFIX : <http://ex/> ' + text, { view: nums });
      if (r.type !== 'bindings') throw new Error('not bindings');
      return (await collect(r.rows)).map((b) => r.variables.map((v) => show(b[v])).join(' ')).sort();
    };
    expect(await q('SELECT ?s (MIN(?v) AS ?lo) (MAX(?v) AS ?hi) { ?s :d ?v } GROUP BY ?s')).toEqual([':a 2E-1 1.0E2', ':b 1.50 007']);
    expect(await q('SELECT (SAMPLE(?v) AS ?x) { :b :d ?v FILTER(?v > 2) }')).toEqual(['007']);
    // The selected term joins back with the data it came from.
    expect(await q('SELECT ?s { { SELECT (MIN(?v) AS ?m) { ?x :d ?v } } ?s :d ?m }')).toEqual([':a']);
    expect(await q('SELECT (SUM(?v) AS ?s) (AVG(?v) AS ?a) { :a :d ?v FILTER(datatype(?v) = <http://www.w3.org/2001/XMLSchema#double>) }')).toEqual(['1.002E2 5.01E1']);
    expect(await q('SELECT (SUM(?v) AS ?s) (AVG(?v) AS ?a) { :b :d ?v }')).toEqual(['8.5 4.25']);
  });
  it('a count shared by several groups is one term; GROUP_CONCAT of nothing is the empty string', async () => {
    expect(await rows('SELECT ?c (COUNT(?o) AS ?n) (?n AS ?m) (SAMPLE(?n) AS ?s) { ?o :cust ?c } GROUP BY ?c HAVING (COUNT(?o) = 2)')).toEqual([':c1 2 2 -', ':c2 2 2 -']);
    expect(await rows('SELECT (GROUP_CONCAT(?t) AS ?g) (COUNT(?t) AS ?n) { ?o :none ?t }')).toEqual([' 0']);
  });
  it('a select expression that is a plain variable copies it, unbound or bound', async () => {
    expect(await rows('SELECT ?o (?t AS ?u) (?u AS ?v) { ?o :cust ?c OPTIONAL { ?o :total ?t } }')).toEqual([':o1 10 10', ':o2 20 20', ':o3 5 5', ':o4 x x', ':o5 - -']);
    expect(await rows('SELECT ?o ?c { ?o :cust ?c BIND(?c AS ?d) FILTER(?d = :c2) }')).toEqual([':o3 :c2', ':o4 :c2']);
  });
  it('joins a grouped subquery with the outer pattern', async () => {
    expect(await rows('SELECT ?o ?n { ?o :cust ?c { SELECT ?c (COUNT(*) AS ?n) { ?x :cust ?c } GROUP BY ?c } } ')).toEqual([':o1 2', ':o2 2', ':o3 2', ':o4 2', ':o5 1']);
  });
});
