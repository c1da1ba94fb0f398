/** The syntax tree of a Cypher statement (the subset of cypher.md §5–§7). */

export type Expr =
  | { k: 'lit'; v: unknown }
  | { k: 'param'; name: string; pos: number }
  | { k: 'var'; name: string; pos: number }
  | { k: 'prop'; of: Expr; key: string }
  | { k: 'index'; of: Expr; idx: Expr }
  | { k: 'slice'; of: Expr; from?: Expr; to?: Expr }
  | { k: 'call'; fn: string; args: Expr[]; distinct: boolean; star: boolean; pos: number }
  | { k: 'op'; op: string; args: Expr[] }
  | { k: 'list'; items: Expr[] }
  | { k: 'map'; entries: [string, Expr][] }
  | { k: 'proj'; of: string; items: ({ k: 'key'; key: string } | { k: 'all' } | { k: 'entry'; key: string; e: Expr })[]; pos: number }
  | { k: 'case'; subject?: Expr; whens: [Expr, Expr][]; else?: Expr }
  | { k: 'exists'; patterns: PathPat[]; where?: Expr };

export interface NodePat { v?: string; labels: string[]; props: [string, Expr][]; pos: number }
export interface RelPat {
  v?: string; types: string[]; props: [string, Expr][]; dir: 'out' | 'in' | 'both';
  /** Variable length bounds (max undefined = unbounded); absent for a single hop. */
  range?: { min: number; max?: number };
  pos: number;
}
export interface PathPat { pathVar?: string; nodes: NodePat[]; rels: RelPat[] }

export interface Item { e: Expr; alias?: string; text: string }
export interface Projection {
  distinct: boolean; star: boolean; items: Item[];
  order: { e: Expr; desc: boolean }[]; skip?: Expr; limit?: Expr; where?: Expr;
}

export type Clause =
  | { k: 'match'; optional: boolean; patterns: PathPat[]; where?: Expr }
  | { k: 'unwind'; e: Expr; as: string }
  | { k: 'with'; proj: Projection }
  | { k: 'return'; proj: Projection }
  /** `CALL db.labels()` and friends (§5), with the columns they yield. */
  | { k: 'call'; proc: 'db.labels' | 'db.relationshiptypes' | 'db.propertykeys'; yields: string[] }
  // Writing clauses (§7).
  | { k: 'create'; patterns: PathPat[] }
  | { k: 'merge'; pattern: PathPat; onCreate: SetItem[]; onMatch: SetItem[] }
  | { k: 'set'; items: SetItem[] }
  | { k: 'remove'; items: RemoveItem[] }
  | { k: 'delete'; detach: boolean; exprs: Expr[] };

/** One item of SET (§7): `v.key = e`, `v += e`, `v = e`, `v:L:M`. */
export type SetItem =
  | { k: 'prop'; v: string; key: string; e: Expr }
  | { k: 'merge'; v: string; e: Expr }
  | { k: 'replace'; v: string; e: Expr }
  | { k: 'labels'; v: string; labels: string[] };
/** One item of REMOVE: `v.key` or `v:L:M`. */
export type RemoveItem = { k: 'prop'; v: string; key: string } | { k: 'labels'; v: string; labels: string[] };

/** The clause kinds that write. */
export const WRITE_CLAUSES: ReadonlySet<Clause['k']> = new Set(['create', 'merge', 'set', 'remove', 'delete']);

/** One statement: single queries joined by UNION (all or distinct, never mixed). */
export interface Statement { clauses: Clause[]; unions?: { all: boolean; clauses: Clause[] }[] }

/** True when the statement has a writing clause (it belongs on /update). */
export function isWriteStatement(s: Statement): boolean {
  return s.clauses.some((c) => WRITE_CLAUSES.has(c.k));
}
