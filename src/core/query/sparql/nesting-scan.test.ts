import { afterEach, describe, expect, it } from 'vitest';
import { setInputLimits } from '../../limits.js';
import { checkSparqlNesting, sparqlNestingDepth } from './nesting-scan.js';

describe('sparqlNestingDepth', () => {
  it('counts { } ( ) and [ ] together', () => {
    expect(sparqlNestingDepth('SELECT * WHERE { ?s ?p ?o }')).toBe(1);
    expect(sparqlNestingDepth('SELECT * WHERE { { ?s ?p [ ?q (1 2) ] } FILTER((?o)) }')).toBe(4);
    expect(sparqlNestingDepth('{ } { } { }')).toBe(1);
  });

  it('skips strings (short, long, escaped), IRIs and comments', () => {
    expect(sparqlNestingDepth('{ ?s ?p "{{{(((" }')).toBe(1);
    expect(sparqlNestingDepth("{ ?s ?p '''{{\n{'''' }")).toBe(1);
    expect(sparqlNestingDepth('{ ?s ?p "a\\"{{{" }')).toBe(1);
    expect(sparqlNestingDepth('{ <http://x/(a)[b]> ?p ?o }')).toBe(1);
    expect(sparqlNestingDepth('{ ?s ?p ?o } # {{{{{{\n')).toBe(1);
  });

  it('reads < that is not an IRI as an operator, so brackets after it count', () => {
    expect(sparqlNestingDepth('{ FILTER(?a < ((1))) }')).toBe(4);
    expect(sparqlNestingDepth('{ FILTER(?a < 2 && ?b > 1) }')).toBe(2);
  });

  it('keeps counting past an unterminated string (never under-counts)', () => {
    expect(sparqlNestingDepth('{ "abc\n {{ }')).toBe(3);
  });

  it('stops once past the limit', () => {
    expect(sparqlNestingDepth('{'.repeat(1e6), 10)).toBe(11);
  });
});

describe('checkSparqlNesting', () => {
  afterEach(() => setInputLimits({}));

  it('refuses text nested past the limit with a 400 naming the flag', () => {
    setInputLimits({ maxNestingDepth: 3 });
    expect(() => checkSparqlNesting('{{{ }}}')).not.toThrow();
    expect(() => checkSparqlNesting('{{{{ }}}}', 'the query')).toThrow('the query is nested too deeply in { }, ( ) or [ ] (limit: 3, set by --max-nesting-depth)');
  });

  it('also counts brackets written as codepoint escapes, which SPARQL decodes before tokenizing', () => {
    setInputLimits({ maxNestingDepth: 3 });
    expect(() => checkSparqlNesting('\\u007B\\u007B{{ }}}}')).toThrow('nested too deeply');
  });
});
