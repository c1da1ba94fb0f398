/**
 * A SPARQL expression evaluation error (SPARQL 1.1 §17.2): not a failure of the query, but a
 * value that makes a FILTER false and leaves a BIND unbound. Re-exported by query/exec/functions.ts;
 * it lives here so the rdf layer (comparison) can raise it without importing the executor.
 */
export class ExprError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExprError';
  }
}

/** True when `e` is an ExprError (works across bundle copies). */
export function isExprError(e: unknown): e is ExprError {
  return e instanceof ExprError || (typeof e === 'object' && e !== null && (e as { name?: string }).name === 'ExprError');
}
