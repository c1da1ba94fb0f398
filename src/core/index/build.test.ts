import { describe, expect, it } from 'vitest';
import { cidOf, type CID } from '../commit/cid.js';
import type { IndexOrder } from '../flake/flake.js';
import type { ContentStore } from '../store.js';
import { MERGED_HISTORY_ROWS, TARGET_LEAF_ROWS, updateOrder } from './build.js';
import { Novelty } from './novelty.js';
import type { IndexRoot } from './root-codec.js';
import { allocRun, sortRun, type Run } from './run.js';
import { scanSteps } from './scan.js';
import { IndexTree, LeafCache, type LeafRef } from './tree.js';

/** A content store over a Map (the core may not import src/storage). */
function mapStore(): ContentStore {
  const m = new Map<string, Uint8Array>();
  return {
    async put(codec, bytes) { const cid = await cidOf(codec, bytes); m.set(cid.toString(), bytes.slice()); return cid; },
    async putWithCid(cid, bytes) { m.set(cid.toString(), bytes.slice()); },
    async get(cid: CID) { const b = m.get(cid.toString()); if (!b) throw new Error('missing ' + cid.toString()); return b.slice(); },
    async has(cid: CID) { return m.has(cid.toString()); },
    async delete(cid: CID) { return m.delete(cid.toString()); },
    async close() {},
  };
}

const SUBJECTS = 20_000;
const PREDS = [10, 11, 12];
/** The object id of subject s's value for predicate p in round r: each round's values get new, higher ids (as interning does). */
const objectOf = (r: number, p: number, s: number) => 1_000_000 * (r + 1) + (p - 10) * SUBJECTS + s;

/** Events of round r at t = r + 1: the retraction of round r − 1's value (none in round 0) and the assert of round r's. */
function roundEvents(r: number): Run {
  const ev = allocRun(SUBJECTS * PREDS.length * 2);
  const row = (s: number, p: number, o: number, op: number) => {
    const j = ev.n++;
    ev.g[j] = 0; ev.s[j] = s; ev.p[j] = p; ev.o[j] = o; ev.m[j] = -1; ev.t[j] = r + 1; ev.op[j] = op;
  };
  for (const p of PREDS) {
    for (let s = 0; s < SUBJECTS; s++) {
      if (r > 0) row(s, p, objectOf(r - 1, p, s), 0);
      row(s, p, objectOf(r, p, s), 1);
    }
  }
  return sortRun(ev, 'post');
}

function treeOf(store: ContentStore, order: IndexOrder, refs: LeafRef[], t: number): IndexTree {
  const leaves = { spot: [], psot: [], post: [], opst: [] } as Record<IndexOrder, LeafRef[]>;
  leaves[order] = refs;
  return new IndexTree(store, null as unknown as CID, { index_t: t } as IndexRoot, leaves, new LeafCache());
}

/** Every (p, s, o) current at t in the tree's POST order. */
async function rowsAt(tree: IndexTree, t: number): Promise<string[]> {
  const out: string[] = [];
  for await (const b of scanSteps({ tree, novelty: Novelty.empty(), t }, [{ order: 'post', prefix: [0], filter: { s: -1, p: -1, o: -1 } }])) {
    for (let i = 0; i < b.n; i++) out.push(`${b.p[i]} ${b.s[i]} ${b.o[i]}`);
  }
  return out.sort();
}

const expected = (r: number): string[] => PREDS.flatMap((p) => Array.from({ length: SUBJECTS }, (_, s) => `${p} ${s} ${objectOf(r, p, s)}`)).sort();

describe('updateOrder after churn', () => {
  it('writes leaves as full as a ledger written once, with head and past reads exact', async () => {
    const store = mapStore();
    const ROUNDS = 4;
    let refs = await updateOrder(null, store, 'post', roundEvents(0));
    const once = refs.length;
    for (let r = 1; r <= ROUNDS; r++) refs = await updateOrder(treeOf(store, 'post', refs, r), store, 'post', roundEvents(r));
    const tree = treeOf(store, 'post', refs, ROUNDS + 1);
    // Every round moves each value to the end of its predicate's range: without coalescing the
    // leaves it leaves behind keep only history (16 leaves here, 10 of them with no current row).
    expect(once).toBe(4);
    expect(refs.map((l) => l.rows)).toEqual([10000, 10000, 10000, 10000, 10000, 10000]);
    for (const l of refs) expect(l.rows).toBeGreaterThanOrEqual(TARGET_LEAF_ROWS / 2);
    expect(await rowsAt(tree, ROUNDS + 1)).toEqual(expected(ROUNDS));
    // History moved with the rows it belongs to: every past state reads back exactly.
    for (let r = 0; r < ROUNDS; r++) expect(await rowsAt(tree, r + 1)).toEqual(expected(r));
  });

  it('stops merging small leaves once they hold MERGED_HISTORY_ROWS of history', async () => {
    // 8 rounds: each predicate's old values leave 8 × 40,000 history rows behind, more than one
    // merged blob may hold.
    const store = mapStore();
    let refs = await updateOrder(null, store, 'post', roundEvents(0));
    for (let r = 1; r <= 8; r++) refs = await updateOrder(treeOf(store, 'post', refs, r), store, 'post', roundEvents(r));
    const tree = treeOf(store, 'post', refs, 9);
    let most = 0;
    for (const ref of refs) most = Math.max(most, (await tree.history(await tree.leaf(ref)))?.n ?? 0);
    // Per predicate: its old values' history written once it passed the bound (no current rows),
    // then its current rows in two leaves.
    expect(refs.map((l) => l.rows)).toEqual([0, 10000, 10000, 0, 10000, 10000, 0, 10000, 10000]);
    expect(most).toBeGreaterThanOrEqual(MERGED_HISTORY_ROWS);
    expect(most).toBeLessThan(MERGED_HISTORY_ROWS + 2 * SUBJECTS * 2);
    expect(refs.reduce((a, l) => a + l.rows, 0)).toBe(SUBJECTS * PREDS.length);
    expect(await rowsAt(tree, 9)).toEqual(expected(8));
    expect(await rowsAt(tree, 4)).toEqual(expected(3));
  });
});
