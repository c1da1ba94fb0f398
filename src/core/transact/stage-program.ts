/**
 * The StageHandle of a `program` request (Cypher writes): reads see the snapshot plus what the
 * program staged so far, as an overlay rebuilt only when a read follows a write, and restricted to
 * what the writer may view (policy.md §6), as an update's WHERE is.
 */
import type { DbView } from '../index/view.js';
import type { Db } from '../ledger/db.js';
import { whereView, type PolicyInputs } from '../policy/index.js';
import type { Stager } from './stage.js';
import type { StageHandle, TxnQuad } from './txn-request.js';
import type { WhereLimits } from './where-eval.js';

/** A handle over `stager`, whose reads start from `base` (the state before the transaction). */
export function stageHandle(stager: Stager, base: Db, t: number, inputs: PolicyInputs, limits: WhereLimits): StageHandle {
  let dirty = false;
  let current: DbView | null = null;
  return {
    t,
    limits,
    async view() {
      if (dirty || current === null) {
        if (dirty) stager.db = base.withEvents(stager.idFlakes(t), base.graphTableWith(stager.newGraphs), t);
        current = await whereView(stager.db, inputs);
        dirty = false;
      }
      return current;
    },
    async assert(q: TxnQuad) { dirty = true; await stager.assert(q); },
    async retract(q: TxnQuad) { dirty = true; await stager.retract(q); },
  };
}
