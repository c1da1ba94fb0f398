/**
 * The index side of a bulk load (bulk-load.ts): which read facts are already current in a ledger
 * with data, and the index over the loaded facts — built from sorted runs when the ledger has no
 * index (and its novelty holds no retracts), else merged copy-on-write into the leaves it touches,
 * together with any unindexed novelty, so the new root covers every commit up to the load's last t.
 */
import { Codec } from '../commit/cid.js';
import { ORDERS, type IndexOrder } from '../flake/flake.js';
import { updateOrder, writeBranches, writeLeaves } from '../index/build.js';
import { summarizeFacts } from '../index/class-summary.js';
import { storeSummary } from '../index/class-summary-delta.js';
import { writeDictPages } from '../index/dict-write.js';
import { canonicalJsonBytes, type IndexRoot } from '../index/root-codec.js';
import { rememberRoot } from '../index/root-headers.js';
import { allocRun, cmpRows, copyRow, keyCols, mergeRuns, radixPermutation, sortRun, type Run } from '../index/run.js';
import { IndexTree, type LeafRef } from '../index/tree.js';
import type { DbView } from '../index/view.js';
import { RESERVED_DATATYPES } from '../ledger/datatypes-limit.js';
import type { Ledger } from '../ledger/ledger.js';
import type { LedgerStores } from '../ledger/stores.js';
import { GRAPH_TXN_META } from '../flake/flake.js';
import { rdf } from '../rdf/vocab.js';
import { sortSpot } from './bulk-sort.js';

/**
 * Rows of a SPOT-sorted, duplicate-free run that are not current facts of `head`. Only a row whose
 * subject, predicate and object all existed before the load can be current, so a load of new
 * subjects scans nothing; others are checked one (graph, subject) scan at a time.
 */
export async function dropCurrent(head: DbView, spot: Run, dictBefore: number): Promise<Run> {
  const out = allocRun(spot.n);
  let i = 0;
  while (i < spot.n) {
    const g = spot.g[i]!, s = spot.s[i]!;
    let end = i + 1;
    while (end < spot.n && spot.s[end] === s && spot.g[end] === g) end++;
    let current: Map<number, Set<number>> | null = null;
    for (let k = i; k < end; k++) {
      const p = spot.p[k]!, o = spot.o[k]!;
      if (s < dictBefore && p < dictBefore && o < dictBefore) {
        current ??= await currentOf(head, g, s);
        if (current.get(p)?.has(o)) continue;
      }
      copyRow(out, spot, k);
    }
    i = end;
  }
  return out;
}

/** The (predicate, object) pairs current for one subject in one graph (list items excluded: loads assert none). */
async function currentOf(head: DbView, g: number, s: number): Promise<Map<number, Set<number>>> {
  const m = new Map<number, Set<number>>();
  for await (const b of head.scan({ g, s })) {
    for (let k = 0; k < b.n; k++) {
      if (b.m[k]! >= 0) continue;
      let set = m.get(b.p[k]!);
      if (!set) m.set(b.p[k]!, (set = new Set()));
      set.add(b.o[k]!);
    }
  }
  return m;
}

export interface BulkIndexInput {
  /** Loaded facts, t set, in any order. */
  rows: Run;
  /**
   * The loaded and metadata facts in the four orders (OPST: reference objects only), from
   * `loadOrders`; asked for after the dictionary pages.
   */
  runs: Promise<LoadOrders> | (() => LoadOrders);
  /** Commit-metadata facts of the load's commits. */
  meta: Run;
  /** The load's last t and commit. */
  t: number;
  commitId: string;
  commitBytes: number;
  onProgress?: ((p: { phase: 'index'; done: number; total: number }) => void) | undefined;
}

/** The loaded facts in the four index orders. */
export interface LoadOrders { spot: Run; psot: Run; post: Run; opst: Run }

/**
 * The four orders of a run of unique facts (OPST: only rows whose object's `objKind` entry is not
 * LITERAL), each with the commit-metadata facts of `meta` (from `metaOrders`) joined in: pure work
 * on the id columns, which a caller may run on another thread (src/server/load-threads.ts) while
 * this one writes the dictionary.
 */
export function loadOrders(rows: Run, objKind: Uint8Array, meta: LoadOrders): LoadOrders {
  const spot = sortSpot(rows);
  const refs = allocRun(spot.n);
  for (let i = 0; i < spot.n; i++) if (objKind[spot.o[i]!] !== LITERAL) copyRow(refs, spot, i);
  return {
    spot: withMeta(spot, meta.spot, 'spot'), psot: withMeta(orderFromSpot(spot, 'psot'), meta.psot, 'psot'),
    post: withMeta(orderFromSpot(spot, 'post'), meta.post, 'post'), opst: withMeta(orderFromSpot(refs, 'opst'), meta.opst, 'opst'),
  };
}

/** The commit-metadata facts in each order (OPST: reference objects only), for `loadOrders`. */
export function metaOrders(dict: Ledger['dict'], meta: Run): LoadOrders {
  return { spot: sortRun(meta, 'spot'), psot: sortRun(meta, 'psot'), post: sortRun(meta, 'post'), opst: refsOnly(sortRun(meta, 'opst'), (o) => dict.kind(o) !== 2) };
}

const LITERAL = 1;
/** Per term id, LITERAL for the literals among the objects of `run` (2 for other objects, 0 where no row has it as object). */
export function objectKinds(dict: Ledger['dict'], run: Run): Uint8Array {
  const out = new Uint8Array(dict.size);
  for (let i = 0; i < run.n; i++) {
    const o = run.o[i]!;
    if (out[o] === 0) out[o] = dict.kind(o) === 2 ? LITERAL : 2;
  }
  return out;
}

/** Write the index covering the load; `install()` switches the ledger to it once its record is published. */
export async function buildBulkIndex(stores: LedgerStores, ledger: Ledger, x: BulkIndexInput): Promise<{ rootCid: string; install(): void }> {
  const content = stores.contentFor(ledger.id);
  const dict = ledger.dict;
  const tree = ledger.tree;
  const novelty = ledger.novelty;
  const unindexed = novelty.size > 0 ? novelty.all('spot', x.t) : allocRun(0);
  // Sorted runs straight into leaves when nothing older must be merged with a retract or a leaf.
  const fresh = !tree && !hasRetract(unindexed);
  const leaves = {} as Record<IndexOrder, LeafRef[]>;
  const tops = {} as Record<IndexOrder, string | null>;
  const empty = allocRun(0);
  // The statistics and dictionary first: the orders may still be sorting elsewhere meanwhile.
  await dict.ensureIds([x.rows.o], x.rows.n); // addStats reads literal keys synchronously
  await dict.ensureIds([x.meta.o], x.meta.n);
  addStats(ledger, x.rows);
  addStats(ledger, x.meta);
  ledger.stats.size += x.commitBytes;
  // The dictionary pages are stored while the orders arrive and the leaves are written: this
  // thread encodes one while the disk takes another (nothing below reads the pages).
  const dictWritten = writeDictPages(content, dict, tree?.root.dict ?? null, dict.size);
  dictWritten.catch(() => undefined); // awaited below; a failure there fails the load either way
  const orders = await (typeof x.runs === 'function' ? x.runs() : x.runs);
  const runs = {} as Record<IndexOrder, Run>;
  for (const order of ORDERS) runs[order] = novelty.size > 0 ? mergeFew(novelty.all(order, x.t), orders[order], order) : orders[order];
  let done = 0;
  const writeOrder = async (order: IndexOrder): Promise<void> => {
    leaves[order] = fresh ? await writeLeaves(content, order, runs[order], empty) : await updateOrder(tree, content, order, runs[order]);
    tops[order] = await writeBranches(content, order, leaves[order]);
    x.onProgress?.({ phase: 'index', done: ++done, total: ORDERS.length });
  };
  // The four orders at once: one's leaf reads, compression and fsyncs overlap another's writing or
  // merging. A fresh index holds every fact in the SPOT run: its class summary is one pass over
  // it, counted meanwhile. Over an older index the root goes without one (derivation scans, and
  // the next index job writes it).
  const written = Promise.all(ORDERS.map(writeOrder));
  written.catch(() => undefined); // awaited below, after the summary has started
  let summary: Promise<string> | undefined;
  if (fresh) {
    summary = (async () => storeSummary(content, await summarizeFacts(dict, [runs.spot], [runs.spot])))();
    summary.catch(() => undefined);
  }
  await written;
  const classSummary = await summary;
  const dictRoot = await dictWritten;
  const root: IndexRoot = {
    v: 1, ledger_id: ledger.id, index_t: x.t, base_t: 0, commit_id: x.commitId, commit_time: ledger.head.time, ns: ledger.ns.allocated(),
    graphs: ledger.graphs.named(), datatypes: [...ledger.datatypes].sort(), dict: dictRoot, orders: tops,
    stats: ledger.stats.toJson(), prev_root: tree ? tree.rootCid.toString() : null,
    ...(classSummary ? { class_summary: classSummary } : {}),
  };
  const rootCid = await content.put(Codec.indexRoot, canonicalJsonBytes(root));
  rememberRoot(rootCid.toString(), root);
  const next = new IndexTree(content, rootCid, root, leaves, stores.leafCache);
  return {
    rootCid: rootCid.toString(),
    install: () => { ledger.installIndex(next); ledger.resetChain(); },
  };
}

/** Count loaded facts into the ledger's statistics (they are all new asserts). */
function addStats(ledger: Ledger, all: Run): void {
  const { stats, dict } = ledger;
  const typeId = dict.idOfKey(rdf.type);
  // Counted in arrays by term id, then added to the maps once per id: a million map updates cost
  // more than the arrays. Rows come grouped by graph: runs of one graph are counted at once.
  const size = dict.size;
  const props = new Int32Array(size), propT = new Int32Array(size), classes = new Int32Array(size);
  const seen = new Uint8Array(size);
  let runG = -1, runN = 0;
  let lastDt = '';
  for (let i = 0; i < all.n; i++) {
    const g = all.g[i]!;
    if (g !== runG) {
      if (runN > 0) stats.graphs.set(runG, (stats.graphs.get(runG) ?? 0) + runN);
      runG = g;
      runN = 0;
    }
    runN++;
    if (g === GRAPH_TXN_META) continue;
    const p = all.p[i]!, o = all.o[i]!;
    props[p]!++;
    if (all.t[i]! > propT[p]!) propT[p] = all.t[i]!;
    if (p === typeId) classes[o]!++;
    if (seen[o] === 1) continue;
    seen[o] = 1;
    // Each literal's datatype once; literals share a handful, so a key starting like the previous one's is skipped.
    if (dict.kind(o) === 2) {
      const key = dict.key(o);
      if (lastDt !== '' && key.charCodeAt(lastDt.length + 1) === 124 /* | */ && key.startsWith(lastDt, 1)) continue;
      const dt = key.slice(1, key.indexOf('|'));
      lastDt = dt;
      if (!RESERVED_DATATYPES.has(dt)) ledger.datatypes.add(dt);
    }
  }
  if (runN > 0) stats.graphs.set(runG, (stats.graphs.get(runG) ?? 0) + runN);
  for (let id = 0; id < size; id++) {
    if (props[id]! > 0) {
      stats.flakes += props[id]!;
      stats.properties.set(id, (stats.properties.get(id) ?? 0) + props[id]!);
      stats.propertyT.set(id, Math.max(stats.propertyT.get(id) ?? 0, propT[id]!));
    }
    if (classes[id]! > 0) stats.classes.set(id, (stats.classes.get(id) ?? 0) + classes[id]!);
  }
}

/**
 * A SPOT-sorted run of unique facts in another order: a stable sort by the order's key columns
 * before the subject carries the SPOT order within ties, so the subject (and for PSOT the object)
 * need no passes: PSOT sorts by (g, p), POST by (g, p, o), OPST by (g, o, p).
 */
export function orderFromSpot(spot: Run, order: 'spot' | 'psot' | 'post' | 'opst'): Run {
  if (order === 'spot') return spot;
  const lsdFirst = order === 'psot' ? [spot.p, spot.g] : order === 'post' ? [spot.o, spot.p, spot.g] : [spot.p, spot.o, spot.g];
  const perm = radixPermutation(spot.n, lsdFirst);
  const out = allocRun(spot.n);
  for (let k = 0; k < spot.n; k++) copyRow(out, spot, perm[k]!);
  return out;
}

/**
 * A run of loaded facts in `order` with the (sorted) commit-metadata facts joined in. Every order
 * leads with the graph, so when no loaded fact is in the metadata graph the metadata rows form
 * one block between the graphs below and above it: copied in as a block, not merged row by row.
 */
function withMeta(run: Run, meta: Run, order: IndexOrder): Run {
  if (meta.n === 0) return run;
  let at = 0;
  while (at < run.n && run.g[at]! < GRAPH_TXN_META) at++;
  if (at < run.n && run.g[at] === GRAPH_TXN_META) return mergeRuns(run, meta, order);
  for (let i = 0; i < meta.n; i++) if (meta.g[i] !== GRAPH_TXN_META) return mergeRuns(run, meta, order);
  const out = allocRun(run.n + meta.n);
  for (const k of ['g', 's', 'p', 'o', 'm', 't', 'op'] as const) {
    const col = out[k] as Int32Array;
    col.set((run[k] as Int32Array).subarray(0, at), 0);
    col.set((meta[k] as Int32Array).subarray(0, meta.n), at);
    col.set((run[k] as Int32Array).subarray(at, run.n), at + meta.n);
  }
  out.n = run.n + meta.n;
  return out;
}

/**
 * mergeRuns(a, b, order) for a run `a` of a few rows (the unindexed novelty: the commits' metadata)
 * into a large `b`: each row of `a` placed by binary search, `b` copied in blocks, instead of a
 * comparison and a row copy per row of `b`. The same rows in the same order.
 */
export function mergeFew(a: Run, b: Run, order: IndexOrder): Run {
  if (a.n > 256) return mergeRuns(a, b, order);
  const ca = keyCols(a, order), cb = keyCols(b, order);
  const out = allocRun(a.n + b.n);
  const block = (from: number, to: number) => {
    for (const k of ['g', 's', 'p', 'o', 'm', 't', 'op'] as const) (out[k] as Int32Array).set((b[k] as Int32Array).subarray(from, to), out.n);
    out.n += to - from;
  };
  let from = 0;
  for (let i = 0; i < a.n; i++) {
    // The first row of b that a's row goes before (a first on a tie, as mergeRuns).
    let lo = from, hi = b.n;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      const d = cmpRows(ca, i, cb, m) || (b.t[m]! - a.t[i]!) || (a.op[i]! - b.op[m]!);
      if (d <= 0) hi = m; else lo = m + 1;
    }
    block(from, lo);
    copyRow(out, a, i);
    from = lo;
  }
  block(from, b.n);
  return out;
}

function hasRetract(r: Run): boolean {
  for (let i = 0; i < r.n; i++) if (r.op[i] === 0) return true;
  return false;
}

function refsOnly(r: Run, keep: (o: number) => boolean): Run {
  const out = allocRun(r.n);
  for (let i = 0; i < r.n; i++) if (keep(r.o[i]!)) copyRow(out, r, i);
  return out;
}
