/**
 * The one place the executor meets the term-level function library (functions.ts) and value
 * comparison (rdf/compare.ts), so the evaluator depends on a handful of names only.
 */
export { callFunction, ebv, functionArity, functionDef, isKnownFunction, ExprError, isExprError } from './functions.js';
export type { FunctionContext } from './functions.js';
export { compareForOrder, valueEquals } from '../../rdf/compare.js';
