/** Query results as the executor produces them and the serialisers consume them. */
import type { Quad, Term } from '../../rdf/terms.js';

/** One solution: variable name (no `?`) to term; unbound variables are absent. */
export type Binding = Record<string, Term>;

export type QueryResult =
  | { type: 'bindings'; variables: string[]; rows: AsyncIterable<Binding> }
  | { type: 'boolean'; value: boolean }
  | { type: 'quads'; quads: AsyncIterable<Quad> };

/** Drain a result's rows into an array (tests, buffered responses). */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
