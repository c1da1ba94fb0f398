/** Node facts as Cypher values: properties, labels and property maps (cypher.md §2, §4). */
import type { Clause } from './ast.js';
import { F_NODE, RDF_TYPE, type Graph } from './graph.js';
import type { Names } from './names.js';
import { fromTerm, mapV, orderCompare, type MapV, type NodeV, type Value } from './values.js';

/** What expressions need besides the row. */
export interface Env {
  g: Graph; names: Names; params: Record<string, Value>; now: Date; deleted?: Set<string>; writer?: ClauseWriter;
  /** EXISTS extensions matched for many rows at once (run.ts batchExists), by expression and row. */
  exists?: WeakMap<object, WeakMap<Map<string, Value>, Map<string, Value>[]>>;
}

/** Runs writing clauses (write.ts) inside a write statement; absent on reads. */
export interface ClauseWriter {
  /** Let reads see every write made so far. */
  sync(): Promise<void>;
  /** Run one writing clause over the rows; the rows after it (CREATE and MERGE bind variables). */
  run(c: Extract<Clause, { k: 'create' | 'merge' | 'set' | 'remove' | 'delete' }>, rows: Map<string, Value>[], env: Env): Promise<Map<string, Value>[]>;
}

export const isObj = (v: Value): v is Exclude<Value, null | boolean | bigint | number | string | Value[]> => v !== null && typeof v === 'object' && !Array.isArray(v);
export const asNode = (v: Value): NodeV | undefined => (isObj(v) && v.t === 'node' ? v : undefined);

/** The property `key` (an IRI) of a node: null, the value, or the sorted list of several (§4). */
export async function nodeProp(env: Env, n: NodeV, iri: string): Promise<Value> {
  const vals = (await env.g.valuesOf(n.id, iri)).filter((t) => t.termType === 'Literal').map(fromTerm);
  if (!vals.length) return null;
  return vals.length === 1 ? vals[0]! : vals.sort(orderCompare);
}

/** A node's labels (names, sorted; f:Node hidden). */
export async function labelsOf(env: Env, n: NodeV): Promise<string[]> {
  return (await env.g.valuesOf(n.id, RDF_TYPE)).filter((t) => t.termType === 'NamedNode' && t.value !== F_NODE).map((t) => env.names.name(t.value)).sort();
}

/** A node's or reifier's properties as a sorted map (multi-valued → list). */
export async function propsOf(env: Env, id: NodeV['id']): Promise<MapV> {
  const facts = await env.g.factsOf(id);
  const entries: [string, Value][] = [];
  for (const [p, ts] of facts) {
    if (p === RDF_TYPE || p.startsWith('https://ns.ledgraph.dev/reifies')) continue;
    const lits = ts.filter((t) => t.termType === 'Literal').map(fromTerm);
    if (!lits.length) continue;
    entries.push([env.names.name(p), lits.length === 1 ? lits[0]! : lits.sort(orderCompare)]);
  }
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return mapV(entries);
}

