/**
 * The one query algebra every language compiles to (SPARQL 1.1 algebra, §18 of the spec, plus the
 * few extensions Ledgraph's languages need). Operators work on solutions binding variable names
 * to terms; the executor runs them over integer ids and materialises terms at the end.
 */
import type { BlankNode, Literal, NamedNode, Term, Variable } from '../../rdf/terms.js';

export type TermOrVar = Term | Variable;

/** A triple pattern; the active graph comes from an enclosing `graph` op (default graph otherwise). */
export interface TriplePattern { s: TermOrVar; p: TermOrVar; o: TermOrVar }

/** Property path expressions (SPARQL 1.1 §9). */
export type PathExpr =
  | { type: 'link'; iri: NamedNode }
  | { type: 'inv'; path: PathExpr }
  | { type: 'seq'; items: PathExpr[] }
  | { type: 'alt'; items: PathExpr[] }
  | { type: 'zeroOrMore'; path: PathExpr }
  | { type: 'oneOrMore'; path: PathExpr }
  | { type: 'zeroOrOne'; path: PathExpr }
  /** Negated property set: forward IRIs and inverse IRIs that must not match. */
  | { type: 'nps'; iris: NamedNode[]; inverse: NamedNode[] };

export type AggregateName = 'count' | 'sum' | 'min' | 'max' | 'avg' | 'sample' | 'group_concat';

export interface Aggregate {
  name: AggregateName;
  distinct: boolean;
  /** Undefined for COUNT(*). */
  expr?: Expr;
  /** GROUP_CONCAT separator (default " "). */
  separator?: string;
}

export type Expr =
  | { type: 'term'; term: Term }
  | { type: 'var'; name: string }
  /**
   * A function or operator call. Operators use their symbol (`+ - * / = != < > <= >= && || !`,
   * unary minus is `neg`, unary plus `pos`, `in`/`notin` with the left operand first); built-ins use
   * their lower-case SPARQL name (`str`, `regex`, `if`, `coalesce`, `bound`, ...); casts and
   * extension functions use the full IRI.
   */
  | { type: 'call'; fn: string; args: Expr[] }
  | { type: 'exists'; not: boolean; op: Op }
  /** Only inside `group` aggregates / having / projections after grouping. */
  | { type: 'aggregate'; agg: Aggregate };

export interface OrderKey { expr: Expr; desc: boolean }

export type Op =
  | { type: 'bgp'; patterns: TriplePattern[] }
  | { type: 'path'; s: TermOrVar; path: PathExpr; o: TermOrVar }
  | { type: 'join'; inputs: Op[] }
  | { type: 'leftjoin'; left: Op; right: Op; expr?: Expr }
  | { type: 'union'; inputs: Op[] }
  | { type: 'minus'; left: Op; right: Op }
  | { type: 'filter'; expr: Expr; input: Op }
  | { type: 'extend'; input: Op; variable: string; expr: Expr }
  /** Evaluate `input` with the active graph `name` (an IRI, or a variable ranging over named graphs). */
  | { type: 'graph'; name: NamedNode | Variable; input: Op }
  /** Group by keys (each optionally bound to a variable) and compute aggregates into variables. */
  | { type: 'group'; input: Op; keys: { expr: Expr; variable?: string }[]; aggregates: { variable: string; agg: Aggregate }[] }
  | { type: 'orderby'; input: Op; keys: OrderKey[] }
  | { type: 'project'; input: Op; variables: string[] }
  | { type: 'distinct'; input: Op }
  | { type: 'reduced'; input: Op }
  | { type: 'slice'; input: Op; offset: number; limit?: number }
  /** Inline data; `undefined` = UNDEF. */
  | { type: 'values'; variables: string[]; rows: (Term | undefined)[][] }
  /** The one empty solution (the identity of join). */
  | { type: 'unit' }
  /**
   * SERVICE (SPARQL 1.1 Federated Query): `query`, a SELECT of the group's pattern, sent to
   * `endpoint`; its solutions bind `variables` (any of them may stay unbound).
   */
  | { type: 'service'; endpoint: NamedNode; silent: boolean; query: string; variables: string[] };

/** Dataset clause: ledger or graph IRIs (ledger ids may carry time specifiers). */
export interface Dataset { defaultGraphs: NamedNode[]; namedGraphs: NamedNode[] }

/** A construct template triple (blank nodes are fresh per solution). */
export interface TemplateTriple { s: TermOrVar; p: TermOrVar; o: TermOrVar }

/** What every query form may carry besides its pattern. */
export interface QueryCommon {
  dataset?: Dataset;
  /** Fuel budget from the query text (SPARQL `# PRAGMA max-fuel N`); the tighter of this and the caller's wins. */
  maxFuel?: number;
  /** Every `# PRAGMA name value` comment, by lower-case name (policy pragmas are read by the server). */
  pragmas?: Record<string, string>;
  /** The query's effective base IRI (its BASE, else the one it was parsed with), for IRI(). */
  base?: string;
}

export type Query =
  | ({ form: 'select'; op: Op; variables: string[] } & QueryCommon)
  | ({ form: 'ask'; op: Op } & QueryCommon)
  | ({ form: 'construct'; op: Op; template: TemplateTriple[] } & QueryCommon)
  | ({ form: 'describe'; op: Op; terms: (NamedNode | Variable)[] } & QueryCommon);

export type { BlankNode, Literal, NamedNode, Term, Variable };
