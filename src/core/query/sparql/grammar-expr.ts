/**
 * SPARQL 1.1 expressions (grammar rules [110]–[128]) into sparqljs-shaped expression objects, so
 * one translator (parse-expr.ts) serves both this parser and sparqljs: operations carry the
 * operator or lower-case built-in name, function calls the IRI, aggregates their name.
 */
import type * as S from 'sparqljs';
import type { Cursor } from './cursor.js';

type E = S.Expression;

/** Built-ins by upper-case name: [min, max] arguments (NIL allowed when min is 0). */
const BUILTINS: Record<string, [number, number]> = {
  STR: [1, 1], LANG: [1, 1], LANGMATCHES: [2, 2], DATATYPE: [1, 1], BOUND: [1, 1], IRI: [1, 1], URI: [1, 1],
  BNODE: [0, 1], RAND: [0, 0], ABS: [1, 1], CEIL: [1, 1], FLOOR: [1, 1], ROUND: [1, 1], CONCAT: [0, Infinity],
  SUBSTR: [2, 3], STRLEN: [1, 1], REPLACE: [3, 4], UCASE: [1, 1], LCASE: [1, 1], ENCODE_FOR_URI: [1, 1],
  CONTAINS: [2, 2], STRSTARTS: [2, 2], STRENDS: [2, 2], STRBEFORE: [2, 2], STRAFTER: [2, 2], YEAR: [1, 1],
  MONTH: [1, 1], DAY: [1, 1], HOURS: [1, 1], MINUTES: [1, 1], SECONDS: [1, 1], TIMEZONE: [1, 1], TZ: [1, 1],
  NOW: [0, 0], UUID: [0, 0], STRUUID: [0, 0], MD5: [1, 1], SHA1: [1, 1], SHA256: [1, 1], SHA384: [1, 1],
  SHA512: [1, 1], COALESCE: [0, Infinity], IF: [3, 3], STRLANG: [2, 2], STRDT: [2, 2], SAMETERM: [2, 2],
  ISIRI: [1, 1], ISURI: [1, 1], ISBLANK: [1, 1], ISLITERAL: [1, 1], ISNUMERIC: [1, 1], REGEX: [2, 3],
};
const AGGREGATES = new Set(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'SAMPLE', 'GROUP_CONCAT']);

export interface ExprHost extends Cursor {
  /** Parse a `{ ... }` group graph pattern (for EXISTS). */
  groupGraphPattern(): S.Pattern[];
}

const op = (operator: string, args: (E | S.Pattern)[]): E => ({ type: 'operation', operator, args } as S.OperationExpression);

/** Expression [110]. */
export function expression(p: ExprHost): E {
  let e = andExpr(p);
  while (p.eatPunct('||')) e = op('||', [e, andExpr(p)]);
  return e;
}

function andExpr(p: ExprHost): E {
  let e = relational(p);
  while (p.eatPunct('&&')) e = op('&&', [e, relational(p)]);
  return e;
}

function relational(p: ExprHost): E {
  const left = additive(p);
  for (const o of ['=', '!=', '<', '>', '<=', '>=']) if (p.eatPunct(o)) return op(o, [left, additive(p)]);
  if (p.eatWord('IN')) return op('in', [left, expressionList(p) as unknown as E]);
  if (p.isWord('NOT') && p.isWord('IN', 1)) { p.i += 2; return op('notin', [left, expressionList(p) as unknown as E]); }
  return left;
}

function additive(p: ExprHost): E {
  let e = multiplicative(p);
  for (;;) {
    if (p.eatPunct('+')) e = op('+', [e, multiplicative(p)]);
    else if (p.eatPunct('-')) e = op('-', [e, multiplicative(p)]);
    else return e;
  }
}

function multiplicative(p: ExprHost): E {
  let e = unary(p);
  for (;;) {
    if (p.eatPunct('*')) e = op('*', [e, unary(p)]);
    else if (p.eatPunct('/')) e = op('/', [e, unary(p)]);
    else return e;
  }
}

function unary(p: ExprHost): E {
  if (p.eatPunct('!')) return op('!', [primary(p)]);
  const t = p.peek(), n = p.peek(1);
  const adjacentNumber = (n.kind === 'integer' || n.kind === 'decimal' || n.kind === 'double') && n.start === t.end;
  if (p.isPunct('+') && !adjacentNumber) { p.i++; return op('UPLUS', [primary(p)]); }
  if (p.isPunct('-') && !adjacentNumber) { p.i++; return op('UMINUS', [primary(p)]); }
  return primary(p);
}

/** BrackettedExpression [121]. */
export function bracketted(p: ExprHost): E {
  p.expectPunct('(');
  const e = expression(p);
  p.expectPunct(')');
  return e;
}

function expressionList(p: ExprHost): E[] {
  if (p.peek().kind === 'nil') { p.i++; return []; }
  p.expectPunct('(');
  const out = [expression(p)];
  while (p.eatPunct(',')) out.push(expression(p));
  p.expectPunct(')');
  return out;
}

/** PrimaryExpression [119]. */
function primary(p: ExprHost): E {
  if (p.isPunct('(')) return bracketted(p);
  // Our terms have the RDF/JS shape sparqljs expressions use, minus `equals` (never called).
  const v = p.tryVar();
  if (v) return v as unknown as E;
  const lit = p.tryLiteral();
  if (lit) return lit as unknown as E;
  const iri = p.tryIri() as unknown as S.IriTerm | undefined;
  if (iri) return p.isPunct('(') || p.peek().kind === 'nil' ? functionCall(p, iri) : iri;
  const call = builtinCall(p);
  if (call) return call;
  throw p.error('expected an expression');
}

/** iri ArgList: an extension function or cast. */
function functionCall(p: ExprHost, iri: S.IriTerm): E {
  let distinct = false;
  let args: E[] = [];
  if (p.peek().kind === 'nil') p.i++;
  else {
    p.expectPunct('(');
    distinct = p.eatWord('DISTINCT');
    args = [expression(p)];
    while (p.eatPunct(',')) args.push(expression(p));
    p.expectPunct(')');
  }
  return { type: 'functionCall', function: iri, args, distinct } as S.FunctionCallExpression;
}

/** BuiltInCall [121] or an aggregate; undefined when the token is not a built-in name. */
export function builtinCall(p: ExprHost): E | undefined {
  const t = p.peek();
  if (t.kind !== 'word') return undefined;
  const name = t.value.toUpperCase();
  if (AGGREGATES.has(name)) { p.i++; return aggregate(p, name); }
  if (name === 'EXISTS') { p.i++; return op('exists', [{ type: 'group', patterns: p.groupGraphPattern() }]); }
  if (name === 'NOT' && p.isWord('EXISTS', 1)) { p.i += 2; return op('notexists', [{ type: 'group', patterns: p.groupGraphPattern() }]); }
  const arity = BUILTINS[name];
  if (!arity) return undefined;
  p.i++;
  const args = expressionList(p);
  if (args.length < arity[0] || args.length > arity[1]) throw p.error(`wrong number of arguments for ${name}`, t);
  if (name === 'BOUND' && (args[0] as { termType?: string }).termType !== 'Variable') throw p.error('BOUND takes a variable', t);
  return op(name.toLowerCase(), args);
}

function aggregate(p: ExprHost, name: string): E {
  p.expectPunct('(');
  const distinct = p.eatWord('DISTINCT');
  let expr: E | { termType: 'Wildcard'; value: '*' };
  if (name === 'COUNT' && p.eatPunct('*')) expr = { termType: 'Wildcard', value: '*' };
  else expr = expression(p);
  let separator: string | undefined;
  if (name === 'GROUP_CONCAT' && p.eatPunct(';')) {
    p.expectWord('SEPARATOR');
    p.expectPunct('=');
    const s = p.next();
    if (s.kind !== 'string') throw p.error('expected a string', s);
    separator = s.value;
  }
  p.expectPunct(')');
  const agg = { type: 'aggregate', aggregation: name.toLowerCase(), distinct, expression: expr } as S.AggregateExpression;
  if (separator !== undefined) agg.separator = separator;
  return agg;
}
