/**
 * Moving a class summary (class-summary.ts) from one t to another without reading every fact: the
 * subjects the events in between touched — plus the subjects pointing at a node whose classes
 * changed — have their contribution at the old t subtracted and their contribution at the new t
 * added. Used when the indexer writes a root (previous root's summary + the indexed novelty) and
 * when a GraphQL schema is derived (the root's summary + the snapshot's novelty).
 */
import { CID } from 'multiformats/cid';
import { Codec } from '../commit/cid.js';
import type { ContentStore } from '../store.js';
import { RDF } from '../rdf/vocab.js';
import type { Novelty } from './novelty.js';
import { canonicalJsonBytes, parseJsonNode } from './root-codec.js';
import type { IndexTree } from './tree.js';
import type { DbView, ScanPattern } from './view.js';
import type { TimeSlice } from '../util/next-turn.js';
import { allocRun, copyRow, type Run } from './run.js';
import {
  cloneSummary, countedClass, countedPredicate, countValue, propEntry, pruneSummary, setEntry, setKey, summarizeFacts,
  summaryFromJson, summaryJson, type ClassSummary,
} from './class-summary.js';

/** Rows of a scan, copied (batches are reused between yields). */
async function rows(view: DbView, pattern: ScanPattern): Promise<{ s: number[]; p: number[]; o: number[] }> {
  const out = { s: [] as number[], p: [] as number[], o: [] as number[] };
  const take = (b: { n: number; s: Int32Array; p: Int32Array; o: Int32Array }) => {
    for (let i = 0; i < b.n; i++) { out.s.push(b.s[i]!); out.p.push(b.p[i]!); out.o.push(b.o[i]!); }
  };
  const sync = view.scanSync?.(pattern);
  if (sync) take(sync);
  else for await (const b of view.scan(pattern)) take(b);
  return out;
}

/**
 * One subject's default-graph facts (p, o) in reused typed columns: a synchronous scan's batch is
 * shared by the next scan (the class lookups below make some), so it is copied once, not into arrays.
 */
class SubjectFacts {
  p = new Int32Array(256);
  o = new Int32Array(256);
  n = 0;

  async read(view: DbView, s: number): Promise<void> {
    this.n = 0;
    const sync = view.scanSync?.({ g: 0, s });
    if (sync) this.take(sync);
    else for await (const b of view.scan({ g: 0, s })) this.take(b);
  }

  private take(b: { n: number; p: Int32Array; o: Int32Array }): void {
    const need = this.n + b.n;
    if (need > this.p.length) {
      const cap = Math.max(need, this.p.length * 2);
      const p = new Int32Array(cap), o = new Int32Array(cap);
      p.set(this.p.subarray(0, this.n)); o.set(this.o.subarray(0, this.n));
      this.p = p; this.o = o;
    }
    this.p.set(b.p.subarray(0, b.n), this.n);
    this.o.set(b.o.subarray(0, b.n), this.n);
    this.n = need;
  }
}

/** Class sets of nodes in one view, memoised: [key, classes], or null for a node without counted classes. */
class ClassSets {
  private readonly memo = new Map<number, [string, number[]] | null>();
  /**
   * `fresh`: ids from here on have no facts in this view (terms the dictionary numbered after
   * the view's index root was written), so they have no classes here and need no scan.
   */
  constructor(
    readonly view: DbView, private readonly type: number, private readonly counted: Map<number, boolean>, readonly fresh = Infinity,
    /** The class sets of nodes from `fresh` on, when they have any here (read off the events, not scanned). */
    readonly freshSets = new Map<number, [string, number[]]>(),
  ) {}

  /** Whether class `c` counts (memoised: the dictionary decides from its key). */
  counts(c: number): boolean {
    let ok = this.counted.get(c);
    if (ok === undefined) this.counted.set(c, ok = countedClass(this.view.dict, c));
    return ok;
  }

  /** The class set of `node` when it can be had synchronously (memoised, fresh, or a synchronous scan); undefined otherwise. */
  known(node: number): [string, number[]] | null | undefined {
    if (node >= this.fresh) return this.freshSets.get(node) ?? null;
    const hit = this.memo.get(node);
    if (hit !== undefined) return hit;
    if (this.view.dict.kind(node) === 2) return this.remember(node, []);
    const sync = this.view.scanSync?.({ g: 0, s: node, p: this.type });
    return sync ? this.remember(node, sync.o.subarray(0, sync.n)) : undefined;
  }

  async of(node: number): Promise<[string, number[]] | null> {
    const hit = this.known(node);
    if (hit !== undefined) return hit;
    return this.remember(node, (await rows(this.view, { g: 0, s: node, p: this.type })).o);
  }

  private remember(node: number, types: ArrayLike<number>): [string, number[]] | null {
    const cs: number[] = [];
    for (let i = 0; i < types.length; i++) {
      const c = types[i]!;
      if (this.counts(c) && !cs.includes(c)) cs.push(c);
    }
    let hit: [string, number[]] | null = null;
    if (cs.length) { cs.sort((a, b) => a - b); hit = [setKey(cs), cs]; }
    this.memo.set(node, hit);
    return hit;
  }
}

/** How a fold may save work and share the event loop. */
export interface FoldOptions {
  /**
   * Ids from here on have no facts at `before` (the dictionary size of the index root `before`
   * reads: ids are append-only, and that root's facts name only ids it numbered). Subjects and
   * nodes past it are skipped at `before`: a load of new subjects reads each subject once.
   */
  newFrom?: number;
  /** Pause when this slice is used up (an index job's fold takes hundreds of ms at 1M triples). */
  slice?: TimeSlice;
}

/**
 * The current facts of subjects new since `before` — every fact they have is one of the events —
 * read off the events (SPOT order, newest first per fact): per subject its row range and, for the
 * typed ones, their class sets.
 */
function freshSubjects(events: Run, newFrom: number, type: number, sets: ClassSets): Map<number, [number, number]> {
  const spans = new Map<number, [number, number]>();
  const cls = new Map<number, number[]>();
  for (let i = 0; i < events.n;) {
    const s = events.s[i]!;
    let j = i;
    while (j < events.n && events.s[j] === s) j++;
    if (s >= newFrom) {
      spans.set(s, [i, j]);
      for (let k = i; k < j; k++) {
        if (events.p[k] !== type || !isCurrent(events, k)) continue;
        const c = events.o[k]!;
        if (!sets.counts(c)) continue;
        let cs = cls.get(s);
        if (!cs) cls.set(s, cs = []);
        if (!cs.includes(c)) cs.push(c);
      }
    }
    i = j;
  }
  for (const [s, cs] of cls) { cs.sort((a, b) => a - b); sets.freshSets.set(s, [setKey(cs), cs]); }
  return spans;
}

/** Row k starts its fact's group (the newest event of that fact) and asserts it: the fact is current. */
function isCurrent(r: Run, k: number): boolean {
  if (r.op[k] !== 1) return false;
  return k === 0 || r.s[k - 1] !== r.s[k] || r.p[k - 1] !== r.p[k] || r.o[k - 1] !== r.o[k] || r.m[k - 1] !== r.m[k];
}

/**
 * Move `sum` (the summary at `before.t`, mutated) to `after.t` (same data source, later t).
 * `events` holds every event of the default graph with a t between the two (their subjects are
 * what changed), sorted in SPOT order as novelty.range gives them.
 */
export async function foldEvents(sum: ClassSummary, before: DbView, after: DbView, events: Run, opts: FoldOptions = {}): Promise<ClassSummary> {
  const dict = after.dict;
  const type = await dict.lookupKey(RDF + 'type');
  if (type === undefined) return sum;
  const slice = opts.slice;
  const newFrom = opts.newFrom ?? Infinity;
  // The events' ids and the summary's classes get their dictionary pages loaded (kind/key below
  // are synchronous); the objects' too when new subjects' facts are read off the events.
  const known: number[] = [];
  for (const e of sum.values()) known.push(...e.classes);
  await dict.ensureIds(newFrom < Infinity ? [events.s, events.p, events.o] : [events.s, events.p], events.n);
  await dict.ensureIds([known], known.length);
  const counted = new Map<number, boolean>();
  const views = [new ClassSets(before, type, counted, newFrom), new ClassSets(after, type, counted, newFrom)] as const;
  const fresh = newFrom < Infinity ? freshSubjects(events, newFrom, type, views[1]) : new Map<number, [number, number]>();
  const subjects = new Set<number>();
  const retyped = new Set<number>();
  for (let i = 0; i < events.n; i++) {
    if (events.g[i] !== 0) continue;
    const s = events.s[i]!;
    // Events come by subject: one set insertion per subject, not per event.
    if (i === 0 || events.s[i - 1] !== s || events.g[i - 1] !== 0) subjects.add(s);
    if (events.p[i] === type) retyped.add(s);
  }
  // A node whose classes changed moves the references to it into another class set. A node new
  // since `before` had no references then, and every reference it has now is an event's (its
  // subject is already counted).
  for (const x of retyped) {
    if (x >= newFrom) continue;
    if (slice?.due()) await slice.pause();
    if ((await views[0].of(x))?.[0] === (await views[1].of(x))?.[0]) continue;
    for (const v of views) for (const s of (await rows(v.view, { g: 0, o: x })).s) subjects.add(s);
  }
  const preds = new Map<number, boolean>();
  const counts = (p: number): boolean => {
    let ok = preds.get(p);
    if (ok === undefined) preds.set(p, ok = countedPredicate(dict, p, type));
    return ok;
  };
  const f = new SubjectFacts();
  for (const [sets, sign] of [[views[0], -1], [views[1], 1]] as const) {
    for (const s of subjects) {
      // New subjects had nothing at `before`.
      if (sign < 0 && s >= newFrom) continue;
      if (slice?.due()) await slice.pause();
      const k = await sets.of(s);
      if (!k) continue;
      const e = setEntry(sum, k[1]);
      e.subjects += sign;
      const span = sign > 0 ? fresh.get(s) : undefined;
      if (span) {
        for (let i = span[0]; i < span[1]; i++) {
          const p = events.p[i]!;
          if (!isCurrent(events, i) || !counts(p)) continue;
          const o = events.o[i]!, oc = sets.known(o);
          countValue(propEntry(e, p), dict, o, (oc === undefined ? await sets.of(o) : oc)?.[0] ?? null, sign);
        }
        continue;
      }
      await f.read(sets.view, s);
      for (let i = 0; i < f.n; i++) {
        const p = f.p[i]!;
        if (!counts(p)) continue;
        const o = f.o[i]!, oc = sets.known(o);
        countValue(propEntry(e, p), dict, o, (oc === undefined ? await sets.of(o) : oc)?.[0] ?? null, sign);
      }
    }
  }
  return pruneSummary(sum);
}

/** Default-graph events of `novelty` with fromT < t <= toT, in SPOT order. */
export function defaultGraphEvents(novelty: Novelty, fromT: number, toT: number): Run {
  const r = novelty.range('spot', [0], toT);
  let n = 0;
  for (let i = 0; i < r.n; i++) if (r.t[i]! > fromT) n++;
  if (n === r.n) return r;
  const out = allocRun(n);
  for (let i = 0; i < r.n; i++) if (r.t[i]! > fromT) copyRow(out, r, i);
  return out;
}

/** Parsed summaries by CID (they are immutable); a few roots' worth. */
const loaded = new Map<string, Promise<ClassSummary>>();
const MAX_LOADED = 16;

/** The stored summary at `cid` (shared: copy before changing it). */
export function loadSummary(store: ContentStore, cid: string): Promise<ClassSummary> {
  let hit = loaded.get(cid);
  if (hit) return hit;
  hit = store.get(CID.parse(cid)).then((bytes) => summaryFromJson(parseJsonNode(bytes, 'index summary')));
  hit.catch(() => loaded.delete(cid));
  return remember(cid, hit);
}

/** Forget the parsed summaries (a benchmark's cold derivation reads them from storage again). */
export function forgetSummaries(): void {
  loaded.clear();
}

function remember(cid: string, p: Promise<ClassSummary>): Promise<ClassSummary> {
  if (loaded.size >= MAX_LOADED) loaded.delete(loaded.keys().next().value!);
  loaded.set(cid, p);
  return p;
}

/** A snapshot that tells what it reads (ledger/db.ts Db). */
export interface SummarySource extends DbView {
  readonly sources: { tree: IndexTree | null; novelty: Novelty };
  at(t: number): DbView;
}

/**
 * The class summary of a snapshot from its index root's summary and the novelty up to its t;
 * null when the root has none (written before summaries), there is no root, or the snapshot is
 * older than the root (time travel before the index: the caller scans).
 */
export async function snapshotSummary(db: SummarySource): Promise<ClassSummary | null> {
  const { tree, novelty } = db.sources;
  const cid = tree?.root.class_summary;
  if (!tree || !cid || db.t < tree.t) return null;
  const base = await loadSummary(tree.store, cid);
  const events = defaultGraphEvents(novelty, tree.t, db.t);
  if (events.n === 0) return base;
  return foldEvents(cloneSummary(base), db.at(tree.t), db, events, { newFrom: tree.root.dict.size });
}

/**
 * The summary of a new index root at `toT`: the previous root's summary moved over the indexed
 * novelty, or (no previous root, or one written before summaries) one scan of the new state.
 * `viewAt(t)` is the ledger's data (previous tree + novelty) at t. Returns the stored object's CID.
 */
export async function writeIndexSummary(
  store: ContentStore, prev: IndexTree | null, novelty: Novelty, toT: number, viewAt: (t: number) => DbView, slice?: TimeSlice,
): Promise<string> {
  let sum: ClassSummary;
  const prevCid = prev?.root.class_summary;
  if (prev && prevCid) {
    sum = await foldEvents(cloneSummary(await loadSummary(store, prevCid)), viewAt(prev.t), viewAt(toT), defaultGraphEvents(novelty, prev.t, toT), { newFrom: prev.root.dict.size, slice });
  } else {
    const view = viewAt(toT);
    const type = await view.dict.lookupKey(RDF + 'type');
    sum = type === undefined ? new Map() : await summarizeFacts(view.dict, view.scan({ g: 0, p: type }), view.scan({ g: 0 }));
  }
  return storeSummary(store, sum);
}

/** Store a summary as an `index-summary` object; its CID. */
export async function storeSummary(store: ContentStore, sum: ClassSummary): Promise<string> {
  const cid = (await store.put(Codec.indexSummary, canonicalJsonBytes(summaryJson(sum)))).toString();
  remember(cid, Promise.resolve(sum));
  return cid;
}
