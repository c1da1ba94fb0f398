/**
 * JSON-LD `where` clauses -> the query algebra (jsonld-query.md §4–§5): node patterns become
 * triple patterns, keyword forms (`filter`, `optional`, `union`, `bind`, `values`, `minus`,
 * `exists`, `not-exists`, `graph`, `query`) become the matching operators. Shared by JSON-LD
 * queries and JSON-LD updates.
 */
import { expandLenient } from './strict-iri.js';
import { badRequest } from '../../errors.js';
import { ActiveContext, type TermDefinition } from '../../rdf/jsonld-context.js';
import { type NamedNode, type Term, type Variable, literal, namedNode, variable } from '../../rdf/terms.js';
import { F, rdf, xsd } from '../../rdf/vocab.js';
import type { Expr, Op, TermOrVar, TriplePattern } from '../algebra/algebra.js';
import {
  coercedTerm, compileExpr, iriOrBlank, isVariableString, jsonScalarLiteral, valueObjectTerm, varName,
} from './expr.js';
import { parsePath } from './path.js';
import { compileSubquery, type WhereHost } from './query.js';
import { UNIT, isObject, join } from './util.js';
import { quote } from '../../excerpt.js';

export { parsePath } from './path.js';

/** Options of one where compilation. */
export interface WhereOptions {
  /** False: bare "?x" objects are string literals; variables must be `{"@variable": "?x"}`. Default true. */
  objectVarParsing?: boolean;
  /** `fromNamed` aliases -> graph IRI, for `["graph", alias, ...]`. */
  graphAliases?: ReadonlyMap<string, string>;
  /**
   * Event mode (history queries and `@t`/`@op`, see history.ts): every triple pattern is matched
   * in its own event graph, a hidden graph variable that tells which transaction asserted or
   * retracted the fact. 'history' also refuses what cannot range over events (paths, `graph`).
   */
  events?: 'history' | 'current';
}

/** Compile a `where` clause (a pattern or an array of patterns) into an operator. */
export function compileWhere(where: unknown, ctx: ActiveContext, opts: WhereOptions = {}): Op {
  return new WhereCompiler(opts).where(where, ctx);
}

/** Compile a `values` clause (`["?v", [...]]` or `[["?v", "?w"], [[...], ...]]`) into a values op. */
export function compileValues(values: unknown, ctx: ActiveContext): Op {
  return new WhereCompiler().values(values, ctx);
}

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
export class WhereCompiler implements WhereHost {
  private hidden = 0;
  private readonly objectVars: boolean;
  private readonly aliases: ReadonlyMap<string, string>;
  private readonly eventMode: 'history' | 'current' | undefined;
  /** False while compiling inside `["graph", ...]`, whose patterns read the named graph itself. */
  private eventsOn: boolean;
  /** Event mode: object variable -> the event-graph variable of the first pattern binding it. */
  readonly eventOf = new Map<string, string>();

  constructor(opts: WhereOptions = {}) {
    this.objectVars = opts.objectVarParsing !== false;
    this.aliases = opts.graphAliases ?? new Map();
    this.eventMode = opts.events;
    this.eventsOn = opts.events !== undefined;
  }

  /** True when this compiler matches patterns against events (see WhereOptions.events). */
  get events(): 'history' | 'current' | undefined { return this.eventMode; }

  /** Triple patterns as an operator: one BGP, or in event mode one event-graph match per pattern. */
  private patternsOp(patterns: TriplePattern[]): Op {
    if (!this.eventsOn) return { type: 'bgp', patterns };
    let acc: Op = UNIT;
    for (const tp of patterns) {
      const ev = this.freshVar();
      if (tp.o.termType === 'Variable' && !this.eventOf.has(tp.o.value)) this.eventOf.set(tp.o.value, ev);
      acc = join(acc, { type: 'graph', name: variable(ev), input: { type: 'bgp', patterns: [tp] } });
    }
    return acc;
  }

  /** A fresh engine-reserved variable name (`__h<n>`, never shown to users). */
  freshVar(): string { return `__h${this.hidden++}`; }

  /** Compile a where clause: one pattern, one keyword array, or an array of patterns. */
  where(where: unknown, ctx: ActiveContext): Op {
    if (Array.isArray(where)) return this.group(isKeywordArray(where) ? [where] : where, ctx);
    if (isObject(where)) return this.group([where], ctx);
    throw badRequest(`invalid where: expected a node pattern or an array of patterns, got ${quote(where)}`);
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
        acc = join(acc, this.patternsOp(pending));
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
      if (!Array.isArray(item)) throw badRequest(`invalid where item: expected a node pattern or a keyword array, got ${quote(item)}`);
      if (item.length === 0) throw badRequest('invalid where item: empty array');
      if (typeof item[0] !== 'string') throw badRequest(`invalid where item: a keyword array starts with a keyword, got ${quote(item[0])}`);
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
            if (typeof v !== 'string') throw badRequest(`bind: expected a variable, got ${quote(v)}`);
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
          if (this.eventMode === 'history') throw badRequest('graph clauses are not supported in history queries; select the graph in from (ledger#graph)');
          flush();
          const name = this.graphName(args[0], ctx);
          // Event graphs are named graphs too: a graph variable would range over them.
          if (this.eventMode && name.termType === 'Variable') throw badRequest(`["graph", "${args[0]}", ...] with a graph variable cannot be combined with @t / @op or the t / op functions`);
          const outer = this.eventsOn;
          this.eventsOn = false;
          try {
            acc = join(acc, { type: 'graph', name, input: this.group(args.slice(1), ctx) });
          } finally { this.eventsOn = outer; }
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
    throw badRequest(`invalid ${what} branch: ${quote(b)}`);
  }

  /** A graph name in `["graph", G, ...]`: a variable, a `fromNamed` alias, or an IRI. */
  graphName(g: string, ctx: ActiveContext): NamedNode | Variable {
    if (isVariableString(g)) return variable(varName(g));
    const alias = this.aliases.get(g);
    return namedNode(alias ?? expandLenient(ctx, g, false));
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
          if (typeof value !== 'string') throw badRequest(`@id in a where pattern must be a string, got ${quote(value)}`);
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
        if (typeof t !== 'string') throw badRequest(`@type must be an IRI or a variable, got ${quote(t)}`);
        parts.triples.push({ s, p: RDF_TYPE, o: isVariableString(t) ? variable(varName(t)) : namedNode(ctx.expandIri(t, true)) });
      }
    }
    for (const [key, value] of props) this.property(s, key, value, ctx, parts);
    if (types === undefined && props.length === 0) {
      // `{"@id": S}` alone matches S once if it has any fact (one solution per subject, not per fact).
      const any = this.patternsOp([{ s, p: variable(this.freshVar()), o: variable(this.freshVar()) }]);
      parts.ops.push({ type: 'distinct', input: { type: 'project', input: any, variables: s.termType === 'Variable' ? [s.value] : [] } });
    }
    return s;
  }

  private property(s: TermOrVar, key: string, value: unknown, ctx: ActiveContext, parts: NodeParts): void {
    if (value === null || Array.isArray(value)) {
      throw badRequest(`invalid value for ${key} in a where pattern: ${value === null ? 'null' : 'an array'} (use one pattern per value)`);
    }
    if (isVariableString(key)) {
      // A value object ({"@value": "?v", "@t": "?t", "@op": "?op"}) is allowed too, so history can range over every property.
      const refOk = typeof value === 'string' ? isVariableString(value)
        : isObject(value) && (('@variable' in value) || hasKeyword(value, '@id', ctx) || hasKeyword(value, '@value', ctx));
      if (!refOk) throw badRequest(`with a variable property (${key}) the object must be a variable, {"@id": ...} or a value object`);
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
      else if (this.eventsOn && this.eventMode === 'history') throw badRequest(`property path ${key} cannot range over history events`);
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
    if (!isObject(v)) throw badRequest(`invalid object in a where pattern: ${quote(v)}`);
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
      if (typeof id !== 'string') throw badRequest(`@id must be a string, got ${quote(id)}`);
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
      if (typeof x !== 'string') throw badRequest(`values: expected a variable, got ${quote(x)}`);
      return varName(x);
    });
    return {
      type: 'values',
      variables: names,
      rows: rows.map((r) => {
        if (!Array.isArray(r) || r.length !== names.length) throw badRequest(`values: each row must be an array of ${names.length} values, got ${quote(r)}`);
        return r.map((c) => valuesCell(c, ctx));
      }),
    };
  }

  /**
   * Compile a subquery `{"select": ..., "where": ..., "groupBy": ..., ...}` (jsonld-query.md §5.7)
   * into project / distinct / slice over its pattern. Without `@context` it inherits `outer`.
   */
  subquery(q: unknown, outer: ActiveContext): Op {
    return compileSubquery(q, outer, this);
  }
}

function valuesCell(c: unknown, ctx: ActiveContext): Term | undefined {
  if (c === null) return undefined;
  if (typeof c === 'string' || typeof c === 'number' || typeof c === 'boolean') return jsonScalarLiteral(c);
  if (isObject(c)) {
    if (hasKeyword(c, '@value', ctx)) return valueObjectTerm(c, ctx);
    const keys = Object.keys(c);
    if (keys.length === 1 && hasKeyword(c, '@id', ctx) && typeof c[keys[0]!] === 'string') return iriOrBlank(c[keys[0]!] as string, ctx);
  }
  throw badRequest(`invalid values cell ${quote(c)}`);
}

// ---------------------------------------------------------------------------------------------
// helpers

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

function applyFilters(op: Op, filters: Expr[]): Op {
  return filters.reduce<Op>((acc, expr) => ({ type: 'filter', expr, input: acc }), op);
}

function conjunction(filters: Expr[]): Expr | undefined {
  if (filters.length === 0) return undefined;
  return filters.slice(1).reduce((acc, f) => call('&&', [acc, f]), filters[0]!);
}

function call(fn: string, args: Expr[]): Expr { return { type: 'call', fn, args }; }
function term(t: Term): Expr { return { type: 'term', term: t }; }
