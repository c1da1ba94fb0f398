/**
 * Property test (issue 20): the fast parser of INSERT DATA / DELETE DATA blocks (update-data.ts)
 * and sparqljs give the same request for random updates, or both reject them with a 400. The
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

const RUNS = 1500;
const SEED = 20_2026;

const iri = fc.constantFrom(
  '<http://ex.org/a>', '<http://ex.org/ns#b>', '<urn:x:y>', '<x>', '<#frag>', '<?q=1>', '</root/p>', '<>', '<../up>', '<a/b.c>',
  'ex:a', 'ex:b.c', 'ex:', ':d', ':', 'ex:%41x', 'ex:1x', 'r:rel',
);
const verb = (s: Shape) => fc.oneof({ weight: 6, arbitrary: iri }, { weight: 2, arbitrary: fc.constant('a') },
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

interface Shape { termW: number; invalidW: number }

function nodeArb(depth: number, s: Shape): fc.Arbitrary<string> {
  const leaves = [
    { weight: 5, arbitrary: iri },
    { weight: 3, arbitrary: literal },
    { weight: 1, arbitrary: blank },
    { weight: s.invalidW, arbitrary: invalid },
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

const graphName = (s: Shape) => fc.oneof({ weight: 8, arbitrary: iri }, { weight: s.invalidW, arbitrary: fc.constantFrom('?g', '_:g', '"g"') });

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

function operation(s: Shape): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.tuple(prologue, fc.constantFrom('INSERT DATA', 'DELETE DATA', 'insert data', 'Delete Data'), quads(s)).map(([p, kw, q]) => `${p}\n${kw} ${q}`) },
    { weight: 1, arbitrary: otherOp },
  );
}

const update = fc.record({ termW: fc.constant(1), invalidW: fc.constantFrom(0, 0, 0, 0, 1) }).chain((s) =>
  fc.tuple(prologue, fc.array(operation(s), { minLength: 1, maxLength: 3 }), fc.constantFrom('', ' ;', ';\n')).map(([p, ops, end]) => `${DECLARED}\n${p}\n${ops.join(' ;\n')}${end}`));

const base = fc.constantFrom(undefined, 'http://base.example/a/b?c', 'http://base.example/a/b?c', 'http://base.example', 'urn:base:x');

describe('fast DATA block parser = sparqljs (property)', () => {
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
  });
});
