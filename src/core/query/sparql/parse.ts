/**
 * SPARQL 1.1 Query text -> the algebra (SPARQL 1.1 §18.2). sparqljs does the grammar; this file
 * does the query level: dataset, `# PRAGMA` comments, grouping and aggregates (the
 * aggregate -> variable rewrite of §18.2.4.1) with the grouping and scope checks sparqljs leaves
 * out, select expressions, solution modifiers, and the four query forms. Every rejection is a
 * 400 err:db/BadRequest, with line and column when the grammar failed.
 */
import sparqljs from 'sparqljs';
import type * as S from 'sparqljs';
import { badRequest, isLedgraphError, LedgraphError } from '../../errors.js';
import { capMessage, excerpt } from '../../excerpt.js';
import { checkQueryLength, isStackOverflow, withinStack } from '../../limits.js';
import { fromRdfJs, type NamedNode, type Variable } from '../../rdf/terms.js';
import type { Dataset, Expr, Op, OrderKey, Query, TemplateTriple, TermOrVar } from '../algebra/algebra.js';
import { HIDDEN_PREFIX, isHidden, varInfo } from '../algebra/vars.js';
import { AggregateCollector, exprFreeVars, hasAggregate, translateExpr, type ExprEnv } from './parse-expr.js';
import { checkBlankNodeScopes, checkBlankNodeScopesSteps } from './bnode-scope.js';
import { parseQueryAst, parseQueryTokens } from './grammar.js';
import { drain, type Steps } from './steps.js';
import { TimeSlice } from '../../util/next-turn.js';
import { locateToken, tokenizeSliced, unescapeCodepoints, type Token } from './lexer.js';
import { checkSparqlNesting, checkTokenNesting } from './nesting-scan.js';
import { conj, join, translateGroup, translateGroupSteps, translateValuesSteps, type PatternEnv } from './parse-pattern.js';

export interface ParseOptions {
  /** Base IRI for relative IRIs (a BASE in the query overrides it). */
  baseIri?: string;
  /** Prefixes predeclared for the query (a PREFIX in the query overrides one). */
  prefixes?: Record<string, string>;
}

const PRAGMA = /^[ \t]*#[ \t]*PRAGMA[ \t]+([A-Za-z][\w:.-]*)[ \t]*(.*?)[ \t]*$/gim;

/** Parse SPARQL 1.1 Query text into the algebra; a syntax or static error is a 400. */
export function parseSparql(text: string, opts: ParseOptions = {}): Query {
  checkQueryLength(text, 'SPARQL query');
  checkSparqlNesting(text, 'the SPARQL query');
  return finish(() => parseAst(text, opts), readPragmas(text));
}

/** The query of a parsed AST, with its base, pragmas and fuel limit. */
function finish(ast: () => S.Query, pragmas: Record<string, string>): Query {
  const { parsed, q } = withinStack('the SPARQL query', () => {
    const parsed = ast();
    checkBlankNodeScopes(parsed);
    return { parsed, q: translateQuery(parsed) };
  });
  return finishQuery(parsed, q, pragmas);
}

/** The translated query with its base, pragmas and fuel limit. */
function finishQuery(parsed: S.Query, q: Query, pragmas: Record<string, string>): Query {
  if (parsed.base) q.base = parsed.base;
  if (Object.keys(pragmas).length) q.pragmas = pragmas;
  const fuel = pragmas['max-fuel'];
  if (fuel !== undefined) {
    const n = Number(fuel);
    if (!Number.isSafeInteger(n) || n < 0) throw badRequest(`Invalid SPARQL query: PRAGMA max-fuel needs a non-negative integer, got "${fuel}"`);
    q.maxFuel = n;
  }
  return q;
}

/**
 * parseSparql for a server: a long text (over 16 KiB) is tokenized, parsed and translated in
 * steps that give the event loop a turn every 2 ms, since a 1 MiB text takes a few hundred
 * milliseconds of CPU (docs/isolation.md).
 */
export async function parseSparqlSliced(text: string, opts: ParseOptions = {}, sliceMs = 2): Promise<Query> {
  if (text.length <= SLICED_MIN_CHARS) return parseSparql(text, opts);
  checkQueryLength(text, 'SPARQL query');
  const pragmas = readPragmas(text);
  const src = unescapeCodepoints(text);
  const tokens = await tokenizeSliced(src, sliceMs);
  const slice = new TimeSlice(sliceMs);
  const steps = queryStepsOf(src, tokens, opts);
  for (;;) {
    // Each step runs under the stack guard: a deep text fails as a 400, as parseSparql's does.
    const r = withinStack('the SPARQL query', () => steps.next());
    if (r.done) return finishQuery(r.value.parsed, r.value.q, pragmas);
    if (slice.due()) await slice.pause();
  }
}

/** The nesting check on the tokens, the grammar, the blank node scope check and the translation, in steps. */
function* queryStepsOf(src: string, tokens: Token[], opts: ParseOptions): Steps<{ parsed: S.Query; q: Query }> {
  yield* checkTokenNesting(tokens, 'the SPARQL query');
  const parsed = yield* parseQueryTokens(src, tokens, opts.baseIri, opts.prefixes);
  yield* checkBlankNodeScopesSteps(parsed);
  return { parsed, q: yield* translateQuerySteps(parsed) };
}

/** Texts shorter than this are parsed in one piece (well under a millisecond). */
const SLICED_MIN_CHARS = 16 * 1024;

/**
 * Texts up to this many characters get sparqljs's second opinion when the fast parser rejects
 * them. sparqljs costs about 0.15 ms per token and cannot pause: on a 1 MiB text it would hold the
 * event loop for seconds (docs/isolation.md), so a longer text's rejection stands.
 */
export const SECOND_OPINION_CHARS = 8192;

/**
 * The query's AST from the fast parser (grammar.ts); should it reject a short text, sparqljs gets
 * a second opinion, so a gap in the fast parser costs speed, never correctness. Both rejecting
 * reports the fast parser's error (it names line and column).
 */
function parseAst(text: string, opts: ParseOptions): S.Query {
  let first: unknown;
  try {
    return parseQueryAst(text, opts.baseIri, opts.prefixes);
  } catch (e) {
    // Only a syntax error (or an unexpected failure of the fast parser) earns a second opinion.
    if (isLedgraphError(e) && !e.message.includes('syntax error')) throw e;
    if (isLedgraphError(e) && text.length > SECOND_OPINION_CHARS) throw e;
    if (isStackOverflow(e)) throw e; // sparqljs recurses at least as deeply
    first = e;
  }
  let parsed: S.SparqlQuery;
  try {
    parsed = new sparqljs.Parser(sparqljsOptions(opts)).parse(text);
  } catch (e) {
    throw isLedgraphError(first) ? first : syntaxError(e, text);
  }
  if (parsed.type !== 'query') throw badRequest('Invalid SPARQL query: this is a SPARQL UPDATE request, not a query');
  return parsed;
}

/** Parse with sparqljs only (tests compare it with the fast parser). */
export function parseSparqlWithSparqljs(text: string, opts: ParseOptions = {}): Query {
  let parsed: S.SparqlQuery;
  try {
    parsed = new sparqljs.Parser(sparqljsOptions(opts)).parse(text);
  } catch (e) {
    throw syntaxError(e, text);
  }
  if (parsed.type !== 'query') throw badRequest('Invalid SPARQL query: this is a SPARQL UPDATE request, not a query');
  checkBlankNodeScopes(parsed);
  const q = translateQuery(parsed);
  if (parsed.base) q.base = parsed.base;
  return q;
}

/** Parse with the fast parser only (no sparqljs fallback). */
export function parseSparqlFast(text: string, opts: ParseOptions = {}): Query {
  const parsed = parseQueryAst(text, opts.baseIri, opts.prefixes);
  const q = translateQuery(parsed);
  if (parsed.base) q.base = parsed.base;
  return q;
}

/** sparqljs treats a present-but-undefined baseIRI as a base, so only set keys that have values. */
function sparqljsOptions(opts: ParseOptions): { baseIRI?: string; prefixes?: Record<string, string> } {
  const o: { baseIRI?: string; prefixes?: Record<string, string> } = {};
  if (opts.baseIri !== undefined) o.baseIRI = opts.baseIri;
  if (opts.prefixes !== undefined) o.prefixes = opts.prefixes;
  return o;
}

function readPragmas(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!/PRAGMA/i.test(text)) return out;
  for (const m of text.matchAll(PRAGMA)) out[m[1]!.toLowerCase()] = m[2]!;
  return out;
}

/** A sparqljs failure as a 400 naming the line and column where we can find them. */
function syntaxError(e: unknown, text: string): LedgraphError {
  if (isLedgraphError(e)) return e;
  const msg = e instanceof Error ? e.message : String(e);
  const loc = (e as { hash?: { loc?: { first_line: number; first_column: number } } }).hash?.loc;
  if (loc) {
    const detail = msg.split('\n').pop()!.replace(/^Expecting /, 'expecting ');
    return badRequest(`Invalid SPARQL query: syntax error at line ${loc.first_line}, column ${loc.first_column + 1}: ${capMessage(detail)}`);
  }
  const prefix = /^Unknown prefix: (\S*)/.exec(msg);
  if (prefix) {
    const at = locateToken(text, prefix[1]! + ':');
    return badRequest(`Invalid SPARQL query: unknown prefix "${excerpt(prefix[1]!)}:"${at}`);
  }
  return badRequest(`Invalid SPARQL query: ${capMessage(msg.replace(/\s+/g, ' ').trim())}`);
}


function isWildcard(vs: unknown[]): boolean {
  return vs.length === 1 && (vs[0] as { termType?: string }).termType === 'Wildcard';
}

/** Translation state for an update's WHERE clause: hidden names `#u…`, subqueries translated in place. */
export function whereEnv(): PatternEnv { return new Translator('u'); }

class Translator implements PatternEnv {
  private n = 0;
  constructor(private readonly prefix = '') {}
  /** A fresh hidden variable name. */
  fresh(kind: string): string { return `${HIDDEN_PREFIX}${this.prefix}${kind}${this.n++}`; }
  /** A subquery: its projected operator. */
  subquery(q: S.SelectQuery): Op { return drain(this.select(q, 'select')).op; }

  /** The WHERE pattern plus grouping, HAVING, trailing VALUES, select expressions and modifiers. */
  *select(q: S.SelectQuery | S.AskQuery | S.ConstructQuery | S.DescribeQuery, form: Query['form']): Steps<{ op: Op; variables: string[] }> {
    let op = yield* translateGroupSteps(q.where ?? [], this);
    const sq = q as Partial<S.SelectQuery>;
    const aggs = new AggregateCollector();
    const env: ExprEnv = { group: (ps) => translateGroup(ps, this), aggs };
    const star = form !== 'select' || isWildcard(sq.variables ?? []);
    const items: { name: string; expr?: Expr }[] = [];
    if (form === 'select' && !star) {
      for (const v of sq.variables as S.Variable[]) {
        if ('termType' in v) items.push({ name: v.value });
        else items.push({ name: v.variable.value, expr: translateExpr(v.expression, env) });
      }
    }
    const having = (sq.having ?? []).map((h) => translateExpr(h, env));
    const order: OrderKey[] = (sq.order ?? []).map((o) => ({ expr: translateExpr(o.expression, env), desc: !!o.descending }));
    const grouped = !!sq.group || aggs.aggregates.length > 0;
    const whereScope = varInfo(op).maybe;
    if (grouped) {
      if (form === 'select' && star) throw badRequest('Invalid SPARQL query: SELECT * is not allowed with GROUP BY or aggregates');
      const keyEnv: ExprEnv = { group: env.group };
      const keys = (sq.group ?? []).map((g) => {
        if (hasAggregate(g.expression)) throw badRequest('Invalid SPARQL query: aggregates are not allowed in GROUP BY');
        const expr = translateExpr(g.expression, keyEnv);
        const variable = g.variable?.value ?? (expr.type === 'var' ? expr.name : undefined);
        if (g.variable && whereScope.has(g.variable.value)) throw badRequest(`Invalid SPARQL query: GROUP BY ... AS ?${g.variable.value} rebinds an in-scope variable`);
        return variable === undefined ? { expr } : { expr, variable };
      });
      op = { type: 'group', input: op, keys, aggregates: aggs.aggregates };
      const allowed = new Set(keys.map((k) => k.variable).filter((v): v is string => v !== undefined));
      for (const it of items) {
        const used = it.expr ? exprFreeVars(it.expr) : [it.name];
        for (const v of used) if (!allowed.has(v) && !isHidden(v)) throw badRequest(`Invalid SPARQL query: projection of ungrouped variable ?${v}`);
        if (it.expr && allowed.has(it.name)) throw badRequest(`Invalid SPARQL query: SELECT (... AS ?${it.name}) rebinds a variable in scope`);
        allowed.add(it.name);
      }
    } else {
      const scope = new Set(whereScope);
      for (const it of items) {
        if (it.expr && scope.has(it.name)) throw badRequest(`Invalid SPARQL query: SELECT (... AS ?${it.name}) rebinds a variable in scope`);
        scope.add(it.name);
      }
    }
    if (having.length) op = { type: 'filter', expr: conj(having), input: op };
    if (q.values) op = join(op, yield* translateValuesSteps(q.values));
    for (const it of items) if (it.expr) op = { type: 'extend', input: op, variable: it.name, expr: it.expr };
    if (order.length) op = { type: 'orderby', input: op, keys: order };
    let variables: string[];
    if (form === 'select') {
      variables = star ? [...varInfo(op).maybe].filter((v) => !isHidden(v)) : items.map((i) => i.name);
      op = { type: 'project', input: op, variables };
    } else {
      variables = [...varInfo(op).maybe].filter((v) => !isHidden(v));
    }
    if (sq.distinct) op = { type: 'distinct', input: op };
    else if (sq.reduced) op = { type: 'reduced', input: op };
    if (sq.limit !== undefined || sq.offset) {
      op = sq.limit !== undefined ? { type: 'slice', input: op, offset: sq.offset ?? 0, limit: sq.limit } : { type: 'slice', input: op, offset: sq.offset ?? 0 };
    }
    return { op, variables };
  }
}

function dataset(q: S.Query): Dataset | undefined {
  if (!q.from) return undefined;
  return {
    defaultGraphs: q.from.default.map((t) => fromRdfJs(t) as NamedNode),
    namedGraphs: q.from.named.map((t) => fromRdfJs(t) as NamedNode),
  };
}

function templateTerm(t: S.Term): TermOrVar {
  if (t.termType === 'Quad') throw badRequest('Invalid SPARQL query: quoted triples are not supported');
  return fromRdfJs(t) as TermOrVar;
}

function translateQuery(q: S.Query): Query {
  return drain(translateQuerySteps(q));
}

function* translateQuerySteps(q: S.Query): Steps<Query> {
  const tr = new Translator();
  const ds = dataset(q);
  const withDs = <T extends object>(x: T): T => (ds ? { ...x, dataset: ds } : x);
  switch (q.queryType) {
    case 'SELECT': {
      const { op, variables } = yield* tr.select(q, 'select');
      return withDs({ form: 'select', op, variables });
    }
    case 'ASK': return withDs({ form: 'ask', op: (yield* tr.select(q, 'ask')).op });
    case 'CONSTRUCT': {
      const template: TemplateTriple[] = (q.template ?? []).map((t) => {
        if (!('termType' in t.predicate)) throw badRequest('Invalid SPARQL query: property paths are not allowed in a CONSTRUCT template');
        return { s: templateTerm(t.subject as S.Term), p: templateTerm(t.predicate), o: templateTerm(t.object) };
      });
      return withDs({ form: 'construct', op: (yield* tr.select(q, 'construct')).op, template });
    }
    case 'DESCRIBE': {
      const { op, variables } = yield* tr.select(q, 'describe');
      const terms = isWildcard(q.variables)
        ? variables.map((v) => ({ termType: 'Variable', value: v }) as Variable)
        : (q.variables as (S.VariableTerm | S.IriTerm)[]).map((t) => fromRdfJs(t) as NamedNode | Variable);
      return withDs({ form: 'describe', op, terms });
    }
  }
}
