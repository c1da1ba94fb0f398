/**
 * The SPARQL 1.1 function library at the term level (§17): operators, built-in functions and XSD
 * casts over already-evaluated argument terms. The executor handles the lazy forms itself (BOUND,
 * IF, COALESCE, &&, ||, EXISTS, IN/NOT IN) using `ebv` and `=` from here.
 *
 * Two kinds of failure: an ExprError is a SPARQL evaluation error (FILTER false, BIND unbound);
 * a LedgraphError 400 is a broken query (unknown function, wrong number of arguments).
 */
import { badRequest } from '../../errors.js';
import { closedValueEquals, valueCompare, valueEquals } from '../../rdf/compare.js';
import { isBooleanDatatype, isNumericDatatype } from '../../rdf/datatypes.js';
import { ExprError } from '../../rdf/expr-error.js';
import type { Term } from '../../rdf/terms.js';
import { booleanLiteral, parseLiteral } from '../../rdf/values.js';
import { rdf, xsd } from '../../rdf/vocab.js';
import { castFunction, isCastTarget } from './functions-cast.js';
import { type FunctionContext, type FunctionDef, def, show } from './functions-common.js';
import { NUMERIC_FUNCTIONS } from './functions-numeric.js';
import { STRING_FUNCTIONS } from './functions-string.js';
import { TEMPORAL_FUNCTIONS } from './functions-temporal.js';
import { TERM_FUNCTIONS } from './functions-term.js';

export { ExprError, isExprError } from '../../rdf/expr-error.js';
export type { FunctionContext } from './functions-common.js';

/**
 * Effective boolean value (§17.2.2): booleans by value, numerics false when zero or NaN, strings
 * false when empty; an ill-typed boolean/numeric is false; anything else is an ExprError.
 */
export function ebv(t: Term): boolean {
  if (t.termType === 'Literal') {
    const dt = t.datatype.value;
    if (dt === xsd.boolean && (t.value === 'true' || t.value === 'false')) return t.value === 'true';
    if (dt === xsd.string || dt === rdf.langString) return t.value.length > 0;
    if (isBooleanDatatype(dt) || isNumericDatatype(dt)) {
      const v = parseLiteral(t);
      if (!v) return false;
      switch (v.kind) {
        case 'boolean': return v.value;
        case 'integer': return v.big !== 0n;
        case 'decimal': return v.mant !== 0n;
        case 'float': case 'double': return v.num !== 0 && !Number.isNaN(v.num);
      }
    }
  }
  throw new ExprError(`no effective boolean value for ${show(t)}`);
}

const compare = (test: (c: number) => boolean) => def(2, 2, ([a, b]) => booleanLiteral(test(valueCompare(a!, b!))));

const OPERATORS: Record<string, FunctionDef> = {
  '=': def(2, 2, ([a, b]) => booleanLiteral(valueEquals(a!, b!))),
  '!=': def(2, 2, ([a, b]) => booleanLiteral(!valueEquals(a!, b!))),
  // The JSON-LD query language's = and != (jsonld-query.md §5): incomparable values are unequal.
  'closed-eq': def(2, 2, ([a, b]) => booleanLiteral(closedValueEquals(a!, b!))),
  'closed-ne': def(2, 2, ([a, b]) => booleanLiteral(!closedValueEquals(a!, b!))),
  // A NaN comparison result (unordered operands) makes each of these false.
  '<': compare((c) => c < 0),
  '>': compare((c) => c > 0),
  '<=': compare((c) => c <= 0),
  '>=': compare((c) => c >= 0),
  '!': def(1, 1, ([a]) => booleanLiteral(!ebv(a!))),
};

const REGISTRY = new Map<string, FunctionDef>(Object.entries({
  ...OPERATORS, ...NUMERIC_FUNCTIONS, ...STRING_FUNCTIONS, ...TERM_FUNCTIONS, ...TEMPORAL_FUNCTIONS,
}));

/** The registry entry for `name`: an operator symbol, a built-in name (any case) or an XSD cast IRI. */
export function functionDef(name: string): FunctionDef | undefined {
  const d = REGISTRY.get(name) ?? REGISTRY.get(name.toLowerCase());
  if (d) return d;
  if (isCastTarget(name)) {
    const c = castFunction(name);
    REGISTRY.set(name, c);
    return c;
  }
  return undefined;
}

/** Is `name` a function callFunction knows (for front ends validating queries up front)? */
export function isKnownFunction(name: string): boolean {
  return functionDef(name) !== undefined;
}

/** The [min, max] argument count of a known function (max may be Infinity), else undefined. */
export function functionArity(name: string): [number, number] | undefined {
  const d = functionDef(name);
  return d && [d.min, d.max];
}

/**
 * Apply the operator, built-in or cast `name` to evaluated arguments. Throws ExprError for
 * SPARQL evaluation errors and LedgraphError 400 for unknown functions or a wrong argument count.
 */
export function callFunction(name: string, args: Term[], ctx: FunctionContext): Term {
  const d = functionDef(name);
  if (!d) throw badRequest(`unknown function ${name.includes(':') ? '<' + name + '>' : name}`);
  if (args.length < d.min || args.length > d.max) {
    const want = d.min === d.max ? String(d.min) : d.max === Infinity ? `at least ${d.min}` : `${d.min} to ${d.max}`;
    throw badRequest(`wrong number of arguments for ${name}: expected ${want}, got ${args.length}`);
  }
  return d.fn(args, ctx);
}
