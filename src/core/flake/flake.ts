/**
 * Flakes: `(g, s, p, o, t, op, m)` over integer ids. `s`, `p`, `o` are ids in the ledger's term
 * dictionary (a literal's id already carries its datatype and language, so `dt` is implied by `o`);
 * `g` is the graph id (0 default, 1 txn-meta, 2 config, >= 3 named); `m` is the list index or -1.
 * A fact's identity is (g, s, p, o, m); `t`/`op` say what happened to it.
 */
export interface Flake {
  g: number;
  s: number;
  p: number;
  o: number;
  m: number;
  t: number;
  op: boolean;
}

export const GRAPH_DEFAULT = 0;
export const GRAPH_TXN_META = 1;
export const GRAPH_CONFIG = 2;
export const FIRST_NAMED_GRAPH = 3;

/** The four index orders. */
export type IndexOrder = 'spot' | 'psot' | 'post' | 'opst';
export const ORDERS: readonly IndexOrder[] = ['spot', 'psot', 'post', 'opst'];

/** Column positions of (s, p, o, m) in each order's sort key, after g. */
export const ORDER_COLUMNS: Record<IndexOrder, readonly ('s' | 'p' | 'o' | 'm')[]> = {
  spot: ['s', 'p', 'o', 'm'],
  psot: ['p', 's', 'o', 'm'],
  post: ['p', 'o', 's', 'm'],
  opst: ['o', 'p', 's', 'm'],
};

/** Compare two flakes by fact identity in the given order (g first), ignoring t and op. */
export function compareFact(order: IndexOrder, a: Flake, b: Flake): number {
  if (a.g !== b.g) return a.g - b.g;
  switch (order) {
    case 'spot': return (a.s - b.s) || (a.p - b.p) || (a.o - b.o) || (a.m - b.m);
    case 'psot': return (a.p - b.p) || (a.s - b.s) || (a.o - b.o) || (a.m - b.m);
    case 'post': return (a.p - b.p) || (a.o - b.o) || (a.s - b.s) || (a.m - b.m);
    case 'opst': return (a.o - b.o) || (a.p - b.p) || (a.s - b.s) || (a.m - b.m);
  }
}

/** Full index order: fact identity, then t descending, then retract before assert. */
export function compareFlake(order: IndexOrder, a: Flake, b: Flake): number {
  return compareFact(order, a, b) || (b.t - a.t) || (Number(a.op) - Number(b.op));
}

/** Same fact (g, s, p, o, m)? */
export function sameFact(a: Flake, b: Flake): boolean {
  return a.g === b.g && a.s === b.s && a.p === b.p && a.o === b.o && a.m === b.m;
}
