/**
 * The staleness plan of replication.md §14.2: what a peer does when the transaction server's record
 * of a ledger differs from the ledger it has loaded.
 */
import type { NsRecord } from '../core/store.js';

/** Largest commit gap closed by walking first parents; larger gaps reload. */
export const MAX_CATCH_UP = 5;

export type Plan =
  | { kind: 'nothing'; reason: 'current' | 'behind-local' }
  | { kind: 'index' }
  | { kind: 'commits'; gap: number; index: boolean }
  | { kind: 'reload' };

/** What the peer has loaded of a ledger. */
export interface LocalState { t: number; index_t: number; index_head_id: string | null }

/** The §14 table: compare the remote watermark with the local state. */
export function stalenessPlan(local: LocalState, remote: Pick<NsRecord, 'commit_t' | 'commit_head_id' | 'index_t' | 'index_head_id'>): Plan {
  const indexAdvanced = remote.index_t > local.index_t && !!remote.index_head_id && remote.index_head_id !== local.index_head_id;
  if (!remote.commit_head_id) return { kind: 'reload' };
  const gap = remote.commit_t - local.t;
  if (gap < 0) return { kind: 'nothing', reason: 'behind-local' };
  if (gap === 0) return indexAdvanced ? { kind: 'index' } : { kind: 'nothing', reason: 'current' };
  if (gap <= MAX_CATCH_UP) return { kind: 'commits', gap, index: indexAdvanced };
  return { kind: 'reload' };
}
