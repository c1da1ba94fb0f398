/**
 * Connection: ledgers over one ContentStore + NameService — create, drop, exists, list, load (with
 * a cache of loaded ledgers), snapshots by ledger reference, writes and background indexing.
 */
import { ROOT_HEADER_BYTES, rootHeaderCacheSize } from '../index/root-headers.js';
import type { FederationOptions } from '../query/federation/service.js';
import { ledgerExists, notFound } from '../errors.js';
import { DEFAULT_LEAF_CACHE_BYTES, LeafCache } from '../index/tree.js';
import { DEFAULT_TERM_CACHE_BYTES } from '../index/dict.js';
import type { ContentStore, NameService, NsRecord } from '../store.js';
import type { TxnRequest } from '../transact/txn-request.js';
import type { Receipt, TxnContext } from '../transact/pipeline.js';
import type { BulkDocument, BulkLoadOptions, BulkLoadResult } from '../transact/bulk-load.js';
import { indexPace, runIndexJob } from '../index/indexer.js';
import type { CommitFlake } from '../commit/commit-codec.js';
import type { Db } from './db.js';
import { dropLedger, type DropResponse } from './drop.js';
import type { LedgerStores, WriteEnv, WriteSettings } from './stores.js';
import type { BranchEnv } from '../branch/env.js';
import { ledgerInfo, type InfoOptions, type LedgerInfo } from './info.js';
import { Ledger } from './ledger.js';
import { CommitGraph, EnvelopeCache, DEFAULT_COMMIT_CACHE_BYTES } from '../branch/dag.js';
import { DEFAULT_GC_GRACE_MS, IndexGc } from './index-gc.js';
import { normalizeLedgerId, parseLedgerRef, splitLedgerId } from './ledger-id.js';
import { defaultContextOf, setDefaultContext, storeDefaultContext, type DefaultContextChange } from './default-context.js';
import { contentPartition, ledgerContent } from './content-scope.js';

// The write side (transaction pipeline, SHACL, JSON-LD expansion, RDF parsers, bulk load)
// is loaded on first use: a query peer never writes, and its browser bundle starts faster without it.
let pipelineModule: Promise<typeof import('../transact/pipeline.js')> | null = null;
let bulkModule: Promise<typeof import('../transact/bulk-load.js')> | null = null;
let stageModule: Promise<typeof import('../transact/stage-request.js')> | null = null;
const pipeline = () => (pipelineModule ??= import('../transact/pipeline.js'));
const bulk = () => (bulkModule ??= import('../transact/bulk-load.js'));
const staging = () => (stageModule ??= import('../transact/stage-request.js'));

export interface ConnectionOptions {
  /** Novelty size that starts a background index job (default 100,000 bytes). */
  reindexMinBytes?: number;
  /** Novelty size at which writes are refused (default 1,000,000 bytes). */
  reindexMaxBytes?: number;
  /** Run index jobs in the background (default true). */
  indexingEnabled?: boolean;
  /** Store transaction blobs (default true). */
  storeTxn?: boolean;
  /** Bytes of decoded index leaves kept in memory, shared by all ledgers (default 128 MiB). */
  leafCacheBytes?: number;
  /** Bytes of decoded terms cached per loaded ledger (default 8 MiB). */
  termCacheBytes?: number;
  /** Bytes of commit envelopes cached for commit-graph walks, shared by all ledgers (default 16 MiB). */
  commitCacheBytes?: number;
  /** Where SPARQL SERVICE and LOAD <url> may reach (default: nowhere). */
  federation?: FederationOptions;
  /** How long an index root no record names any more is kept before its objects are deleted (default 10 min). */
  gcGraceMs?: number;
  /** Ledgers kept loaded; past it the least recently used idle ones are unloaded (default: no bound). */
  maxLoadedLedgers?: number;
}

export type { DropResponse } from './drop.js';

/** Connection.memoryReport(): estimated bytes by structure. */
export interface MemoryReport {
  leaf_cache: { bytes: number; leaves: number; limit_bytes: number };
  /** Commit envelopes cached for commit-graph walks (every commit applied since start, until the budget starts it over). */
  commit_cache: { bytes: number; limit_bytes: number };
  /** Dictionary pages held for their grace window by every loaded ledger, against their bound (a quarter of the leaf cache's). */
  dict_pages_held: { bytes: number; limit_bytes: number };
  term_cache_limit_bytes_per_ledger: number;
  /** Index-root headers cached for root-chain walks (fork, index GC), against their fixed bound (root-headers.ts). */
  root_headers: { bytes: number; headers: number; limit_bytes: number };
  ledgers: {
    ledger: string; terms: number; dict_bytes: number; dict_page_bytes: number; term_cache_bytes: number; novelty_bytes: number; novelty_encoded_bytes: number;
    /** Key → id lookups of keys not in the pages: the Bloom filters' candidate pages for them, and the pages read anyway (fingerprints matched or unknown). */
    dict_absent_lookups: { lookups: number; bloom_candidate_pages: number; pages_read: number };
  }[];
}

export interface Storage { content: ContentStore; ns: NameService }

export interface CreateResponse { ledger: string; t: 0; 'tx-id': string; commit: { commit_id: string } }

/** Ledgers over one ContentStore + NameService: the facade above the write paths and the indexer. */
export class Connection implements WriteEnv, LedgerStores, BranchEnv {
  /** The store as a whole; a ledger's reads and writes go through contentFor (a per-ledger layout refuses any other). */
  readonly content: ContentStore;
  readonly ns: NameService;
  readonly opts: WriteSettings;
  /** Where SPARQL SERVICE and LOAD <url> may reach; undefined when federation is off. */
  readonly federation: FederationOptions | undefined;
  readonly leafCache: LeafCache;
  /** Loaded ledgers, least recently used first (a hit moves its entry to the end). */
  private readonly loaded = new Map<string, Promise<Ledger>>();
  /** The ledger each settled load gave (to pick idle ones to unload without awaiting). */
  private readonly settled = new WeakMap<Promise<Ledger>, Ledger>();
  private readonly maxLoaded: number;
  /** Ledgers unloaded to stay within maxLoadedLedgers since start. */
  unloadedCount = 0;
  /** Walks over the commit graph (branches), one per content partition, over one envelope cache. */
  private readonly graphs = new Map<string, CommitGraph>();
  private readonly envelopes: EnvelopeCache;
  /** Branches a merge, rebase or revert is running on. */
  readonly maintenance = new Set<string>();
  /** Collects index roots no record names any more. */
  readonly gc: IndexGc;
  /** Background loads started by prepare() (idle() waits for them: they start index jobs). */
  private readonly preparing = new Set<Promise<void>>();
  /**
   * Background index jobs running, including those of ledger objects no longer loaded (a rebase or
   * fast-forward forgets the old object while its job, which gives way to writes and so spans many
   * turns, finishes and retires its root): idle() waits for them all.
   */
  private readonly indexJobs = new Set<Promise<unknown>>();
  /** Nameservice records seen, kept current by the change feed (a read per query would cost a file read). */
  private readonly records = new Map<string, NsRecord | null>();
  private unsubscribe: (() => void) | null = null;
  /**
   * A peer's way to bring a ledger's record up to date from its transaction server before a read
   * that needs a newer t (Ledgraph-Min-T); null on a transaction server.
   */
  refresher: ((ledgerId: string) => Promise<void>) | null = null;

  constructor(storage: Storage, opts: ConnectionOptions = {}) {
    this.content = storage.content;
    this.ns = storage.ns;
    this.opts = {
      reindexMinBytes: opts.reindexMinBytes ?? 100_000,
      reindexMaxBytes: opts.reindexMaxBytes ?? 1_000_000,
      indexingEnabled: opts.indexingEnabled ?? true,
      storeTxn: opts.storeTxn ?? true,
      leafCacheBytes: opts.leafCacheBytes ?? DEFAULT_LEAF_CACHE_BYTES,
      termCacheBytes: opts.termCacheBytes ?? DEFAULT_TERM_CACHE_BYTES,
    };
    this.leafCache = new LeafCache(this.opts.leafCacheBytes);
    this.envelopes = new EnvelopeCache(opts.commitCacheBytes ?? DEFAULT_COMMIT_CACHE_BYTES);
    this.gc = new IndexGc(this, opts.gcGraceMs ?? DEFAULT_GC_GRACE_MS);
    this.federation = opts.federation?.allow.length ? opts.federation : undefined;
    this.maxLoaded = opts.maxLoadedLedgers ?? Infinity;
  }

  /** The content store a ledger (`name:branch` or bare name) reads and writes (content-scope.ts). */
  contentFor(ledgerId: string): ContentStore {
    return ledgerContent(this.content, ledgerId);
  }

  /** The content partition of a ledger ('' for all under a shared layout). */
  partitionOf(ledgerId: string): string {
    return contentPartition(this.content, ledgerId);
  }

  /** The commit graph over a ledger's content (shared by the ledgers of its partition). */
  graphFor(ledgerId: string): CommitGraph {
    const p = this.partitionOf(ledgerId);
    let g = this.graphs.get(p);
    if (!g) this.graphs.set(p, g = new CommitGraph(this.contentFor(ledgerId), this.envelopes));
    return g;
  }

  /** Create a ledger with its genesis commit (t = 0) and optional default context; 409 when it exists. */
  async create(ledgerId: string, opts: { context?: unknown } = {}): Promise<CreateResponse> {
    const id = normalizeLedgerId(ledgerId);
    const { name, branch } = splitLedgerId(id);
    if (await this.ns.get(id)) throw ledgerExists(`ledger ${id} already exists`);
    const record: NsRecord = {
      ledger_id: id, name, branch, commit_head_id: null, commit_t: 0, index_head_id: null, index_t: 0,
      default_context: await storeDefaultContext(this.contentFor(id), opts.context ?? null), config_id: null, retracted: false,
    };
    const ledger = Ledger.blank(this.contentFor(id), record, this.opts.termCacheBytes);
    ledger.graph = this.graphFor(id);
    const { cid, record: next } = await (await pipeline()).writeGenesis(this, ledger);
    if (!(await this.ns.compareAndSet(id, null, next))) throw ledgerExists(`ledger ${id} already exists`);
    ledger.record = next;
    const loaded = Promise.resolve(ledger);
    this.settled.set(loaded, ledger);
    this.loaded.set(id, loaded);
    this.lastTouched = loaded;
    this.unloadIdle(id);
    return { ledger: id, t: 0, 'tx-id': cid, commit: { commit_id: cid } };
  }

  /** A ledger's stored default JSON-LD context, or null (see default-context.ts). */
  defaultContext(ledgerRef: string): Promise<unknown> {
    return defaultContextOf(this, ledgerRef);
  }

  /** Replace (null: clear) a ledger's stored default context. */
  setDefaultContext(ledgerId: string, context: unknown): Promise<DefaultContextChange> {
    return setDefaultContext(this, ledgerId, context);
  }

  /** The nameservice record of a ledger id, from the feed-maintained cache. */
  async record(id: string): Promise<NsRecord | null> {
    if (!this.unsubscribe) this.unsubscribe = this.ns.subscribe((c) => { this.records.set(c.ledger_id, c.record); });
    const hit = this.records.get(id);
    if (hit !== undefined) return hit;
    const rec = await this.ns.get(id);
    this.records.set(id, rec);
    return rec;
  }

  /** True when the ledger exists and is not retracted. */
  async exists(ledgerId: string): Promise<boolean> {
    const rec = await this.record(normalizeLedgerId(ledgerId));
    return !!rec && !rec.retracted;
  }

  /** Every live (not retracted) record. */
  async list(): Promise<NsRecord[]> {
    return (await this.ns.list()).filter((r) => !r.retracted);
  }

  /** The loaded ledger (404 when absent or retracted). Reloads when another process moved the head. */
  async ledger(ledgerId: string): Promise<Ledger> {
    const id = normalizeLedgerId(ledgerId);
    // The feed-maintained record and a settled load are read without awaiting (every query asks).
    let rec = (this.unsubscribe ? this.records.get(id) : undefined) ?? await this.record(id);
    if (!rec || rec.retracted) {
      this.loaded.delete(id);
      throw notFound(`ledger ${id} not found`);
    }
    let p = this.loaded.get(id);
    if (p) {
      const l = this.settled.get(p) ?? await p.catch(() => null);
      // Writes may have published while we waited: compare with the record as the feed has it now,
      // or a ledger ahead of the record read above would be reloaded from that older record.
      const now = this.records.get(id);
      if (now && !now.retracted) rec = now;
      if (l && !l.superseded && l.record.commit_head_id === rec.commit_head_id) return this.touch(id, p, l);
      if (l && !l.superseded && rec.commit_t > l.t) {
        const ok = await l.lock.run(() => this.catchUp(l)).then(() => true, (e: unknown) => {
          if (l.superseded) return false; // moved off its chain: load afresh below
          throw e;
        });
        if (ok) return l;
      }
    }
    const opening: Promise<Ledger> = Ledger.open(this.contentFor(id), rec, this.leafCache, this.opts.termCacheBytes, this.graphFor(id)).then((l) => {
      this.indexInherited(l);
      this.settled.set(opening, l);
      return l;
    });
    p = opening;
    this.loaded.delete(id);
    this.loaded.set(id, p);
    this.lastTouched = p;
    try {
      const l = await p;
      this.unloadIdle(id);
      return l;
    } catch (e) {
      this.loaded.delete(id);
      throw e;
    }
  }

  /**
   * Load a branch in the background when its record starts above its index (a fork at an older
   * commit or of a source with unindexed commits; a fast-forward or rebase), so its inherited
   * commits are indexed (indexInherited) before its first read rather than during it.
   */
  prepare(id: string): void {
    if (!this.opts.indexingEnabled) return;
    const p: Promise<void> = this.ledger(id).then(() => undefined, () => undefined).finally(() => { this.preparing.delete(p); });
    this.preparing.add(p);
  }

  /** A hit: the ledger becomes the most recently used (a Map keeps insertion order). */
  private touch(id: string, p: Promise<Ledger>, l: Ledger): Ledger {
    // Already the most recent (one busy ledger, asked by every query): nothing moves.
    if (this.maxLoaded !== Infinity && this.lastTouched !== p && this.loaded.get(id) === p) {
      this.loaded.delete(id);
      this.loaded.set(id, p);
      this.lastTouched = p;
    }
    return l;
  }
  /** The load touch() moved to the end of `loaded` last (it is still there unless a newer one was set). */
  private lastTouched: Promise<Ledger> | null = null;

  /**
   * Past maxLoadedLedgers, unload the least recently used idle ledgers (never `keep`, the one just
   * loaded): loaded, with no write holding or awaiting its lock, no index job and no merge, rebase
   * or revert. A query still running on one keeps its snapshot; the next use loads it from storage
   * as a restart would (its unindexed commits read again). Busy ledgers stay, so the bound can be
   * passed while they are.
   */
  private unloadIdle(keep: string): void {
    if (this.loaded.size <= this.maxLoaded) return;
    for (const [id, p] of this.loaded) {
      if (this.loaded.size <= this.maxLoaded) return;
      const l = this.settled.get(p);
      if (id === keep || !l || !l.lock.idle || l.indexing || this.maintenance.has(id)) continue;
      this.loaded.delete(id);
      this.unloadedCount++;
    }
  }

  /** The ledger if it is loaded (or loading), else undefined; never loads. */
  loadedLedger(ledgerId: string): Promise<Ledger> | undefined {
    return this.loaded.get(normalizeLedgerId(ledgerId));
  }

  /** Load a ledger afresh from its current record, replacing the loaded one (a peer's reload). */
  async reload(ledgerId: string): Promise<Ledger> {
    const id = normalizeLedgerId(ledgerId);
    const rec = await this.ns.get(id);
    if (!rec || rec.retracted) {
      this.loaded.delete(id);
      throw notFound(`ledger ${id} not found`);
    }
    this.records.set(id, rec);
    const p = Ledger.open(this.contentFor(id), rec, this.leafCache);
    this.loaded.set(id, p);
    this.lastTouched = p;
    try {
      return await p;
    } catch (e) {
      if (this.loaded.get(id) === p) this.loaded.delete(id);
      throw e;
    }
  }

  /** Forget a loaded ledger (a peer evicts a retracted one). */
  evict(ledgerId: string): void {
    this.loaded.delete(normalizeLedgerId(ledgerId));
  }

  /** Apply commits another process published after our head (a peer sharing the storage). */
  async catchUp(l: Ledger): Promise<void> {
    await l.catchUp(this.ns);
  }

  /** A snapshot from a ledger reference with an optional time specifier (`name:branch@t:3`). */
  async db(ref: string): Promise<Db> {
    const r = parseLedgerRef(ref);
    const ledger = await this.ledger(r.id);
    return ledger.db(r.time);
  }

  /** Run one write through the pipeline. */
  async transact(ledgerId: string, req: TxnRequest, ctx: TxnContext = {}): Promise<Receipt> {
    const ledger = await this.ledger(ledgerId);
    const receipt = await (await pipeline()).transact(this, ledger, req, ctx);
    this.maybeIndex(ledger);
    return receipt;
  }

  /**
   * Bulk-load documents (or one text source in `opts.format`) into a new or existing ledger, all or
   * nothing (see transact/bulk-load.ts); a failed load leaves the stored ledger as it was.
   */
  async bulkLoad(ledgerId: string, source: AsyncIterable<string | Uint8Array> | readonly BulkDocument[], opts: BulkLoadOptions = {}): Promise<BulkLoadResult> {
    const ledger = await this.ledger(ledgerId);
    const isDocs = Array.isArray(source) && source.length > 0 && source.every((d) => typeof d === 'object' && d !== null && ('source' in d || 'batches' in d));
    const docs = isDocs ? source as readonly BulkDocument[] : [{ source: source as AsyncIterable<string | Uint8Array> }];
    // Writer first, lock second: a sweep waits for writers, and no lock holder may wait for a sweep.
    return this.gc.writing(() => ledger.lock.run(async () => {
      await this.catchUp(ledger);
      try {
        return await (await bulk()).bulkLoad(this, ledger, docs, opts);
      } catch (e) {
        if (ledger.superseded && this.loaded.get(ledger.id) !== undefined) this.forget(ledger.id);
        throw e;
      }
    }));
  }

  /** Ledger info document (http-api.md §2.7). */
  async info(ledgerId: string, opts: InfoOptions = {}): Promise<LedgerInfo> {
    return ledgerInfo(await this.ledger(ledgerId), opts);
  }

  /**
   * What a write would change, without committing (sync dry runs): the staged flakes, under the
   * ledger's lock against the head; any terms staging interned are released again.
   */
  async stage(ledgerId: string, req: TxnRequest): Promise<{ ledger: Ledger; t: number; flakes: CommitFlake[]; newGraphs: Map<number, string> }> {
    const ledger = await this.ledger(ledgerId);
    return ledger.lock.run(async () => {
      await this.catchUp(ledger);
      const dictSize = ledger.dict.size;
      try {
        const stager = await (await staging()).stageRequest(await ledger.db(), ledger, req, ledger.t + 1);
        return { ledger, t: ledger.t, flakes: stager.flakes(), newGraphs: new Map([...stager.newGraphs].map(([iri, g]) => [g, iri] as const)) };
      } finally {
        ledger.dict.truncate(dictSize);
      }
    });
  }

  /**
   * Where memory goes (estimates, bytes): the shared leaf cache against its budget, and per loaded
   * ledger its dictionary (grows with distinct terms), decoded-term cache and novelty.
   */
  async memoryReport(): Promise<MemoryReport> {
    const ledgers: MemoryReport['ledgers'] = [];
    for (const p of this.loaded.values()) {
      const l = await p.catch(() => null);
      if (!l) continue;
      const d = l.dict.memory();
      ledgers.push({
        ledger: l.id, terms: l.dict.size, dict_bytes: d.dictBytes, dict_page_bytes: d.dictPageBytes, term_cache_bytes: d.termCacheBytes,
        novelty_bytes: l.novelty.memoryBytes(), novelty_encoded_bytes: l.novelty.bytes,
        dict_absent_lookups: { lookups: l.dict.probes.absent, bloom_candidate_pages: l.dict.probes.candidates, pages_read: l.dict.probes.pagesRead },
      });
    }
    const leaf = this.leafCache.size;
    return {
      leaf_cache: { bytes: leaf.bytes, leaves: leaf.leaves, limit_bytes: this.leafCache.maxBytes },
      commit_cache: { bytes: this.envelopes.cachedBytes, limit_bytes: this.envelopes.maxBytes },
      dict_pages_held: { bytes: this.leafCache.holdBound.bytes(), limit_bytes: this.leafCache.holdBound.max },
      term_cache_limit_bytes_per_ledger: this.opts.termCacheBytes,
      root_headers: { ...rootHeaderCacheSize(), limit_bytes: ROOT_HEADER_BYTES }, ledgers };
  }

  /** Forget a loaded ledger (its head moved off its first-parent chain); the next use loads it afresh. */
  forget(id: string): void {
    this.loaded.delete(id);
    this.records.delete(id);
  }

  /** Number of ledgers loaded in memory. */
  get loadedCount(): number { return this.loaded.size; }

  /** Start a background index job when novelty passed reindex_min_bytes. */
  maybeIndex(ledger: Ledger): void {
    if (ledger.novelty.bytes < this.opts.reindexMinBytes) return;
    this.startIndexJob(ledger);
  }

  /**
   * Start a background index job, whatever the novelty's size, when a just-loaded ledger's novelty
   * holds commits it did not index itself: its index head was built for another branch (inherited
   * at a fork, taken with a fast-forward or rebase) or, for a branch, it has none. Such novelty
   * would otherwise stay until the branch's own writes pass reindex_min_bytes — forever for a
   * branch that is only read — and every head query would pay for merging it (docs/branches.md).
   */
  private indexInherited(ledger: Ledger): void {
    if (ledger.novelty.size === 0) return;
    const own = ledger.tree ? ledger.tree.root.ledger_id === ledger.id : ledger.record.source_branch === undefined;
    if (!own) this.startIndexJob(ledger);
  }

  private startIndexJob(ledger: Ledger): void {
    if (!this.opts.indexingEnabled || ledger.indexing) return;
    const job: Promise<void> = this.gc.writing(() => runIndexJob(this, ledger, indexPace(ledger, this.opts.reindexMaxBytes)))
      .catch((e) => { console.error(JSON.stringify({ level: 'error', msg: 'index job failed', ledger: ledger.id, error: String(e) })); return false; })
      .then((published) => {
        ledger.indexing = null;
        this.indexJobs.delete(job);
        // Not published: the ledger was superseded or dropped, and another job would fare no better.
        if (published) this.maybeIndex(ledger);
      });
    ledger.indexing = job;
    this.indexJobs.add(job);
  }

  /** Index now (the `/reindex` command): waits for a running job, then indexes what is left. */
  async reindex(ledgerId: string): Promise<{ ledger: string; index_t: number; index_id: string | null }> {
    const ledger = await this.ledger(ledgerId);
    if (ledger.indexing) await ledger.indexing;
    if (ledger.novelty.size > 0 || !ledger.tree) await this.gc.writing(() => runIndexJob(this, ledger));
    return { ledger: ledger.id, index_t: ledger.tree?.t ?? 0, index_id: ledger.record.index_head_id };
  }

  /** Index roots no record names any more: their objects are deleted after gcGraceMs (index-gc.ts). */
  retireIndex(ledgerId: string, roots: readonly (string | null)[]): void {
    this.gc.retire(ledgerId, roots);
  }

  /** Run deletes while no index writer of this connection runs. */
  exclusively<T>(fn: () => Promise<T>): Promise<T> {
    return this.gc.exclusively(fn);
  }

  /** Wait for background indexing of every loaded ledger and for due garbage collection (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      let waited = this.preparing.size > 0;
      await Promise.all([...this.preparing]);
      for (const p of [...this.loaded.values()]) {
        const l = await p.catch(() => null);
        while (l?.indexing) { waited = true; await l.indexing; }
      }
      while (this.indexJobs.size > 0) { waited = true; await Promise.all([...this.indexJobs]); }
      await this.gc.idle();
      if (!waited) return;
    }
  }

  /**
   * Drop a ledger (bare name, all branches): soft retracts records; hard also deletes every object
   * reachable from them and purges the records (http-api.md §3).
   */
  async drop(name: string, opts: { hard?: boolean } = {}): Promise<DropResponse> {
    const records = (await this.ns.list()).filter((r) => r.name === name);
    if (records.length === 0) return { ledger_id: name, status: 'not_found', files_deleted: 0, branches_dropped: [] };
    const res = await dropLedger(this, name, records, !!opts.hard);
    for (const r of records) this.loaded.delete(r.ledger_id);
    return res;
  }

  /** Forget loaded state (tests) and close storage. */
  async close(): Promise<void> {
    await this.idle();
    this.gc.close();
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.records.clear();
    this.loaded.clear();
    await this.content.close();
    await this.ns.close();
  }
}
