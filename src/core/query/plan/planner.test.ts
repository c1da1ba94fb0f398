import { describe, expect, it } from 'vitest';
import type { DbView } from '../../index/view.js';
import type { Op } from '../algebra/algebra.js';
import { explainQuery, parseSparql } from '../engine.js';
import { rewrite } from './rewrite.js';
import { quadSafe, seedable } from './seed.js';

const FIXTURE = '../../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const P = 'PREFIX : <http://ex/> ';
/** The WHERE pattern of a query (under its projection). */
function where(q: string): Op {
  const op = parseSparql(P + q).op;
  return op.type === 'project' ? op.input : op;
}

describe('seedable', () => {
  it('accepts patterns whose filters only read variables they always bind', () => {
    expect(seedable(where('SELECT * { ?x :p ?y FILTER(?y > 1) }'), new Set(['y']))).toBe(true);
  });
  it('rejects a filter reading a fed variable the pattern may not bind', () => {
    expect(seedable(where('SELECT * { ?x :p ?y FILTER(?z > 1) }'), new Set(['z']))).toBe(false);
    expect(seedable(where('SELECT * { ?x :p ?y FILTER(?z > 1) }'), new Set(['z']), true)).toBe(true);
  });
  it('rejects an optional side that could bind a fed variable the left side leaves open', () => {
    expect(seedable(where('SELECT * { ?x :p ?y OPTIONAL { ?x :q ?z } }'), new Set(['z']))).toBe(false);
    expect(seedable(where('SELECT * { ?x :p ?y OPTIONAL { ?x :q ?z } }'), new Set(['x']))).toBe(true);
  });
  it('never feeds scope-closing operators', () => {
    expect(seedable(where('SELECT * { { SELECT ?x { ?x :p ?y } LIMIT 1 } }'), new Set())).toBe(false);
  });
  it('rejects BIND to a fed variable', () => {
    expect(seedable(where('SELECT * { ?x :p ?y BIND(1 AS ?k) }'), new Set(['k']))).toBe(false);
  });
});

describe('quad mode for GRAPH ?g', () => {
  it('is safe for scan-bound patterns not reading ?g', () => {
    expect(quadSafe(where('SELECT * { ?x :p ?y OPTIONAL { ?y :q ?z } FILTER(?y != 1) }'), 'g')).toBe(true);
  });
  it('is unsafe when an expression reads ?g or a solution may come from no scan', () => {
    expect(quadSafe(where('SELECT * { ?x :p ?y FILTER(?g != 1) }'), 'g')).toBe(false);
    expect(quadSafe(where('SELECT * { OPTIONAL { ?x :p ?y } }'), 'g')).toBe(false);
    expect(quadSafe(where('SELECT * { VALUES ?x { 1 } }'), 'g')).toBe(false);
  });
});

describe('rewrites', () => {
  it('hoists a join into the left side of an OPTIONAL when shared variables are always bound there', () => {
    const op = rewrite(where('SELECT * { ?x :p ?y OPTIONAL { ?x :q ?z } ?x :r ?w }'));
    expect(op.type).toBe('leftjoin');
    expect(op.type === 'leftjoin' && op.left.type === 'bgp' && op.left.patterns.length).toBe(2);
  });
  it('does not hoist when the optional side may bind a variable the join needs', () => {
    const op = rewrite(where('SELECT * { ?x :p ?y OPTIONAL { ?x :q ?z } ?z :r ?w }'));
    expect(op.type).toBe('join');
  });
  it('pushes filter conjuncts on always-bound left variables below the OPTIONAL', () => {
    const op = rewrite(where('SELECT * { ?x :p ?y OPTIONAL { ?x :q ?z } FILTER(?y > 1 && !BOUND(?z)) }'));
    expect(op.type).toBe('filter');
    expect(op.type === 'filter' && op.input.type === 'leftjoin' && op.input.left.type).toBe('filter');
  });
});

describe('physical plans', () => {
  const triples: string[] = [];
  for (let i = 0; i < 200; i++) triples.push(`:s${i} :name "n${i}" ; :type :T${i % 4} .`);
  triples.push(':s7 :tag :rare .');
  const view = viewFromRdf('@prefix : <http://ex/> .\n' + triples.join('\n'));
  const plan = (q: string) => explainQuery(parseSparql(P + q), { view });
  const id = (local: string) => view.dict.idOf({ termType: 'NamedNode', value: 'http://ex/' + local });

  it('starts from the rarest pattern and probes the others per row', () => {
    expect(plan('SELECT * { ?s :name ?n . ?s :type ?t . ?s :tag :rare }'))
      .toBe(`project(0,1,2; seq[tp(?0 ${id('tag')} ${id('rare')}) inl ; tp(?0 ${id('name')} ?1) inl ; tp(?0 ${id('type')} ?2) inl])`);
  });
  it('hash-joins a pattern when the rows feeding it outnumber its size', () => {
    expect(plan('SELECT * { ?s :type :T1 . ?s :name ?n }'))
      .toBe(`project(0,1; seq[tp(?0 ${id('type')} ${id('T1')}) inl ; tp(?0 ${id('name')} ?1) hash keys=0])`);
  });
  it('places a filter right after the step that binds its variables', () => {
    const p = plan('SELECT * { ?s :tag :rare . ?s :name ?n . ?s :type ?t FILTER(?n != ?t) }');
    expect(p.indexOf('filter(')).toBeGreaterThan(p.indexOf(`tp(?0 ${id('type')}`));
  });
  it('fuses a one-variable filter into the pattern that binds the variable, as a per-fact check', () => {
    const p = plan('SELECT * { ?s :tag :rare . ?s :name ?n . ?s :type ?t FILTER(?n != "x") }');
    expect(p).toMatch(new RegExp(`tp\\(\\?0 ${id('name')} \\?\\d+\\) inl check\\(!=\\(\\?n, "x"\\)\\)`));
    expect(p).not.toContain('filter(');
  });
  it('passes a LIMIT down to the sort as top-k', () => {
    expect(plan('SELECT ?n { ?s :name ?n } ORDER BY ?n LIMIT 3')).toContain('orderby(1 keys, top 3;');
  });
});
