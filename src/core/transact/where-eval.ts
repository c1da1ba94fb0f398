/**
 * Evaluating an update's WHERE with the shared query engine (no second matcher), and the loose
 * value match that retractions of plain JSON literals use (jsonld-transactions.md §3.5).
 */
import type { Op } from '../query/algebra/algebra.js';
import { isHidden, mentionedVars } from '../query/algebra/vars.js';
import type { Db } from '../ledger/db.js';
import { numericValueEquals } from '../rdf/values.js';
import type { NamedNode, Term } from '../rdf/terms.js';
import { xsd } from '../rdf/vocab.js';

export type Solution = Record<string, Term>;

/** Every solution of `where` against the snapshot, with USING / USING NAMED graphs when given. */
export async function evaluateWhere(db: Db, where: Op, opts: { using?: NamedNode[]; usingNamed?: NamedNode[]; signal?: AbortSignal }): Promise<Solution[]> {
  const { executeQuery } = await import('../query/engine.js');
  const graphIds = (iris: NamedNode[] | undefined): number[] | undefined =>
    iris ? iris.map((i) => db.graphId(i.value)).filter((g): g is number => g !== undefined) : undefined;
  const variables = [...mentionedVars(where)].filter((v) => !isHidden(v));
  const res = await executeQuery({ form: 'select', op: where, variables }, {
    view: db,
    defaultGraphs: graphIds(opts.using) ?? (opts.using ? [] : undefined),
    namedGraphs: graphIds(opts.usingNamed),
    signal: opts.signal,
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
