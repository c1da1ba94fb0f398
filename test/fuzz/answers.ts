/**
 * What the engines answered in a differential case, and when two answers agree: solutions as
 * multisets under one blank-node bijection (test/w3c/compare.ts), CONSTRUCT results as graphs up
 * to isomorphism, ASK as booleans; both engines refusing the query counts as agreement.
 */
import type { ResultTable } from '../../src/core/query/results/sparql-json.js';
import type { Quad } from '../../src/core/rdf/terms.js';
import { compareDatasets, compareTables } from '../w3c/compare.js';

/** What one engine answered: a table, quads, or an error message. */
export type Answer = { kind: 'table'; table: ResultTable } | { kind: 'quads'; quads: Quad[] } | { kind: 'error'; message: string; timeout?: boolean };
/** Undefined when the answers agree, else why not. */
export function compareAnswers(lg: Answer, oxa: Answer): string | undefined {
  if (lg.kind === 'error' || oxa.kind === 'error') {
    if (lg.kind === 'error' && oxa.kind === 'error') return undefined;
    return lg.kind === 'error' ? `Ledgraph failed (${lg.message}); oxigraph answered` : `oxigraph failed (${(oxa as { message: string }).message}); Ledgraph answered`;
  }
  if (lg.kind === 'quads' || oxa.kind === 'quads') {
    if (lg.kind !== oxa.kind) return `result kinds differ: ${lg.kind} vs ${oxa.kind}`;
    return compareDatasets((oxa as { quads: Quad[] }).quads, (lg as { quads: Quad[] }).quads);
  }
  return compareTables(oxa.table, lg.table);
}
