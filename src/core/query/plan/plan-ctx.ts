/**
 * What join ordering (join-order.ts) needs of the planner: variable scopes, the planning context, and
 * the planner's entry points as an interface, so the planner and join ordering do not import each
 * other (planner.ts implements JoinPlanner).
 */
import type { Expr, Op, TermOrVar } from '../algebra/algebra.js';
import type { Runtime } from '../exec/runtime.js';
import type { Pos } from '../exec/scan.js';
import type { PNode } from '../exec/types.js';

/** Variable name -> slot, for one scope (the query, or a subquery's inside). */
export class Scope {
  readonly map = new Map<string, number>();
  constructor(private readonly alloc: () => number) {}
  /** The slot of a variable, allocated on first use. */
  slot(name: string): number {
    let s = this.map.get(name);
    if (s === undefined) {
      s = this.alloc();
      this.map.set(name, s);
    }
    return s;
  }
}

/** Where an operator is being planned. */
export interface PlanCtx {
  scope: Scope;
  /** Variables input rows may bind / always bind. */
  seedMaybe: ReadonlySet<string>;
  seedCertain: ReadonlySet<string>;
  /** Estimated input rows (for hash-vs-probe decisions). */
  inputRows: number;
  /** EXISTS: outer bindings are visible everywhere inside. */
  force: boolean;
  /** Graphs scans will read (null: every named graph), for estimates. */
  graphs: readonly number[] | null;
  /** Quad mode: the graph variable's slot (hash joins must also match it), else -1. */
  gslot: number;
}

/** The planner as join ordering calls it. */
export interface JoinPlanner {
  readonly rt: Runtime;
  plan(op: Op, c: PlanCtx): PNode;
  filterNode(input: PNode, e: Expr, c: PlanCtx, inputVars: Iterable<string>): PNode;
  pos(t: TermOrVar, scope: Scope): Pos;
  slots(names: Iterable<string>, scope: Scope): number[];
  pathNode(op: Extract<Op, { type: 'path' }>, scope: Scope): PNode;
}
