/**
 * JSON-LD `where` clauses -> the query algebra (jsonld-query.md §4–§5): node patterns become
 * triple patterns, keyword forms (`filter`, `optional`, `union`, `bind`, `values`, `minus`,
 * `exists`, `not-exists`, `graph`, `query`) become the matching operators. Shared by JSON-LD
 * queries and JSON-LD updates.
 */
import { badRequest } from '../../errors.js';
import { ActiveContext, type TermDefinition } from '../../rdf/jsonld-context.js';
import { type NamedNode, type Term, type Variable, literal, namedNode, variable } from '../../rdf/terms.js';
import { F, rdf, xsd } from '../../rdf/vocab.js';
import type { Aggregate, Expr, Op, OrderKey, PathExpr, TermOrVar, TriplePattern } from '../algebra/algebra.js';
import {
  coercedTerm, compileExpr, iriOrBlank, isVariableString, jsonScalarLiteral, valueObjectTerm, varName,
} from './expr.js';

/** Options of one where compilation. */
export interface WhereOptions {
  /** False: bare "?x" objects are string literals; variables must be `{"@variable": "?x"}`. Default true. */
  objectVarParsing?: boolean;
  /** `fromNamed` aliases -> graph IRI, for `["graph", alias, ...]`. */
  graphAliases?: ReadonlyMap<string, string>;
}

/** Compile a `where` clause (a pattern or an array of patterns) into an operator. */
export function compileWhere(where: unknown, ctx: ActiveContext, opts: WhereOptions = {}): Op {
  return new WhereCompiler(opts).where(where, ctx);
}

/** Compile a `values` clause (`["?v", [...]]` or `[["?v", "?w"], [[...], ...]]`) into a values op. */
export function compileValues(values: unknown, ctx: ActiveContext): Op {
  return new WhereCompiler().values(values, ctx);
}

const UNIT: Op = { type: 'unit' };
const RDF_TYPE = namedNode(rdf.type);

/** Everything one node pattern contributes besides its subject. */
interface NodeParts {
  triples: TriplePattern[];
  /** Operators joined after the triples: property paths, subject-exists checks. */
  ops: Op[];
  /** Value constraints (numeric matching, value-object datatype/language checks). */
  filters: Expr[];
  /** Bindings derived from the matched object (`@language`/`@type`/`@t`/`@op` variables). */
  binds: { variable: string; expr: Expr }[];
}

/** Result of compiling a group: the operator and its group-level filters (not yet applied). */
interface GroupParts { op: Op; filters: Expr[] }

/** Stateful compiler: one per request, so hidden variables are unique across nested clauses. */
export class WhereCompiler {
  private hidden = 0;
  private readonly objectVars: boolean;
  private readonly aliases: ReadonlyMap<string, string>;

  constructor(opts: WhereOptions = {}) {
    this.objectVars = opts.objectVarParsing !== false;
    this.aliases = opts.graphAliases ?? new Map();
  }

  /** A fresh engine-reserved variable name (`__h<n>`, never shown to users). */
  freshVar(): string { return `__h${this.hidden++}`; }

  /** Compile a where clause: one pattern, one keyword array, or an array of patterns. */
  where(where: unknown, ctx: ActiveContext): Op {
    if (Array.isArray(where)) return this.group(isKeywordArray(where) ? [where] : where, ctx);
    if (isObject(where)) return this.group([where], ctx);
    throw badRequest(`invalid where: expected a node pattern or an array of patterns, got ${JSON.stringify(where)}`);
  }

  /** Compile a group of pattern items, with its filters applied. */
  group(items: unknown[], ctx: ActiveContext): Op {
    const g = this.groupParts(items, ctx);
    return applyFilters(g.op, g.filters);
  }

  private groupParts(items: unknown[], ctx: ActiveContext): GroupParts {
    let acc: Op = UNIT;
    let pending: TriplePattern[] = [];
    const filters: Expr[] = [];
    const flush = () => {
      if (pending.length > 0) {
        acc = join(acc, { type: 'bgp', patterns: pending });
        pending = [];
      }
    };
    for (const item of items) {
      if (isObject(item)) {
        const parts: NodeParts = { triples: [], ops: [], filters: [], binds: [] };
        this.nodePattern(item, ctx, parts);
        pending.push(...parts.triples);
        if (parts.ops.length > 0 || parts.binds.length > 0) flush();
        for (const p of parts.ops) acc = join(acc, p);
        for (const b of parts.binds) acc = { type: 'extend', input: acc, variable: b.variable, expr: b.expr };
        filters.push(...parts.filters);
        continue;
      }
      if (!Array.isArray(item)) throw badRequest(`invalid where item: expected a node pattern or a keyword array, got ${JSON.stringify(item)}`);
      if (item.length === 0) throw badRequest('invalid where item: empty array');
      if (typeof item[0] !== 'string') throw badRequest(`invalid where item: a keyword array starts with a keyword, got ${JSON.stringify(item[0])}`);
      const kw = item[0].toLowerCase();
      const args = item.slice(1);
      const env = { ctx, patterns: (p: unknown[]) => this.group(p, ctx) };
      switch (kw) {
        case 'filter':
          if (args.length === 0) throw badRequest('filter needs at least one expression');
          for (const e of args) filters.push(compileExpr(e, env));
          break;
        case 'bind':
          if (args.length === 0 || args.length % 2 !== 0) throw badRequest('bind takes pairs of a variable and an expression: ["bind", "?v", expr, ...]');
          flush();
          for (let i = 0; i < args.length; i += 2) {
            const v = args[i];
            if (typeof v !== 'string') throw badRequest(`bind: expected a variable, got ${JSON.stringify(v)}`);
            acc = { type: 'extend', input: acc, variable: varName(v), expr: compileExpr(args[i + 1], env) };
          }
          break;
        case 'optional':
          flush();
          for (const segment of optionalSegments(args)) {
            const g = this.groupParts(segment, ctx);
            const expr = conjunction(g.filters);
            acc = expr ? { type: 'leftjoin', left: acc, right: g.op, expr } : { type: 'leftjoin', left: acc, right: g.op };
          }
          break;
        case 'union': {
          if (args.length < 2) throw badRequest('union needs at least two branches');
          flush();
          const inputs = args.map((b) => this.branch(b, ctx, 'union'));
          acc = join(acc, { type: 'union', inputs });
          break;
        }
        case 'minus':
          if (args.length === 0) throw badRequest('minus needs at least one pattern');
          flush();
          acc = { type: 'minus', left: acc, right: this.group(args, ctx) };
          break;
        case 'exists':
        case 'not-exists':
          if (args.length === 0) throw badRequest(`${kw} needs at least one pattern`);
          filters.push({ type: 'exists', not: kw === 'not-exists', op: this.group(args, ctx) });
          break;
        case 'graph': {
          if (args.length < 2 || typeof args[0] !== 'string') throw badRequest('graph takes a graph name and patterns: ["graph", G, pattern...]');
          flush();
          acc = join(acc, { type: 'graph', name: this.graphName(args[0], ctx), input: this.group(args.slice(1), ctx) });
          break;
        }
        case 'values':
          if (args.length !== 1) throw badRequest('values takes one values clause: ["values", VALUES]');
          flush();
          acc = join(acc, this.values(args[0], ctx));
          break;
        case 'query':
          if (args.length !== 1) throw badRequest('query takes one subquery: ["query", {...}]');
          flush();
          acc = join(acc, this.subquery(args[0], ctx));
          break;
        default:
          throw badRequest(`unknown where keyword: ${item[0]}`);
      }
    }
    flush();
    return { op: acc, filters };
  }

  /** A union branch: a node object, a keyword array, or an array of patterns. */
  private branch(b: unknown, ctx: ActiveContext, what: string): Op {
    if (isObject(b)) return this.group([b], ctx);
    if (Array.isArray(b)) return this.group(isKeywordArray(b) ? [b] : b, ctx);
    throw badRequest(`invalid ${what} branch: ${JSON.stringify(b)}`);
  }

  /** A graph name in `["graph", G, ...]`: a variable, a `fromNamed` alias, or an IRI. */
  graphName(g: string, ctx: ActiveContext): NamedNode | Variable {
    if (isVariableString(g)) return variable(varName(g));
    const alias = this.aliases.get(g);
    return namedNode(alias ?? ctx.expandIri(g, false));
  }

  // -------------------------------------------------------------------------------------------
  // Node patterns

  /** Add the patterns of one node object; returns its subject. */
  private nodePattern(obj: Record<string, unknown>, ctx: ActiveContext, parts: NodeParts): TermOrVar {
    let subject: TermOrVar | undefined;
    const props: [string, unknown][] = [];
    let types: unknown;
    for (const [key, value] of Object.entries(obj)) {
      const kw = ctx.keyword(key);
      if (kw === undefined) {
        if (key.startsWith('@')) throw badRequest(`unknown keyword ${key} in a where pattern`);
        props.push([key, value]);
        continue;
      }
      switch (kw) {
        case '@id':
          if (typeof value !== 'string') throw badRequest(`@id in a where pattern must be a string, got ${JSON.stringify(value)}`);
          subject = isVariableString(value) ? variable(varName(value)) : iriOrBlank(value, ctx);
          break;
        case '@type': types = value; break;
        case '@context': throw badRequest('@context is not allowed inside a where pattern; put it at the top of the query');
        default: throw badRequest(`${key} is not allowed in a where node pattern`);
      }
    }
    const s = subject ?? variable(this.freshVar());
    if (types !== undefined) {
      for (const t of Array.isArray(types) ? types : [types]) {
        if (typeof t !== 'string') throw badRequest(`@type must be an IRI or a variable, got ${JSON.stringify(t)}`);
        parts.triples.push({ s, p: RDF_TYPE, o: isVariableString(t) ? variable(varName(t)) : namedNode(ctx.expandIri(t, true)) });
      }
    }
    for (const [key, value] of props) this.property(s, key, value, ctx, parts);
    if (types === undefined && props.length === 0) {
      // `{"@id": S}` alone matches S once if it has any fact (one solution per subject, not per fact).
      const any: Op = { type: 'bgp', patterns: [{ s, p: variable(this.freshVar()), o: variable(this.freshVar()) }] };
      parts.ops.push({ type: 'distinct', input: { type: 'project', input: any, variables: s.termType === 'Variable' ? [s.value] : [] } });
    }
    return s;
  }

  private property(s: TermOrVar, key: string, value: unknown, ctx: ActiveContext, parts: NodeParts): void {
    if (value === null || Array.isArray(value)) {
      throw badRequest(`invalid value for ${key} in a where pattern: ${value === null ? 'null' : 'an array'} (use one pattern per value)`);
    }
    if (isVariableString(key)) {
      const refOk = typeof value === 'string' ? isVariableString(value) : isObject(value) && (('@variable' in value) || hasKeyword(value, '@id', ctx));
      if (!refOk) throw badRequest(`with a variable property (${key}) the object must be a variable or {"@id": ...}`);
      parts.triples.push({ s, p: variable(varName(key)), o: this.object(value, undefined, ctx, parts, true) });
      return;
    }
    const def = ctx.termDefinition(key);
    const vctx = def?.context !== undefined ? ActiveContext.create(def.context, ctx) : ctx;
    if (def?.path !== undefined) {
      const path = parsePath(def.path, ctx);
      const o = this.object(value, undefined, vctx, parts, true);
      if (path.type === 'link') parts.triples.push({ s, p: path.iri, o });
      else if (path.type === 'inv' && path.path.type === 'link') parts.triples.push({ s: o, p: path.path.iri, o: s });
      else parts.ops.push({ type: 'path', s, path, o });
      return;
    }
    if (def && def.id === null) throw badRequest(`term ${key} is mapped to null and cannot be used in a pattern`);
    const iri = ctx.expandIri(key, true);
    if (iri.startsWith('@')) throw badRequest(`${key} is not allowed as a property in a where pattern`);
    const o = this.object(value, def, vctx, parts, !def?.reverse);
    if (def?.reverse) parts.triples.push({ s: o, p: namedNode(iri), o: s });
    else parts.triples.push({ s, p: namedNode(iri), o });
  }

  /** The object of a triple pattern (a term, a variable, or the subject of a nested node pattern). */
  private object(v: unknown, def: TermDefinition | undefined, ctx: ActiveContext, parts: NodeParts, literalOk: boolean): TermOrVar {
    if (typeof v === 'string') {
      if (isVariableString(v) && this.objectVars) return variable(varName(v));
      const lang = def?.language !== undefined ? def.language : ctx.language;
      return this.constant(coercedTerm(v, def?.type, lang, ctx), literalOk);
    }
    if (typeof v === 'number' || typeof v === 'boolean') {
      if (def?.type !== undefined && !def.type.startsWith('@')) return this.constant(coercedTerm(v, def.type, null, ctx), literalOk);
      if (def?.type === '@json') return this.constant(coercedTerm(v, '@json', null, ctx), literalOk);
      return this.looseConstant(jsonScalarLiteral(v), parts);
    }
    if (!isObject(v)) throw badRequest(`invalid object in a where pattern: ${JSON.stringify(v)}`);
    if ('@variable' in v) {
      const name = v['@variable'];
      if (!isVariableString(name) || Object.keys(v).length !== 1) throw badRequest('{"@variable": "?x"} must hold exactly one variable');
      return variable(varName(name));
    }
    if (hasKeyword(v, '@value', ctx)) return this.valuePattern(v, ctx, parts);
    if (hasKeyword(v, '@list', ctx)) throw badRequest('@list is not supported in where patterns; match list items with a variable');
    const keys = Object.keys(v);
    if (keys.length === 1 && hasKeyword(v, '@id', ctx)) {
      const id = v[keys[0]!];
      if (typeof id !== 'string') throw badRequest(`@id must be a string, got ${JSON.stringify(id)}`);
      return isVariableString(id) ? variable(varName(id)) : iriOrBlank(id, ctx);
    }
    return this.nodePattern(v, ctx, parts);
  }

  private constant(t: Term, literalOk: boolean): TermOrVar {
    if (t.termType === 'Literal' && !literalOk) throw badRequest('a literal cannot be the subject of a pattern (reverse property)');
    return t;
  }

  /**
   * Numbers match by value across numeric datatypes (jsonld-query.md §4, transactions §3.5), which
   * term equality cannot express: bind a hidden variable and compare with `=`.
   */
  private looseConstant(t: Term, parts: NodeParts): TermOrVar {
    if (t.termType !== 'Literal' || (t.datatype.value !== xsd.integer && t.datatype.value !== xsd.double)) return t;
    const h = this.freshVar();
    parts.filters.push(call('=', [{ type: 'var', name: h }, { type: 'term', term: t }]));
    return variable(h);
  }

  /** A value object in a pattern (§4.1): constant or variable `@value`, `@type`, `@language`, `@t`, `@op`. */
  private valuePattern(o: Record<string, unknown>, ctx: ActiveContext, parts: NodeParts): TermOrVar {
    const get: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(o)) {
      const kw = ctx.keyword(k) ?? (k === '@t' || k === '@op' ? k : undefined);
      if (kw !== '@value' && kw !== '@type' && kw !== '@language' && kw !== '@t' && kw !== '@op') {
        throw badRequest(`invalid value object in a where pattern: unexpected key "${k}"`);
      }
      get[kw] = val;
    }
    const { '@value': value, '@type': type, '@language': lang, '@t': t, '@op': op } = get;
    if (type !== undefined && typeof type !== 'string') throw badRequest('@type of a value object must be a string');
    if (lang !== undefined && typeof lang !== 'string') throw badRequest('@language must be a string');
    if (type !== undefined && lang !== undefined && (isVariableString(type) || ctx.expandIri(type, true) !== rdf.langString)) {
      throw badRequest('a value object cannot have both @type and @language');
    }
    if ((t !== undefined || op !== undefined) && type === '@id') throw badRequest('@t and @op cannot be used with "@type": "@id"');
    if (t !== undefined && !isVariableString(t)) throw badRequest('@t must be a variable');
    if (op !== undefined && !isVariableString(op) && op !== 'assert' && op !== 'retract') {
      throw badRequest('@op must be a variable, "assert" or "retract"');
    }
    const typeVar = isVariableString(type);
    const langVar = isVariableString(lang);
    const valueVar = isVariableString(value) && this.objectVars;
    const needsVar = typeVar || langVar || t !== undefined || op !== undefined;
    let obj: TermOrVar;
    if (valueVar) {
      obj = variable(varName(value));
      const ov: Expr = { type: 'var', name: obj.value };
      if (type === '@id') parts.filters.push(call('isiri', [ov]));
      else if (type !== undefined && !typeVar) {
        parts.filters.push(call('=', [call('datatype', [ov]), { type: 'term', term: namedNode(ctx.expandIri(type, true)) }]));
      }
      if (lang !== undefined && !langVar) parts.filters.push(call('=', [call('lang', [ov]), term(literal(lang.toLowerCase()))]));
    } else {
      const constObj: Record<string, unknown> = { '@value': value };
      if (type !== undefined && !typeVar) constObj['@type'] = type;
      if (lang !== undefined && !langVar) constObj['@language'] = lang;
      const c = valueObjectTerm(constObj, ctx);
      const explicit = constObj['@type'] !== undefined || constObj['@language'] !== undefined;
      if (!needsVar) obj = explicit ? c : this.looseConstant(c, parts);
      else {
        const h = this.freshVar();
        obj = variable(h);
        const hv: Expr = { type: 'var', name: h };
        // Without an explicit datatype the constant matches by value (numbers) or by text (strings).
        if (explicit) parts.filters.push(call('sameterm', [hv, term(c)]));
        else if (typeof value === 'string') parts.filters.push(call('=', [call('str', [hv]), term(literal(value))]));
        else parts.filters.push(call('=', [hv, term(c)]));
      }
    }
    const ov: Expr = { type: 'var', name: obj.value };
    if (typeVar) parts.binds.push({ variable: varName(type), expr: call('datatype', [ov]) });
    if (langVar) parts.binds.push({ variable: varName(lang), expr: call('lang', [ov]) });
    if (t !== undefined) parts.binds.push({ variable: varName(t as string), expr: call(F + 't', [ov]) });
    if (isVariableString(op)) parts.binds.push({ variable: varName(op), expr: call(F + 'op', [ov]) });
    else if (op !== undefined) parts.filters.push(call('=', [call(F + 'op', [ov]), term(literal(op as string))]));
    return obj;
  }

  // -------------------------------------------------------------------------------------------
  // values and subqueries

  /** Compile a values clause into inline data. */
  values(v: unknown, ctx: ActiveContext): Op {
    if (!Array.isArray(v) || v.length !== 2) throw badRequest('values must be ["?v", [values...]] or [["?v", "?w"], [[...], ...]]');
    const [vars, rows] = v as [unknown, unknown];
    if (!Array.isArray(rows)) throw badRequest('values: the second element must be an array of values or rows');
    if (typeof vars === 'string') {
      return { type: 'values', variables: [varName(vars)], rows: rows.map((c) => [valuesCell(c, ctx)]) };
    }
    if (!Array.isArray(vars) || vars.length === 0) throw badRequest('values: the first element must be a variable or an array of variables');
    const names = vars.map((x) => {
      if (typeof x !== 'string') throw badRequest(`values: expected a variable, got ${JSON.stringify(x)}`);
      return varName(x);
    });
    return {
      type: 'values',
      variables: names,
      rows: rows.map((r) => {
        if (!Array.isArray(r) || r.length !== names.length) throw badRequest(`values: each row must be an array of ${names.length} values, got ${JSON.stringify(r)}`);
        return r.map((c) => valuesCell(c, ctx));
      }),
    };
  }

  /**
   * Compile a subquery `{"select": ..., "where": ..., "groupBy": ..., ...}` (jsonld-query.md §5.7)
   * into project / distinct / slice over its pattern. Without `@context` it inherits `ctx`.
   */
  subquery(q: unknown, outer: ActiveContext): Op {
    if (!isObject(q)) throw badRequest('a subquery must be a query object');
    const ctxKey = '@context' in q ? '@context' : 'context' in q ? 'context' : undefined;
    const ctx = ctxKey ? ActiveContext.create(q[ctxKey]) : outer;
    const pick = (...keys: string[]): unknown => { for (const k of keys) if (k in q) return q[k]; return undefined; };
    let distinct = q['distinct'] === true;
    let limit = nonNegative(pick('limit'), 'limit');
    const offset = nonNegative(pick('offset'), 'offset') ?? 0;
    let select = pick('select');
    if (select === undefined) {
      const d = pick('selectDistinct', 'select-distinct');
      const one = pick('selectOne', 'select-one');
      if (d !== undefined) { select = d; distinct = true; }
      else if (one !== undefined) { select = one; limit = 1; }
    }
    if (select === undefined) throw badRequest('a subquery needs select, selectDistinct or selectOne');
    const where = pick('where');
    const values = pick('values');
    if (where === undefined && values === undefined) throw badRequest('a subquery needs a where clause');
    let op: Op = values !== undefined ? this.values(values, ctx) : UNIT;
    if (where !== undefined) op = join(op, this.where(where, ctx));

    const env = { ctx, aggregates: true, patterns: (p: unknown[]) => this.group(p, ctx) };
    const items = select === '*' ? [] : Array.isArray(select) ? select : [select];
    const projected: string[] = [];
    const computed: { variable: string; expr: Expr }[] = [];
    for (const item of items) {
      if (typeof item !== 'string') throw badRequest('subquery select items must be variables or expression strings');
      if (item === '*') throw badRequest('"*" cannot be mixed with other select items');
      if (isVariableString(item)) { projected.push(varName(item)); continue; }
      const { variable: name, expr } = selectExpression(item, env);
      projected.push(name);
      computed.push({ variable: name, expr });
    }
    const groupBy = listOf(pick('groupBy', 'group-by')).map((g) => {
      if (typeof g !== 'string') throw badRequest(`groupBy: expected a variable, got ${JSON.stringify(g)}`);
      return varName(g);
    });
    const havingRaw = pick('having');
    const having = havingRaw === undefined ? undefined : compileExpr(havingRaw, env);
    const aggs: { variable: string; agg: Aggregate }[] = [];
    const lifted = computed.map((c) => ({ variable: c.variable, expr: this.liftAggregates(c.expr, aggs) }));
    const liftedHaving = having && this.liftAggregates(having, aggs);
    if (groupBy.length > 0 || aggs.length > 0) {
      const grouped = new Set(groupBy);
      for (const v of projected) {
        if (!grouped.has(v) && !computed.some((c) => c.variable === v)) {
          throw badRequest(`?${v} must be grouped or aggregated in a subquery`);
        }
      }
      op = { type: 'group', input: op, keys: groupBy.map((g) => ({ expr: { type: 'var', name: g }, variable: g })), aggregates: aggs };
      if (liftedHaving) op = { type: 'filter', expr: liftedHaving, input: op };
    } else if (having) {
      throw badRequest('having needs groupBy or an aggregate');
    }
    for (const c of lifted) op = { type: 'extend', input: op, variable: c.variable, expr: c.expr };
    const orderRaw = pick('orderBy', 'order-by');
    const order = orderRaw !== undefined ? orderKeys(orderRaw).map(orderKey) : groupBy.map((g) => ({ expr: { type: 'var', name: g } as Expr, desc: false }));
    if (order.length > 0) op = { type: 'orderby', input: op, keys: order };
    if (projected.length > 0) op = { type: 'project', input: op, variables: projected };
    if (distinct) op = { type: 'distinct', input: op };
    if (offset > 0 || limit !== undefined) op = limit !== undefined ? { type: 'slice', input: op, offset, limit } : { type: 'slice', input: op, offset };
    return op;
  }

  /** Replace every aggregate in `e` by a hidden variable computed by the group operator. */
  liftAggregates(e: Expr, out: { variable: string; agg: Aggregate }[]): Expr {
    switch (e.type) {
      case 'aggregate': {
        const key = JSON.stringify(e.agg);
        const found = out.find((a) => JSON.stringify(a.agg) === key);
        const name = found ? found.variable : this.freshVar();
        if (!found) out.push({ variable: name, agg: e.agg });
        return { type: 'var', name };
      }
      case 'call': return { type: 'call', fn: e.fn, args: e.args.map((a) => this.liftAggregates(a, out)) };
      default: return e;
    }
  }
}

/** A select expression string: `"(as EXPR ?alias)"` or an aggregate `"(fn ?x)"` named `?fn`. */
export function selectExpression(item: string, env: { ctx: ActiveContext; aggregates: boolean; patterns?: (p: unknown[]) => Op }): { variable: string; expr: Expr } {
  const as = /^\(\s*as\s+([\s\S]*)\s+(\?[^\s()]+)\s*\)$/i.exec(item.trim());
  if (as) return { variable: varName(as[2]!), expr: compileExpr(as[1]!, env) };
  const head = /^\(\s*([^\s()]+)/.exec(item.trim());
  if (!head) throw badRequest(`Invalid select item: ${item} (expected a variable or an expression such as "(count ?x)")`);
  const expr = compileExpr(item, env);
  if (expr.type !== 'aggregate') throw badRequest(`select expression ${item} needs a name: write "(as ${item} ?name)"`);
  return { variable: head[1]!.toLowerCase().replace(/-/g, '_'), expr };
}

/** orderBy items; a lone `["desc", "?x"]` is one key, not two. */
export function orderKeys(v: unknown): unknown[] {
  if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && /^(asc|desc)$/i.test(v[0]) && isVariableString(v[1])) return [v];
  return listOf(v);
}

/** One orderBy item: `"?x"`, `["desc", "?x"]`, `"(desc ?x)"` or `{"var": "?x", "direction": "desc"}`. */
export function orderKey(k: unknown): OrderKey {
  let dir = 'asc';
  let v: unknown = k;
  if (Array.isArray(k)) {
    if (k.length !== 2) throw badRequest(`invalid orderBy item ${JSON.stringify(k)}`);
    [dir, v] = k as [string, unknown];
  } else if (typeof k === 'string') {
    const m = /^\(\s*(asc|desc)\s+(\S+)\s*\)$/i.exec(k);
    if (m) { dir = m[1]!; v = m[2]; }
  } else if (isObject(k)) {
    v = k['var'];
    dir = typeof k['direction'] === 'string' ? k['direction'] : 'asc';
  }
  if (typeof dir !== 'string' || !/^(asc|desc)$/i.test(dir)) throw badRequest(`invalid sort direction ${JSON.stringify(dir)}`);
  if (typeof v !== 'string' || !v.startsWith('?')) throw badRequest(`Invalid variable: ${String(v)} (variables must start with '?')`);
  return { expr: { type: 'var', name: varName(v) }, desc: dir.toLowerCase() === 'desc' };
}

function valuesCell(c: unknown, ctx: ActiveContext): Term | undefined {
  if (c === null) return undefined;
  if (typeof c === 'string' || typeof c === 'number' || typeof c === 'boolean') return jsonScalarLiteral(c);
  if (isObject(c)) {
    if (hasKeyword(c, '@value', ctx)) return valueObjectTerm(c, ctx);
    const keys = Object.keys(c);
    if (keys.length === 1 && hasKeyword(c, '@id', ctx) && typeof c[keys[0]!] === 'string') return iriOrBlank(c[keys[0]!] as string, ctx);
  }
  throw badRequest(`invalid values cell ${JSON.stringify(c)}`);
}

// ---------------------------------------------------------------------------------------------
// Property paths (§5.8)

/** Parse a `@path` definition (string or array syntax) into a path expression. */
export function parsePath(p: unknown, ctx: ActiveContext): PathExpr {
  const path = Array.isArray(p) ? arrayPath(p, ctx) : typeof p === 'string' ? new PathParser(p, ctx).parse() : undefined;
  if (!path) throw badRequest(`invalid path expression ${JSON.stringify(p)}`);
  checkPath(path);
  return path;
}

function arrayPath(p: unknown, ctx: ActiveContext): PathExpr {
  if (typeof p === 'string') return { type: 'link', iri: namedNode(ctx.expandIri(p, true)) };
  if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'string') throw badRequest(`invalid path expression ${JSON.stringify(p)}`);
  const [op, ...rest] = p as [string, ...unknown[]];
  const items = rest.map((x) => arrayPath(x, ctx));
  switch (op) {
    case '+': case '*': case '^':
      if (items.length !== 1) throw badRequest(`path operator ${op} takes one argument`);
      return op === '+' ? { type: 'oneOrMore', path: items[0]! } : op === '*' ? { type: 'zeroOrMore', path: items[0]! } : { type: 'inv', path: items[0]! };
    case '|': case '/':
      if (items.length < 2) throw badRequest(`path operator ${op} takes at least two arguments`);
      return { type: op === '|' ? 'alt' : 'seq', items };
    default:
      throw badRequest(`invalid path operator ${JSON.stringify(op)} (use +, *, ^, | or /)`);
  }
}

/** Rejects what §5.8 rules out: closures over anything but a (possibly inverse) predicate. */
function checkPath(p: PathExpr): void {
  switch (p.type) {
    case 'oneOrMore': case 'zeroOrMore': {
      const inner = p.path.type === 'inv' ? p.path.path : p.path;
      if (inner.type !== 'link') throw badRequest('transitive paths (+, *) apply to a single predicate only');
      return;
    }
    case 'zeroOrOne': throw badRequest('the ? path operator is not supported');
    case 'inv': checkPath(p.path); return;
    case 'seq': case 'alt': p.items.forEach(checkPath); return;
    default: return;
  }
}

/** Recursive-descent parser of the string path syntax: `^ex:a/(ex:b|ex:c)+`, `<iri>` for full IRIs. */
class PathParser {
  private i = 0;
  constructor(private readonly src: string, private readonly ctx: ActiveContext) {}

  parse(): PathExpr {
    const p = this.alt();
    this.ws();
    if (this.i < this.src.length) this.fail(`unexpected "${this.src[this.i]}"`);
    return p;
  }
  private fail(msg: string): never { throw badRequest(`invalid path expression ${JSON.stringify(this.src)}: ${msg}`); }
  private ws(): void { while (/\s/.test(this.src[this.i] ?? '')) this.i++; }
  private alt(): PathExpr {
    const items = [this.seq()];
    for (this.ws(); this.src[this.i] === '|'; this.ws()) { this.i++; items.push(this.seq()); }
    return items.length === 1 ? items[0]! : { type: 'alt', items };
  }
  private seq(): PathExpr {
    const items = [this.step()];
    for (this.ws(); this.src[this.i] === '/'; this.ws()) { this.i++; items.push(this.step()); }
    return items.length === 1 ? items[0]! : { type: 'seq', items };
  }
  private step(): PathExpr {
    this.ws();
    let inverse = false;
    if (this.src[this.i] === '^') { inverse = true; this.i++; this.ws(); }
    let p: PathExpr;
    const c = this.src[this.i];
    if (c === '(') {
      this.i++;
      p = this.alt();
      this.ws();
      if (this.src[this.i] !== ')') this.fail('missing ")"');
      this.i++;
    } else if (c === '<') {
      const end = this.src.indexOf('>', this.i);
      if (end < 0) this.fail('missing ">"');
      p = { type: 'link', iri: namedNode(this.src.slice(this.i + 1, end)) };
      this.i = end + 1;
    } else {
      const m = /^[^\s|/^+*?()<>]+/.exec(this.src.slice(this.i));
      if (!m) this.fail(c === undefined ? 'unexpected end' : `unexpected "${c}"`);
      this.i += m[0].length;
      p = { type: 'link', iri: namedNode(this.ctx.expandIri(m[0], true)) };
    }
    const post = this.src[this.i];
    if (post === '+') { this.i++; p = { type: 'oneOrMore', path: p }; }
    else if (post === '*') { this.i++; p = { type: 'zeroOrMore', path: p }; }
    else if (post === '?') { this.i++; p = { type: 'zeroOrOne', path: p }; }
    return inverse ? { type: 'inv', path: p } : p;
  }
}

// ---------------------------------------------------------------------------------------------
// helpers

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An array whose first element is a keyword string (one clause), as opposed to a list of patterns. */
function isKeywordArray(a: unknown[]): boolean { return typeof a[0] === 'string'; }

function hasKeyword(o: Record<string, unknown>, kw: string, ctx: ActiveContext): boolean {
  for (const k of Object.keys(o)) if (ctx.keyword(k) === kw) return true;
  return false;
}

/** Split optional items: each node object starts a new left join; keyword items attach to it. */
function optionalSegments(items: unknown[]): unknown[][] {
  if (items.length === 0) throw badRequest('optional needs at least one pattern');
  const first = items[0];
  if (Array.isArray(first) && typeof first[0] === 'string' && /^(filter|bind)$/i.test(first[0])) {
    throw badRequest(`${first[0]} cannot be the first item of an optional`);
  }
  const out: unknown[][] = [];
  for (const item of items) {
    if (out.length === 0 || isObject(item)) out.push([item]);
    else out[out.length - 1]!.push(item);
  }
  return out;
}

function join(a: Op, b: Op): Op {
  if (a.type === 'unit') return b;
  if (b.type === 'unit') return a;
  return { type: 'join', inputs: [...(a.type === 'join' ? a.inputs : [a]), ...(b.type === 'join' ? b.inputs : [b])] };
}

function applyFilters(op: Op, filters: Expr[]): Op {
  return filters.reduce<Op>((acc, expr) => ({ type: 'filter', expr, input: acc }), op);
}

function conjunction(filters: Expr[]): Expr | undefined {
  if (filters.length === 0) return undefined;
  return filters.slice(1).reduce((acc, f) => call('&&', [acc, f]), filters[0]!);
}

function call(fn: string, args: Expr[]): Expr { return { type: 'call', fn, args }; }
function term(t: Term): Expr { return { type: 'term', term: t }; }

function nonNegative(v: unknown, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw badRequest(`${what} must be a non-negative integer`);
  return v;
}

function listOf(v: unknown): unknown[] { return v === undefined ? [] : Array.isArray(v) ? v : [v]; }
