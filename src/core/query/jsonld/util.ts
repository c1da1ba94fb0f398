/** Small helpers shared by the JSON-LD query translator's modules. */
import { badRequest } from '../../errors.js';
import type { Term } from '../../rdf/terms.js';
import type { Expr, Op } from '../algebra/algebra.js';
import { quote } from '../../excerpt.js';

/** A plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `undefined` -> [], an array as is, anything else as a one-element list. */
export function listOf(v: unknown): unknown[] { return v === undefined ? [] : Array.isArray(v) ? v : [v]; }

/** Join two operators, flattening nested joins and dropping the unit. */
export function join(a: Op, b: Op): Op {
  if (a.type === 'unit') return b;
  if (b.type === 'unit') return a;
  return { type: 'join', inputs: [...(a.type === 'join' ? a.inputs : [a]), ...(b.type === 'join' ? b.inputs : [b])] };
}

/** The identity of join. */
export const UNIT: Op = { type: 'unit' };

export function call(fn: string, args: Expr[]): Expr { return { type: 'call', fn, args }; }
export function term(t: Term): Expr { return { type: 'term', term: t }; }
export function varExpr(name: string): Expr { return { type: 'var', name }; }

/** A non-negative integer option (`limit`, `offset`, `depth`), or undefined when absent. */
export function nonNegative(v: unknown, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw badRequest(`${what} must be a non-negative integer, got ${quote(v)}`);
  return v;
}

/** The value of the first of `keys` present in `o` (camelCase / kebab-case spellings). */
export function pick(o: Record<string, unknown>, ...keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined) return o[k];
  return undefined;
}
