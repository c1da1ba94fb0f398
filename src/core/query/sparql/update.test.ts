import { describe, expect, it } from 'vitest';
import { isLedgraphError } from '../../errors.js';
import { blankNode, defaultGraph, literal, namedNode, variable } from '../../rdf/terms.js';
import type { TxnRequest, UpdateOperation } from '../../transact/txn-request.js';
import { xsd } from '../../rdf/vocab.js';
import { parseSparqlUpdate, parseSparqlUpdateSliced, type UpdateParseOptions } from './update.js';

const P = 'PREFIX : <http://ex/>\n';
const ex = (l: string) => namedNode(`http://ex/${l}`);
const int = (n: number) => literal(String(n), namedNode(xsd.integer));

function ops(text: string, opts?: UpdateParseOptions): UpdateOperation[] {
  const req = parseSparqlUpdate(P + text, opts);
  if (req.kind !== 'sparql-update') throw new Error('not a sparql-update request');
  return req.ops;
}

function rejects(text: string, pattern: RegExp, opts?: UpdateParseOptions): void {
  let err: unknown;
  try { parseSparqlUpdate(text, opts); } catch (e) { err = e; }
  expect(isLedgraphError(err), `expected a LedgraphError for ${text}`).toBe(true);
  const e = err as { status: number; type: string; message: string };
  expect(e.status).toBe(400);
  expect(e.type).toBe('err:db/BadRequest');
  expect(e.message).toMatch(pattern);
}

describe('parseSparqlUpdate: request shape', () => {
  it('returns one sparql-update request with no meta or opts', () => {
    const req: TxnRequest = parseSparqlUpdate(P + 'INSERT DATA { :a :p 1 }');
    expect(req).toEqual({ kind: 'sparql-update', ops: [{ type: 'insertData', quads: [{ subject: ex('a'), predicate: ex('p'), object: int(1), graph: defaultGraph }] }], meta: [], opts: {} });
  });

  it('an empty request or one with only a prologue has no operations', () => {
    expect(parseSparqlUpdate('')).toEqual({ kind: 'sparql-update', ops: [], meta: [], opts: {} });
    expect(ops('')).toEqual([]);
  });

  it('resolves relative IRIs against the base (and a BASE in the text)', () => {
    expect(parseSparqlUpdate('INSERT DATA { <a> <p> <b> }', { baseIri: 'http://base/x/' })).toMatchObject({
      ops: [{ quads: [{ subject: namedNode('http://base/x/a'), predicate: namedNode('http://base/x/p'), object: namedNode('http://base/x/b') }] }],
    });
    expect(parseSparqlUpdate('BASE <http://other/> INSERT DATA { <a> <p> <b> }', { baseIri: 'http://base/' })).toMatchObject({
      ops: [{ quads: [{ subject: namedNode('http://other/a') }] }],
    });
  });

  it('the same text gives the same request (generated blank node labels restart)', () => {
    const text = P + 'INSERT DATA { :a :p [ :q ( 1 2 ) ] }';
    expect(parseSparqlUpdate(text)).toEqual(parseSparqlUpdate(text));
  });
});

describe('INSERT DATA / DELETE DATA', () => {
  it('routes GRAPH blocks into named graphs', () => {
    expect(ops('INSERT DATA { :a :p "x"@en . GRAPH :g { :a :q :b } }')).toEqual([{ type: 'insertData', quads: expect.arrayContaining([
      { subject: ex('a'), predicate: ex('p'), object: literal('x', 'en'), graph: defaultGraph },
      { subject: ex('a'), predicate: ex('q'), object: ex('b'), graph: ex('g') },
    ]) }]);
    expect(ops('DELETE DATA { GRAPH :g { :a :q :b } :a :p 2 }')).toEqual([{ type: 'deleteData', quads: expect.arrayContaining([
      { subject: ex('a'), predicate: ex('q'), object: ex('b'), graph: ex('g') },
      { subject: ex('a'), predicate: ex('p'), object: int(2), graph: defaultGraph },
    ]) }]);
  });

  it('keeps blank node labels, scoped to the operation; [] and lists get generated labels', () => {
    const [op] = ops('INSERT DATA { _:x :p [ :q 1 ] . GRAPH :g { _:x :r :c } }');
    if (op?.type !== 'insertData') throw new Error('insertData expected');
    const subjects = op.quads.map((q) => q.subject.value);
    expect(subjects).toContain('op1-x');
    const anon = op.quads.find((q) => q.predicate.value === 'http://ex/p')!.object;
    expect(anon.termType).toBe('BlankNode');
    expect(anon.value).toMatch(/^op1_\d+$/);
    // The same label in two GRAPH blocks of one INSERT DATA is one node.
    expect(op.quads.filter((q) => q.subject.value === 'op1-x')).toHaveLength(2);
  });

  it('prefixes labels with the operation number', () => {
    const [, , third] = ops('CLEAR DEFAULT ; INSERT DATA { _:a :p 1 } ; INSERT DATA { :z :p [] }');
    expect(third).toMatchObject({ type: 'insertData', quads: [{ object: { termType: 'BlankNode', value: expect.stringMatching(/^op3_/) } }] });
    const [, second] = ops('INSERT DATA { _:a :p 1 } ; INSERT { _:a :p ?o } WHERE { ?s :p ?o }');
    expect(second).toMatchObject({ insert: [{ subject: blankNode('op2-a') }] });
  });

  it('rejects a blank node label reused across INSERT DATA operations', () => {
    rejects(P + 'INSERT DATA { _:b1 :p :o } ; INSERT DATA { _:b1 :p :o }', /blank node label is used in two INSERT DATA/);
  });

  it('rejects variables, variable graphs and blank nodes where data must be ground', () => {
    rejects(P + 'INSERT DATA { ?s :p 1 }', /variables are not allowed/);
    rejects(P + 'DELETE DATA { :s :p ?o }', /variables are not allowed/);
    rejects(P + 'INSERT DATA { GRAPH ?g { :s :p 1 } }', /variable graph name/);
    rejects(P + 'DELETE DATA { GRAPH ?g { :s :p 1 } }', /variable graph name/);
    rejects(P + 'DELETE DATA { _:b :p 1 }', /blank nodes are not allowed/);
    rejects(P + 'DELETE DATA { GRAPH :g { :s :p [] } }', /blank nodes are not allowed in DELETE DATA/);
    rejects(P + 'INSERT DATA { "lit" :p 1 }', /literal cannot be a subject/);
  });
});

describe('DELETE/INSERT ... WHERE', () => {
  it('translates templates, WHERE, WITH, USING and USING NAMED', () => {
    const [op] = ops('WITH :w DELETE { ?s :p ?o } INSERT { ?s :q ?o . GRAPH ?g { ?s :r _:n } } USING :u1 USING :u2 USING NAMED :n1 WHERE { ?s :p ?o }');
    expect(op).toEqual({
      type: 'modify',
      with: ex('w'),
      using: [ex('u1'), ex('u2')],
      usingNamed: [ex('n1')],
      delete: [{ subject: variable('s'), predicate: ex('p'), object: variable('o'), graph: defaultGraph }],
      insert: expect.arrayContaining([
        { subject: variable('s'), predicate: ex('q'), object: variable('o'), graph: defaultGraph },
        { subject: variable('s'), predicate: ex('r'), object: blankNode('op1-n'), graph: variable('g') },
      ]),
      where: { type: 'bgp', patterns: [{ s: variable('s'), p: ex('p'), o: variable('o') }] },
    });
  });

  it('USING NAMED alone leaves the WHERE default graph empty; USING alone no named graphs', () => {
    expect(ops('INSERT { ?s :p 1 } USING NAMED :n WHERE { GRAPH ?g { ?s ?p ?o } }')[0]).toMatchObject({ using: [], usingNamed: [ex('n')] });
    expect(ops('INSERT { ?s :p 1 } USING :d WHERE { ?s ?p ?o }')[0]).toMatchObject({ using: [ex('d')], usingNamed: [] });
    const plain = ops('INSERT { ?s :p 1 } WHERE { ?s ?p ?o }')[0]!;
    expect('using' in plain || 'usingNamed' in plain || 'with' in plain).toBe(false);
  });

  it('WHERE is the query algebra: blank nodes are hidden variables, GRAPH, OPTIONAL, FILTER', () => {
    const [op] = ops('DELETE { ?s :p ?o } WHERE { GRAPH :g { ?s :p ?o } OPTIONAL { ?s :q _:x } FILTER(?o > 1) }');
    if (op?.type !== 'modify') throw new Error('modify expected');
    expect(op.where.type).toBe('filter');
    const w = op.where as Extract<typeof op.where, { type: 'filter' }>;
    expect(w.input).toMatchObject({ type: 'leftjoin', left: { type: 'graph', name: ex('g') }, right: { type: 'bgp' } });
    const right = (w.input as { right: { patterns: { o: { termType: string; value: string } }[] } }).right;
    expect(right.patterns[0]!.o.termType).toBe('Variable');
    expect(right.patterns[0]!.o.value.startsWith('#')).toBe(true);
  });

  it('a subquery in WHERE becomes its projected operator', () => {
    const [op] = ops('INSERT { ?s :count ?n } WHERE { SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s :p ?o } GROUP BY ?s }');
    if (op?.type !== 'modify') throw new Error('modify expected');
    expect(op.where).toMatchObject({ type: 'project', variables: ['s', 'n'] });
  });

  it('an empty WHERE is the one empty solution', () => {
    expect(ops('INSERT { :a :p 1 } WHERE {}')[0]).toMatchObject({ type: 'modify', where: { type: 'unit' }, delete: [] });
  });

  it('rejects blank nodes in DELETE templates, in or out of GRAPH blocks', () => {
    rejects(P + 'DELETE { _:b :p ?o } WHERE { ?s :p ?o }', /blank nodes are not allowed/);
    rejects(P + 'DELETE { GRAPH :g { ?s :p _:b } } WHERE { ?s :p ?o }', /blank nodes are not allowed in a DELETE template/);
  });

  it('drops a template whose subject is a literal (it can never form a triple)', () => {
    expect(ops('INSERT { "x" :p ?o . ?s :p ?o } WHERE { ?s :p ?o }')[0]).toMatchObject({ insert: [{ subject: variable('s') }] });
  });
});

describe('DELETE WHERE', () => {
  it('uses its pattern both as WHERE and as the delete templates', () => {
    const [op] = ops('DELETE WHERE { ?s :p ?o . GRAPH ?g { ?s :q ?x } }');
    if (op?.type !== 'modify') throw new Error('modify expected');
    expect(op.insert).toEqual([]);
    expect(op.delete).toEqual(expect.arrayContaining([
      { subject: variable('s'), predicate: ex('p'), object: variable('o'), graph: defaultGraph },
      { subject: variable('s'), predicate: ex('q'), object: variable('x'), graph: variable('g') },
    ]));
    expect(op.delete).toHaveLength(2);
    const parts = op.where.type === 'join' ? op.where.inputs : [op.where];
    expect(parts).toEqual(expect.arrayContaining([
      { type: 'bgp', patterns: [{ s: variable('s'), p: ex('p'), o: variable('o') }] },
      { type: 'graph', name: variable('g'), input: { type: 'bgp', patterns: [{ s: variable('s'), p: ex('q'), o: variable('x') }] } },
    ]));
    expect(op.with).toBeUndefined();
  });

  it('rejects blank nodes', () => {
    rejects(P + 'DELETE WHERE { _:b :p ?o }', /blank nodes are not allowed/);
    rejects(P + 'DELETE WHERE { GRAPH :g { ?s :p _:b } }', /blank nodes are not allowed in DELETE WHERE/);
  });
});

describe('graph management', () => {
  it('CLEAR and DROP with every target, SILENT', () => {
    expect(ops('CLEAR DEFAULT ; DROP SILENT NAMED ; CLEAR ALL ; DROP GRAPH :g ; CLEAR SILENT GRAPH :h')).toEqual([
      { type: 'clear', target: 'default', silent: false },
      { type: 'drop', target: 'named', silent: true },
      { type: 'clear', target: 'all', silent: false },
      { type: 'drop', target: ex('g'), silent: false },
      { type: 'clear', target: ex('h'), silent: true },
    ]);
  });

  it('CREATE, ADD, MOVE and COPY', () => {
    expect(ops('CREATE GRAPH :g ; CREATE SILENT GRAPH :h ; ADD DEFAULT TO :g ; MOVE SILENT GRAPH :g TO DEFAULT ; COPY :a TO GRAPH :b')).toEqual([
      { type: 'create', graph: ex('g'), silent: false },
      { type: 'create', graph: ex('h'), silent: true },
      { type: 'add', from: defaultGraph, to: ex('g'), silent: false },
      { type: 'move', from: ex('g'), to: defaultGraph, silent: true },
      { type: 'copy', from: ex('a'), to: ex('b'), silent: false },
    ]);
  });

  it('LOAD parses to a load operation (the pipeline refuses it unless SILENT)', () => {
    expect(ops('LOAD <http://example.org/data.ttl>')).toEqual([{ type: 'load', source: namedNode('http://example.org/data.ttl'), silent: false }]);
    expect(ops('LOAD SILENT <http://example.org/data.ttl> INTO GRAPH <http://ex/g>')).toEqual([{ type: 'load', source: namedNode('http://example.org/data.ttl'), into: namedNode('http://ex/g'), silent: true }]);
  });
});

describe('using-graph-uri / using-named-graph-uri (http-api §4.2 rules 1-2)', () => {
  const opts = { usingGraphUris: ['http://ex/u'], usingNamedGraphUris: ['http://ex/n1', 'http://ex/n2'] };

  it('apply to every DELETE/INSERT ... WHERE operation and leave the others alone', () => {
    expect(ops('INSERT { ?s :p 1 } WHERE { ?s ?p ?o } ; INSERT DATA { :a :p 2 } ; DELETE { ?s :p 1 } WHERE { ?s :p 1 } ; CLEAR GRAPH :g', opts)).toEqual([
      expect.objectContaining({ type: 'modify', using: [ex('u')], usingNamed: [ex('n1'), ex('n2')] }),
      { type: 'insertData', quads: [{ subject: ex('a'), predicate: ex('p'), object: int(2), graph: defaultGraph }] },
      expect.objectContaining({ type: 'modify', using: [ex('u')], usingNamed: [ex('n1'), ex('n2')] }),
      { type: 'clear', target: ex('g'), silent: false },
    ]);
  });

  it('naming only named graphs leaves the default graph empty, and the reverse', () => {
    expect(ops('INSERT { ?s :p 1 } WHERE { ?s ?p ?o }', { usingNamedGraphUris: ['http://ex/n'] })[0]).toMatchObject({ using: [], usingNamed: [ex('n')] });
    expect(ops('INSERT { ?s :p 1 } WHERE { ?s ?p ?o }', { usingGraphUris: ['http://ex/d'] })[0]).toMatchObject({ using: [ex('d')], usingNamed: [] });
  });

  it('empty lists are the same as no parameter', () => {
    expect(ops('DELETE WHERE { ?s :p ?o }', { usingGraphUris: [], usingNamedGraphUris: [] })).toHaveLength(1);
  });

  it('are a 400 with an operation that has its own USING, USING NAMED or WITH', () => {
    rejects(P + 'INSERT { ?s :p 1 } USING :d WHERE { ?s ?p ?o }', /own USING clause/, opts);
    rejects(P + 'INSERT { ?s :p 1 } USING NAMED :d WHERE { ?s ?p ?o }', /own USING clause/, { usingGraphUris: ['http://ex/u'] });
    rejects(P + 'WITH :w INSERT { ?s :p 1 } WHERE { ?s ?p ?o }', /own WITH clause/, { usingNamedGraphUris: ['http://ex/n'] });
  });

  it('are a 400 when the request contains DELETE WHERE', () => {
    rejects(P + 'INSERT DATA { :a :p 1 } ; DELETE WHERE { ?s :p ?o }', /DELETE WHERE/, opts);
  });

  it('must be absolute IRIs', () => {
    rejects(P + 'INSERT { ?s :p 1 } WHERE { ?s ?p ?o }', /using-graph-uri must be an absolute IRI/, { usingGraphUris: ['relative'] });
  });
});

describe('errors', () => {
  it('a syntax error names line and column', () => {
    rejects(P + 'INSERT DATA { :a :p 1\n  :b :c }', /^Invalid SPARQL update: syntax error at line 3, column 3: unexpected ":b"/);
    rejects('INSERT DATA { <a> <b> "x }', /syntax error at line 1, column 23: unexpected """/, { baseIri: 'http://base/' });
    rejects('DELETE WHERE { ?s <p>/<q> ?o }', /syntax error at line 1, column 22: unexpected "\/"/, { baseIri: 'http://base/' });
    rejects('INSERT DATA { <a> <b> <c> . # comment\n\n  # more\n   <d> }', /syntax error at line 4, column 8: unexpected "}"/, { baseIri: 'http://base/' });
    rejects(P + 'INSERT DATA { :a :p 1 ', /syntax error at line 2, column 23: unexpected end of input/);
  });

  it('an unknown prefix names where it is used', () => {
    rejects('INSERT DATA {\n  <http://a> <http://b> x:c }', /unknown prefix "x:" at line 2, column 25/);
  });

  it('a query is not an update', () => {
    rejects('SELECT * { ?s ?p ?o }', /this is a SPARQL query, not an update/);
  });

  it('quoted triples are not supported', () => {
    rejects('INSERT DATA { << <http://a> <http://b> <http://c> >> <http://b> <http://c> }', /quoted triples are not supported/);
  });

  it('relative IRIs without a base are a 400', () => {
    rejects('INSERT DATA { <a> <http://b> <http://c> }', /relative IRI/);
  });
});

describe('large updates: the update grammar in steps (update-grammar.ts)', () => {
  /** An INSERT DATA of `n` lines, long enough that no second opinion from sparqljs is asked. */
  const big = (n = 400) => Array.from({ length: n }, (_, i) => `<http://ex/s${i}> <http://ex/p> "value number ${i}" .`).join('\n');
  const lines = 400;

  it('parses every triple, in steps that let the event loop run', async () => {
    const text = `INSERT DATA {\n${big()}\n}`;
    expect(text.length).toBeGreaterThan(8192);
    let turns = 0;
    let stop = false;
    const tick = () => { turns++; if (!stop) setImmediate(tick); };
    setImmediate(tick);
    const req = await parseSparqlUpdateSliced(text, {}, 0);
    stop = true;
    expect(req).toEqual(parseSparqlUpdate(text));
    const quads = (req as { ops: { quads: unknown[] }[] }).ops[0]!.quads;
    expect(quads).toHaveLength(lines);
    expect(quads[lines - 1]).toEqual({ subject: ex(`s${lines - 1}`), predicate: ex('p'), object: literal(`value number ${lines - 1}`), graph: defaultGraph });
    expect(turns).toBeGreaterThan(3);
  });

  it('names the line and column of an error inside a block', () => {
    rejects(`INSERT DATA {\n${big()}\n<http://ex/a> <http://ex/b> .\n}`, new RegExp(`syntax error at line ${lines + 2}, column 29: expected a variable or an RDF term, found "\\."`));
  });

  it('names the line and column of an error after a block, in the text as sent', () => {
    rejects(`INSERT DATA {\n${big()}\n} ;\n  CLEAR NOTHING`, new RegExp(`syntax error at line ${lines + 3}, column 9: expected GRAPH, DEFAULT, NAMED or ALL, found "NOTHING"`));
    rejects(`INSERT DATA {\n${big()}\n} ;\nDELETE WHERE { x:a ?p ?o }`, new RegExp(`at line ${lines + 3}, column 16: unknown prefix "x:"`));
  });

  it('refuses what DATA rules out, with its position', () => {
    rejects(`INSERT DATA {\n${big()}\n<http://ex/a> <http://ex/b> ?v }`, new RegExp(`variables are not allowed in INSERT DATA at line ${lines + 2}, column 29`));
    rejects(`DELETE DATA {\n${big()}\n<http://ex/a> <http://ex/b> [] }`, new RegExp(`blank nodes are not allowed in DELETE DATA at line ${lines + 2}, column 29`));
    rejects(`INSERT DATA {\n${big()}\n<a> <http://ex/b> 1 }`, new RegExp(`cannot resolve the relative IRI <a> without a base IRI at line ${lines + 2}, column 1`));
    rejects(`INSERT DATA {\n${big()}\n_:b <http://ex/b> 1 } ; INSERT DATA { _:b <http://ex/b> 2 }`, /a blank node label is used in two INSERT DATA operations/);
  });

  it('follows the grammar where sparqljs does not (codepoint and local-name escapes, a bare [ ] statement)', () => {
    expect(ops('INSERT DATA { <http://ex/\\u0041> :p :a\\-b . [ :p 1 ] }')).toEqual([{ type: 'insertData', quads: [
      { subject: ex('A'), predicate: ex('p'), object: ex('a-b'), graph: defaultGraph },
      { subject: blankNode('op1_0'), predicate: ex('p'), object: int(1), graph: defaultGraph },
    ] }]);
  });

  it('stores numbers in sparqljs\'s lexical forms (DELETE DATA must match what INSERT DATA stored)', () => {
    const objects = (ops('INSERT DATA { :a :p +1, -2, 1.5E3, +2.5e-1, .5 }')[0] as { quads: { object: unknown }[] }).quads.map((q) => q.object);
    const d = (v: string) => literal(v, namedNode(xsd.double));
    expect(objects).toEqual([int(1), literal('-2', namedNode(xsd.integer)), d('1.5e3'), d('2.5e-1'), literal('.5', namedNode(xsd.decimal))]);
  });

  /** Runs the sliced parse with a 0 ms slice, counting the event loop's turns meanwhile. */
  async function sliced(text: string): Promise<{ req: TxnRequest; turns: number }> {
    let turns = 0, stop = false;
    const tick = () => { turns++; if (!stop) setImmediate(tick); };
    setImmediate(tick);
    try {
      return { req: await parseSparqlUpdateSliced(text, {}, 0), turns };
    } finally { stop = true; }
  }

  it('parses a large DELETE / INSERT template in steps, as in one piece', async () => {
    const tpl = (o: string) => Array.from({ length: lines }, (_, i) => `<http://ex/s${i}> <http://ex/p> ${o}${i} .`).join('\n');
    const text = `${P}DELETE {\n${tpl('?old')}\n} INSERT {\n${tpl('?new')}\n GRAPH ?g { ?s :q [ :r ( 1 2 ) ] } } WHERE { ?s :p ?o0 OPTIONAL { GRAPH ?g { ?s ?p ?o } } }`;
    const { req, turns } = await sliced(text);
    expect(req).toEqual(parseSparqlUpdate(text));
    const op = (req as { ops: { delete: unknown[]; insert: unknown[] }[] }).ops[0]!;
    expect(op.delete).toHaveLength(lines);
    expect(op.insert).toHaveLength(lines + 6);
    // sparqljs's order, kept: the GRAPH block's 6 triples, then the triples before it.
    expect(op.insert[6]).toEqual({ subject: ex('s0'), predicate: ex('p'), object: variable('new0'), graph: defaultGraph });
    expect(turns).toBeGreaterThan(3);
  });

  it('parses many operations separated by ; in steps, as in one piece', async () => {
    const text = P + Array.from({ length: 600 }, (_, i) => i % 3 === 0 ? `INSERT DATA { :s${i} :p ${i} }` : i % 3 === 1 ? `DELETE WHERE { :s${i} ?p ?o }` : `WITH :g${i} DELETE { ?s :p ?o } WHERE { ?s :p ?o }`).join(' ;\n');
    const { req, turns } = await sliced(text);
    expect(req).toEqual(parseSparqlUpdate(text));
    const all = (req as { ops: { type: string }[] }).ops;
    expect(all).toHaveLength(600);
    expect(all[599]).toMatchObject({ type: 'modify', with: ex('g599') });
    expect(turns).toBeGreaterThan(3);
  });

  it('names the line and column of an error in a large template or a later operation', () => {
    rejects(`DELETE {\n${big()}\n?s <http://ex/b> .\n} WHERE {}`, new RegExp(`syntax error at line ${lines + 2}, column 18: expected a variable or an RDF term, found "\\."`));
    rejects(`INSERT DATA {\n${big()}\n} ;\nDELETE { ?s ?p ?o } WHERE { ?s ?p }`, new RegExp(`syntax error at line ${lines + 3}, column 35: expected a variable or an RDF term, found "}"`));
    rejects(`INSERT {\n${big()}\n?s <http://ex/b>/<http://ex/c> 1 } WHERE {}`, new RegExp(`at line ${lines + 2}, column 4: property paths are not allowed here`));
  });
});
