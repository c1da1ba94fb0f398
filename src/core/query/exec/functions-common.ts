/**
 * Shared pieces of the SPARQL function library: the evaluation context, the registry entry shape
 * and argument checks that raise ExprError (SPARQL 1.1 §17.2: a type error, not a query failure).
 */
import { ExprError } from '../../rdf/expr-error.js';
import type { BlankNode, Literal, Term } from '../../rdf/terms.js';
import { type NumericValue, numericValue } from '../../rdf/values.js';
import { rdf, xsd } from '../../rdf/vocab.js';

/** What a function may need from the query: the query's NOW, its base IRI, and a blank node factory scoped by the executor (same label -> same node within one solution). */
export interface FunctionContext { now: Date; baseIri?: string; bnode(label?: string): BlankNode }

/** One entry of the function registry: arity bounds and the implementation over evaluated arguments. */
export interface FunctionDef { min: number; max: number; fn: (args: Term[], ctx: FunctionContext) => Term }

/** A registry entry with a fixed arity range. */
export function def(min: number, max: number, fn: FunctionDef['fn']): FunctionDef { return { min, max, fn }; }

/** A short rendering of a term for error messages. */
export function show(t: Term): string {
  switch (t.termType) {
    case 'NamedNode': return '<' + t.value + '>';
    case 'BlankNode': return '_:' + t.value;
    case 'Literal': return JSON.stringify(t.value) + (t.language ? '@' + t.language : t.datatype.value === xsd.string ? '' : '^^<' + t.datatype.value + '>');
  }
}

/** A simple literal / xsd:string (RDF 1.1 makes them the same term). */
export function isSimpleLiteral(t: Term): t is Literal {
  return t.termType === 'Literal' && t.datatype.value === xsd.string && t.language === '';
}

/** A "string literal" in the sense of §17.4.3: simple, xsd:string or language-tagged. */
export function isStringLiteral(t: Term): t is Literal {
  return t.termType === 'Literal' && (t.datatype.value === xsd.string || (t.datatype.value === rdf.langString && t.language !== ''));
}

/** The argument as a string literal, else ExprError. */
export function stringArg(t: Term, fname: string): Literal {
  if (!isStringLiteral(t)) throw new ExprError(`${fname}: expected a string literal, got ${show(t)}`);
  return t;
}

/** The argument as a simple literal / xsd:string, else ExprError. */
export function simpleArg(t: Term, fname: string): Literal {
  if (!isSimpleLiteral(t)) throw new ExprError(`${fname}: expected a simple literal, got ${show(t)}`);
  return t;
}

/**
 * §17.4.3.1.3 argument compatibility: both simple/xsd:string, both with the same language tag,
 * or the first language-tagged and the second simple/xsd:string.
 */
export function checkCompatible(a: Term, b: Term, fname: string): [Literal, Literal] {
  const x = stringArg(a, fname), y = stringArg(b, fname);
  if (y.language !== '' && y.language.toLowerCase() !== x.language.toLowerCase()) {
    throw new ExprError(`${fname}: incompatible arguments ${show(a)} and ${show(b)}`);
  }
  return [x, y];
}

/** The argument's numeric value, else ExprError (non-numeric or ill-typed). */
export function numArg(t: Term, fname: string): NumericValue {
  const v = numericValue(t);
  if (!v) throw new ExprError(`${fname}: expected a number, got ${show(t)}`);
  return v;
}
