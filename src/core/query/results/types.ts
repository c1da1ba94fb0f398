/** Query results as the executor produces them and the serialisers consume them. */
import type { Quad, Term } from '../../rdf/terms.js';
import { badRequest } from '../../errors.js';

/** One solution: variable name (no `?`) to term; unbound variables are absent. */
export type Binding = Record<string, Term>;

export type QueryResult =
  | {
    type: 'bindings'; variables: string[]; rows: AsyncIterable<Binding>;
    /** The same solutions a batch at a time, when the producer has them so; a consumer reads `rows` or `batches`, never both. */
    batches?: AsyncIterable<Binding[]>;
    /** The same solutions as term ids, when the producer has them so; a consumer reads one of `rows`, `batches`, `ids`. */
    ids?: IdSolutions;
  }
  | { type: 'boolean'; value: boolean }
  | { type: 'quads'; quads: AsyncIterable<Quad> };

/**
 * Solutions as term ids, a batch of the plan's output at a time: in a batch of `n` rows, variable
 * i of row r is `rows[r * width + slots[i]]` (no slot: -1), `unbound` when unbound. The rows are
 * valid until the next batch is pulled.
 */
export interface IdSolutions {
  width: number;
  slots: readonly number[];
  unbound: number;
  batches: AsyncIterable<{ n: number; rows: Int32Array }>;
  /** A text derived from the term of an id, cached per stored term (serialisers' per-term fragments). */
  text(id: number, derive: (t: Term) => string): string;
  /** The term of an id. */
  term(id: number): Term;
  /**
   * The identity of what stored ids mean: while two results have the same `space`, an id below
   * `computed` names the same term in both, so a consumer may cache what it derives per id.
   */
  space: object;
  /** Ids from here on name terms computed by this query (BIND, VALUES, aggregates): never cache them beyond it. */
  computed: number;
}

/** Drain a result's rows into an array (tests, buffered responses). */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** The quads of a graph result; a 400 for other result types. */
export function quadsOf(result: QueryResult, format: string): AsyncIterable<Quad> {
  if (result.type !== 'quads') throw badRequest(`${format} serialises graph results (CONSTRUCT/DESCRIBE) only`);
  return result.quads;
}
