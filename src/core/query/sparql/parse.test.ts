import { describe, expect, it } from 'vitest';
import { LedgraphError } from '../../errors.js';
import type { Op } from '../algebra/algebra.js';
import { parseSparql, parseSparqlSliced } from './parse.js';

const P = 'PREFIX : <http://ex/> ';

function rejects(q: string): LedgraphError {
  try {
    parseSparql(q);
  } catch (e) {
    expect(e).toBeInstanceOf(LedgraphError);
    const err = e as LedgraphError;
    expect(err.status).toBe(400);
    expect(err.type).toBe('err:db/BadRequest');
    return err;
  }
  throw new Error('expected a rejection: ' + q);
}

/** The algebra with terms shortened, for exact shape assertions. */
function shape(op: Op): unknown {
  return JSON.parse(JSON.stringify(op, (_k, v: unknown) => {
    if (v && typeof v === 'object' && 'termType' in v) {
      const t = v as { termType: string; value: string };
      return t.termType === 'Variable' ? '?' + t.value : t.termType === 'NamedNode' ? t.value.replace('http://ex/', ':') : t.value;
    }
    return v;
  }));
}

describe('syntax errors', () => {
  it('names line and column', () => {
    expect(rejects('SELECT *\nWHERE { ?s ?p }').message).toBe("Invalid SPARQL query: syntax error at line 2, column 15: expected a variable or an RDF term, found \"}\"");
  });
  it('reports unknown prefixes with their position', () => {
    expect(rejects('SELECT * {\n  ?s foo:bar ?o }').message).toBe('Invalid SPARQL query: syntax error at line 2, column 6: unknown prefix "foo:"');
  });
  it('rejects invalid codepoint escapes', () => {
    expect(rejects("SELECT * { ?s ?p '\\uD800' }").message).toMatch(/invalid codepoint escape/);
  });
  it('rejects UPDATE text', () => {
    expect(rejects('INSERT DATA { <a:b> <a:c> <a:d> }').message).toBe('Invalid SPARQL query: this is a SPARQL UPDATE request, not a query');
  });
  it('rejects VALUES rows of the wrong length', () => {
    expect(rejects('SELECT * { VALUES (?a ?b) { (1) } }').message).toMatch(/1 values for 2 variables/);
  });
  it('keeps relative IRIs as written without a base (ledger names in FROM)', () => {
    const q = parseSparql('SELECT * FROM <crm> { ?s <p> ?o }');
    expect(q.dataset?.defaultGraphs.map((g) => g.value)).toEqual(['crm']);
  });
});

describe('static errors', () => {
  it('rejects projecting an ungrouped variable', () => {
    expect(rejects('SELECT ?o { ?s ?p ?o } GROUP BY ?s').message).toBe('Invalid SPARQL query: projection of ungrouped variable ?o');
    expect(rejects('SELECT (?o + 1 AS ?x) { ?s ?p ?o } GROUP BY ?s').message).toBe('Invalid SPARQL query: projection of ungrouped variable ?o');
  });
  it('rejects SELECT * with grouping', () => {
    expect(rejects('SELECT * { ?s ?p ?o } GROUP BY ?s').message).toMatch(/SELECT \* is not allowed/);
  });
  it('rejects aggregates outside SELECT, HAVING and ORDER BY', () => {
    expect(rejects('SELECT ?s { ?s ?p ?o FILTER(COUNT(?o) > 1) }').message).toMatch(/aggregate COUNT is not allowed here/);
    expect(rejects('SELECT (COUNT(?o) AS ?c) { ?s ?p ?o } GROUP BY (SUM(?o))').message).toMatch(/not allowed/);
  });
  it('rejects nested aggregates', () => {
    expect(rejects('SELECT (SUM(COUNT(?o)) AS ?c) { ?s ?p ?o }').message).toMatch(/cannot be nested/);
  });
  it('rejects BIND to a variable already in scope', () => {
    expect(rejects(P + 'SELECT * { :s :p ?o . :s :q ?o1 . BIND((1 + ?o) AS ?o1) }').message).toMatch(/BIND to variable \?o1/);
    expect(rejects(P + 'SELECT * { { :s :p ?Y } UNION { :s :p ?Z } BIND(1 AS ?Y) }').message).toMatch(/BIND to variable \?Y/);
  });
  it('rejects SELECT ... AS ?x when ?x is in scope', () => {
    expect(rejects('SELECT (1 AS ?x) { ?x ?p ?o }').message).toMatch(/rebinds a variable/);
    expect(rejects('SELECT (1 AS ?X) (2 AS ?X) {}').message).toMatch(/rebinds a variable/);
  });
  it('translates SERVICE into a remote SELECT of its group; a variable endpoint is refused', () => {
    const q = parseSparql('SELECT * { ?s <http://x/p> ?o SERVICE SILENT <http://x/sparql> { ?s <http://x/q> ?v . _:b <http://x/r> ?v } }');
    const op = (q.op as { input: { inputs: unknown[] } }).input.inputs[1];
    expect(op).toEqual({
      type: 'service', endpoint: { termType: 'NamedNode', value: 'http://x/sparql' }, silent: true, variables: ['s', 'v'],
      query: 'SELECT * WHERE {\n  ?s <http://x/q> ?v.\n  _:b0 <http://x/r> ?v.\n}',
    });
    expect(rejects('SELECT * { SERVICE ?e { ?s ?p ?o } }').message).toMatch(/SERVICE with a variable endpoint is not supported/);
  });
});

describe('translation (§18.2)', () => {
  it('puts OPTIONAL filters into the left join', () => {
    const q = parseSparql(P + 'SELECT * { ?x :p ?y OPTIONAL { ?y :q ?z FILTER(?z > 1) } }');
    expect(shape(q.op)).toEqual({
      type: 'project', variables: ['x', 'y', 'z'],
      input: {
        type: 'leftjoin',
        left: { type: 'bgp', patterns: [{ s: '?x', p: ':p', o: '?y' }] },
        right: { type: 'bgp', patterns: [{ s: '?y', p: ':q', o: '?z' }] },
        expr: { type: 'call', fn: '>', args: [{ type: 'var', name: 'z' }, { type: 'term', term: '1' }] },
      },
    });
  });
  it('scopes group filters over the whole group', () => {
    const q = parseSparql(P + 'SELECT ?x { FILTER(?y) ?x :p ?y }');
    expect(shape(q.op)).toEqual({
      type: 'project', variables: ['x'],
      input: { type: 'filter', expr: { type: 'var', name: 'y' }, input: { type: 'bgp', patterns: [{ s: '?x', p: ':p', o: '?y' }] } },
    });
  });
  it('expands sequence paths through hidden variables and keeps closures as path operators', () => {
    const q = parseSparql(P + 'SELECT * { ?a :p/^:q/:r* ?b }');
    expect(shape(q.op)).toEqual({
      type: 'project', variables: ['a', 'b'],
      input: {
        type: 'join', inputs: [
          { type: 'bgp', patterns: [{ s: '?a', p: ':p', o: '?#p0' }, { s: '?#p1', p: ':q', o: '?#p0' }] },
          { type: 'path', s: '?#p1', path: { type: 'zeroOrMore', path: { type: 'link', iri: ':r' } }, o: '?b' },
        ],
      },
    });
  });
  it('rewrites aggregates into a group with hidden variables', () => {
    const q = parseSparql(P + 'SELECT ?x (COUNT(*) AS ?n) { ?x :p ?y } GROUP BY ?x HAVING (SUM(?y) > 2) ORDER BY DESC(?n)');
    expect(shape(q.op)).toEqual({
      type: 'project', variables: ['x', 'n'],
      input: {
        type: 'orderby', keys: [{ expr: { type: 'var', name: 'n' }, desc: true }],
        input: {
          type: 'extend', variable: 'n', expr: { type: 'var', name: '#agg0' },
          input: {
            type: 'filter', expr: { type: 'call', fn: '>', args: [{ type: 'var', name: '#agg1' }, { type: 'term', term: '2' }] },
            input: {
              type: 'group', keys: [{ expr: { type: 'var', name: 'x' }, variable: 'x' }],
              aggregates: [
                { variable: '#agg0', agg: { name: 'count', distinct: false } },
                { variable: '#agg1', agg: { name: 'sum', distinct: false, expr: { type: 'var', name: 'y' } } },
              ],
              input: { type: 'bgp', patterns: [{ s: '?x', p: ':p', o: '?y' }] },
            },
          },
        },
      },
    });
  });
  it('records the dataset, base and pragmas', () => {
    const q = parseSparql('# PRAGMA max-fuel 1000\n# pragma identity <http://ex/me>\nBASE <http://b/> SELECT * FROM <g1> FROM NAMED <g2> { ?s ?p ?o }');
    expect({ ds: q.dataset && shape(q.dataset as never), base: q.base, fuel: q.maxFuel, pragmas: q.pragmas }).toEqual({
      ds: { defaultGraphs: ['http://b/g1'], namedGraphs: ['http://b/g2'] },
      base: 'http://b/',
      fuel: 1000,
      pragmas: { 'max-fuel': '1000', identity: '<http://ex/me>' },
    });
  });
  it('rejects a malformed max-fuel pragma', () => {
    expect(rejects('# PRAGMA max-fuel lots\nSELECT * {}').message).toMatch(/max-fuel needs a non-negative integer/);
  });
});

describe('parseSparqlSliced', () => {
  /** parseSparqlSliced, counting the event loop's turns meanwhile. */
  async function slicedWithTurns(text: string): Promise<{ q: Awaited<ReturnType<typeof parseSparqlSliced>>; turns: number }> {
    let turns = 0, stop = false;
    const tick = () => { turns++; if (!stop) setImmediate(tick); };
    setImmediate(tick);
    try {
      return { q: await parseSparqlSliced(text), turns };
    } finally { stop = true; }
  }

  it('parses a long text as parseSparql does, letting the event loop run while it tokenizes', async () => {
    const values = Array.from({ length: 40_000 }, (_, i) => `"v${i}"`).join(' ');
    const text = `SELECT ?x WHERE { ?x <http://ex/p> ?o } LIMIT 1 VALUES ?o { ${values} }`;
    expect(text.length).toBeGreaterThan(16 * 1024);
    const { q, turns } = await slicedWithTurns(text);
    expect(q).toEqual(parseSparql(text));
    expect(turns).toBeGreaterThan(0);
  });

  it('parses and translates a long UNION chain in steps, as parseSparql does', async () => {
    const branches = Array.from({ length: 3000 }, (_, i) => `{ BIND("u${i}" AS ?x) } UNION { ?x <http://ex/p${i}> [ <http://ex/q> _:b${i} ] }`);
    const text = `SELECT ?x WHERE { ${branches.join(' UNION ')} FILTER(?x != "u0") } ORDER BY ?x LIMIT 1`;
    expect(text.length).toBeGreaterThan(16 * 1024);
    const { q, turns } = await slicedWithTurns(text);
    expect(q).toEqual(parseSparql(text));
    // Tokenizing alone takes a few turns; the grammar and the translation take many more.
    expect(turns).toBeGreaterThan(10);
  });

  it('refuses a long text nested past the limit, and a label used in two BGPs, as parseSparql does', async () => {
    const deep = 'SELECT * WHERE ' + '{ '.repeat(200) + '?s ?p ?o ' + '} '.repeat(200) + '#'.repeat(17 * 1024);
    await expect(parseSparqlSliced(deep)).rejects.toThrow(/nested too deeply/);
    const twice = `SELECT * WHERE { _:b <http://ex/p> ?o FILTER(true) _:b <http://ex/q> ?o } #${'x'.repeat(17 * 1024)}`;
    await expect(parseSparqlSliced(twice)).rejects.toThrow(/blank node label _:b is used in two basic graph patterns/);
  });

  it('refuses a long invalid text with the fast parser\'s position', async () => {
    const text = `SELECT * WHERE { ${'?s <http://ex/p> ?o . '.repeat(1000)} ?s ?p }`;
    await expect(parseSparqlSliced(text)).rejects.toThrow(/syntax error at line 1, column \d+/);
  });
});
