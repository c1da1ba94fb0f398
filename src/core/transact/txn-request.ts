/**
 * What a write front end (JSON-LD, Turtle/TriG, SPARQL UPDATE, ...) hands to the one write
 * pipeline: parsed, IRI-expanded, but not yet resolved against the ledger. Blank nodes carry their
 * document labels; the pipeline renames them to `lg<T>-<label>` once T is known.
 */
import type { DbView } from '../index/view.js';
import type { Op } from '../query/algebra/algebra.js';
import type { BlankNode, DefaultGraph, NamedNode, Term, Variable } from '../rdf/terms.js';

/** A graph target: the default graph or a named graph IRI. */
export type GraphRef = NamedNode | DefaultGraph;
/**
 * The graph of a statement: a graph target, or a blank-node graph name (JSON-LD `@graph`
 * containers, TriG `_:g { … }`); the pipeline renames its label like any blank node.
 */
export type GraphName = GraphRef | BlankNode;

/** A ground statement to assert or retract. */
export interface TxnQuad {
  subject: NamedNode | BlankNode;
  predicate: NamedNode;
  object: Term;
  graph: GraphName;
  /** Position in an ordered list (`@list`), when the value is a list item. */
  listIndex?: number;
}

/**
 * A statement template of an update; any position may be a variable. Blank nodes in insert
 * templates are fresh per solution; in delete templates `_:label` names a stored blank node.
 */
export interface TemplateQuad {
  subject: NamedNode | BlankNode | Variable;
  predicate: NamedNode | Variable;
  object: Term | Variable;
  graph: GraphName | Variable;
  listIndex?: number;
  /**
   * For delete templates: the object was a plain JSON literal without `@type`/`@language`, so it
   * retracts every current value it would match by value (jsonld-transactions.md §3.5).
   */
  looseObject?: boolean;
}

/** Commit metadata entry (txn-meta), predicate IRI and value. */
export interface MetaEntry { predicate: string; object: Term }

/** Options common to every write (jsonld-transactions.md §10). */
export interface TxnOpts {
  /** RFC 3339 commit timestamp (backdating). */
  eventTime?: string;
  /** Add time/fuel/policy to the receipt. */
  meta?: boolean | { time?: boolean; fuel?: boolean; policy?: boolean };
  maxFuel?: number;
  identity?: string;
  policyClass?: string[];
  policy?: unknown;
  policyValues?: unknown;
  defaultAllow?: boolean;
}

/** What a `program` request works with while its commit is staged (transact/stage-program.ts). */
export interface StageHandle {
  /** The t of the commit being staged. */
  readonly t: number;
  /** The request's query limits (signal, deadline, fuel). */
  readonly limits: { signal?: AbortSignal | undefined; deadline?: number | undefined; maxFuel?: number | undefined };
  /** The state before the transaction plus everything staged so far, restricted to what the writer may view. */
  view(): Promise<DbView>;
  /** Stage an assertion (asserting a current fact stages nothing). */
  assert(q: TxnQuad): Promise<void>;
  /** Stage a retraction (retracting an absent fact stages nothing; an assertion staged earlier cancels). */
  retract(q: TxnQuad): Promise<void>;
}

/** One operation of a SPARQL 1.1 Update request (W3C SPARQL 1.1 Update §3). */
export type UpdateOperation =
  | { type: 'insertData'; quads: TxnQuad[] }
  | { type: 'deleteData'; quads: TxnQuad[] }
  /**
   * DELETE/INSERT ... WHERE (and DELETE WHERE, whose templates are its pattern). Templates without a
   * graph use `with` (or the default graph); WHERE reads `using`/`usingNamed` when given, else the
   * default graph `with` (or the ledger's default graph) and every named graph.
   */
  | { type: 'modify'; where: Op; delete: TemplateQuad[]; insert: TemplateQuad[]; with?: NamedNode; using?: GraphRef[]; usingNamed?: NamedNode[] }
  /** CLEAR and DROP (no difference here: a graph exists while it holds facts). */
  | { type: 'clear' | 'drop'; target: 'default' | 'named' | 'all' | NamedNode; silent: boolean }
  /** CREATE: an error when the graph already holds facts, unless silent; otherwise nothing to do. */
  | { type: 'create'; graph: NamedNode; silent: boolean }
  | { type: 'add' | 'move' | 'copy'; from: GraphRef; to: GraphRef; silent: boolean }
  /** LOAD: refused (the server has no network access) unless SILENT, which makes it a no-op. */
  | { type: 'load'; source: NamedNode; into?: NamedNode; silent: boolean };

/**
 * Default-graph statements as the N-Triples byte reader gives them (key-rows.ts): each distinct
 * spelling's dictionary key once; `s[i]`, `p[i]`, `o[i]` index `keys`.
 */
export interface KeyRows {
  readonly n: number;
  readonly keys: readonly string[];
  readonly s: Int32Array;
  readonly p: Int32Array;
  readonly o: Int32Array;
}

/**
 * `warnings`: what the parser dropped as JSON-LD requires (an
 * ill-formed IRI or language tag, a blank-node property), one line per value; the receipt carries them.
 */
export type TxnRequest =
  /**
   * Assert every quad. `rows`: the same statements as the N-Triples byte reader gave them (then
   * `quads` is made only when read; a large insert stages from `rows`, key-rows.ts).
   */
  | { kind: 'insert'; quads: TxnQuad[]; rows?: KeyRows; meta: MetaEntry[]; opts: TxnOpts; warnings?: string[] }
  /**
   * For every (graph, subject, predicate) present in `quads`, retract current values not in the
   * payload and assert payload values not present (`@type` arrives as rdf:type quads).
   */
  | { kind: 'upsert'; quads: TxnQuad[]; meta: MetaEntry[]; opts: TxnOpts; warnings?: string[] }
  /**
   * Evaluate `where` (with `values` already joined in, null = one empty solution) against the
   * state before the transaction, then instantiate `delete` and `insert` per solution.
   */
  | { kind: 'update'; where: Op | null; delete: TemplateQuad[]; insert: TemplateQuad[]; meta: MetaEntry[]; opts: TxnOpts;
      warnings?: string[];
      /** Default graph(s) of the WHERE (USING / `from`), IRIs; absent = the ledger's default graph. */
      using?: NamedNode[];
      /** Named graphs visible to WHERE (USING NAMED / `fromNamed`). */
      usingNamed?: NamedNode[];
    }
  /**
   * A front end that reads and stages as it goes (Cypher writes): `run` is called while the commit is
   * staged, under the ledger's write lock, and may be called again when the head moved. One commit.
   */
  | { kind: 'program'; run: (h: StageHandle) => Promise<void>; meta: MetaEntry[]; opts: TxnOpts; warnings?: string[] }
  /** A SPARQL Update request: operations in order, each seeing the effects of the ones before; one commit. */
  | { kind: 'sparql-update'; ops: UpdateOperation[]; meta: MetaEntry[]; opts: TxnOpts; warnings?: string[] }
  /**
   * Replace a whole graph (or the default graph) with exactly these quads: retract current facts
   * not present, assert new ones (sync, Graph Store PUT).
   */
  | { kind: 'replace'; graphs: GraphName[]; quads: TxnQuad[]; meta: MetaEntry[]; opts: TxnOpts; warnings?: string[] };
