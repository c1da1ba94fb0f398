import { describe, expect, it } from 'vitest';
import { stalenessPlan } from './plan.js';

const local = { t: 10, index_t: 8, index_head_id: 'bagroot8' };
const remote = (commit_t: number, index_t = 8, index_head_id: string | null = 'bagroot8', commit_head_id: string | null = 'baghead') =>
  ({ commit_t, commit_head_id, index_t, index_head_id });

describe('stalenessPlan (replication.md §14 table)', () => {
  it('same t, same index: nothing', () => {
    expect(stalenessPlan(local, remote(10))).toEqual({ kind: 'nothing', reason: 'current' });
  });
  it('same t, newer index with another root: index only', () => {
    expect(stalenessPlan(local, remote(10, 10, 'bagroot10'))).toEqual({ kind: 'index' });
    expect(stalenessPlan(local, remote(10, 10, 'bagroot8'))).toEqual({ kind: 'nothing', reason: 'current' });
  });
  it('gap 1..5: catch up commits, with the index when it advanced', () => {
    expect(stalenessPlan(local, remote(11))).toEqual({ kind: 'commits', gap: 1, index: false });
    expect(stalenessPlan(local, remote(15, 12, 'bagroot12'))).toEqual({ kind: 'commits', gap: 5, index: true });
  });
  it('gap above 5 or no head id: reload', () => {
    expect(stalenessPlan(local, remote(16))).toEqual({ kind: 'reload' });
    expect(stalenessPlan(local, remote(10, 8, 'bagroot8', null))).toEqual({ kind: 'reload' });
  });
  it('remote behind local: nothing', () => {
    expect(stalenessPlan(local, remote(9))).toEqual({ kind: 'nothing', reason: 'behind-local' });
  });
});
