/** The syntax tree of a Cypher read statement (the subset of cypher.md §5–§6). */

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
  | { k: 'call'; proc: 'db.labels' | 'db.relationshiptypes' | 'db.propertykeys'; yields: string[] };

/** One statement: single queries joined by UNION (all or distinct, never mixed). */
export interface Statement { clauses: Clause[]; unions?: { all: boolean; clauses: Clause[] }[] }
