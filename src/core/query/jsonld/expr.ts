/**
 * Expressions of the JSON-LD languages (jsonld-query.md §5.1, §6) -> algebra `Expr`: the
 * S-expression string syntax `"(> ?age 30)"` and the data-array syntax `[">", "?age", 30]`, the
 * function/operator table (names mapped to the algebra's `call` names), aggregates, and the
 * conversion of JSON constants (scalars, value objects, `@json`) into RDF terms.
 */
import { badRequest } from '../../errors.js';
import { quote } from '../../excerpt.js';
import { inputLimits, shapeLimitError } from '../../limits.js';
import type { ActiveContext } from '../../rdf/jsonld-context.js';
import { INTEGER_TYPES } from '../../rdf/datatypes.js';
import { coerceJsonValue } from '../../rdf/values.js';
import { type BlankNode, type Literal, type NamedNode, type Term, blankNode, literal, namedNode } from '../../rdf/terms.js';
import { F, XSD, rdf, xsd } from '../../rdf/vocab.js';
import type { Aggregate, AggregateName, Expr, Op } from '../algebra/algebra.js';

/** Where an expression appears, and what it may therefore contain. */
export interface ExprEnv {
  ctx: ActiveContext;
  /** Compiles the pattern items of a data-array `["exists", P...]`; without it exists is a 400. */
  patterns?: (items: unknown[]) => Op;
  /** Aggregates are allowed (select items, `having`). */
  aggregates?: boolean;
}

/** Intermediate form shared by both syntaxes, before the function table is applied. */
type X =
  | { k: 'call'; fn: string; args: X[] }
  | { k: 'var'; name: string }
  | { k: 'const'; term: Term }
  | { k: 'list'; items: X[] }
  | { k: 'star' }
  | { k: 'sym'; text: string }
  | { k: 'exists'; not: boolean; items: unknown[] };

/**
 * Compile an expression written as an S-expression string, a data array, or a JSON constant
 * (`5`, `true`, `{"@value": ...}`) into the algebra. Unknown functions and wrong arity are 400.
 */
export function compileExpr(input: unknown, env: ExprEnv): Expr {
  return toExpr(typeof input === 'string' ? parseSExpr(input) : fromData(input, env.ctx), env, false);
}

/** A variable name without its `?`, validated (`?__` names are reserved for the engine). */
export function varName(s: unknown): string {
  if (typeof s !== 'string' || !/^\?[^\s?()[\]{}"',]+$/u.test(s)) throw badRequest(`Invalid variable: ${typeof s === 'string' ? s : JSON.stringify(s)} (variables must start with '?')`);
  if (s.startsWith('?__')) throw badRequest(`Invalid variable: ${s} (names starting with ?__ are reserved)`);
  return s.slice(1);
}

/** Is `v` a string that reads as a variable (`?x`)? (Not a type guard: a non-variable may still be a string.) */
export function isVariableString(v: unknown): boolean {
  return typeof v === 'string' && v.length > 1 && v.charCodeAt(0) === 63 /* ? */;
}

// ---------------------------------------------------------------------------------------------
// S-expression syntax

interface Tok { t: '(' | ')' | '[' | ']' | 'str' | 'atom'; v: string; pos: number }

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c) || c === ',') { i++; continue; }
    if (c === '(' || c === ')' || c === '[' || c === ']') { out.push({ t: c, v: c, pos: i }); i++; continue; }
    if (c === '"') {
      const start = i;
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      if (j >= src.length) throw badRequest(`invalid expression ${quote(src)}: unterminated string at position ${start + 1}`);
      let value: string;
      try { value = JSON.parse(src.slice(start, j + 1)) as string; } catch {
        throw badRequest(`invalid expression ${quote(src)}: bad escape in string at position ${start + 1}`);
      }
      out.push({ t: 'str', v: value, pos: start });
      i = j + 1;
      continue;
    }
    const start = i;
    while (i < src.length && !/[\s()[\]",]/.test(src[i]!)) i++;
    out.push({ t: 'atom', v: src.slice(start, i), pos: start });
  }
  return out;
}

/** Refuse an expression nested deeper than maxNestingDepth: parseSExpr and the compiler recurse per level. */
function checkTokenDepth(toks: Tok[]): void {
  const limit = inputLimits().maxNestingDepth;
  let depth = 0;
  for (const t of toks) {
    if (t.t === '(' || t.t === '[') {
      if (++depth > limit) throw shapeLimitError('maxNestingDepth', 'the expression is nested too deeply in ( ) or [ ]');
    } else if ((t.t === ')' || t.t === ']') && depth > 0) depth--;
  }
}

const NUMBER_RE = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$/;

/** Parse an S-expression string (`"(and (> ?a 1) (bound ?b))"`, or a single atom like `"?x"`). */
function parseSExpr(src: string): X {
  const toks = tokenize(src);
  checkTokenDepth(toks);
  let p = 0;
  const fail = (msg: string, tok?: Tok): never => {
    throw badRequest(`invalid expression ${quote(src)}: ${msg}${tok ? ` at position ${tok.pos + 1}` : ''}`);
  };
  const node = (): X => {
    const tok = toks[p++];
    if (!tok) return fail('unexpected end of expression');
    switch (tok.t) {
      case 'str': return { k: 'const', term: literal(tok.v) };
      case ')': case ']': return fail(`unexpected "${tok.v}"`, tok);
      case '[': {
        const items: X[] = [];
        while (toks[p]?.t !== ']') {
          if (p >= toks.length) fail('missing "]"');
          items.push(node());
        }
        p++;
        return { k: 'list', items };
      }
      case '(': {
        const head = toks[p++];
        if (!head || head.t !== 'atom' || head.v.startsWith('?') || NUMBER_RE.test(head.v)) {
          return fail('expected a function name after "("', head ?? tok);
        }
        const args: X[] = [];
        while (toks[p]?.t !== ')') {
          if (p >= toks.length) fail('missing ")"');
          args.push(node());
        }
        p++;
        return { k: 'call', fn: head.v, args };
      }
      case 'atom': return atom(tok.v);
    }
  };
  const result = node();
  if (p < toks.length) fail(`unexpected "${toks[p]!.v}" after the end of the expression`, toks[p]);
  return result;
}

function atom(s: string): X {
  if (s.startsWith('?')) return { k: 'var', name: varName(s) };
  if (s === '*') return { k: 'star' };
  if (s === 'true' || s === 'false') return { k: 'const', term: literal(s, namedNode(xsd.boolean)) };
  if (NUMBER_RE.test(s)) {
    return /^[+-]?\d+$/.test(s)
      ? { k: 'const', term: literal(BigInt(s).toString(), namedNode(xsd.integer)) }
      : { k: 'const', term: literal(s, namedNode(xsd.double)) };
  }
  return { k: 'sym', text: s };
}

// ---------------------------------------------------------------------------------------------
// Data-array syntax

function fromData(v: unknown, ctx: ActiveContext): X {
  if (typeof v === 'string') return v.startsWith('?') ? { k: 'var', name: varName(v) } : { k: 'const', term: literal(v) };
  if (typeof v === 'number' || typeof v === 'boolean') return { k: 'const', term: jsonScalarLiteral(v) };
  if (Array.isArray(v)) {
    if (v.length === 0) throw badRequest('invalid expression: empty array');
    const head = v[0];
    if (typeof head !== 'string') return { k: 'list', items: v.map((x) => fromData(x, ctx)) };
    const fn = head.toLowerCase();
    if (fn === 'expr' && v.length === 2) return fromData(v[1], ctx);
    if (fn === 'exists' || fn === 'not-exists') return { k: 'exists', not: fn === 'not-exists', items: v.slice(1) };
    const isIn = fn === 'in' || fn === 'not-in' || fn === 'notin';
    const args = v.slice(1).map((x, i) => isIn && i > 0 && Array.isArray(x)
      ? { k: 'list' as const, items: x.map((y) => fromData(y, ctx)) }
      : fromData(x, ctx));
    return { k: 'call', fn: head, args };
  }
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('@variable' in o) {
      if (!isVariableString(o['@variable'])) throw badRequest('@variable must be a string starting with ?');
      return { k: 'var', name: varName(o['@variable']) };
    }
    if ('@id' in o && !('@value' in o)) {
      const id = o['@id'];
      if (typeof id !== 'string') throw badRequest('invalid expression: @id must be a string');
      return { k: 'const', term: iriOrBlank(id, ctx) };
    }
    if ('@value' in o) return { k: 'const', term: valueObjectTerm(o, ctx) };
  }
  throw badRequest(`invalid expression: ${quote(v)}`);
}

// ---------------------------------------------------------------------------------------------
// Function table

/** Simple functions: canonical call name and arity bounds. */
const SIMPLE = new Map<string, [string, number, number]>();
function def(names: string[], fn: string, min: number, max: number): void {
  for (const n of names) SIMPLE.set(n, [fn, min, max]);
}
const INF = Number.POSITIVE_INFINITY;
def(['not'], '!', 1, 1);
def(['abs'], 'abs', 1, 1); def(['round'], 'round', 1, 1); def(['ceil'], 'ceil', 1, 1); def(['floor'], 'floor', 1, 1);
def(['rand'], 'rand', 0, 0);
def(['str'], 'str', 1, 1); def(['strlen'], 'strlen', 1, 1); def(['substr'], 'substr', 2, 3);
def(['ucase'], 'ucase', 1, 1); def(['lcase'], 'lcase', 1, 1); def(['contains'], 'contains', 2, 2);
def(['strstarts', 'str-starts'], 'strstarts', 2, 2); def(['strends', 'str-ends'], 'strends', 2, 2);
def(['strbefore', 'str-before'], 'strbefore', 2, 2); def(['strafter', 'str-after'], 'strafter', 2, 2);
def(['concat'], 'concat', 0, INF); def(['replace'], 'replace', 3, 4); def(['regex'], 'regex', 2, 3);
def(['encode_for_uri', 'encode-for-uri'], 'encode_for_uri', 1, 1); def(['lang'], 'lang', 1, 1);
def(['langmatches', 'lang-matches'], 'langmatches', 2, 2);
def(['strdt', 'str-dt'], 'strdt', 2, 2); def(['strlang', 'str-lang'], 'strlang', 2, 2);
def(['isiri', 'isuri', 'is-iri', 'is-uri'], 'isiri', 1, 1); def(['isblank', 'is-blank'], 'isblank', 1, 1);
def(['isliteral', 'is-literal'], 'isliteral', 1, 1); def(['isnumeric', 'is-numeric'], 'isnumeric', 1, 1);
def(['datatype'], 'datatype', 1, 1); def(['bnode'], 'bnode', 0, 1);
def(['sameterm', 'same-term'], 'sameterm', 2, 2); def(['if'], 'if', 3, 3); def(['coalesce'], 'coalesce', 1, INF);
def(['now'], 'now', 0, 0);
for (const n of ['year', 'month', 'day', 'hours', 'minutes', 'seconds', 'timezone', 'tz']) def([n], n, 1, 1);
for (const n of ['md5', 'sha1', 'sha256', 'sha384', 'sha512']) def([n], n, 1, 1);
def(['uuid'], 'uuid', 0, 0); def(['struuid'], 'struuid', 0, 0);
// Ledger functions have no SPARQL name, so they use their IRI like any extension function.
def(['t'], F + 't', 1, 1); def(['op'], F + 'op', 1, 1);

// `=`/`!=` are the closed-world forms: incomparable values are unequal (jsonld-query.md §5, decided).
const COMPARE = new Map([
  ['=', 'closed-eq'], ['eq', 'closed-eq'], ['!=', 'closed-ne'], ['ne', 'closed-ne'], ['<>', 'closed-ne'], ['<', '<'], ['lt', '<'],
  ['<=', '<='], ['le', '<='], ['>', '>'], ['gt', '>'], ['>=', '>='], ['ge', '>='],
]);
const AGGREGATES = new Map<string, [AggregateName, boolean]>([
  ['count', ['count', false]], ['count-distinct', ['count', true]], ['countdistinct', ['count', true]],
  ['sum', ['sum', false]], ['avg', ['avg', false]], ['min', ['min', false]], ['max', ['max', false]],
  ['sample', ['sample', false]], ['groupconcat', ['group_concat', false]], ['group-concat', ['group_concat', false]],
  ['group_concat', ['group_concat', false]],
]);
/**
 * Aggregates the algebra has no operator for: compiled to a marker call (`STAT_FN` + name) that
 * only a whole select item may be; the translator computes them when it shapes the result.
 */
const STAT_AGGREGATES = new Set(['median', 'variance', 'stddev']);
/** Function-name prefix of the statistical aggregates' marker calls. */
export const STAT_FN = 'ledgraph:stat:';
/** XSD constructor functions (SPARQL 1.1 §17.5) usable as `(xsd:integer ?x)`. */
const CASTS = new Set(['string', 'boolean', 'integer', 'decimal', 'float', 'double', 'dateTime', 'date', 'time'].map((n) => XSD + n));

const call = (fn: string, args: Expr[]): Expr => ({ type: 'call', fn, args });
const TRUE: Expr = { type: 'term', term: literal('true', namedNode(xsd.boolean)) };

function arity(name: string, n: number, min: number, max: number): void {
  if (n < min || n > max) {
    const want = min === max ? `${min}` : max === INF ? `at least ${min}` : `${min} to ${max}`;
    throw badRequest(`wrong number of arguments to ${name}: expected ${want}, got ${n}`);
  }
}

/** `?x` is of a datatype of the xsd:integer family. */
function isIntegerTyped(e: Expr): Expr {
  return call('in', [call('datatype', [e]), ...[...INTEGER_TYPES.keys()].map((dt): Expr => ({ type: 'term', term: namedNode(dt) }))]);
}

/**
 * `/` of the JSON-LD dialect (§5.1): integer ÷ integer truncates toward zero (the cast of the
 * exact quotient to xsd:integer); any other operands divide as in SPARQL.
 */
function divide(a: Expr, b: Expr): Expr {
  const q = call('/', [a, b]);
  // A constant operand that is not an integer settles it now (`(/ ?x 2.0)` is plain division).
  const nonInteger = (e: Expr) => e.type === 'term' && !(e.term.termType === 'Literal' && INTEGER_TYPES.has(e.term.datatype.value));
  if (nonInteger(a) || nonInteger(b)) return q;
  return call('if', [call('&&', [isIntegerTyped(a), isIntegerTyped(b)]), call(XSD + 'integer', [q]), q]);
}

function toExpr(x: X, env: ExprEnv, inAggregate: boolean): Expr {
  switch (x.k) {
    case 'var': return { type: 'var', name: x.name };
    case 'const': return { type: 'term', term: x.term };
    case 'list': throw badRequest('a list is only allowed as the second argument of in / not-in');
    case 'star': throw badRequest('* is only allowed in (count *)');
    case 'sym': throw badRequest(`unexpected symbol "${x.text}" in expression (strings must be double-quoted, variables start with ?)`);
    case 'exists': {
      if (!env.patterns) throw badRequest('exists / not-exists are not allowed here');
      return { type: 'exists', not: x.not, op: env.patterns(x.items) };
    }
    case 'call': return compileCall(x.fn, x.args, env, inAggregate);
  }
}

function compileCall(name: string, rawArgs: X[], env: ExprEnv, inAggregate: boolean): Expr {
  const fn = name.toLowerCase();
  const sub = (a: X) => toExpr(a, env, inAggregate);
  const n = rawArgs.length;

  const agg = AGGREGATES.get(fn);
  if (agg || STAT_AGGREGATES.has(fn)) {
    if (!env.aggregates) throw badRequest(`aggregate ${name} is only allowed in select and having`);
    if (inAggregate) throw badRequest(`aggregate ${name} cannot be nested inside another aggregate`);
    const inner = (a: X) => toExpr(a, env, true);
    if (!agg) {
      arity(name, n, 1, 1);
      if (rawArgs[0]!.k === 'star') throw badRequest(`* is only allowed in (count *), not in ${name}`);
      return call(STAT_FN + fn, [inner(rawArgs[0]!)]);
    }
    const [aggName, distinct] = agg;
    if (aggName === 'count' && n === 1 && rawArgs[0]!.k === 'star') {
      if (distinct) throw badRequest('(count-distinct *) is not supported; name a variable');
      return { type: 'aggregate', agg: { name: 'count', distinct: false } };
    }
    if (rawArgs.some((a) => a.k === 'star')) throw badRequest(`* is only allowed in (count *), not in ${name}`);
    if (aggName === 'group_concat') {
      arity(name, n, 1, 2);
      const a: Aggregate = { name: aggName, distinct, expr: inner(rawArgs[0]!) };
      if (n === 2) {
        const sep = rawArgs[1]!;
        if (sep.k !== 'const' || sep.term.termType !== 'Literal') throw badRequest(`the separator of ${name} must be a string`);
        a.separator = sep.term.value;
      }
      return { type: 'aggregate', agg: a };
    }
    arity(name, n, 1, 1);
    return { type: 'aggregate', agg: { name: aggName, distinct, expr: inner(rawArgs[0]!) } };
  }

  if (fn === 'and' || fn === 'or') {
    arity(name, n, 1, INF);
    const op = fn === 'and' ? '&&' : '||';
    const args = rawArgs.map(sub);
    // One operand still yields a boolean (its effective boolean value), as `x && true` does.
    if (args.length === 1) return call(op, [args[0]!, fn === 'and' ? TRUE : { type: 'term', term: literal('false', namedNode(xsd.boolean)) }]);
    return args.slice(1).reduce((acc, a) => call(op, [acc, a]), args[0]!);
  }
  const cmp = COMPARE.get(fn);
  if (cmp) {
    arity(name, n, 2, INF);
    const args = rawArgs.map(sub);
    // Comparisons chain pairwise: (< a b c) = (a < b) && (b < c).
    let out = call(cmp, [args[0]!, args[1]!]);
    for (let i = 2; i < args.length; i++) out = call('&&', [out, call(cmp, [args[i - 1]!, args[i]!])]);
    return out;
  }
  if (fn === '+' || fn === '-' || fn === '*' || fn === '/') {
    arity(name, n, fn === '+' || fn === '-' ? 1 : 2, INF);
    const args = rawArgs.map(sub);
    if (args.length === 1) return call(fn === '-' ? 'neg' : 'pos', args);
    return args.slice(1).reduce((acc, a) => (fn === '/' ? divide(acc, a) : call(fn, [acc, a])), args[0]!);
  }
  if (fn === 'in' || fn === 'not-in' || fn === 'notin') {
    arity(name, n, 2, 2);
    const list = rawArgs[1]!;
    if (list.k !== 'list') throw badRequest(`${name} needs a list as its second argument, e.g. (in ?x [1 2])`);
    return call(fn === 'in' ? 'in' : 'notin', [sub(rawArgs[0]!), ...list.items.map(sub)]);
  }
  if (fn === 'bound') {
    arity(name, n, 1, 1);
    if (rawArgs[0]!.k !== 'var') throw badRequest('bound takes a variable');
    return call('bound', [sub(rawArgs[0]!)]);
  }
  if (fn === 'iri' || fn === 'uri') {
    arity(name, n, 1, 1);
    const a = rawArgs[0]!;
    // A constant string is expanded through the context now, so compact IRIs work as written.
    if (a.k === 'const' && a.term.termType === 'Literal' && a.term.datatype.value === xsd.string && a.term.language === '') {
      return { type: 'term', term: iriOrBlank(a.term.value, env.ctx) };
    }
    return call('iri', [sub(a)]);
  }
  if (fn === 'exists' || fn === 'not-exists') throw badRequest(`${name} needs patterns: use the data-array form ["${fn}", {...}]`);
  const simple = SIMPLE.get(fn);
  if (simple) {
    const [canonical, min, max] = simple;
    arity(name, n, min, max);
    return call(canonical, rawArgs.map(sub));
  }
  if (name.includes(':')) {
    const iri = env.ctx.expandIri(name, true);
    if (CASTS.has(iri)) {
      arity(name, n, 1, 1);
      return call(iri, rawArgs.map(sub));
    }
  }
  throw badRequest(`unknown function: ${name}`);
}

// ---------------------------------------------------------------------------------------------
// JSON constants -> RDF terms

/** An IRI (expanded in `@id` position) or, for `_:label`, a blank node. */
export function iriOrBlank(s: string, ctx: ActiveContext): NamedNode | BlankNode {
  if (s.startsWith('_:')) return blankNode(s.slice(2));
  return namedNode(ctx.expandIri(s, false));
}

/** A JSON number as a literal: integral -> xsd:integer, otherwise xsd:double with JS's shortest text. */
export function jsonNumberLiteral(n: number): Literal {
  if (!Number.isFinite(n)) throw badRequest(`invalid number ${n}`);
  if (Number.isInteger(n)) return literal(Number.isSafeInteger(n) ? String(n) : BigInt(n).toString(), namedNode(xsd.integer));
  return literal(String(n), namedNode(xsd.double));
}

/** A plain JSON scalar as a literal (jsonld-transactions.md §3.3). */
export function jsonScalarLiteral(v: string | number | boolean): Literal {
  if (typeof v === 'string') return literal(v);
  if (typeof v === 'number') return jsonNumberLiteral(v);
  return literal(v ? 'true' : 'false', namedNode(xsd.boolean));
}

/** RFC 8785 (JCS) canonical JSON text: sorted keys, ECMAScript number and string serialisation. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw badRequest(`cannot store non-finite number ${v} as JSON`);
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return '[' + v.map(canonicalJson).join(',') + ']';
  if (typeof v === 'object') {
    // JCS sorts by UTF-16 code units, which is what the default sort compares.
    const keys = Object.keys(v).sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson((v as Record<string, unknown>)[k])).join(',') + '}';
  }
  throw badRequest(`cannot store ${typeof v} as JSON`);
}

/** An rdf:JSON literal of any JSON value. */
export function jsonLiteral(v: unknown): Literal { return literal(canonicalJson(v), namedNode(rdf.JSON)); }

/**
 * A literal or IRI from a JSON scalar and the coercion a context term gives it: `type` ("@id",
 * "@vocab", "@json" or a datatype IRI) and the language for plain strings.
 */
export function coercedTerm(v: string | number | boolean, type: string | undefined, language: string | null, ctx: ActiveContext): Term {
  if (type === '@json') return jsonLiteral(v);
  if (typeof v === 'string') {
    if (type === '@id') return iriOrBlank(v, ctx);
    if (type === '@vocab') return namedNode(ctx.expandIri(v, true));
    if (type !== undefined && type !== '@none') return coerceJsonValue(v, type);
    return language ? literal(v, language) : literal(v);
  }
  if (type !== undefined && !type.startsWith('@')) return coerceJsonValue(v, type);
  return jsonScalarLiteral(v);
}

/**
 * A value object `{"@value": v, "@type"?: T, "@language"?: L}` as a term (§3.3–3.4): coerced to
 * T, language-tagged, `@json`, or an IRI when `@type` is "@id". Variables are the caller's business.
 */
export function valueObjectTerm(o: Record<string, unknown>, ctx: ActiveContext): Term {
  for (const k of Object.keys(o)) {
    const kw = ctx.keyword(k) ?? k;
    if (kw !== '@value' && kw !== '@type' && kw !== '@language' && kw !== '@index') {
      throw badRequest(`invalid value object: unexpected key "${k}"`);
    }
  }
  const get = (kw: string): unknown => {
    for (const k of Object.keys(o)) if ((ctx.keyword(k) ?? k) === kw) return o[k];
    return undefined;
  };
  const value = get('@value');
  const type = get('@type');
  const lang = get('@language');
  if (type !== undefined && lang !== undefined) {
    if (typeof type !== 'string' || ctx.expandIri(type, true) !== rdf.langString) throw badRequest('a value object cannot have both @type and @language');
  }
  if (type !== undefined && typeof type !== 'string') throw badRequest('@type of a value object must be a string');
  const dt = type === undefined ? undefined : type === '@id' || type === '@json' ? type : ctx.expandIri(type, true);
  if (dt === '@json' || dt === rdf.JSON) return jsonLiteral(value);
  if (value === null || value === undefined) throw badRequest('a value object needs a non-null @value');
  if (typeof value === 'object') throw badRequest('@value must be a string, number or boolean unless @type is @json');
  const v = value as string | number | boolean;
  if (lang !== undefined) {
    if (typeof lang !== 'string' || !/^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$/.test(lang)) throw badRequest(`invalid @language ${quote(lang)}`);
    if (typeof v !== 'string') throw badRequest('@language requires a string @value');
    return literal(v, lang);
  }
  if (dt === '@id') {
    if (typeof v !== 'string') throw badRequest('@value must be a string when @type is @id');
    return iriOrBlank(v, ctx);
  }
  if (dt !== undefined) {
    if (dt.startsWith('@')) throw badRequest(`invalid @type ${dt} in a value object`);
    return coerceJsonValue(v, dt);
  }
  return jsonScalarLiteral(v);
}
