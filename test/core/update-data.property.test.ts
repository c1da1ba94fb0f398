/**
 * Property test (issue 20): the fast update parser (update-grammar.ts) and sparqljs give the same
 * request for random updates, or both reject them with a 400: INSERT DATA / DELETE DATA blocks,
 * DELETE / INSERT templates with variables, DELETE WHERE, WITH / USING, WHERE clauses of every
 * kind, graph management operations, and requests of up to five operations. The
 * generator writes every kind of term the DATA grammar allows (IRIs absolute and relative, prefixed
 * names with escapes, all four string quotes with escapes and `\u` codepoints, language tags,
 * datatypes, numbers, booleans, labelled and anonymous blank nodes, property lists, collections),
 * GRAPH blocks, `;` and `,` lists, comments, prologues between operations, other operations
 * around the blocks, and now and then something invalid (a variable, a literal predicate, a
 * missing `.`, a blank node in DELETE DATA, an unknown prefix).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareUpdateParsers } from '../support/update-parsers.js';

const RUNS = 1200;
const SEED = 20_2026;

const iri = fc.constantFrom(
  '<http://ex.org/a>', '<http://ex.org/ns#b>', '<urn:x:y>', '<x>', '<#frag>', '<?q=1>', '</root/p>', '<>', '<../up>', '<a/b.c>',
  'ex:a', 'ex:b.c', 'ex:', ':d', ':', 'ex:%41x', 'ex:1x', 'r:rel',
);
const verb = (s: Shape) => fc.oneof({ weight: 6, arbitrary: iri }, { weight: 2, arbitrary: fc.constant('a') }, { weight: s.varW ?? 0, arbitrary: variable },
  { weight: s.invalidW, arbitrary: fc.constantFrom('?v', '"lit"', '_:bp', 'un:known', '^ex:a') });
const string = fc.oneof(
  fc.constantFrom('"plain"', "'single'", '"""long\n"text"\n"""', "'''long 'x' '''", '"esc \\" \\n \\t \\\\ x"', '"\\u00e9t\\u00E9"', '""', '"😀"'),
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
);
const literal = fc.oneof(
  string,
  fc.tuple(string, fc.constantFrom('@en', '@en-US', '@EN', '^^ex:dt', '^^<http://www.w3.org/2001/XMLSchema#integer>', '^^<dt>')).map(([s, t]) => s + t),
  fc.constantFrom('1', '-2', '+3', '1.5', '.5', '-0.25', '1e3', '-1.2E-3', '007', 'true', 'false', 'TRUE', 'False'),
);
const blank = fc.constantFrom('_:b1', '_:b2', '_:x.y', '[]', '[ ]', '()');
const invalid = fc.constantFrom('?x', '$y', 'ex:a ex:b', 'un:known', 'GRAPH', '{', '.', ')');
const ws = fc.constantFrom(' ', ' ', ' ', '\n', '\t', ' # comment\n', '\r\n');

interface Shape { termW: number; invalidW: number; varW?: number }
const variable = fc.constantFrom('?s', '?o', '$p', '?g', '?x1');

function nodeArb(depth: number, s: Shape): fc.Arbitrary<string> {
  const leaves = [
    { weight: 5, arbitrary: iri },
    { weight: 3, arbitrary: literal },
    { weight: 1, arbitrary: blank },
    { weight: s.invalidW, arbitrary: invalid },
    { weight: s.varW ?? 0, arbitrary: variable },
  ];
  if (depth <= 0) return fc.oneof(...leaves);
  return fc.oneof(...leaves,
    { weight: 1, arbitrary: fc.array(nodeArb(depth - 1, s), { minLength: 1, maxLength: 3 }).map((xs) => `( ${xs.join(' ')} )`) },
    { weight: 1, arbitrary: propertyList(depth - 1, s).map((pl) => `[ ${pl} ]`) });
}

function propertyList(depth: number, s: Shape): fc.Arbitrary<string> {
  const objects = fc.array(nodeArb(depth, s), { minLength: 1, maxLength: 3 }).map((os) => os.join(' , '));
  return fc.array(fc.tuple(verb(s), objects, ws).map(([v, o, w]) => `${v}${w}${o}`), { minLength: 1, maxLength: 3 })
    .chain((pairs) => fc.constantFrom(' ; ', ' ;; ', ' ; ').map((sep) => pairs.join(sep)))
    .chain((pl) => fc.boolean().map((trail) => (trail ? pl + ' ;' : pl)));
}

function statement(s: Shape): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.oneof(iri, blank, literal), propertyList(2, s)).map(([x, pl]) => `${x} ${pl}`) },
    { weight: 1, arbitrary: fc.tuple(nodeArb(2, s), fc.option(propertyList(1, s), { nil: undefined })).filter(([x]) => /^[[(]/.test(x)).map(([x, pl]) => (pl ? `${x} ${pl}` : x)) },
  );
}

function triples(s: Shape): fc.Arbitrary<string> {
  return fc.array(fc.tuple(statement(s), ws), { maxLength: 4 }).chain((sts) =>
    fc.tuple(fc.constantFrom(' . ', ' .', '\n.\n', ' '), fc.boolean()).map(([sep, trail]) =>
      sts.map(([x, w]) => x + w).join(sep) + (trail && sts.length ? ' .' : '')));
}

const graphName = (s: Shape) => fc.oneof({ weight: 8, arbitrary: iri }, { weight: s.invalidW + (s.varW ?? 0), arbitrary: fc.constantFrom('?g', '_:g', '"g"') });

function quads(s: Shape): fc.Arbitrary<string> {
  const item = fc.oneof(
    { weight: 2, arbitrary: triples(s) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('GRAPH', 'graph'), graphName(s), triples(s), fc.constantFrom('', ' .')).map(([kw, g, t, dot]) => `${kw} ${g} { ${t} }${dot}`) },
  );
  return fc.array(item, { maxLength: 4 }).map((items) => `{ ${items.join('\n')} }`);
}

const prologue = fc.array(fc.constantFrom(
  'PREFIX ex: <http://ex.org/ns/>', 'PREFIX : <http://d.org/>', 'PREFIX r: <rel/>', 'BASE <http://base.org/dir/file?x>',
  'BASE <sub/>', 'prefix ex: <http://other.org/>', 'PREFIX ex: <#h>', 'PREFIX un: <x:>',
), { maxLength: 3 }).map((ds) => ds.join('\n'));

/** Declared up front most of the time, so that most requests are valid. */
const DECLARED = 'PREFIX ex: <http://ex.org/ns/> PREFIX : <http://d.org/> PREFIX r: <http://r.org/>';

const otherOp = fc.constantFrom('CLEAR DEFAULT', 'INSERT { ?s ex:p [] } WHERE { ?s ex:q ?o }', 'DELETE WHERE { ?s <p> ?o }', 'CREATE SILENT GRAPH <g>',
  'INSERT { GRAPH <g> { ?s ?p _:b1 } } WHERE { ?s ?p ?o }');

/** WHERE clauses: every kind of group the update grammar hands to grammar.ts. */
const where = fc.constantFrom(
  '{ }', '{ ?s ?p ?o }', '{ ?s ex:p [] . OPTIONAL { ?s ex:q ?o } }', '{ GRAPH ?g { ?s ?p ?o } FILTER(?o > 1.5E0 || ?o = +2) }',
  '{ { SELECT ?s WHERE { ?s ?p ?o } LIMIT 2 } }', '{ ?s ex:p/ex:q* ?o }', '{ _:b ex:p ?o . _:b ex:q ?s }', '{ VALUES ?s { ex:a <b> } ?s ?p ?o }',
  '{ ?s ?p ?o MINUS { ?s a ex:C } }', '{ { ?s ex:p ?o } UNION { ?o ex:p ?s } BIND(STR(?o) AS ?x1) }', '{ ?s ?p ( 1 [ ex:r ?o ] ) }',
  '{ ?s ?p ?o FILTER NOT EXISTS { ?o ?p ?s } }',
);
const graphRefAll = fc.constantFrom('DEFAULT', 'NAMED', 'ALL', 'GRAPH <g>', 'GRAPH ex:g', 'graph :');
const graphOrDefault = fc.constantFrom('DEFAULT', '<g>', 'GRAPH ex:g', ':h');
const silent = fc.constantFrom('', 'SILENT ');

/** Operations other than DATA: templates (with variables), DELETE WHERE, WITH / USING, graph management. */
function templateOp(s: Shape): fc.Arbitrary<string> {
  const t: Shape = { ...s, varW: 2 };
  const using = fc.array(fc.constantFrom('USING <u>', 'USING NAMED ex:n', 'using :'), { maxLength: 2 }).map((us) => us.join(' '));
  const withIri = fc.constantFrom('', '', 'WITH <w> ', 'WITH ex:w ');
  return fc.oneof(
    { weight: 3, arbitrary: fc.tuple(withIri, quads(t), quads(t), using, where).map(([w, d, i, u, wh]) => `${w}DELETE ${d} INSERT ${i} ${u} WHERE ${wh}`) },
    { weight: 2, arbitrary: fc.tuple(withIri, quads(t), using, where).map(([w, i, u, wh]) => `${w}INSERT ${i} ${u} WHERE ${wh}`) },
    { weight: 2, arbitrary: fc.tuple(withIri, quads(t), where).map(([w, d, wh]) => `${w}DELETE ${d} WHERE ${wh}`) },
    { weight: 2, arbitrary: quads(t).map((q) => `DELETE WHERE ${q}`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('CLEAR', 'DROP'), silent, graphRefAll).map(([k, x, g]) => `${k} ${x}${g}`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('ADD', 'MOVE', 'COPY'), silent, graphOrDefault, graphOrDefault).map(([k, x, a, b]) => `${k} ${x}${a} TO ${b}`) },
    { weight: 1, arbitrary: fc.tuple(silent, fc.constantFrom('', ' INTO GRAPH <g>')).map(([x, into]) => `LOAD ${x}<http://ex.org/doc>${into}`) },
    { weight: 1, arbitrary: silent.map((x) => `CREATE ${x}GRAPH ex:new`) },
    { weight: s.invalidW, arbitrary: fc.constantFrom('DELETE { ?s ?p ?o }', 'INSERT { ?s ?p ?o } { ?s ?p ?o }', 'CLEAR GRAPH', 'LOAD', 'WITH <w> WHERE { }', 'ADD <a> <b>', 'SELECT * { }', ';') },
  );
}

function operation(s: Shape): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.tuple(prologue, fc.constantFrom('INSERT DATA', 'DELETE DATA', 'insert data', 'Delete Data'), quads(s)).map(([p, kw, q]) => `${p}\n${kw} ${q}`) },
    { weight: 1, arbitrary: otherOp },
    { weight: 4, arbitrary: fc.tuple(prologue, templateOp(s)).map(([p, op]) => `${p}\n${op}`) },
  );
}

const update = fc.record({ termW: fc.constant(1), invalidW: fc.constantFrom(0, 0, 0, 0, 1) }).chain((s) =>
  fc.tuple(prologue, fc.array(operation(s), { minLength: 1, maxLength: 5 }), fc.constantFrom('', ' ;', ';\n')).map(([p, ops, end]) => `${DECLARED}\n${p}\n${ops.join(' ;\n')}${end}`));

const base = fc.constantFrom(undefined, 'http://base.example/a/b?c', 'http://base.example/a/b?c', 'http://base.example', 'urn:base:x');

describe('fast update parser = sparqljs (property): DATA blocks, templates, WHERE clauses, many operations', () => {
  it('gives the same request, or both reject, on random updates', () => {
    const stats = { accepted: 0, rejected: 0, deferred: 0, crash: 0 };
    fc.assert(fc.property(update, base, (text, baseIri) => {
      const v = compareUpdateParsers(text, baseIri === undefined ? {} : { baseIri });
      if (v.kind === 'differ') throw new Error(`${v.detail}\n--- text:\n${text}\n--- base: ${baseIri}`);
      if (v.kind === 'deferred') stats.deferred++;
      else if (v.kind === 'sparqljs-crash') stats.crash++;
      else stats[v.accepted ? "accepted" : "rejected"]++;
    }), { numRuns: RUNS, seed: SEED });
    // The generator must reach both sides, and the fast path must decide what it is given.
    expect(stats.accepted).toBeGreaterThan(RUNS / 10);
    expect(stats.rejected).toBeGreaterThan(RUNS / 10);
    expect(stats.deferred).toBe(0);
  }, 120_000); // sparqljs is slow on a loaded machine
});
