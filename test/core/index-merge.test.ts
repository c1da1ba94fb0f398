/**
 * The copy-on-write index merge (src/core/index/build.ts updateOrder, mergeAsserts) against an
 * index of the same events built from scratch, and a bulk load into a ledger with data against
 * one load of everything into a new ledger.
 */
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import { describe, expect, it } from 'vitest';
import { ORDERS, GRAPH_TXN_META, type IndexOrder } from '../../src/core/flake/flake.js';
import { applyEvents, mergeAsserts, TARGET_LEAF_ROWS, updateOrder, writeLeaves } from '../../src/core/index/build.js';
import type { IndexRoot } from '../../src/core/index/root-codec.js';
import { allocRun, sortRun, type Run } from '../../src/core/index/run.js';
import { IndexTree, LeafCache, type LeafRef } from '../../src/core/index/tree.js';
import { Connection } from '../../src/core/ledger/connection.js';
import type { Ledger } from '../../src/core/ledger/ledger.js';
import { parseSparqlUpdate } from '../../src/core/query/sparql/update.js';
import { MemoryContentStore } from '../../src/storage/memory-store.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { prng as rng } from '../support/prng.js';
import { sortedRows as select } from '../support/sparql-rows.js';

type Row = [number, number, number, number, number, number, number];
const rowsOf = (r: Run): Row[] => Array.from({ length: r.n }, (_, i) => [r.g[i]!, r.s[i]!, r.p[i]!, r.o[i]!, r.m[i]!, r.t[i]!, r.op[i]!]);

function runOf(rows: readonly Row[]): Run {
  const r = allocRun(rows.length);
  for (const [g, s, p, o, m, t, op] of rows) {
    const j = r.n++;
    r.g[j] = g; r.s[j] = s; r.p[j] = p; r.o[j] = o; r.m[j] = m; r.t[j] = t; r.op[j] = op;
  }
  return r;
}

/** `n` events at t: facts drawn from subjects [s0, s0 + subjects), asserts unless a retract share is asked for. */
function events(rand: () => number, n: number, t: number, s0: number, subjects: number, retracts = 0): Row[] {
  const out: Row[] = [];
  for (let i = 0; i < n; i++) {
    const g = rand() < 0.1 ? 3 : 0;
    out.push([g, s0 + Math.floor(rand() * subjects), 100 + Math.floor(rand() * 8), Math.floor(rand() * 400), -1, t, rand() < retracts ? 0 : 1]);
  }
  return out;
}

/** Events as novelty holds them: one per fact and t (the last one drawn wins), sorted in `order`. */
function novelty(rows: readonly Row[], order: IndexOrder): Run {
  const byFact = new Map<string, Row>();
  for (const r of rows) byFact.set(`${r[0]} ${r[1]} ${r[2]} ${r[3]} ${r[4]} ${r[5]}`, r);
  return sortRun(runOf([...byFact.values()]), order);
}

async function cidOf(i: number): Promise<CID> {
  return CID.create(1, 0x55, await sha256.digest(new TextEncoder().encode(String(i))));
}

/** A tree holding `leaves` for one order (the rest of the root is not read by updateOrder). */
async function treeOf(store: MemoryContentStore, order: IndexOrder, leaves: LeafRef[]): Promise<IndexTree> {
  const all = Object.fromEntries(ORDERS.map((o) => [o, o === order ? leaves : []])) as Record<IndexOrder, LeafRef[]>;
  return new IndexTree(store, await cidOf(0), {} as IndexRoot, all, new LeafCache());
}

/** Current rows and history rows of every leaf, in leaf order, each as one run. */
async function contents(tree: IndexTree, leaves: LeafRef[]): Promise<{ cur: Run; hist: Run }> {
  const curs: Run[] = [], hists: Run[] = [];
  for (const ref of leaves) {
    const leaf = await tree.leaf(ref);
    curs.push(leaf.run);
    const h = await tree.history(leaf);
    if (h) hists.push(h);
  }
  return { cur: concat(curs), hist: concat(hists) };
}

function concat(runs: Run[]): Run {
  const out = allocRun(runs.reduce((a, r) => a + r.n, 0));
  for (const r of runs) {
    for (const k of ['g', 's', 'p', 'o', 'm', 't'] as const) out[k].set(r[k].subarray(0, r.n), out.n);
    out.op.set(r.op.subarray(0, r.n), out.n);
    out.n += r.n;
  }
  return out;
}

/** The first row where two runs differ (-1: none; their length when one is a prefix of the other). */
function firstDifference(a: Run, b: Run): number {
  const n = Math.min(a.n, b.n);
  for (let i = 0; i < n; i++) {
    if (a.g[i] !== b.g[i] || a.s[i] !== b.s[i] || a.p[i] !== b.p[i] || a.o[i] !== b.o[i] || a.m[i] !== b.m[i] || a.t[i] !== b.t[i] || a.op[i] !== b.op[i]) return i;
  }
  return a.n === b.n ? -1 : n;
}

describe('copy-on-write index merge', () => {
  it('merges asserts of new facts as applyEvents does, and leaves retracts, repeats and facts held to it', () => {
    const rand = rng(7);
    for (const order of ORDERS) {
      const base = applyEvents(order, allocRun(0), null, novelty(events(rand, 3000, 1, 0, 200), order));
      const held = new Set(rowsOf(base.cur).map((r) => r.slice(0, 5).join(' ')));
      const fresh = events(rand, 3000, 2, 0, 400).filter((r) => !held.has(r.slice(0, 5).join(' ')));
      const ev = novelty(fresh, order);
      const fast = mergeAsserts(order, base.cur, base.hist, ev);
      const general = applyEvents(order, base.cur, base.hist, ev);
      expect(fast).not.toBeNull();
      expect(firstDifference(fast!.cur, general.cur)).toBe(-1);
      expect(firstDifference(fast!.hist, general.hist)).toBe(-1);
      expect(fast!.cur.n).toBeGreaterThan(base.cur.n);
      // A retract, a fact the leaf holds, or a fact twice among the events: the general path's.
      expect(mergeAsserts(order, base.cur, base.hist, runOf([[...rowsOf(ev)[0]!.slice(0, 6), 0] as Row]))).toBeNull();
      expect(mergeAsserts(order, base.cur, base.hist, runOf([[...rowsOf(base.cur)[5]!.slice(0, 5), 2, 1] as Row]))).toBeNull();
      const twice = rowsOf(ev)[3]!;
      expect(mergeAsserts(order, base.cur, base.hist, sortRun(runOf([[...twice.slice(0, 5), 3, 1] as Row, twice]), order))).toBeNull();
    }
  });

  it('gives every order the rows an index built from scratch holds: overlapping keys, retracts, appends; untouched leaves kept by reference', async () => {
    const rand = rng(42);
    for (const order of ORDERS) {
      for (const kind of ['mixed', 'append', 'sparse'] as const) {
        const store = new MemoryContentStore();
        // An index over two commits (t 1, t 2: retracts and reasserts give leaves a history).
        const t1 = novelty(events(rand, 100_000, 1, 0, 10_000), order);
        const first = applyEvents(order, allocRun(0), null, t1);
        const base = applyEvents(order, first.cur, first.hist, novelty(events(rand, 8000, 2, 0, 10_000, 0.4), order));
        const leaves = await writeLeaves(store, order, base.cur, base.hist);
        expect(leaves.length).toBeGreaterThan(4);
        const tree = await treeOf(store, order, leaves);
        // New events at t 3: over the old subjects (asserts and retracts) and/or all after them.
        const rows = kind === 'mixed' ? [...events(rand, 5000, 3, 0, 10_000, 0.3), ...events(rand, 30_000, 3, 10_000, 3000)]
          : kind === 'append' ? events(rand, 3 * TARGET_LEAF_ROWS, 3, 1_000_000, 5000).map((r) => [3, ...r.slice(1)] as Row) // after every key in SPOT
          : events(rand, 500, 3, 0, 50, 0.3).map((r) => [0, ...r.slice(1)] as Row); // sparse: the first subjects only
        const ev = novelty(rows, order);
        const merged = await updateOrder(tree, store, order, ev);
        const scratch = applyEvents(order, base.cur, base.hist, ev);
        const got = await contents(await treeOf(store, order, merged), merged);
        expect(got.cur.n).toBe(scratch.cur.n);
        expect(firstDifference(got.cur, scratch.cur)).toBe(-1);
        expect(got.hist.n).toBe(scratch.hist.n);
        expect(firstDifference(got.hist, scratch.hist)).toBe(-1);
        // Leaves in key order, each within its first and last key.
        for (let i = 1; i < merged.length; i++) expect(cmp(merged[i - 1]!.last, merged[i]!.first)).toBeLessThan(0);
        if (order === 'spot' && kind === 'sparse') {
          // Leaves no event falls into are the same objects: all but the first.
          expect(merged.slice(-(leaves.length - 1)).map((l) => l.cid.toString())).toEqual(leaves.slice(1).map((l) => l.cid.toString()));
        }
        if (order === 'spot' && kind === 'append') {
          // Every event sorts after the old index: every old leaf is kept, the events are new leaves after them.
          expect(merged.slice(0, leaves.length).map((l) => l.cid.toString())).toEqual(leaves.map((l) => l.cid.toString()));
          expect(merged.length).toBeGreaterThan(leaves.length);
        }
      }
    }
  });
});

function cmp(a: number[], b: number[]): number {
  for (let i = 0; i < 5; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

async function* text(s: string): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(s);
  for (let i = 0; i < bytes.length; i += 65536) yield bytes.subarray(i, i + 65536);
}

/** N-Quads of `n` subjects from `from`, sharing predicates, literals and object IRIs with any other range. */
function quads(rand: () => number, from: number, n: number): string[] {
  const out: string[] = [];
  for (let s = from; s < from + n; s++) {
    const subj = `<http://ex.org/s${s}>`;
    out.push(`${subj} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex.org/C${s % 5}> .`);
    for (let k = 0; k < 4; k++) out.push(`${subj} <http://ex.org/p${Math.floor(rand() * 6)}> "v${Math.floor(rand() * 300)}" .`);
    out.push(`${subj} <http://ex.org/link> <http://ex.org/s${Math.floor(rand() * (from + n))}> .`);
    if (s % 7 === 0) out.push(`${subj} <http://ex.org/p1> "in g" <http://ex.org/g${s % 3}> .`);
  }
  return out;
}

/** Every current fact of every order as term keys (meta graph and t left out), sorted. */
async function indexFacts(ledger: Ledger): Promise<Record<IndexOrder, string[]>> {
  const tree = ledger.tree!;
  const keys = await ledger.dict.keysOf(0, ledger.dict.size);
  const graphs = new Map(ledger.graphs.named().map(([id, iri]) => [id, iri]));
  const out = {} as Record<IndexOrder, string[]>;
  for (const order of ORDERS) {
    const facts: string[] = [];
    for (const ref of tree.leaves[order]) {
      const r = (await tree.leaf(ref)).run;
      for (let i = 0; i < r.n; i++) {
        if (r.g[i] === GRAPH_TXN_META) continue;
        facts.push([graphs.get(r.g[i]!) ?? r.g[i], keys[r.s[i]!], keys[r.p[i]!], keys[r.o[i]!], r.m[i]].join(' '));
      }
    }
    out[order] = facts.sort();
  }
  return out;
}

describe('bulk load into a ledger with data', () => {
  it('indexes what one load of everything into a new ledger indexes, in every order; time travel keeps the first load', async () => {
    const rand = rng(3);
    const a = quads(rand, 0, 5000), b = quads(rand, 3000, 5000); // subjects 3000..4999 in both: overlapping keys
    const conn = new Connection(openMemoryStorage());
    await conn.create('merged');
    const r1 = await conn.bulkLoad('merged', text(a.join('\n')), { format: 'n-quads', commitFlakes: 7000 });
    // Between the loads, unindexed writes: an insert and a delete (novelty the second load merges in).
    await conn.transact('merged', parseSparqlUpdate('INSERT DATA { <http://ex.org/x> <http://ex.org/p1> "v1" }'));
    const gone = a.find((l) => l.startsWith('<http://ex.org/s10> <http://ex.org/p'))!;
    await conn.transact('merged', parseSparqlUpdate(`DELETE DATA { ${gone} }`));
    const r2 = await conn.bulkLoad('merged', text(b.join('\n')), { format: 'n-quads', commitFlakes: 7000 });
    expect(r2.previous_t).toBe(r1.t + 2);
    expect(r2.triples).toBeLessThan(b.length); // the overlap is not loaded twice

    const scratch = new Connection(openMemoryStorage());
    await scratch.create('fresh');
    const all = [...a.filter((l) => l !== gone), '<http://ex.org/x> <http://ex.org/p1> "v1" .', ...b];
    await scratch.bulkLoad('fresh', text(all.join('\n')), { format: 'n-quads' });

    const [m, f] = [await indexFacts(await conn.ledger('merged')), await indexFacts(await scratch.ledger('fresh'))];
    for (const order of ORDERS) expect(m[order]).toEqual(f[order]);
    expect(m.spot.length).toBeGreaterThan(3 * TARGET_LEAF_ROWS / 2);
    for (const q of [
      'SELECT ?s ?p ?o { ?s ?p ?o }',
      'SELECT ?s ?o { ?s <http://ex.org/p3> ?o }',
      'SELECT ?s { ?s <http://ex.org/p2> "v7" }',
      'SELECT ?s ?p { ?s ?p <http://ex.org/C2> }',
      'SELECT ?g ?s { GRAPH ?g { ?s ?p ?o } }',
    ]) expect(await select(conn, 'merged', q)).toEqual(await select(scratch, 'fresh', q));
    // Time travel to the first load's t: the first file exactly.
    const first = new Connection(openMemoryStorage());
    await first.create('first');
    await first.bulkLoad('first', text(a.join('\n')), { format: 'n-quads' });
    const q = 'SELECT ?s ?p ?o ?g { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }';
    expect(await select(conn, `merged@t:${r1.t}`, q)).toEqual(await select(first, 'first', q));
  }, 60_000);
});

describe('bulk interning against the indexed dictionary', () => {
  it('maps every indexed key of a reopened ledger to its id; interning through the map agrees with the dictionary', async () => {
    const storage = openMemoryStorage();
    const conn = new Connection(storage);
    await conn.create('dict');
    await conn.bulkLoad('dict', text(quads(rng(5), 0, 1500).join('\n')), { format: 'n-quads' });
    const dict = (await new Connection(storage).ledger('dict')).dict; // cold: every key in pages
    expect(dict.baseSize).toBeGreaterThan(1024); // more than one page
    const base = await dict.baseKeyIds();
    const keys = await dict.keysOf(0, dict.baseSize);
    expect(base.size).toBe(keys.length);
    for (let id = 0; id < keys.length; id += 97) expect(base.get(keys[id]!)).toBe(id);
    const size = dict.size;
    expect(dict.internFlatKeyOver(base, keys[1234]!)).toBe(1234);
    expect(dict.internFlatKeyOver(base, 'http://ex.org/new')).toBe(size);
    expect(dict.internFlatKeyOver(base, 'http://ex.org/new')).toBe(size);
    expect(dict.idOfKey('http://ex.org/new')).toBe(size);
    expect(dict.internFlatKey(keys[77]!)).toBe(77);
    expect(dict.size).toBe(size + 1);
  });
});
