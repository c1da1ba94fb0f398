/** What branch operations need of a connection: the write environment, ledger lookup, and cache control. */
import type { Ledger } from '../ledger/ledger.js';
import type { WriteEnv } from '../ledger/stores.js';
import { commitConflict } from '../errors.js';
import type { CommitGraph } from './dag.js';

export interface BranchEnv extends WriteEnv {
  /** The loaded ledger of `name:branch` (404 when absent or retracted). */
  ledger(id: string): Promise<Ledger>;
  /** Drop a loaded ledger from the cache after its head moved off its first-parent chain. */
  forget(id: string): void;
  /** Load a branch in the background so the commits it starts with above its index get indexed. */
  prepare(id: string): void;
  /** Envelope cache and walks over the commit graph of a ledger's content (its branches share it). */
  graphFor(ledgerId: string): CommitGraph;
  /** Branches a maintenance operation (merge, rebase, revert) is running on. */
  readonly maintenance: Set<string>;
}

/** Run a maintenance operation holding the branch: a second one at the same time is a 409. */
export async function holdBranch<T>(env: BranchEnv, id: string, fn: () => Promise<T>): Promise<T> {
  if (env.maintenance.has(id)) throw commitConflict(`another merge, rebase or revert is running on ${id}; retry later`);
  env.maintenance.add(id);
  try {
    return await fn();
  } finally {
    env.maintenance.delete(id);
  }
}
