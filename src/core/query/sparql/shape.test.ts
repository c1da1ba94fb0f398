import { describe, expect, it } from 'vitest';
import { parseSparql } from './parse.js';
import { bindShape, sameAlgebra, sparqlShape } from './shape.js';

const lifted = (text: string) => sparqlShape(text)?.iris ?? [];

describe('sparqlShape', () => {
  it('lifts absolute IRIs in term positions, in order', () => {
    expect(lifted('SELECT ?o WHERE { <http://ex/a> <http://ex/p> ?o FILTER(?o != <urn:x:1>) }')).toEqual(['http://ex/a', 'http://ex/p', 'urn:x:1']);
    const a = sparqlShape('SELECT * { <http://ex/a> ?p ?o }')!, b = sparqlShape('SELECT * { <http://ex/b> ?p ?o }')!;
    expect(a.text).toBe(b.text);
  });

  it('leaves IRIs that steer the parse, and text inside strings and comments', () => {
    expect(lifted('PREFIX ex: <http://ex/> BASE <http://base/> SELECT * { ?s ?p "1"^^<http://ex/dt> }')).toEqual([]);
    expect(lifted('PREFIX : <http://ex/> SELECT * { ?s ?p ?o }')).toEqual([]);
    expect(lifted('SELECT (<http://www.w3.org/2001/XMLSchema#integer>(?o) AS ?i) { ?s ?p ?o }')).toEqual([]);
    expect(lifted('SELECT * { ?s ?p "<http://ex/in-string>", """<http://ex/long "> """, \'<http://ex/single>\' }')).toEqual([]);
    expect(lifted('SELECT * { ?s ?p ?o } # <http://ex/comment>\n')).toEqual([]);
    expect(lifted('SELECT * { ?s ?p <relative> }')).toEqual([]);
    expect(lifted('SELECT * { ?s ?p <http://ex/\\u0041> }')).toEqual([]);
    expect(sparqlShape('SELECT * { ?s ?p ?o }')).toBeNull();
  });

  const QUERIES = [
    'SELECT ?p ?o WHERE { <http://ex/product/1> ?p ?o }',
    'SELECT * FROM <http://ex/g1> FROM NAMED <http://ex/g2> WHERE { GRAPH <http://ex/g2> { ?s <http://ex/p>+ ?o } }',
    'SELECT * { VALUES ?x { <http://ex/a> <http://ex/b> } ?x ?p ?o FILTER(?o IN (<http://ex/c>, "x")) OPTIONAL { ?o !(<http://ex/q>|^<http://ex/r>) ?z } }',
    'CONSTRUCT { <http://ex/s> <http://ex/p> ?o } WHERE { ?x <http://ex/p> ?o }',
    'DESCRIBE <http://ex/a> ?x WHERE { ?x <http://ex/p> [ <http://ex/q> ?y ] }',
    'ASK { <http://ex/a> <http://ex/p> "chat"@fr, "1"^^<http://www.w3.org/2001/XMLSchema#integer> }',
    'SELECT (COUNT(*) AS ?n) { ?s a <http://ex/C> } GROUP BY ?s HAVING (?s != <http://ex/x>)',
    'SELECT ?o { ?s ?p ?o FILTER(?o < 3 && ?s = <http://ex/a>) } ORDER BY DESC(?o) LIMIT 2',
  ];
  for (const q of QUERIES) {
    it(`binds a shape's algebra to the same algebra as parsing the text: ${q.slice(0, 60)}`, () => {
      const shape = sparqlShape(q)!;
      expect(shape).not.toBeNull();
      const bound = bindShape(parseSparql(shape.text), shape.iris);
      expect(sameAlgebra(bound, parseSparql(q))).toBe(true);
      expect(bound).toEqual(parseSparql(q));
      // Another text of the same shape gets its own IRIs.
      const other = q.replace(/http:\/\/ex\//g, 'http://other.example/');
      const s2 = sparqlShape(other)!;
      expect(s2.text).toBe(shape.text);
      expect(bindShape(parseSparql(shape.text), s2.iris)).toEqual(parseSparql(other));
    });
  }

  it('sameAlgebra tells different algebra apart', () => {
    expect(sameAlgebra(parseSparql('SELECT * { ?s ?p <http://ex/a> }'), parseSparql('SELECT * { ?s ?p <http://ex/b> }'))).toBe(false);
    expect(sameAlgebra({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(sameAlgebra({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toBe(false);
    expect(sameAlgebra({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  });
});
