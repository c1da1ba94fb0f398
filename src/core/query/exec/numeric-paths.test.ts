import { describe, expect, it } from 'vitest';
import type { DbView } from '../../index/view.js';
import type { Term } from '../../rdf/terms.js';
import { querySparql } from '../engine.js';
import { collect } from '../results/types.js';

// The analytic fast paths (expr-memo.ts, expr-num.ts, fused checks, SUM/AVG on plain numbers)
// must give exactly the answers of the general evaluation, errors included.
const FIXTURE = '../../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const view = viewFromRdf(`
@prefix : <http://ex/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:a :price "1.5"^^:USD ; :kind :k1 ; :d "2008-02-03"^^xsd:date .
:b :price "2.25"^^:USD ; :kind :k1 ; :d "2008-03-01"^^xsd:date .
:c :price "abc" ; :kind :k2 ; :d "2008-02-28"^^xsd:date .
:e :price 3 ; :kind :k2 ; :d "2008-02-01T10:00:00"^^xsd:dateTime .
:f :price "0.1"^^xsd:float ; :kind :k3 .
:g :price "0.2"^^xsd:double ; :kind :k3 .
:h :price <http://ex/iri> ; :kind :k4 .
`);

const show = (t: Term | undefined) => (t ? t.value.replace('http://ex/', ':') + (t.termType === 'Literal' ? '^^' + t.datatype.value.replace(/.*#/, '') : '') : '-');

async function rows(q: string): Promise<string[]> {
  const r = await querySparql('PREFIX : <http://ex/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> ' + q, { view });
  if (r.type !== 'bindings') throw new Error('not bindings');
  return (await collect(r.rows)).map((b) => r.variables.map((v) => show(b[v])).join(' ')).sort();
}

describe('numbers between operators without literals', () => {
  it('compares a float cast of STR() with a constant; a failed cast drops the row', async () => {
    expect(await rows('SELECT ?x { ?x :price ?p FILTER(xsd:float(str(?p)) < 2.5e0) }')).toEqual([':a', ':b', ':f', ':g']);
    expect(await rows('SELECT ?x { ?x :price ?p FILTER(xsd:double(?p) >= 2.25e0) }')).toEqual([':e']);
  });
  it('falls back to the general comparison for non-float operands (a decimal constant)', async () => {
    expect(await rows('SELECT ?x { ?x :price ?p FILTER(xsd:float(str(?p)) < 2.5) }')).toEqual([':a', ':b', ':f', ':g']);
  });
  it('sums float casts as floats and double casts as doubles (canonical forms)', async () => {
    expect(await rows('SELECT ?k (SUM(xsd:float(str(?p))) AS ?s) { ?x :price ?p ; :kind ?k } GROUP BY ?k')).toEqual([
      ':k1 3.75E0^^float', ':k2 -', ':k3 3.0E-1^^float', ':k4 -',
    ]);
    expect(await rows('SELECT ?k (AVG(xsd:double(str(?p))) AS ?s) { ?x :price ?p ; :kind ?k FILTER(?k != :k2) } GROUP BY ?k')).toEqual([
      ':k1 1.875E0^^double', ':k3 1.5000000000000002E-1^^double', ':k4 -',
    ]);
  });
  it('mixes a float sum with an integer and a double input as the + operator does', async () => {
    expect(await rows('SELECT (SUM(?v) AS ?s) { VALUES ?v { "0.5"^^xsd:float 2 "0.25"^^xsd:double } }')).toEqual(['2.75E0^^double']);
    expect(await rows('SELECT (SUM(xsd:float(?v)) AS ?s) { VALUES ?v { 1 2 } }')).toEqual(['3.0E0^^float']);
  });
  it('filters a date range per fact, with dateTime and date values compared as SPARQL does', async () => {
    expect(await rows('SELECT ?x { ?x :d ?d FILTER(?d >= "2008-02-01"^^xsd:date && ?d < "2008-03-01"^^xsd:date) }')).toEqual([':a', ':c']);
  });
  it('fuses filters on two variables of one pattern, each answered per id of its own variable', async () => {
    expect(await rows('SELECT ?x ?k { ?x :kind ?k FILTER(?k != :k1 && ?x != :c && !isLiteral(?k)) }')).toEqual([
      ':e :k2', ':f :k3', ':g :k3', ':h :k4',
    ]);
  });
  it('memoises per id but not across volatile functions', async () => {
    const r = await rows('SELECT (COUNT(DISTINCT ?r) AS ?n) { ?x :kind ?k BIND(CONCAT(STR(?k), STR(RAND())) AS ?r) }');
    expect(r).toEqual(['7^^integer']);
  });
});
