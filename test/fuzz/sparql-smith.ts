/**
 * Random SPARQL queries over a small fixed vocabulary, in the spirit of oxigraph's sparql-smith:
 * basic graph patterns, OPTIONAL, UNION, MINUS, FILTER (comparisons, arithmetic, functions),
 * BIND, VALUES, GRAPH, subqueries with GROUP BY and aggregates, property paths, and ORDER BY with
 * LIMIT / OFFSET only where the order is total (every projected variable is a sort key, and the
 * graph has no blank nodes). Also random small graphs over the same vocabulary, as N-Quads.
 *
 * Everything is a fast-check arbitrary, so a failing query shrinks to a small one. The structure
 * is generated first and rendered afterwards; rendering numbers BIND targets so a query never
 * binds an in-scope variable twice.
 */
import fc from 'fast-check';

export const EX = 'http://example.org/';
export const PREFIXES = `PREFIX ex: <${EX}>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n`;

const VARS = ['?a', '?b', '?c', '?d'];
const IRIS = ['ex:s0', 'ex:s1', 'ex:s2', 'ex:s3'];
const PREDS = ['ex:p0', 'ex:p1', 'ex:p2'];
const GRAPHS = ['ex:g0', 'ex:g1'];
const LITERALS = ['0', '1', '2', '-1', '1.5', '2.0', '1e0', '"a"', '"b"', '"a"@en', '"B"@en-us', 'true', 'false', '""', '"1"^^xsd:integer', '"x y"'];

// ---------------------------------------------------------------------------------------------
// Graphs

const dataIri = fc.constantFrom(...IRIS.map((i) => `<${EX}${i.slice(3)}>`));
const dataPred = fc.constantFrom(...PREDS.map((i) => `<${EX}${i.slice(3)}>`));
const dataLiteral = fc.constantFrom(
  '"0"^^<http://www.w3.org/2001/XMLSchema#integer>', '"1"^^<http://www.w3.org/2001/XMLSchema#integer>',
  '"2"^^<http://www.w3.org/2001/XMLSchema#integer>', '"-3"^^<http://www.w3.org/2001/XMLSchema#integer>',
  '"1.5"^^<http://www.w3.org/2001/XMLSchema#decimal>', '"2.5E0"^^<http://www.w3.org/2001/XMLSchema#double>',
  '"a"', '"b"', '"A"', '"ab"', '"a"@en', '"b"@fr', '"true"^^<http://www.w3.org/2001/XMLSchema#boolean>',
  '"2020-01-02"^^<http://www.w3.org/2001/XMLSchema#date>', '""',
);
const dataBnode = fc.constantFrom('_:b0', '_:b1');

/** A random small dataset as N-Quads lines: `withBnodes` decides whether blank nodes may occur. */
export function graphArb(withBnodes: boolean): fc.Arbitrary<string> {
  const subject = withBnodes ? fc.oneof({ weight: 4, arbitrary: dataIri }, { weight: 1, arbitrary: dataBnode }) : dataIri;
  const object = withBnodes
    ? fc.oneof({ weight: 3, arbitrary: dataIri }, { weight: 4, arbitrary: dataLiteral }, { weight: 1, arbitrary: dataBnode })
    : fc.oneof({ weight: 3, arbitrary: dataIri }, { weight: 4, arbitrary: dataLiteral });
  const graph = fc.oneof({ weight: 5, arbitrary: fc.constant('') }, { weight: 2, arbitrary: fc.constantFrom(...GRAPHS.map((g) => ` <${EX}${g.slice(3)}>`)) });
  const quad = fc.tuple(subject, dataPred, object, graph).map(([s, p, o, g]) => `${s} ${p} ${o}${g} .`);
  return fc.uniqueArray(quad, { minLength: 0, maxLength: 30 }).map((qs) => qs.join('\n') + (qs.length ? '\n' : ''));
}

// ---------------------------------------------------------------------------------------------
// Expressions

type Expr = string;
const varArb = fc.constantFrom(...VARS);
const constExpr = fc.constantFrom(...LITERALS, ...IRIS);

const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    { weight: 4, arbitrary: varArb },
    { weight: 3, arbitrary: constExpr },
    fc.tuple(tie('e'), fc.constantFrom('=', '!=', '<', '>', '<=', '>='), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(tie('e'), fc.constantFrom('+', '-', '*', '/'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(tie('e'), fc.constantFrom('&&', '||'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('e').map((a) => `(!${a})`),
    varArb.map((v) => `BOUND(${v})`),
    fc.tuple(fc.constantFrom('isIRI', 'isBlank', 'isLiteral', 'isNumeric', 'STR', 'LANG', 'DATATYPE', 'STRLEN', 'UCASE', 'LCASE', 'ABS', 'CEIL', 'FLOOR', 'ROUND', 'xsd:string', 'xsd:integer', 'xsd:boolean'), tie('e'))
      .map(([f, a]) => `${f}(${a})`),
    fc.tuple(fc.constantFrom('CONTAINS', 'STRSTARTS', 'STRENDS', 'sameTerm', 'LANGMATCHES', 'STRBEFORE', 'STRAFTER'), tie('e'), tie('e')).map(([f, a, b]) => `${f}(${a}, ${b})`),
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => `CONCAT(${a}, ${b})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([a, b, c]) => `IF(${a}, ${b}, ${c})`),
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => `COALESCE(${a}, ${b})`),
    fc.tuple(tie('e'), fc.boolean(), fc.array(constExpr, { minLength: 0, maxLength: 3 })).map(([a, not, xs]) => `(${a} ${not ? 'NOT IN' : 'IN'} (${xs.join(', ')}))`),
    fc.tuple(tie('e'), fc.constantFrom('"a"', '"^a"', '"b$"', '"A"', '"."'), fc.constantFrom('', ', "i"')).map(([a, re, fl]) => `REGEX(STR(${a}), ${re}${fl})`),
    fc.tuple(tie('e'), fc.integer({ min: 1, max: 3 })).map(([a, n]) => `SUBSTR(STR(${a}), ${n})`),
  ),
})).e;

// ---------------------------------------------------------------------------------------------
// Patterns (a small tree rendered to text)

type Pattern =
  | { k: 'triple'; s: string; p: string; o: string }
  | { k: 'group'; items: Pattern[] }
  | { k: 'optional'; g: Pattern }
  | { k: 'union'; a: Pattern; b: Pattern }
  | { k: 'minus'; g: Pattern }
  | { k: 'filter'; e: Expr }
  | { k: 'bind'; e: Expr }
  | { k: 'values'; vars: string[]; rows: string[][] }
  | { k: 'graph'; name: string; g: Pattern }
  | { k: 'sub'; key: string; agg: string; g: Pattern }
  | { k: 'exists'; not: boolean; g: Pattern };

const pathArb: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small', maxDepth: 2 },
    { weight: 5, arbitrary: fc.constantFrom(...PREDS) },
    fc.tuple(tie('p'), tie('p')).map(([a, b]) => `(${a}/${b})`),
    fc.tuple(tie('p'), tie('p')).map(([a, b]) => `(${a}|${b})`),
    tie('p').map((a) => `^${a}`),
    fc.tuple(tie('p'), fc.constantFrom('*', '+', '?')).map(([a, m]) => `(${a})${m}`),
    fc.subarray(PREDS, { minLength: 1 }).map((ps) => `!(${ps.join('|')})`),
  ),
})).p;

const subjectArb = fc.oneof({ weight: 5, arbitrary: varArb }, { weight: 2, arbitrary: fc.constantFrom(...IRIS) });
const predicateArb = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PREDS) }, { weight: 2, arbitrary: varArb }, { weight: 2, arbitrary: pathArb });
const objectArb = fc.oneof({ weight: 5, arbitrary: varArb }, { weight: 2, arbitrary: fc.constantFrom(...IRIS) }, { weight: 1, arbitrary: fc.constantFrom(...LITERALS) });
const tripleArb: fc.Arbitrary<Pattern> = fc.tuple(subjectArb, predicateArb, objectArb).map(([s, p, o]) => ({ k: 'triple', s, p, o }));
const valuesArb: fc.Arbitrary<Pattern> = fc.subarray(VARS, { minLength: 1, maxLength: 2 }).chain((vars) =>
  fc.array(fc.array(fc.oneof(fc.constantFrom(...IRIS, ...LITERALS), fc.constant('UNDEF')), { minLength: vars.length, maxLength: vars.length }), { minLength: 0, maxLength: 4 })
    .map((rows) => ({ k: 'values' as const, vars, rows })));

const patternArb: fc.Arbitrary<Pattern> = fc.letrec<{ g: Pattern; item: Pattern }>((tie) => ({
  g: fc.array(tie('item'), { minLength: 1, maxLength: 4 }).map((items) => ({ k: 'group' as const, items })),
  item: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    { weight: 8, arbitrary: tripleArb },
    { weight: 2, arbitrary: tie('g').map((g) => ({ k: 'optional' as const, g })) },
    { weight: 2, arbitrary: fc.tuple(tie('g'), tie('g')).map(([a, b]) => ({ k: 'union' as const, a, b })) },
    { weight: 1, arbitrary: tie('g').map((g) => ({ k: 'minus' as const, g })) },
    { weight: 2, arbitrary: exprArb.map((e) => ({ k: 'filter' as const, e })) },
    { weight: 1, arbitrary: exprArb.map((e) => ({ k: 'bind' as const, e })) },
    { weight: 1, arbitrary: valuesArb },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('?g', ...GRAPHS), tie('g')).map(([name, g]) => ({ k: 'graph' as const, name, g })) },
    { weight: 1, arbitrary: fc.tuple(varArb, fc.constantFrom('COUNT(*)', 'COUNT(DISTINCT ?b)', 'SUM(?c)', 'MIN(?b)', 'MAX(?c)', 'AVG(?c)', 'COUNT(?d)'), tie('g')).map(([key, agg, g]) => ({ k: 'sub' as const, key, agg, g })) },
    { weight: 1, arbitrary: fc.tuple(fc.boolean(), tie('g')).map(([not, g]) => ({ k: 'exists' as const, not, g })) },
  ),
})).g;

/** Rendering state: BIND targets and aggregate names are numbered so each is new where it is bound. */
interface RenderState { n: number }

function renderPattern(p: Pattern, st: RenderState): string {
  switch (p.k) {
    case 'triple': return `${p.s} ${p.p} ${p.o} .`;
    case 'group': return `{ ${p.items.map((i) => renderPattern(i, st)).join(' ')} }`;
    case 'optional': return `OPTIONAL ${renderPattern(p.g, st)}`;
    case 'union': return `${renderPattern(p.a, st)} UNION ${renderPattern(p.b, st)}`;
    case 'minus': return `MINUS ${renderPattern(p.g, st)}`;
    case 'filter': return `FILTER(${p.e})`;
    case 'bind': return `BIND(${p.e} AS ?x${st.n++})`;
    case 'values': return `VALUES (${p.vars.join(' ')}) { ${p.rows.map((r) => `(${r.join(' ')})`).join(' ')} }`;
    case 'graph': return `GRAPH ${p.name} ${renderPattern(p.g, st)}`;
    case 'sub': return `{ SELECT ${p.key} (${p.agg} AS ?x${st.n++}) WHERE ${renderPattern(p.g, st)} GROUP BY ${p.key} }`;
    case 'exists': return `FILTER(${p.not ? 'NOT ' : ''}EXISTS ${renderPattern(p.g, st)})`;
  }
}

/** Variables a rendered pattern text mentions (a superset of its in-scope variables). */
function mentioned(text: string): string[] {
  return [...new Set(text.match(/\?[a-z]\w*/g) ?? [])].sort();
}

// ---------------------------------------------------------------------------------------------
// Queries

export interface SmithQuery {
  text: string;
  /** The comparison is a multiset of solutions (ORDER BY only appears with a total order). */
  form: 'select' | 'ask' | 'construct';
}

const modifierArb = fc.record({
  distinct: fc.boolean(),
  star: fc.boolean(),
  limit: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
  offset: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  group: fc.option(fc.tuple(fc.subarray(VARS, { minLength: 1, maxLength: 2 }), fc.constantFrom('COUNT(*)', 'COUNT(DISTINCT ?c)', 'SUM(?c)', 'MIN(?b)', 'MAX(?d)', 'AVG(?c)', 'COUNT(?b)')), { nil: undefined }),
  having: fc.option(fc.constantFrom('(COUNT(*) > 1)', '(COUNT(*) < 3)'), { nil: undefined }),
});

/**
 * A random query; `ordered` allows ORDER BY with LIMIT/OFFSET (pass it only for graphs without
 * blank nodes: those have no defined order, so a cut through tied rows would be arbitrary).
 */
export function queryArb(ordered: boolean): fc.Arbitrary<SmithQuery> {
  return fc.tuple(fc.constantFrom('select', 'select', 'select', 'select', 'ask', 'construct'), patternArb, modifierArb).map(([form, pattern, m]) => {
    const st: RenderState = { n: 0 };
    const where = renderPattern(pattern, st);
    if (form === 'ask') return { form: 'ask' as const, text: `${PREFIXES}ASK ${where}` };
    const vars = mentioned(where);
    if (form === 'construct') {
      const tpl = vars.length ? `${vars[0]} ex:p0 ${vars[vars.length - 1]} .` : 'ex:s0 ex:p0 ex:s1 .';
      return { form: 'construct' as const, text: `${PREFIXES}CONSTRUCT { ${tpl} } WHERE ${where}` };
    }
    let head: string;
    let projected: string[];
    let tail = '';
    if (m.group) {
      const keys = m.group[0];
      head = `${keys.join(' ')} (${m.group[1]} AS ?agg)`;
      projected = [...keys, '?agg'];
      tail = ` GROUP BY ${keys.join(' ')}${m.having ? ` HAVING ${m.having}` : ''}`;
    } else if (m.star || vars.length === 0) {
      head = '*';
      projected = vars;
    } else {
      projected = vars.slice(0, Math.max(1, Math.min(vars.length, 3)));
      head = projected.join(' ');
    }
    if (ordered && (m.limit !== undefined || m.offset !== undefined) && head !== '*') {
      // A total order over what is projected: every projected variable is a key, and the keys
      // separate IRIs from literals and literals by value, language and datatype.
      const keys = projected.flatMap((v) => [`isIRI(${v})`, `STR(${v})`, `LANG(${v})`, `STR(DATATYPE(${v}))`]);
      tail += ` ORDER BY ${keys.map((k) => `(${k})`).join(' ')}`;
      if (m.limit !== undefined) tail += ` LIMIT ${m.limit}`;
      if (m.offset !== undefined) tail += ` OFFSET ${m.offset}`;
    }
    return { form: 'select' as const, text: `${PREFIXES}SELECT ${m.distinct ? 'DISTINCT ' : ''}${head} WHERE ${where}${tail}` };
  });
}

/** A random SPARQL UPDATE over the same vocabulary (for the HTTP fuzzer's grammar-aware inputs). */
export const updateArb: fc.Arbitrary<string> = fc.tuple(
  fc.constantFrom('INSERT DATA', 'DELETE DATA', 'DELETE WHERE', 'INSERT WHERE', 'DELETE INSERT WHERE', 'CLEAR', 'DROP'),
  fc.array(fc.tuple(fc.constantFrom(...IRIS), fc.constantFrom(...PREDS), fc.constantFrom(...IRIS, ...LITERALS)), { minLength: 1, maxLength: 4 }),
  patternArb,
).map(([op, triples, where]) => {
  const data = triples.map(([s, p, o]) => `${s} ${p} ${o} .`).join(' ');
  const w = renderPattern(where, { n: 0 });
  switch (op) {
    case 'INSERT DATA': return `${PREFIXES}INSERT DATA { ${data} }`;
    case 'DELETE DATA': return `${PREFIXES}DELETE DATA { ${data} }`;
    case 'DELETE WHERE': return `${PREFIXES}DELETE WHERE { ?a ex:p0 ?b }`;
    case 'INSERT WHERE': return `${PREFIXES}INSERT { ?a ex:p2 ?b } WHERE ${w}`;
    case 'DELETE INSERT WHERE': return `${PREFIXES}DELETE { ?a ex:p1 ?b } INSERT { ?b ex:p1 ?a } WHERE ${w}`;
    case 'CLEAR': return `${PREFIXES}CLEAR GRAPH ex:g0`;
    default: return `${PREFIXES}DROP SILENT GRAPH ex:g1`;
  }
});
