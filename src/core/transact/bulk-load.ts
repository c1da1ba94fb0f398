/**
 * Bulk load (DESIGN.md performance model; docs/bulk-load.md): statements into a new or existing
 * ledger without going through novelty. Documents are read straight into dictionary ids,
 * deduplicated (and, in a ledger with data, checked against its head), written as commits of
 * `commitFlakes` flakes each (so the history is replayable like any other and every chunk has its
 * own t), and the index is built from sorted runs. Commits and index are published together in one
 * compare-and-set of the ledger's record: the load is all or nothing.
 */
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../commit/cid.js';
import { encodeCommit, type CommitData, type CommitFlake } from '../commit/commit-codec.js';
import { badRequest, commitConflict } from '../errors.js';
import { GRAPH_DEFAULT, GRAPH_TXN_META } from '../flake/flake.js';
import type { LedgerStores } from '../ledger/stores.js';
import type { Ledger } from '../ledger/ledger.js';
import { keyToTerm, termKey, type BlankNode, type NamedNode } from '../rdf/terms.js';
import { allocRun, cmpRows, copyRow, keyCols, sortRun, type Run } from '../index/run.js';
import { buildBulkIndex, dropCurrent, otherOrders, refMask, type LoadOrders } from './bulk-index.js';
import { readBatches, type StatementBatch } from './bulk-batches.js';
import type { BulkFormat } from './bulk-sources.js';
import { nowIso } from './pipeline.js';

export type { BulkFormat } from './bulk-sources.js';

export interface BulkLoadOptions {
  /** Format of a text source (default `n-triples`). */
  format?: BulkFormat;
  /** Base IRI for relative references in Turtle, TriG and JSON-LD. */
  base?: string;
  /** Flakes per commit (default 100,000). */
  commitFlakes?: number;
  /**
   * Computes the other index orders of the loaded facts (bulk-index.ts `otherOrders`), e.g. on
   * another thread while the commits are encoded; default: inline, when the index is built.
   */
  orders?: (spot: Run, isRef: Uint8Array) => Promise<LoadOrders>;
  /** Called as work progresses. */
  onProgress?: (p: { phase: 'read' | 'commit' | 'index'; done: number; total?: number }) => void;
}

/**
 * One document of a load (blank-node labels are scoped to it): its text chunks and format, or its
 * statements already read into batches elsewhere (a worker thread; called with the document's
 * blank-node scope, see bulk-batches.ts).
 */
export interface BulkDocument {
  source?: AsyncIterable<string | Uint8Array>;
  format?: BulkFormat;
  base?: string;
  batches?: (scope: string) => AsyncIterable<StatementBatch>;
}

export interface BulkLoadResult {
  ledger_id: string;
  /** t before the load (time travel to it shows the ledger without the load). */
  previous_t: number;
  t: number;
  /** Statements read (duplicates included). */
  statements: number;
  /** Facts added (new to the ledger). */
  triples: number;
  commits: number;
  commit_id: string;
  index_id: string;
}

/** Growable run used while reading. */
class Growing {
  run = allocRun(1 << 16);
  push(g: number, s: number, p: number, o: number): void {
    const r = this.run;
    if (r.n === r.g.length) {
      const next = allocRun(r.n * 2);
      for (const k of ['g', 's', 'p', 'o', 'm', 't'] as const) next[k].set(r[k]);
      next.op.set(r.op);
      next.n = r.n;
      this.run = next;
    }
    const j = this.run.n++;
    const x = this.run;
    x.g[j] = g; x.s[j] = s; x.p[j] = p; x.o[j] = o; x.m[j] = -1; x.op[j] = 1;
  }
}

/** Load documents into a ledger (new or with data). Caller holds the ledger lock. */
export async function bulkLoad(stores: LedgerStores, ledger: Ledger, docs: readonly BulkDocument[], opts: BulkLoadOptions = {}): Promise<BulkLoadResult> {
  const perCommit = opts.commitFlakes ?? 100_000;
  const dict = ledger.dict;
  // Terms already indexed are loaded (the reader interns synchronously): a page for a new ledger,
  // the whole dictionary for a load into a ledger with data.
  if (dict.baseSize > 0) { await dict.filterWords(); await dict.keysOf(0, dict.baseSize); }
  const startRecord = ledger.record;
  const startHead = ledger.head.cid;
  const t0 = ledger.t;
  const dictBefore = dict.size;
  const newGraphs = new Map<string, number>();
  let nextGraph = ledger.graphs.nextId;
  const rows = new Growing();
  // Each batch names the keys it sees first; each is interned once, then rows map through `ids`.
  let ids: number[] = [];
  let graphIds: number[] = [];
  const apply = (b: StatementBatch): void => {
    for (const k of b.keys) ids.push(dict.internFlatKey(k));
    for (const iri of b.graphs) {
      let id = ledger.graphs.id(iri) ?? newGraphs.get(iri);
      if (id === undefined) { id = nextGraph++; newGraphs.set(iri, id); }
      graphIds.push(id);
    }
    const r = b.rows;
    const before = rows.run.n;
    for (let j = 0; j < r.length; j += 4) {
      const g = r[j]!;
      rows.push(g < 0 ? GRAPH_DEFAULT : graphIds[g]!, ids[r[j + 1]!]!, ids[r[j + 2]!]!, ids[r[j + 3]!]!);
    }
    if (rows.run.n >>> 16 !== before >>> 16) opts.onProgress?.({ phase: 'read', done: rows.run.n });
  };

  try {
    // 1. Read every document (in a worker when the document comes as batches).
    for (let d = 0; d < docs.length; d++) {
      // Blank nodes are scoped to their document and to this load's first t (as a transaction's are).
      const scope = d === 0 ? `lg${t0 + 1}` : `lg${t0 + 1}.${d}`;
      ids = [];
      graphIds = [];
      const doc = docs[d]!;
      if (doc.batches) {
        for await (const b of doc.batches(scope)) apply(b);
      } else if (doc.source) {
        await readBatches(doc.source, doc.format ?? opts.format ?? 'n-triples', doc.base ?? opts.base, scope, apply);
      } else {
        throw badRequest('bulk load: a document needs a source');
      }
    }
    const statements = rows.run.n;

    // 2. Sort in SPOT order, drop duplicates and (in a ledger with data) facts already current.
    let spot = dedupe(sortSpot(rows.run));
    rows.run = allocRun(0);
    if (t0 > 0 || ledger.tree) spot = await dropCurrent(await ledger.db(), spot, dictBefore);
    // The commits below read keys synchronously: pages swept while dropCurrent ran come back here.
    await dict.ensureIds([spot.s, spot.p, spot.o], spot.n);
    const total = spot.n;
    if (statements === 0) throw badRequest('bulk load: the input holds no statements');
    if (total === 0) {
      // Everything is there already: nothing to commit (a rerun of a finished load is a no-op).
      dict.truncate(dictBefore);
      return { ledger_id: ledger.id, previous_t: t0, t: t0, statements, triples: 0, commits: 0, commit_id: ledger.head.cid, index_id: ledger.record.index_head_id ?? '' };
    }

    // Each chunk of `perCommit` facts is one commit, so each fact's t is known now: the other
    // index orders can be sorted (elsewhere, when the caller can) while the commits are encoded.
    for (let i = 0; i < total; i++) spot.t[i] = t0 + 1 + Math.floor(i / perCommit);
    const isRef = refMask(dict, spot);
    const orders = opts.orders ? opts.orders(spot, isRef) : null;
    orders?.catch(() => undefined); // awaited by the index build; a failure before it loads nothing either way

    // 3. Commits of `perCommit` flakes each; every commit records its own graph deltas.
    const meta = new Growing();
    const announced = new Set<number>();
    let prev = ledger.head.cid;
    let t = t0;
    let commitBytes = 0;
    let writing: Promise<unknown> = Promise.resolve();
    let lastTermS = -1;
    let lastSTerm: NamedNode | BlankNode | undefined;
    const predTerms = new Map<number, NamedNode>();
    for (let from = 0; from < total; from += perCommit) {
      t++;
      const to = Math.min(total, from + perCommit);
      const flakes: CommitFlake[] = new Array(to - from);
      const graphDelta: [number, string][] = [];
      for (let i = from; i < to; i++) {
        const g = spot.g[i]!;
        if (g >= 3 && !announced.has(g)) {
          announced.add(g);
          for (const [iri, id] of newGraphs) if (id === g) graphDelta.push([g, iri]);
        }
        const sid = spot.s[i]!, pid = spot.p[i]!;
        if (sid !== lastTermS) { lastTermS = sid; lastSTerm = keyToTerm(dict.key(sid)) as NamedNode | BlankNode; }
        let pTerm = predTerms.get(pid);
        if (!pTerm) predTerms.set(pid, (pTerm = keyToTerm(dict.key(pid)) as NamedNode));
        flakes[i - from] = { g, s: lastSTerm!, p: pTerm, o: keyToTerm(dict.key(spot.o[i]!)), op: true };
      }
      graphDelta.sort((a, b) => a[0] - b[0]);
      const data: CommitData = { t, parents: [CID.parse(prev)], time: nowIso(), txn: null, author: '', nsDelta: [], graphDelta, meta: [], flakes };
      const enc = encodeCommit(data, ledger.ns);
      const cid = (await cidOf(Codec.commit, enc.bytes)).toString();
      commitBytes += enc.bytes.length;
      // Stored while the next commit is encoded; nothing names them until the final publish.
      writing = writing.then(() => stores.contentFor(ledger.id).put(Codec.commit, enc.bytes));
      writing.catch(() => undefined); // awaited below; avoid an unhandled rejection meanwhile
      // The shared part of applying a commit (tables, head, metadata facts); its flakes go to the runs.
      const header = ledger.applyHeader({ ...data, nsDelta: enc.nsDelta }, cid, to - from, 0);
      const subj = dict.internKey(termKey(header.subject));
      for (const m of header.meta) {
        meta.push(GRAPH_TXN_META, subj, dict.internKey(termKey(m.p)), dict.internKey(termKey(m.o)));
        meta.run.t[meta.run.n - 1] = t;
      }
      prev = cid;
      opts.onProgress?.({ phase: 'commit', done: to, total });
    }
    await writing;

    // 4. The index over the old one (or from nothing), then commits and index in one publish.
    const built = await buildBulkIndex(stores, ledger, { spot, orders: orders ?? otherOrders(spot, isRef), meta: meta.run, t, commitId: prev, commitBytes, onProgress: opts.onProgress });
    const next = { ...startRecord, commit_head_id: prev, commit_t: t, index_head_id: built.rootCid, index_t: t };
    if (!(await stores.ns.compareAndSet(ledger.id, startRecord, next))) {
      stores.retireIndex?.(ledger.id, [built.rootCid]);
      throw commitConflict(`ledger ${ledger.id} changed during the bulk load (another writer); nothing was loaded, run it again`);
    }
    ledger.record = next;
    built.install();
    return { ledger_id: ledger.id, previous_t: t0, t, statements, triples: total, commits: t - t0, commit_id: prev, index_id: built.rootCid };
  } catch (e) {
    // Before the first commit only terms were interned: drop them (as staging does). After it, the
    // in-memory ledger holds heads of commits nobody names: the caller reloads it from storage.
    if (ledger.head.cid === startHead) dict.truncate(dictBefore);
    else ledger.superseded = true;
    throw e;
  }
}

/**
 * Sort read rows in SPOT order. Files list a subject's statements together and subjects get ids
 * as they first appear, so the subject column is usually ascending already: then only each
 * subject's few rows need sorting (by graph, predicate, object). Otherwise a full radix sort.
 */
export function sortSpot(r: Run): Run {
  for (let i = 1; i < r.n; i++) if (r.s[i]! < r.s[i - 1]!) return sortRun(r, 'spot');
  const { g, p, o } = r;
  const idx = new Uint32Array(r.n);
  for (let i = 0; i < r.n; i++) idx[i] = i;
  const before = (a: number, b: number) => (g[a]! - g[b]!) || (p[a]! - p[b]!) || (o[a]! - o[b]!);
  let start = 0;
  while (start < r.n) {
    let end = start + 1;
    while (end < r.n && r.s[end] === r.s[start]) end++;
    if (end - start > 64) {
      idx.set(Array.from(idx.subarray(start, end)).sort(before), start);
      start = end;
      continue;
    }
    // Insertion sort: a subject has a handful of rows, often in order already.
    for (let i = start + 1; i < end; i++) {
      const x = idx[i]!;
      let j = i - 1;
      while (j >= start && before(idx[j]!, x) > 0) { idx[j + 1] = idx[j]!; j--; }
      idx[j + 1] = x;
    }
    start = end;
  }
  // Rows of one subject in several graphs must still come graph first: check, else fall back.
  const out = allocRun(r.n);
  for (let k = 0; k < r.n; k++) copyRow(out, r, idx[k]!);
  for (let i = 1; i < out.n; i++) if (out.g[i]! !== out.g[0]!) return sortRun(r, 'spot');
  return out;
}

/** Drop rows equal to their predecessor (the run is sorted, so duplicates are adjacent). */
function dedupe(r: Run): Run {
  const cols = keyCols(r, 'spot');
  const out = allocRun(r.n);
  for (let i = 0; i < r.n; i++) if (i === 0 || cmpRows(cols, i, cols, i - 1) !== 0) copyRow(out, r, i);
  return out;
}
