/**
 * Bulk load (DESIGN.md performance model; docs/bulk-load.md): statements into a new or existing
 * ledger without going through novelty. Documents are read straight into dictionary ids,
 * deduplicated (and, in a ledger with data, checked against its head), written as commits of
 * `commitFlakes` flakes each (so the history is replayable like any other and every chunk has its
 * own t), and the index is built from sorted runs. Commits and index are published together in one
 * compare-and-set of the ledger's record: the load is all or nothing.
 */
import { badRequest, commitConflict } from '../errors.js';
import { GRAPH_DEFAULT } from '../flake/flake.js';
import type { LedgerStores } from '../ledger/stores.js';
import type { Ledger } from '../ledger/ledger.js';
import { allocRun, type Run } from '../index/run.js';
import { ChunkCommitter } from './bulk-commits.js';
import { buildBulkIndex, loadOrders, metaOrders, objectKinds, type LoadOrders } from './bulk-index.js';
import { readBatches, type StatementBatch } from './bulk-batches.js';
import type { BulkFormat } from './bulk-sources.js';

export type { BulkFormat } from './bulk-sources.js';

export interface BulkLoadOptions {
  /** Format of a text source (default `n-triples`). */
  format?: BulkFormat;
  /** Base IRI for relative references in Turtle, TriG and JSON-LD. */
  base?: string;
  /** Flakes per commit (default 100,000). */
  commitFlakes?: number;
  /**
   * Starts what computes the index orders of the loaded facts (bulk-index.ts `loadOrders`), e.g. a
   * thread that gets ready while the input is read and sorts while this one writes the
   * dictionary; default: inline, when the index is built.
   */
  orders?: () => OrdersJob;
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

/** A computation of the index orders, started before the load reads its input. */
export interface OrdersJob {
  /** bulk-index.ts `loadOrders` of the arguments (called at most once). */
  run(rows: Run, objKind: Uint8Array, meta: LoadOrders): Promise<LoadOrders>;
  /** Release it (called once the load ends, whether or not `run` was called). */
  close(): void;
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
  run: Run;
  constructor(cap: number) { this.run = allocRun(cap); }
  push(g: number, s: number, p: number, o: number): void {
    const r = this.run;
    if (r.n === r.g.length) {
      const next = allocRun(Math.max(16, r.n * 2));
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
  // In a ledger with data, the id of every indexed term (the reader interns synchronously, against
  // this map rather than the page filters), read while the first document is being parsed.
  const baseLoading = dict.baseSize > 0 ? dict.baseKeyIds() : null;
  baseLoading?.catch(() => undefined); // awaited before the first batch is applied
  let base: Map<string, number> | null = null;
  const baseReady = async (): Promise<void> => { if (baseLoading && !base) base = await baseLoading; };
  const startRecord = ledger.record;
  const startHead = ledger.head.cid;
  const t0 = ledger.t;
  const dictBefore = dict.size;
  const newGraphs = new Map<string, number>();
  let nextGraph = ledger.graphs.nextId;
  // In a ledger with data, read facts already current at its head are not loaded again.
  const head = t0 > 0 || ledger.tree ? await ledger.db() : null;
  const committer = new ChunkCommitter(stores, ledger, head, dictBefore, newGraphs, (done) => opts.onProgress?.({ phase: 'commit', done }));
  // Every `perCommit` statements read are one chunk (one commit of what is new in it).
  let rows = new Growing(Math.min(perCommit, 1 << 16));
  const full: Run[] = [];
  let statements = 0;
  // Each batch names the keys it sees first; each is interned once, then rows map through `ids`.
  let ids: number[] = [];
  let graphIds: number[] = [];
  const apply = (b: StatementBatch): void => {
    if (base) for (const k of b.keys) ids.push(dict.internFlatKeyOver(base, k));
    else for (const k of b.keys) ids.push(dict.internFlatKey(k));
    for (const iri of b.graphs) {
      let id = ledger.graphs.id(iri) ?? newGraphs.get(iri);
      if (id === undefined) { id = nextGraph++; newGraphs.set(iri, id); }
      graphIds.push(id);
    }
    const r = b.rows;
    const before = statements;
    for (let j = 0; j < r.length; j += 4) {
      const g = r[j]!;
      rows.push(g < 0 ? GRAPH_DEFAULT : graphIds[g]!, ids[r[j + 1]!]!, ids[r[j + 2]!]!, ids[r[j + 3]!]!);
      if (rows.run.n === perCommit) { full.push(rows.run); rows = new Growing(Math.min(perCommit, 1 << 16)); }
    }
    statements += r.length / 4;
    if (statements >>> 16 !== before >>> 16) opts.onProgress?.({ phase: 'read', done: statements });
  };
  const ordersJob = opts.orders?.();
  const commitFull = async (): Promise<void> => {
    while (full.length > 0) await committer.commit(full.shift()!);
  };

  try {
    // 1. Read every document (in a worker when the document comes as batches), committing chunk by
    //    chunk as they fill: while a worker parses, this thread encodes.
    for (let d = 0; d < docs.length; d++) {
      // Blank nodes are scoped to their document and to this load's first t (as a transaction's are).
      const scope = d === 0 ? `lg${t0 + 1}` : `lg${t0 + 1}.${d}`;
      ids = [];
      graphIds = [];
      const doc = docs[d]!;
      if (doc.batches) {
        // The first batch is asked for (a worker starts parsing) before the base ids are awaited.
        for await (const b of doc.batches(scope)) { await baseReady(); apply(b); await commitFull(); }
      } else if (doc.source) {
        await baseReady();
        await readBatches(doc.source, doc.format ?? opts.format ?? 'n-triples', doc.base ?? opts.base, scope, apply);
        await commitFull();
      } else {
        throw badRequest('bulk load: a document needs a source');
      }
    }
    if (statements === 0) throw badRequest('bulk load: the input holds no statements');
    if (rows.run.n > 0) await committer.commit(rows.run);
    rows = new Growing(0);
    base = null; // the reading is done: the map of indexed terms is not needed for the index
    if (committer.facts === 0) {
      // Everything is there already: nothing to commit (a rerun of a finished load is a no-op).
      dict.truncate(dictBefore);
      return { ledger_id: ledger.id, previous_t: t0, t: t0, statements, triples: 0, commits: 0, commit_id: ledger.head.cid, index_id: ledger.record.index_head_id ?? '' };
    }
    const loaded = await committer.finish();

    // 2. The index orders sorted (elsewhere, when the caller can) while the dictionary is written;
    //    the commit metadata joins each where its graph sorts.
    const objKind = objectKinds(dict, loaded.rows);
    await dict.ensureIds([loaded.meta.o], loaded.meta.n);
    const meta = metaOrders(dict, loaded.meta);
    const orders = ordersJob ? ordersJob.run(loaded.rows, objKind, meta) : null;
    orders?.catch(() => undefined); // awaited by the index build; a failure before it loads nothing either way

    // 3. The index over the old one (or from nothing), then commits and index in one publish.
    const built = await buildBulkIndex(stores, ledger, { ...loaded, runs: orders ?? (() => loadOrders(loaded.rows, objKind, meta)), onProgress: opts.onProgress });
    const t = loaded.t, prev = loaded.commitId;
    const next = { ...startRecord, commit_head_id: prev, commit_t: t, index_head_id: built.rootCid, index_t: t };
    if (!(await stores.ns.compareAndSet(ledger.id, startRecord, next))) {
      stores.retireIndex?.(ledger.id, [built.rootCid]);
      throw commitConflict(`ledger ${ledger.id} changed during the bulk load (another writer); nothing was loaded, run it again`);
    }
    ledger.record = next;
    built.install();
    return { ledger_id: ledger.id, previous_t: t0, t, statements, triples: loaded.rows.n, commits: t - t0, commit_id: prev, index_id: built.rootCid };
  } catch (e) {
    // Before the first commit only terms were interned: drop them (as staging does). After it, the
    // in-memory ledger holds heads of commits nobody names: the caller reloads it from storage.
    if (ledger.head.cid === startHead) dict.truncate(dictBefore);
    else ledger.superseded = true;
    throw e;
  } finally {
    ordersJob?.close();
  }
}
