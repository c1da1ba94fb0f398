/**
 * A JSON-LD query object -> the algebra (jsonld-query.md §3, §6, §7): the select clause, grouping
 * and aggregates, having, orderBy, distinct, offset and limit, for the top-level query and for
 * `["query", Q]` subqueries (§5.7). For the top level it also describes how rows are shaped after
 * execution: graph-crawl columns, grouped value arrays and the statistical aggregates.
 */
import { badRequest } from '../../errors.js';
import { ActiveContext } from '../../rdf/jsonld-context.js';
import { type Term, literal, namedNode } from '../../rdf/terms.js';
import { XSD, xsd } from '../../rdf/vocab.js';
import type { Aggregate, Expr, Op, OrderKey } from '../algebra/algebra.js';
import { varInfo } from '../algebra/vars.js';
import { type CrawlSpec, parseCrawlSpec } from './crawl-spec.js';
import { type ExprEnv, STAT_FN, compileExpr, iriOrBlank, isVariableString, varName } from './expr.js';
import { UNIT, call, isObject, listOf, nonNegative, pick, term, varExpr } from './util.js';
import { quote } from '../../excerpt.js';

/**
 * What select compilation needs of the where compiler (where.ts implements it); an interface so the
 * two files do not import each other.
 */
export interface WhereHost {
  where(where: unknown, ctx: ActiveContext): Op;
  group(items: unknown[], ctx: ActiveContext): Op;
  values(v: unknown, ctx: ActiveContext): Op;
  freshVar(): string;
}

/** The select-shaped keys of a query object, normalised. */
export interface QueryObject {
  ctx: ActiveContext;
  form: 'select' | 'selectOne' | 'selectDistinct';
  select: unknown;
  where?: unknown;
  values?: unknown;
  groupBy?: unknown;
  having?: unknown;
  orderBy?: unknown;
  limit?: number;
  offset: number;
  distinct: boolean;
  /** `depth` (graph crawl), top level only. */
  depth: number;
}

/** The statistical aggregates computed at result shaping. */
export type StatName = 'median' | 'variance' | 'stddev';

/** One output column of a top-level select. */
export type Column =
  | { kind: 'var'; name: string }
  /** A graph crawl rooted at a variable (its name) or a constant term. */
  | { kind: 'crawl'; root: string | Term; spec: CrawlSpec }
  /** A selected variable neither grouped nor aggregated: the array of its values in the group. */
  | { kind: 'values'; name: string }
  /** median / variance / stddev of `source` (a hidden variable of the collect query) per group. */
  | { kind: 'stat'; name: string; fn: StatName; source: string };

export interface CompiledSelect {
  /** The whole solution sequence, through projection and slicing. */
  op: Op;
  /** Variables the algebra select projects. */
  projected: string[];
  columns: Column[];
  /** One column: rows are bare values, not arrays. */
  flat: boolean;
  /** `"*"`: rows are objects keyed by `?var`. */
  wildcard: boolean;
  /** Group keys (the identity of a group in the collect query). */
  groupKeys: string[];
  /** Some column is a graph crawl. */
  crawl: boolean;
  /** The column names when every column is a plain variable (rows are then values or arrays of values). */
  varNames?: string[];
  /** Per-solution values of grouped arrays and statistics, when any is selected. */
  collect?: { op: Op; variables: string[] };
}

/** Read the select form and solution modifiers of a query object. */
export function readQueryObject(q: Record<string, unknown>, ctx: ActiveContext, what: 'query' | 'subquery'): QueryObject {
  const forms = ([['select', ['select']], ['selectOne', ['selectOne', 'select-one']], ['selectDistinct', ['selectDistinct', 'select-distinct']]] as const)
    .filter(([, keys]) => pick(q, ...keys) !== undefined);
  if (forms.length === 0) throw badRequest(`a ${what} needs select, selectDistinct or selectOne`);
  if (forms.length > 1) throw badRequest(`a ${what} takes only one of select, selectOne and selectDistinct (got ${forms.map((f) => f[0]).join(', ')})`);
  const [form, keys] = forms[0]!;
  const distinct = pick(q, 'distinct');
  if (distinct !== undefined && typeof distinct !== 'boolean') throw badRequest('distinct must be true or false');
  const limit = nonNegative(pick(q, 'limit'), 'limit');
  const out: QueryObject = {
    ctx, form, select: pick(q, ...keys),
    offset: nonNegative(pick(q, 'offset'), 'offset') ?? 0,
    distinct: distinct === true || form === 'selectDistinct',
    depth: nonNegative(pick(q, 'depth'), 'depth') ?? 0,
  };
  if (limit !== undefined) out.limit = limit;
  const optional = { where: ['where'], values: ['values'], groupBy: ['groupBy', 'group-by'], having: ['having'], orderBy: ['orderBy', 'order-by'] } as const;
  for (const [k, names] of Object.entries(optional)) {
    const v = pick(q, ...names);
    if (v !== undefined) out[k as keyof typeof optional] = v;
  }
  return out;
}

/** Compile a subquery (`["query", Q]`); without `@context` it inherits `outer`. */
export function compileSubquery(q: unknown, outer: ActiveContext, wc: WhereHost): Op {
  if (!isObject(q)) throw badRequest('a subquery must be a query object');
  const own = pick(q, '@context', 'context');
  const ctx = '@context' in q || 'context' in q ? ActiveContext.create(own ?? null) : outer;
  return compileSelect(readQueryObject(q, ctx, 'subquery'), wc, false).op;
}

interface Item { kind: 'var' | 'expr' | 'crawl'; name: string; expr?: Expr; root?: string | Term; spec?: CrawlSpec }

/**
 * Compile a select-shaped query object. `top` allows what only the top level can shape: crawl
 * objects, grouped value arrays and statistical aggregates.
 */
export function compileSelect(q: QueryObject, wc: WhereHost, top: boolean): CompiledSelect {
  const ctx = q.ctx;
  const what = top ? 'query' : 'subquery';
  const env: ExprEnv = { ctx, aggregates: true, patterns: (p) => wc.group(p, ctx) };
  const { items, flat, wildcard } = selectItems(q.select, env, top);
  if (q.where === undefined && q.values === undefined) {
    const iriCrawl = top && items.length === 1 && items[0]!.kind === 'crawl' && typeof items[0]!.root !== 'string';
    if (!iriCrawl) throw badRequest(`a ${what} needs a where clause`);
  }
  let op = whereOp(q, wc);
  const base = op;

  const groupBy = listOf(q.groupBy).map((g) => {
    if (typeof g !== 'string') throw badRequest(`groupBy: expected a variable, got ${quote(g)}`);
    return varName(g);
  });
  const having = q.having === undefined ? undefined : compileExpr(q.having, env);
  if (having && hasStat(having)) throw badRequest('median, variance and stddev cannot be used in having');
  const aggs: { variable: string; agg: Aggregate }[] = [];
  const stats: { name: string; fn: StatName; arg: Expr }[] = [];
  const computed: { variable: string; expr: Expr }[] = [];
  for (const it of items) {
    if (it.kind !== 'expr') continue;
    const e = it.expr!;
    if (e.type === 'call' && e.fn.startsWith(STAT_FN)) {
      if (!top) throw badRequest(`${e.fn.slice(STAT_FN.length)} is not supported in subqueries`);
      if (hasStat(e.args[0]!)) throw badRequest('aggregates cannot be nested');
      stats.push({ name: it.name, fn: e.fn.slice(STAT_FN.length) as StatName, arg: e.args[0]! });
      continue;
    }
    if (hasStat(e)) throw badRequest(`${statName(e)} must be a whole select item, e.g. "(as (${statName(e)} ?x) ?alias)"`);
    computed.push({ variable: it.name, expr: liftAggregates(e, aggs, wc) });
  }
  const liftedHaving = having && liftAggregates(having, aggs, wc);
  const grouped = groupBy.length > 0 || aggs.length > 0 || stats.length > 0;
  const keySet = new Set(groupBy);
  const columns: Column[] = [];
  const collected: string[] = [];
  for (const it of items) {
    if (it.kind === 'var') {
      if (grouped && !keySet.has(it.name)) {
        if (!top) throw badRequest(`?${it.name} must be grouped or aggregated in a subquery`);
        columns.push({ kind: 'values', name: it.name });
        collected.push(it.name);
      } else columns.push({ kind: 'var', name: it.name });
    } else if (it.kind === 'crawl') {
      if (grouped && typeof it.root === 'string' && !keySet.has(it.root)) throw badRequest(`the crawl root ?${it.root} must be a groupBy variable`);
      columns.push({ kind: 'crawl', root: it.root!, spec: it.spec! });
    } else {
      const st = stats.find((s) => s.name === it.name);
      columns.push(st ? { kind: 'stat', name: st.name, fn: st.fn, source: wc.freshVar() } : { kind: 'var', name: it.name });
    }
  }

  if (grouped) {
    op = { type: 'group', input: op, keys: groupBy.map((g) => ({ expr: varExpr(g), variable: g })), aggregates: aggs };
  } else if (having) {
    throw badRequest('having needs groupBy or an aggregate');
  }
  for (const c of computed) op = { type: 'extend', input: op, variable: c.variable, expr: c.expr };
  if (liftedHaving) op = { type: 'filter', expr: liftedHaving, input: op };

  const projected: string[] = [];
  const addProjected = (v: string) => { if (!projected.includes(v)) projected.push(v); };
  if (wildcard) {
    for (const v of varInfo(op).maybe) if (!isHiddenVar(v)) addProjected(v);
  }
  for (const c of columns) {
    if (c.kind === 'var') addProjected(c.name);
    else if (c.kind === 'crawl' && typeof c.root === 'string') addProjected(c.root);
  }

  const shapedNames = new Set(columns.filter((c) => c.kind === 'values' || c.kind === 'stat').map((c) => (c as { name: string }).name));
  let order: OrderKey[];
  if (q.orderBy !== undefined) {
    order = orderKeys(q.orderBy).map(orderKey);
    for (const k of order) {
      const name = (k.expr as { name: string }).name;
      if (shapedNames.has(name)) throw badRequest(`orderBy ?${name}: grouped value arrays and median/variance/stddev are computed after ordering; order by a group key or another aggregate`);
    }
  } else if (grouped) order = groupBy.map((g) => ({ expr: varExpr(g), desc: false }));
  else if (q.distinct) order = projected.map((v) => ({ expr: varExpr(v), desc: false }));
  else order = [];
  if (order.length > 0) op = { type: 'orderby', input: op, keys: order };
  op = { type: 'project', input: op, variables: projected };
  if (q.distinct) op = { type: 'distinct', input: op };
  // selectOne, and a crawl of one IRI (one node when where has a solution), need one row.
  const single = q.form === 'selectOne' || (columns.length === 1 && columns[0]!.kind === 'crawl' && typeof columns[0]!.root !== 'string');
  const limit = single ? Math.min(1, q.limit ?? 1) : q.limit;
  if (q.offset > 0 || limit !== undefined) op = limit !== undefined ? { type: 'slice', input: op, offset: q.offset, limit } : { type: 'slice', input: op, offset: q.offset };

  const out: CompiledSelect = { op, projected, columns, flat, wildcard, groupKeys: groupBy, crawl: columns.some((c) => c.kind === 'crawl') };
  if (columns.every((c) => c.kind === 'var')) out.varNames = columns.map((c) => (c as { name: string }).name);
  if (collected.length > 0 || stats.length > 0) {
    let c = base;
    const vars = [...groupBy, ...collected];
    for (const col of columns) {
      if (col.kind !== 'stat') continue;
      c = { type: 'extend', input: c, variable: col.source, expr: stats.find((s) => s.name === col.name)!.arg };
      vars.push(col.source);
    }
    out.collect = { op: { type: 'project', input: c, variables: [...new Set(vars)] }, variables: [...new Set(vars)] };
  }
  return out;
}

/**
 * The where clause seeded by the top-level `values` (§5.5): the values join first, inside the same
 * group, so the where clause's filters see their variables.
 */
function whereOp(q: QueryObject, wc: WhereHost): Op {
  if (q.where === undefined) return q.values !== undefined ? wc.values(q.values, q.ctx) : UNIT;
  if (q.values === undefined) return wc.where(q.where, q.ctx);
  const items = Array.isArray(q.where) ? (typeof q.where[0] === 'string' ? [q.where] : q.where) : [q.where];
  return wc.group([['values', q.values], ...items], q.ctx);
}

/** Engine-reserved variables (`?__…` from the translators, `#…` from the SPARQL front end). */
export function isHiddenVar(v: string): boolean { return v.startsWith('__') || v.startsWith('#'); }

function selectItems(select: unknown, env: ExprEnv, top: boolean): { items: Item[]; flat: boolean; wildcard: boolean } {
  if (select === '*' || (Array.isArray(select) && select.length === 1 && select[0] === '*')) return { items: [], flat: false, wildcard: true };
  let raw: unknown[];
  let flat: boolean;
  if (typeof select === 'string' || isObject(select)) { raw = [select]; flat = true; }
  else if (Array.isArray(select)) {
    if (select.length === 0) throw badRequest('select must not be empty');
    raw = select;
    flat = select.length === 1;
  } else throw badRequest(`invalid select: expected a variable, an array, "*" or a crawl object, got ${quote(select)}`);
  const items: Item[] = [];
  for (const r of raw) {
    if (r === '*') throw badRequest('"*" cannot be mixed with other select items');
    if (typeof r === 'string') {
      if (isVariableString(r)) items.push({ kind: 'var', name: varName(r) });
      else if (r.trim().startsWith('(')) {
        const { variable, expr } = selectExpression(r, env);
        items.push({ kind: 'expr', name: variable, expr });
      } else throw badRequest(`Invalid variable: ${r} (variables must start with '?')`);
      continue;
    }
    if (isObject(r)) {
      if (!top) throw badRequest('subquery select items must be variables or expression strings');
      if (items.some((i) => i.kind === 'crawl')) throw badRequest('only one graph crawl object is allowed per select');
      const keys = Object.keys(r);
      if (keys.length !== 1) throw badRequest(`a graph crawl select is {ROOT: [SPEC...]} with exactly one root, got ${keys.length} keys`);
      const k = keys[0]!;
      const root: string | Term = isVariableString(k) ? varName(k) : iriOrBlank(k, env.ctx);
      items.push({ kind: 'crawl', name: typeof root === 'string' ? root : '', root, spec: parseCrawlSpec(r[k], env.ctx) });
      continue;
    }
    throw badRequest(`invalid select item ${quote(r)}: expected a variable, an aggregate string or a crawl object`);
  }
  const names = new Set<string>();
  for (const it of items) {
    if (it.kind !== 'expr') continue;
    if (names.has(it.name) || items.some((o) => o.kind === 'var' && o.name === it.name)) {
      throw badRequest(`duplicate select name ?${it.name}; name each expression with (as EXPR ?alias)`);
    }
    names.add(it.name);
  }
  return { items, flat, wildcard: false };
}

/** A select expression string: `"(as EXPR ?alias)"` or an aggregate `"(fn ?x)"` named `?fn`. */
export function selectExpression(item: string, env: ExprEnv): { variable: string; expr: Expr } {
  const as = /^\(\s*as\s+([\s\S]*)\s+(\?[^\s()]+)\s*\)$/i.exec(item.trim());
  if (as) return { variable: varName(as[2]!), expr: compileExpr(as[1]!, env) };
  const head = /^\(\s*([^\s()]+)/.exec(item.trim());
  if (!head) throw badRequest(`Invalid select item: ${item} (expected a variable or an expression such as "(count ?x)")`);
  const expr = compileExpr(item, env);
  const isStat = expr.type === 'call' && expr.fn.startsWith(STAT_FN);
  if (expr.type !== 'aggregate' && !isStat) throw badRequest(`select expression ${item} needs a name: write "(as ${item} ?name)"`);
  return { variable: head[1]!.toLowerCase().replace(/-/g, '_'), expr };
}

/** orderBy items; a lone `["desc", "?x"]` is one key, not two. */
export function orderKeys(v: unknown): unknown[] {
  if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && /^(asc|desc)$/i.test(v[0]) && isVariableString(v[1])) return [v];
  return listOf(v);
}

/** One orderBy item: `"?x"`, `["desc", "?x"]`, `"(desc ?x)"` or `{"var": "?x", "direction": "desc"}`. */
export function orderKey(k: unknown): OrderKey {
  let dir: unknown = 'asc';
  let v: unknown = k;
  if (Array.isArray(k)) {
    if (k.length !== 2) throw badRequest(`invalid orderBy item ${quote(k)}`);
    [dir, v] = k as [unknown, unknown];
  } else if (typeof k === 'string') {
    const m = /^\(\s*(\S+)\s+(\S+)\s*\)$/i.exec(k);
    if (m) { dir = m[1]!; v = m[2]; }
  } else if (isObject(k)) {
    v = k['var'];
    dir = k['direction'] ?? 'asc';
  }
  if (typeof dir !== 'string' || !/^(asc|desc)$/i.test(dir)) throw badRequest(`invalid sort direction ${quote(dir)}`);
  if (typeof v !== 'string' || !v.startsWith('?')) throw badRequest(`Invalid variable: ${typeof v === 'string' ? v : JSON.stringify(v)} (variables must start with '?')`);
  return { expr: varExpr(varName(v)), desc: dir.toLowerCase() === 'desc' };
}

const XSD_DOUBLE = XSD + 'double';
const ZERO = term(literal('0', namedNode(xsd.integer)));
/** A variable nothing binds: referencing it is an evaluation error, which leaves a select/bind unbound. */
const NEVER_BOUND = varExpr('__unbound');

/**
 * Replace every aggregate in `e` by a hidden variable the group operator computes. `sum` and `avg`
 * follow the JSON-LD dialect (§6): unbound over no values; `avg` a double; `sum` an integer when
 * every input is, else a double.
 */
export function liftAggregates(e: Expr, out: { variable: string; agg: Aggregate }[], wc: WhereHost): Expr {
  const register = (agg: Aggregate): string => {
    const key = JSON.stringify(agg);
    const found = out.find((a) => JSON.stringify(a.agg) === key);
    if (found) return found.variable;
    const name = wc.freshVar();
    out.push({ variable: name, agg });
    return name;
  };
  switch (e.type) {
    case 'aggregate': {
      const v = varExpr(register(e.agg));
      if (e.agg.name !== 'sum' && e.agg.name !== 'avg') return v;
      const count: Aggregate = { name: 'count', distinct: e.agg.distinct, ...(e.agg.expr ? { expr: e.agg.expr } : {}) };
      const n = varExpr(register(count));
      const value = e.agg.name === 'avg'
        ? call(XSD_DOUBLE, [v])
        : call('if', [call('=', [call('datatype', [v]), term(namedNode(xsd.integer))]), v, call(XSD_DOUBLE, [v])]);
      return call('if', [call('>', [n, ZERO]), value, NEVER_BOUND]);
    }
    case 'call': return call(e.fn, e.args.map((a) => liftAggregates(a, out, wc)));
    default: return e;
  }
}

function hasStat(e: Expr): boolean {
  return e.type === 'call' && (e.fn.startsWith(STAT_FN) || e.args.some(hasStat));
}

function statName(e: Expr): string {
  if (e.type !== 'call') return '';
  if (e.fn.startsWith(STAT_FN)) return e.fn.slice(STAT_FN.length);
  for (const a of e.args) { const n = statName(a); if (n) return n; }
  return '';
}
