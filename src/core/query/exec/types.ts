/**
 * The executor's data model. A solution is a row of integer term ids, one column ("slot") per
 * query variable, -1 where unbound; rows travel in batches (row-major Int32Array) through
 * physical operators. Every operator computes join(input, itself): fed the rows so far it
 * either binds their ids into its scans (index nested loop) or hash-joins them with its own
 * independently computed solutions. Strings appear only when expressions run and results leave.
 */
import type { Runtime } from './runtime.js';

/** The id of an unbound slot. */
export const UNBOUND = -1;
/** Rows per batch an operator emits before yielding. */
export const BATCH_ROWS = 1024;

/** `n` rows of `rt.width` slots each, row-major. */
export interface Batch { n: number; rows: Int32Array }

export type Stream = AsyncIterable<Batch>;

/**
 * The active graph: the dataset's default graph (possibly a merge of several), one named graph
 * by graph id, or a variable whose slot carries the graph's IRI term id (quad mode).
 */
export type GraphCtx =
  | { kind: 'default' }
  | { kind: 'graph'; gid: number }
  | { kind: 'var'; slot: number };

/** A physical operator. */
export interface PNode {
  /** Solutions of join(input, this) in graph `g`; `input` null stands for the one empty solution. */
  exec(rt: Runtime, input: Stream | null, g: GraphCtx): Stream;
  /** One line for EXPLAIN-style debugging output. */
  describe(): string;
}

/** A stable key of a graph context (caches of independently computed results use it). */
export function graphKey(g: GraphCtx): string {
  return g.kind === 'default' ? 'd' : g.kind === 'graph' ? 'g' + g.gid : 'v' + g.slot;
}
