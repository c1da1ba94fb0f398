/**
 * Evaluating an update's WHERE with the shared query engine (no second matcher), and the loose
 * value match that retractions of plain JSON literals use (jsonld-transactions.md §3.5).
 */
import { timeoutError } from '../errors.js';
import type { Op } from '../query/algebra/algebra.js';
import { abortError } from '../query/exec/runtime.js';
import { checkAlgebraShape } from '../query/algebra/shape-limits.js';
import { isHidden, mentionedVars } from '../query/algebra/vars.js';
import type { DbView } from '../index/view.js';
import { numericValueEquals } from '../rdf/values.js';
import type { NamedNode, Term } from '../rdf/terms.js';
import type { GraphRef } from './txn-request.js';
import { xsd } from '../rdf/vocab.js';

export type Solution = Record<string, Term>;

/**
 * What stops an update's WHERE evaluation, as it stops a query (issue 20): the request's signal
 * (the client going away), a deadline (ms since the epoch) and a fuel budget.
 */
export interface WhereLimits { signal?: AbortSignal | undefined; deadline?: number | undefined; maxFuel?: number | undefined }

/** Throw when the request was aborted or its WHERE deadline passed (between solutions, while templates apply). */
export function checkWhereLimits(limits: WhereLimits): void {
  if (limits.signal?.aborted) throw abortError(limits.signal);
  if (limits.deadline !== undefined && Date.now() > limits.deadline) throw timeoutError('query timeout exceeded');
}

/** Every solution of `where` against the snapshot, with USING / USING NAMED graphs when given. */
export async function evaluateWhere(db: DbView, where: Op, opts: { using?: GraphRef[]; usingNamed?: NamedNode[] } & WhereLimits): Promise<Solution[]> {
  const { executeQuery } = await import('../query/engine.js');
  checkAlgebraShape(where); // before mentionedVars walks it
  // Unknown graphs are simply empty; the default graph is id 0.
  const graphIds = (refs: GraphRef[] | undefined): number[] | undefined =>
    refs ? refs.map((r) => (r.termType === 'DefaultGraph' ? 0 : db.graphId(r.value))).filter((g): g is number => g !== undefined) : undefined;
  const variables = [...mentionedVars(where)].filter((v) => !isHidden(v));
  const res = await executeQuery({ form: 'select', op: where, variables }, {
    view: db,
    defaultGraphs: graphIds(opts.using),
    // Undefined = every named graph (WITH, JSON-LD `graph`); callers pass [] for USING without USING NAMED.
    namedGraphs: graphIds(opts.usingNamed),
    signal: opts.signal,
    ...(opts.deadline !== undefined ? { timeoutMs: Math.max(1, opts.deadline - Date.now()) } : {}),
    ...(opts.maxFuel !== undefined ? { maxFuel: opts.maxFuel } : {}),
  });
  if (res.type !== 'bindings') return [];
  const out: Solution[] = [];
  for await (const row of res.rows) out.push(row);
  return out;
}

/** Does a plain JSON literal from a delete template match a stored value (numbers by value)? */
export function looseMatches(template: Term, stored: Term): boolean {
  if (template.termType !== 'Literal' || stored.termType !== 'Literal') return false;
  const dt = template.datatype.value;
  if (dt === xsd.integer || dt === xsd.double || dt === xsd.decimal) return numericValueEquals(template, stored);
  return template.value === stored.value && template.datatype.value === stored.datatype.value && template.language === stored.language;
}
