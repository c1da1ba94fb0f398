import { afterEach, describe, expect, it } from 'vitest';
import { setInputLimits } from '../../limits.js';
import { parseSparql } from '../sparql/parse.js';
import { algebraShape, checkAlgebraShape, MAX_ALGEBRA_DEPTH } from './shape-limits.js';

const op = (q: string) => parseSparql(q).op;

describe('algebraShape', () => {
  afterEach(() => setInputLimits({}));

  it('counts triple patterns in every part of a query, paths included', () => {
    const q = op(`SELECT * WHERE { ?s <p:a> ?o ; <p:b> ?x . OPTIONAL { ?s <p:c>+ ?y } FILTER EXISTS { ?s <p:d> ?z } { ?a ?b ?c } UNION { ?d ?e ?f } }`);
    expect(algebraShape(q).patterns).toBe(6);
  });

  it('measures the depth of left-deep chains of OPTIONAL and ||', () => {
    const chain = (n: number) => op(`SELECT * WHERE { ?s ?p ?o ${'OPTIONAL { ?s ?q ?r } '.repeat(n)}}`);
    expect(algebraShape(chain(200)).depth - algebraShape(chain(100)).depth).toBe(100);
    const or = (n: number) => op(`SELECT * WHERE { ?s ?p ?o FILTER(${Array.from({ length: n }, (_, i) => `?o = ${i}`).join(' || ')}) }`);
    expect(algebraShape(or(200)).depth - algebraShape(or(100)).depth).toBe(100);
  });

  it('checks a repeated query (its shape measured once) against the limits in force at each check', () => {
    const q = op('SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }');
    expect(() => checkAlgebraShape(q)).not.toThrow();
    setInputLimits({ maxTriplePatterns: 2 });
    expect(() => checkAlgebraShape(q)).toThrow('the query has 3 triple patterns, more than allowed');
    setInputLimits({});
    expect(() => checkAlgebraShape(q)).not.toThrow();
  });

  it(`refuses more than --max-triple-patterns or --max-query-operators, and trees deeper than ${MAX_ALGEBRA_DEPTH}`, () => {
    setInputLimits({ maxTriplePatterns: 2 });
    expect(() => checkAlgebraShape(op('SELECT * { ?a ?b ?c . ?d ?e ?f }'))).not.toThrow();
    expect(() => checkAlgebraShape(op('SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }')))
      .toThrow('the query has 3 triple patterns, more than allowed (limit: 2, set by --max-triple-patterns)');
    setInputLimits({ maxQueryOperators: 10 });
    const unions = (n: number) => op(`SELECT ?x WHERE { ${Array.from({ length: n }, (_, i) => `{ BIND(${i} AS ?x) }`).join(' UNION ')} }`);
    expect(algebraShape(unions(4)).operators).toBe(1 + 1 + 4 * 2); // project, union, per branch: extend over unit
    expect(() => checkAlgebraShape(unions(4))).not.toThrow();
    expect(() => checkAlgebraShape(unions(5)))
      .toThrow('the query has 12 operators, more than allowed (limit: 10, set by --max-query-operators)');
    setInputLimits({});
    expect(() => checkAlgebraShape(op(`SELECT * WHERE { ?s ?p ?o ${'MINUS { ?s ?q 1 } '.repeat(MAX_ALGEBRA_DEPTH + 1)}}`)))
      .toThrow(`the query is nested too deeply: its operator and expression tree is more than ${MAX_ALGEBRA_DEPTH} levels deep`);
  });
});
