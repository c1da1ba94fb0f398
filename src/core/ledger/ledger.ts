/**
 * Ledger: the loaded state of one `name:branch` — dictionary, namespace and graph tables, stats,
 * index tree and novelty at the head — plus commit application and time-travel resolution.
 */
import { CID } from 'multiformats/cid';
import { Codec, digestHex } from '../commit/cid.js';
import { decodeCommit, decodeEnvelope, type CommitData } from '../commit/commit-codec.js';
import { NamespaceTable } from '../commit/namespaces.js';
import { badRequest, commitConflict, internalError, isLedgraphError, notFound } from '../errors.js';
import { GRAPH_TXN_META, type Flake } from '../flake/flake.js';
import { TermDict } from '../index/dict.js';
import { Novelty } from '../index/novelty.js';
import { parseJsonNode, type DictChunk, type IndexRoot } from '../index/root-codec.js';
import { IndexTree, type LeafCache } from '../index/tree.js';
import { rememberRoot } from '../index/root-headers.js';
import { termKey, type NamedNode, type Term } from '../rdf/terms.js';
import { rdf } from '../rdf/vocab.js';
import type { ContentStore, NameService, NsRecord } from '../store.js';
import { Mutex } from '../util/mutex.js';
import { runSteps, type Steps } from '../util/steps.js';
import { commitMetaFacts, commitSubject } from './commit-meta.js';
import { Db } from './db.js';
import { GraphTable } from './graph-table.js';
import type { TimeSpec } from './ledger-id.js';
import { LedgerStats } from './stats.js';
import { RESERVED_DATATYPES } from './datatypes-limit.js';
import type { PendingWrite } from '../transact/write-queue.js';
import type { CommitGraph } from '../branch/dag.js';
import { Activity } from '../util/give-way.js';

/**
 * True when a commit reference is a full CID rather than a digest prefix: Ledgraph CIDs start with
 * "bag", and "g" is not a hex digit, so a prefix such as "b09cc8" is never taken for a CID.
 */
export function isCidRef(ref: string): boolean {
  return /^bag[a-z2-7]+$/.test(ref);
}

const moved = (id: string) => commitConflict(`the head of ${id} was moved by a merge or rebase; retry`);

/** One entry of the first-parent chain. */
export interface ChainEntry { t: number; cid: string; time: string }

/** Most first-parent links a ledger keeps while its chain is not cached. */
const MAX_LINKS = 100_000;

/** A commit to apply; `staged` when this process staged it (pipeline.ts). */
export interface ApplyInput {
  data: CommitData;
  cid: string;
  blob: Uint8Array;
  staged?: {
    /** Its flakes as interned events at its t, in data.flakes' order. */
    events: Flake[];
    /** Novelty staging built: `after` is `base` plus `events` (0 bytes). */
    novelty?: { base: Novelty; after: Novelty };
    /** The datatypes of its literal objects, when `data.flakes` was left empty (a large insert staged as id runs). */
    datatypes?: readonly string[];
  };
}

/** What applying commits will change, not yet published. */
export interface AppliedCommits {
  /** The novelty it was built on (must still be the ledger's when published). */
  base: Novelty;
  novelty: Novelty;
  commits: { data: CommitData; cid: string; asserts: number; retracts: number; bytes: number; datatypes: string[]; stats: Flake[] }[];
}

/** Flakes interned between two possible pauses of applySteps. */
const APPLY_STEP_FLAKES = 2048;

export class Ledger {
  readonly dict: TermDict;
  graphs = new GraphTable();
  ns = new NamespaceTable();
  readonly stats: LedgerStats;
  /** Non-reserved datatype IRIs ever used (the 16,369 limit counts these). */
  readonly datatypes = new Set<string>();
  tree: IndexTree | null = null;
  novelty = Novelty.empty();
  /** Novelty bytes contributed per t (to shrink novelty after indexing). */
  private readonly noveltyBytesByT = new Map<number, number>();
  head: ChainEntry = { t: -1, cid: '', time: '' };
  record: NsRecord;
  /** Serialises writes and index publishes of this ledger. */
  readonly lock = new Mutex();
  /** First-parent chain by t, filled lazily (time travel, log) and on commit. */
  private chain: ChainEntry[] | null = null;
  /**
   * First-parent links of commits applied while the chain is not cached (replayed on load, staged,
   * received), so building the chain later reads only the commits older than those from storage.
   * Links are facts about immutable commits; bounded so a ledger never asked for its chain stays small.
   */
  private readonly links = new Map<string, { t: number; time: string; parent: string | null }>();
  /** Writes waiting to be committed (transact/pipeline.ts groups them). */
  readonly writeQueue: PendingWrite[] = [];
  /** True while a writer drains the queue. */
  writing = false;
  /** Writes staging or publishing (the pipeline's drain): this ledger's index job gives way to them (util/give-way.ts). */
  readonly writes = new Activity();
  /** Background index job, when one runs. */
  indexing: Promise<void> | null = null;
  /**
   * Set when a fast-forward or rebase moved the branch off this object's first-parent chain: the
   * connection loads the branch afresh, and this object publishes nothing more.
   */
  superseded = false;
  /** The connection's commit graph, told about every applied commit (branch operations walk it without rereading blobs). */
  graph: CommitGraph | null = null;

  private constructor(readonly store: ContentStore, record: NsRecord, termCacheBytes?: number) {
    this.dict = new TermDict(termCacheBytes);
    this.dict.want([rdf.type]); // LedgerStats looks it up on every commit
    this.record = record;
    this.stats = new LedgerStats(() => this.dict.idOfKey(rdf.type));
  }

  get id(): string { return this.record.ledger_id; }
  get t(): number { return this.head.t; }

  /** Load a ledger from its nameservice record: index root, then replay of later commits. */
  static async open(store: ContentStore, record: NsRecord, cache: LeafCache, termCacheBytes?: number, graph: CommitGraph | null = null): Promise<Ledger> {
    const l = new Ledger(store, record, termCacheBytes);
    l.graph = graph;
    let stopAt: string | null = null;
    if (record.index_head_id) {
      const rootCid = CID.parse(record.index_head_id);
      const root = parseJsonNode<IndexRoot>(await store.get(rootCid), 'index root');
      rememberRoot(record.index_head_id, root);
      if (root.dict.pages) {
        // The paged dictionary: pages and filters are read as lookups need them. rdf:type's page
        // (and the filters) load while the branch nodes do: on a peer each is a round trip.
        l.dict.attachBase(root.dict, l.pageSource(), cache);
        [l.tree] = await Promise.all([IndexTree.fromRoot(store, rootCid, root, cache), l.dict.pin([rdf.type])]);
      } else {
        // An old-format root (JSON chunks): its keys are read whole into the delta, and the next
        // index job writes them as pages. Branch nodes and chunks are independent reads.
        const [tree, chunkBytes] = await Promise.all([
          IndexTree.fromRoot(store, rootCid, root, cache),
          Promise.all(root.dict.chunks.map((c) => store.get(CID.parse(c)))),
        ]);
        for (const bytes of chunkBytes) {
          const chunk = parseJsonNode<DictChunk>(bytes, 'dictionary chunk');
          if (chunk.from !== l.dict.size) throw badRequest('dictionary chunks out of order in index root');
          for (const k of chunk.keys) l.dict.internKey(k);
        }
        l.tree = tree;
      }
      l.ns.applyDelta(root.ns);
      l.graphs = new GraphTable(root.graphs);
      for (const d of root.datatypes) l.datatypes.add(d);
      l.stats.load(root.stats);
      stopAt = root.commit_id;
      l.head = { t: root.index_t, cid: root.commit_id, time: root.commit_time ?? '' };
    }
    if (record.commit_head_id) {
      await l.replayChain(record.commit_head_id, stopAt);
      if (l.head.time === '' && stopAt) {
        const env = decodeEnvelope(await store.get(CID.parse(stopAt)));
        l.head = { ...l.head, time: env.time };
      }
    }
    return l;
  }

  /** A fresh ledger object for a record about to be created (genesis applied by the caller). */
  static blank(store: ContentStore, record: NsRecord, termCacheBytes?: number): Ledger {
    return new Ledger(store, record, termCacheBytes);
  }

  /**
   * Replay stored commits: walk first parents back from `headCid` to `stopAt` (exclusive; null =
   * genesis), then apply them oldest first. Loading, catching up with another process and peers
   * replay through here; it ends in applyCommit like a staged commit.
   */
  async replayChain(headCid: string, stopAt: string | null): Promise<void> {
    const pending: { cid: CID; bytes: Uint8Array }[] = [];
    let cur: CID | null = CID.parse(headCid);
    while (cur && cur.toString() !== stopAt) {
      const bytes = await this.store.get(cur);
      pending.push({ cid: cur, bytes });
      cur = decodeEnvelope(bytes).parents[0] ?? null;
    }
    if (stopAt !== null && !cur) throw internalError(`ledger ${this.id}: head ${headCid} does not descend from ${stopAt}`);
    const oldestFirst = pending.reverse().map((p) => ({ cid: p.cid.toString(), bytes: p.bytes }));
    const datas = await this.decodeResolved(oldestFirst);
    // Applied in one synchronous run: no reader sees a half-replayed chain.
    oldestFirst.forEach(({ cid, bytes }, i) => this.applyCommit(datas[i]!, cid, bytes));
  }

  /**
   * Decode stored commits (oldest first) against this ledger's namespace table plus the deltas of
   * those before each, and load the dictionary pages their terms need, so they can be applied in
   * one synchronous run.
   */
  async decodeResolved(chain: readonly { cid: string; bytes: Uint8Array }[]): Promise<CommitData[]> {
    const ns = chain.length > 1 ? this.ns.clone() : this.ns;
    const out: CommitData[] = [];
    for (const { cid, bytes } of chain) {
      const data = decodeCommit(bytes, ns);
      if (ns !== this.ns) ns.applyDelta(data.nsDelta);
      await this.resolveCommitTerms(data, cid);
      out.push(data);
    }
    return out;
  }

  /** Apply commits another process published after our head (a peer sharing the storage). */
  async catchUp(ns: NameService): Promise<void> {
    const rec = await ns.get(this.id);
    // A default context replaced by another process: adopt it, so our next publish expects it.
    if (rec && rec.default_context !== this.record.default_context) this.record = { ...this.record, default_context: rec.default_context };
    if (!rec || !rec.commit_head_id || rec.commit_head_id === this.head.cid) return;
    if (this.superseded || rec.commit_t <= this.t) throw moved(this.id);
    try {
      await this.replayChain(rec.commit_head_id, this.head.cid);
    } catch (e) {
      // The head moved off our chain (a fast-forward or rebase by another process).
      if (isLedgraphError(e) && e.status === 500) { this.superseded = true; throw moved(this.id); }
      throw e;
    }
    this.record = rec;
  }

  /**
   * The one place a commit enters the in-memory state, whether staged here, replayed from storage
   * or received (push, import): intern terms, add its flakes and commit-metadata facts to novelty,
   * update stats. Bulk load shares applyHeader and builds the index directly instead of novelty.
   */
  applyCommit(data: CommitData, cid: string, blob: Uint8Array): void {
    this.publishApplied(runSteps(this.applySteps([{ data, cid, blob }])));
  }

  /**
   * applyCommit's work for a run of commits (oldest first), in steps that may pause and off to the
   * side: nothing a reader sees changes until publishApplied() swaps the result in, in one
   * synchronous step, so no reader sees half a commit. The caller holds the ledger's lock
   * throughout (novelty changes only under it). Terms are interned here (ids only grow).
   */
  *applySteps(commits: readonly ApplyInput[]): Steps<AppliedCommits> {
    const isRef = (o: number): boolean => this.dict.kind(o) !== 2;
    const base = this.novelty;
    let tip = base, pendingBytes = 0;
    const metaFlakes: Flake[] = [];
    const out: AppliedCommits = { base, novelty: base, commits: [] };
    for (const c of commits) {
      const { data, cid, blob } = c;
      const t = data.t;
      let flakes: Flake[];
      const datatypes: string[] = [];
      if (c.staged) {
        // Staged here: already interned, and its datatypes counted when it staged.
        flakes = c.staged.events;
        if (c.staged.datatypes) for (const dt of c.staged.datatypes) { if (!RESERVED_DATATYPES.has(dt)) datatypes.push(dt); }
        else for (const f of data.flakes) if (f.o.termType === 'Literal' && !RESERVED_DATATYPES.has(f.o.datatype.value)) datatypes.push(f.o.datatype.value);
      } else {
        flakes = new Array<Flake>(data.flakes.length);
        for (let k = 0; k < data.flakes.length; k++) {
          const f = data.flakes[k]!;
          const o = f.o;
          if (o.termType === 'Literal' && !RESERVED_DATATYPES.has(o.datatype.value)) datatypes.push(o.datatype.value);
          flakes[k] = { g: f.g, s: this.dict.intern(f.s), p: this.dict.intern(f.p), o: this.dict.internKey(termKey(o)), m: f.i ?? -1, t, op: f.op };
          if (k % APPLY_STEP_FLAKES === APPLY_STEP_FLAKES - 1) yield;
        }
      }
      let asserts = 0, retracts = 0;
      for (const f of flakes) if (f.op) asserts++; else retracts++;
      const prev = data.parents[0]?.toString() ?? null;
      const meta = commitMetaFacts({ cid, t, time: data.time, previous: prev, asserts, retracts, author: data.author, meta: data.meta });
      const subj = this.dict.intern(commitSubject(cid));
      const own: Flake[] = [];
      for (const m of meta) {
        if (m.o.termType === 'Literal' && !RESERVED_DATATYPES.has(m.o.datatype.value)) datatypes.push(m.o.datatype.value);
        own.push({ g: GRAPH_TXN_META, s: subj, p: this.dict.intern(m.p), o: this.dict.internKey(termKey(m.o)), m: -1, t, op: true });
      }
      const bytes = blob.length;
      if (c.staged?.novelty && c.staged.novelty.base === tip) {
        // Staging already built the novelty with these events on top of this one: reuse it; the
        // metadata facts and the bytes are added once at the end.
        tip = c.staged.novelty.after;
        pendingBytes += bytes;
      } else {
        tip = yield* tip.addSteps(flakes, bytes, isRef);
      }
      metaFlakes.push(...own);
      out.commits.push({ data, cid, asserts, retracts, bytes, datatypes, stats: own.length ? [...flakes, ...own] : flakes });
      yield;
    }
    out.novelty = yield* tip.addSteps(metaFlakes, pendingBytes, isRef);
    return out;
  }

  /** Publish what applySteps worked out: headers, novelty and statistics, in one synchronous step. */
  publishApplied(a: AppliedCommits): void {
    if (this.novelty !== a.base) throw internalError(`ledger ${this.id}: novelty changed while a commit was being applied`);
    for (const c of a.commits) {
      this.applyHeader(c.data, c.cid, c.asserts, c.retracts);
      for (const dt of c.datatypes) this.datatypes.add(dt);
      this.noveltyBytesByT.set(c.data.t, c.bytes);
      this.stats.apply(c.stats, c.bytes);
    }
    this.novelty = a.novelty;
  }

  /**
   * What every applied commit does besides its flakes: its namespace and graph deltas, the head,
   * and the commit-metadata facts (graph 1, subject `urn:ledgraph:commit:<cid>`) to record.
   */
  applyHeader(data: CommitData, cid: string, asserts: number, retracts: number): { subject: NamedNode; meta: { p: NamedNode; o: Term }[] } {
    this.ns.applyDelta(data.nsDelta);
    for (const [g, iri] of data.graphDelta) this.graphs.set(g, iri);
    const prev = data.parents[0]?.toString() ?? null;
    const meta = commitMetaFacts({ cid, t: data.t, time: data.time, previous: prev, asserts, retracts, author: data.author, meta: data.meta });
    this.head = { t: data.t, cid, time: data.time };
    if (this.chain) this.chain[data.t] = this.head;
    // With a commit graph (every ledger of a Connection) the chain is built from it, not from links.
    else if (!this.graph && this.links.size < MAX_LINKS) this.links.set(cid, { t: data.t, time: data.time, parent: prev });
    this.graph?.remember({ cid, t: data.t, parents: data.parents.map(String), time: data.time });
    return { subject: commitSubject(cid), meta };
  }

  /** Novelty bytes still unindexed after dropping everything up to t. */
  noveltyBytesAfter(t: number): number {
    let n = 0;
    for (const [k, v] of this.noveltyBytesByT) if (k > t) n += v;
    return n;
  }

  /** Serve the dictionary's persisted ids from the pages of an index tree's root. */
  attachDict(tree: IndexTree): void {
    this.dict.attachBase(tree.root.dict, this.pageSource(), tree.objects);
  }

  private pageSource(): { get(cid: string): Promise<Uint8Array> } {
    return { get: (c) => this.store.get(CID.parse(c)) };
  }

  /**
   * Load the dictionary pages a commit's terms may live in, so applyCommit interns synchronously.
   * Every caller awaits this before applying (and before publishing, for staged commits).
   */
  async resolveCommitTerms(data: CommitData, cid: string): Promise<void> {
    if (this.dict.baseSize === 0) return;
    const keys: string[] = [];
    let asserts = 0, retracts = 0;
    for (const f of data.flakes) {
      if (f.op) asserts++; else retracts++;
      keys.push(termKey(f.s), termKey(f.p), termKey(f.o));
    }
    const prev = data.parents[0]?.toString() ?? null;
    const meta = commitMetaFacts({ cid, t: data.t, time: data.time, previous: prev, asserts, retracts, author: data.author, meta: data.meta });
    keys.push(termKey(commitSubject(cid)));
    for (const m of meta) keys.push(termKey(m.p), termKey(m.o));
    await this.dict.resolveKeys(keys);
  }

  /** After an index covering t is published: switch to it and drop indexed novelty. */
  installIndex(tree: IndexTree): void {
    const t = tree.t;
    this.tree = tree;
    this.attachDict(tree);
    this.novelty = this.novelty.dropUpTo(t, this.noveltyBytesAfter(t));
    for (const k of [...this.noveltyBytesByT.keys()]) if (k <= t) this.noveltyBytesByT.delete(k);
  }

  /** A snapshot at the head or at a time specifier. */
  async db(spec: TimeSpec = { kind: 'head' }): Promise<Db> {
    const t = await this.resolveT(spec);
    const commitId = t === this.head.t ? this.head.cid : (await this.chainEntries())[t]?.cid ?? null;
    return new Db({
      ledgerId: this.id, dict: this.dict, graphs: this.graphs, stats: this.stats, tree: this.tree,
      novelty: this.novelty, headT: this.head.t, commitId,
    }, t);
  }

  /** The t a time specifier denotes on this branch. */
  async resolveT(spec: TimeSpec): Promise<number> {
    switch (spec.kind) {
      case 'head': return this.head.t;
      case 't':
        if (spec.t > this.head.t) throw notFound(`ledger ${this.id} has no t ${spec.t} (head is t ${this.head.t})`);
        return spec.t;
      case 'time': {
        const chain = await this.chainEntries();
        // Latest commit at or before the instant (times are non-decreasing along the chain).
        let lo = 0, hi = chain.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (Date.parse(chain[mid]!.time) <= spec.ms) lo = mid + 1; else hi = mid;
        }
        if (lo === 0) throw badRequest(`no data as of ${spec.iso}: the instant is before the ledger's first commit`);
        return chain[lo - 1]!.t;
      }
      case 'commit': return (await this.findCommit(spec.ref)).t;
    }
  }

  /** Find a commit on the chain by full CID or hex digest prefix (>= 6). */
  async findCommit(ref: string): Promise<ChainEntry> {
    const chain = await this.chainEntries();
    if (isCidRef(ref)) {
      const hit = chain.find((e) => e.cid === ref);
      if (!hit) throw notFound(`commit ${ref} not found in ledger ${this.id}`);
      return hit;
    }
    const hex = ref.toLowerCase();
    if (hex.length < 6 || !/^[0-9a-f]+$/.test(hex)) throw badRequest('a commit prefix must be at least 6 hex characters');
    const hits = chain.filter((e) => digestHex(CID.parse(e.cid)).startsWith(hex));
    if (hits.length === 0) throw notFound(`commit ${ref} not found in ledger ${this.id}`);
    if (hits.length > 1) throw badRequest(`ambiguous commit prefix "${ref}" (${hits.length} commits match)`);
    return hits[0]!;
  }

  /** The first-parent chain indexed by t (genesis first). */
  async chainEntries(): Promise<ChainEntry[]> {
    if (this.chain) return this.chain;
    const out: ChainEntry[] = [];
    if (this.graph && this.head.cid) {
      for (const n of await this.graph.firstParents(this.head.cid)) out[n.t] = { t: n.t, cid: n.cid, time: n.time };
      this.chain = out;
      this.links.clear();
      return out;
    }
    let cur: string | null = this.head.cid;
    while (cur) {
      const link = this.links.get(cur);
      if (link) {
        out[link.t] = { t: link.t, cid: cur, time: link.time };
        cur = link.parent;
        continue;
      }
      const env = decodeEnvelope(await this.store.get(CID.parse(cur)));
      out[env.t] = { t: env.t, cid: cur, time: env.time };
      cur = env.parents[0]?.toString() ?? null;
    }
    this.chain = out;
    this.links.clear();
    return out;
  }

  /** Forget the cached chain (after a bulk load rewrote the head). */
  resetChain(): void { this.chain = null; }

  /** The raw commit blob at a CID (verified by the store). */
  async commitBytes(cid: string): Promise<Uint8Array> {
    const c = CID.parse(cid);
    if (c.code !== Codec.commit) throw badRequest(`${cid} is not a commit`);
    return this.store.get(c);
  }
}
