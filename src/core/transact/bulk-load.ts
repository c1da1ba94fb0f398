/**
 * Bulk load (DESIGN.md performance model): N-Triples / N-Quads text into an empty ledger without
 * going through novelty. Statements are read straight into dictionary ids, deduplicated, written
 * as a few large commits (so the history is replayable like any other), and the index is built
 * directly from sorted runs and published at the last commit's t.
 */
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../commit/cid.js';
import { encodeCommit, type CommitData, type CommitFlake } from '../commit/commit-codec.js';
import { badRequest, commitConflict } from '../errors.js';
import { GRAPH_DEFAULT, GRAPH_TXN_META, ORDERS, type IndexOrder } from '../flake/flake.js';
import { writeBranches, writeLeaves } from '../index/build.js';
import { writeDictPages } from '../index/dict-write.js';
import { Novelty } from '../index/novelty.js';
import { summarizeFacts } from '../index/class-summary.js';
import { storeSummary } from '../index/class-summary-delta.js';
import { canonicalJsonBytes, type IndexRoot } from '../index/root-codec.js';
import { allocRun, cmpRows, copyRow, keyCols, sortRun, sortUniqueRun, type Run } from '../index/run.js';
import { IndexTree, type LeafRef } from '../index/tree.js';
import type { LedgerStores } from '../ledger/stores.js';
import { RESERVED_DATATYPES } from '../ledger/datatypes-limit.js';
import type { Ledger } from '../ledger/ledger.js';
import { detach, readNTriplesLine } from '../rdf/ntriples.js';
import { keyToTerm, termKey, type BlankNode, type NamedNode } from '../rdf/terms.js';
import { rdf } from '../rdf/vocab.js';
import type { NsRecord } from '../store.js';
import { nowIso } from './pipeline.js';

export interface BulkLoadOptions {
  /** `n-quads` accepts an optional graph term per line (default `n-triples`). */
  format?: 'n-triples' | 'n-quads';
  /** Flakes per commit (default 100,000). */
  commitFlakes?: number;
  /** Called as work progresses. */
  onProgress?: (p: { phase: 'read' | 'commit' | 'index'; done: number; total?: number }) => void;
}

export interface BulkLoadResult { ledger_id: string; t: number; triples: number; commits: number; commit_id: string; index_id: string }

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

/** Load statements into a ledger that has only its genesis commit. Caller holds the ledger lock. */
export async function bulkLoad(stores: LedgerStores, ledger: Ledger, source: AsyncIterable<string | Uint8Array>, opts: BulkLoadOptions = {}): Promise<BulkLoadResult> {
  if (ledger.t !== 0) throw badRequest(`bulk load needs a ledger without data; ${ledger.id} is at t ${ledger.t}`);
  const quads = opts.format === 'n-quads';
  const perCommit = opts.commitFlakes ?? 100_000;
  const dict = ledger.dict;
  // The genesis terms already indexed (at most a page): loaded, so reading looks them up synchronously.
  if (dict.baseSize > 0) { await dict.filterWords(); await dict.keysOf(0, dict.baseSize); }
  const newGraphs = new Map<string, number>();
  let nextGraph = ledger.graphs.nextId;
  const rows = new Growing();
  const intern = (key: string): number => {
    const id = dict.idOfKey(key);
    return id !== undefined ? id : dict.internKey(detach(key));
  };
  let lastS = '', lastSId = -1;
  const preds = new Map<string, number>();
  const bnode = (key: string): string => (key.charCodeAt(0) === 95 && key.charCodeAt(1) === 58 ? '_:lg1-' + key.slice(2) : key);

  // 1. Read.
  const decoder = new TextDecoder();
  let carry = '';
  let lineNo = 0;
  const readText = (text: string): void => {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) { carry = text.slice(start); return; }
      lineNo++;
      const line = text.charCodeAt(nl - 1) === 13 ? text.slice(start, nl - 1) : text.slice(start, nl);
      start = nl + 1;
      const kq = readNTriplesLine(line, lineNo, quads);
      if (!kq) continue;
      let g = GRAPH_DEFAULT;
      if (kq.g !== null) {
        const iri = bnode(kq.g); // a blank graph name gets the same ledger label as a blank subject
        let id = ledger.graphs.id(iri) ?? newGraphs.get(iri);
        if (id === undefined) { id = nextGraph++; newGraphs.set(iri, id); }
        g = id;
      }
      // Lines come grouped by subject and predicates are few: cheap caches skip most dictionary lookups.
      if (kq.s !== lastS) { lastS = kq.s; lastSId = intern(bnode(kq.s)); }
      let pid = preds.get(kq.p);
      if (pid === undefined) { pid = intern(kq.p); if (preds.size < 4096) preds.set(kq.p, pid); }
      rows.push(g, lastSId, pid, intern(bnode(kq.o)));
      if ((rows.run.n & 0x3ffff) === 0) opts.onProgress?.({ phase: 'read', done: rows.run.n });
    }
  };
  for await (const chunk of source) {
    readText(carry + (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })));
  }
  readText(carry + decoder.decode() + '\n');
  if (carry.trim()) readText(carry + '\n');

  // 2. Sort in SPOT order and drop duplicate statements.
  const spot = dedupe(sortRun(rows.run, 'spot'), 'spot');
  rows.run = allocRun(0);
  const total = spot.n;
  if (total === 0) throw badRequest('bulk load: the input holds no statements');

  // 3. Commits of `perCommit` flakes each; every commit records its own graph and namespace deltas.
  const meta = new Growing();
  const announced = new Set<number>();
  let record: NsRecord = ledger.record;
  let prev = ledger.head.cid;
  let t = 0;
  let commitBytes = 0;
  let publishing: Promise<void> = Promise.resolve();
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
      spot.t[i] = t;
      const sid = spot.s[i]!, pid = spot.p[i]!;
      if (sid !== lastTermS) { lastTermS = sid; lastSTerm = keyToTerm(dict.key(sid)) as NamedNode | BlankNode; }
      let pTerm = predTerms.get(pid);
      if (!pTerm) predTerms.set(pid, (pTerm = keyToTerm(dict.key(pid)) as NamedNode));
      flakes[i - from] = { g, s: lastSTerm!, p: pTerm, o: keyToTerm(dict.key(spot.o[i]!)), op: true };
    }
    graphDelta.sort((a, b) => a[0] - b[0]);
    const time = nowIso();
    const data: CommitData = { t, parents: [CID.parse(prev)], time, txn: null, author: '', nsDelta: [], graphDelta, meta: [], flakes };
    const enc = encodeCommit(data, ledger.ns);
    const cid = (await cidOf(Codec.commit, enc.bytes)).toString();
    commitBytes += enc.bytes.length;
    // Write and publish in order, while the next commit is being encoded.
    const commitT = t;
    publishing = publishing.then(async () => {
      await stores.content.put(Codec.commit, enc.bytes);
      const next: NsRecord = { ...record, commit_head_id: cid, commit_t: commitT };
      if (!(await stores.ns.compareAndSet(ledger.id, record, next))) throw commitConflict(`ledger ${ledger.id} changed during the bulk load`);
      record = next;
    });
    publishing.catch(() => undefined); // awaited below; avoid an unhandled rejection meanwhile
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

  await publishing;

  // 4. Build every order from sorted runs and publish the index at t.
  const all = concat(spot, meta.run);
  const leaves = {} as Record<IndexOrder, LeafRef[]>;
  const tops = {} as Record<IndexOrder, string | null>;
  const empty = allocRun(0);
  let spotRun = empty;
  for (const order of ORDERS) {
    let run = sortUniqueRun(all, order);
    if (order === 'spot') spotRun = run;
    if (order === 'opst') run = filter(run, (o) => dict.kind(o) !== 2);
    leaves[order] = await writeLeaves(stores.content, order, run, empty);
    tops[order] = await writeBranches(stores.content, order, leaves[order]);
    opts.onProgress?.({ phase: 'index', done: ORDERS.indexOf(order) + 1, total: ORDERS.length });
  }
  const typeId = dict.idOfKey(rdf.type);
  ledger.stats.flakes = 0;
  for (let i = 0; i < all.n; i++) {
    const g = all.g[i]!;
    ledger.stats.graphs.set(g, (ledger.stats.graphs.get(g) ?? 0) + 1);
    if (g === GRAPH_TXN_META) continue;
    ledger.stats.flakes++;
    const p = all.p[i]!;
    ledger.stats.properties.set(p, (ledger.stats.properties.get(p) ?? 0) + 1);
    ledger.stats.propertyT.set(p, all.t[i]!);
    if (p === typeId) ledger.stats.classes.set(all.o[i]!, (ledger.stats.classes.get(all.o[i]!) ?? 0) + 1);
    const o = all.o[i]!;
    if (dict.kind(o) === 2) {
      const key = dict.key(o);
      const dt = key.slice(1, key.indexOf('|'));
      if (!RESERVED_DATATYPES.has(dt)) ledger.datatypes.add(dt);
    }
  }
  ledger.stats.size += commitBytes;
  const dictRoot = await writeDictPages(stores.content, dict, ledger.tree?.root.dict ?? null, dict.size);
  const classSummary = await storeSummary(stores.content, await summarizeFacts(dict, [spotRun], [spotRun]));
  const root: IndexRoot = {
    v: 1, ledger_id: ledger.id, index_t: t, base_t: 0, commit_id: prev, commit_time: ledger.head.time, ns: ledger.ns.allocated(), graphs: ledger.graphs.named(),
    datatypes: [...ledger.datatypes].sort(), dict: dictRoot, orders: tops, stats: ledger.stats.toJson(), prev_root: null, class_summary: classSummary,
  };
  const rootCid = await stores.content.put(Codec.indexRoot, canonicalJsonBytes(root));
  const withIndex: NsRecord = { ...record, index_head_id: rootCid.toString(), index_t: t };
  if (!(await stores.ns.compareAndSet(ledger.id, record, withIndex))) throw commitConflict(`ledger ${ledger.id} changed during the bulk load`);
  ledger.record = withIndex;
  ledger.tree = new IndexTree(stores.content, rootCid, root, leaves, stores.leafCache);
  ledger.attachDict(ledger.tree);
  ledger.novelty = Novelty.empty();
  ledger.resetChain();
  return { ledger_id: ledger.id, t, triples: total, commits: t, commit_id: prev, index_id: rootCid.toString() };
}

function dedupe(r: Run, order: IndexOrder): Run {
  const cols = keyCols(r, order);
  const out = allocRun(r.n);
  for (let i = 0; i < r.n; i++) if (i === 0 || cmpRows(cols, i, cols, i - 1) !== 0) copyRow(out, r, i);
  return out;
}

function filter(r: Run, keep: (o: number) => boolean): Run {
  const out = allocRun(r.n);
  for (let i = 0; i < r.n; i++) if (keep(r.o[i]!)) copyRow(out, r, i);
  return out;
}

function concat(a: Run, b: Run): Run {
  const out = allocRun(a.n + b.n);
  for (let i = 0; i < a.n; i++) copyRow(out, a, i);
  for (let i = 0; i < b.n; i++) copyRow(out, b, i);
  return out;
}
