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

/** Class sets of nodes in one view, memoised: [key, classes], or null for a node without counted classes. */
class ClassSets {
  private readonly memo = new Map<number, [string, number[]] | null>();
  constructor(readonly view: DbView, private readonly type: number, private readonly counted: Map<number, boolean>) {}

  async of(node: number): Promise<[string, number[]] | null> {
    let hit = this.memo.get(node);
    if (hit !== undefined) return hit;
    hit = null;
    if (this.view.dict.kind(node) !== 2) {
      const cs: number[] = [];
      for (const c of (await rows(this.view, { g: 0, s: node, p: this.type })).o) {
        let ok = this.counted.get(c);
        if (ok === undefined) this.counted.set(c, ok = countedClass(this.view.dict, c));
        if (ok && !cs.includes(c)) cs.push(c);
      }
      if (cs.length) { cs.sort((a, b) => a - b); hit = [setKey(cs), cs]; }
    }
    this.memo.set(node, hit);
    return hit;
  }
}

/**
 * Move `sum` (the summary at `before.t`, mutated) to `after.t` (same data source, later or
 * earlier t). `events` holds every event of the default graph with a t between the two (their
 * subjects are what changed).
 */
export async function foldEvents(sum: ClassSummary, before: DbView, after: DbView, events: { n: number; g: Int32Array; s: Int32Array; p: Int32Array }): Promise<ClassSummary> {
  const dict = after.dict;
  const type = await dict.lookupKey(RDF + 'type');
  if (type === undefined) return sum;
  // The events' ids and the summary's classes get their dictionary pages loaded (kind/key below are synchronous).
  const known: number[] = [];
  for (const e of sum.values()) known.push(...e.classes);
  await dict.ensureIds([events.s, events.p], events.n);
  await dict.ensureIds([known], known.length);
  const counted = new Map<number, boolean>();
  const views = [new ClassSets(before, type, counted), new ClassSets(after, type, counted)] as const;
  const subjects = new Set<number>();
  const retyped = new Set<number>();
  for (let i = 0; i < events.n; i++) {
    if (events.g[i] !== 0) continue;
    subjects.add(events.s[i]!);
    if (events.p[i] === type) retyped.add(events.s[i]!);
  }
  // A node whose classes changed moves the references to it into another class set.
  for (const x of retyped) {
    if ((await views[0].of(x))?.[0] === (await views[1].of(x))?.[0]) continue;
    for (const v of views) for (const s of (await rows(v.view, { g: 0, o: x })).s) subjects.add(s);
  }
  const preds = new Map<number, boolean>();
  for (const [sets, sign] of [[views[0], -1], [views[1], 1]] as const) {
    for (const s of subjects) {
      const k = await sets.of(s);
      if (!k) continue;
      const e = setEntry(sum, k[1]);
      e.subjects += sign;
      const f = await rows(sets.view, { g: 0, s });
      for (let i = 0; i < f.p.length; i++) {
        const p = f.p[i]!;
        let ok = preds.get(p);
        if (ok === undefined) preds.set(p, ok = countedPredicate(dict, p, type));
        if (!ok) continue;
        const o = f.o[i]!;
        countValue(propEntry(e, p), dict, o, (await sets.of(o))?.[0] ?? null, sign);
      }
    }
  }
  return pruneSummary(sum);
}

/** Default-graph events of `novelty` with fromT < t <= toT, in SPOT order. */
export function defaultGraphEvents(novelty: Novelty, fromT: number, toT: number): { n: number; g: Int32Array; s: Int32Array; p: Int32Array } {
  const r = novelty.range('spot', [0], toT);
  let n = 0;
  for (let i = 0; i < r.n; i++) if (r.t[i]! > fromT) n++;
  if (n === r.n) return r;
  const out = { n, g: new Int32Array(n), s: new Int32Array(n), p: new Int32Array(n) };
  for (let i = 0, j = 0; i < r.n; i++) if (r.t[i]! > fromT) { out.g[j] = r.g[i]!; out.s[j] = r.s[i]!; out.p[j++] = r.p[i]!; }
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
  return foldEvents(cloneSummary(base), db.at(tree.t), db, events);
}

/**
 * The summary of a new index root at `toT`: the previous root's summary moved over the indexed
 * novelty, or (no previous root, or one written before summaries) one scan of the new state.
 * `viewAt(t)` is the ledger's data (previous tree + novelty) at t. Returns the stored object's CID.
 */
export async function writeIndexSummary(store: ContentStore, prev: IndexTree | null, novelty: Novelty, toT: number, viewAt: (t: number) => DbView): Promise<string> {
  let sum: ClassSummary;
  const prevCid = prev?.root.class_summary;
  if (prev && prevCid) {
    sum = await foldEvents(cloneSummary(await loadSummary(store, prevCid)), viewAt(prev.t), viewAt(toT), defaultGraphEvents(novelty, prev.t, toT));
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
