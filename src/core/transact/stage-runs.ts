/**
 * Staging a large plain insert through sorted id runs (docs/bulk-load.md "Large inserts"): the
 * bulk load's shape for one transaction. Each fact's terms are resolved to dictionary ids once
 * (new terms interned in the order the ordinary Stager interns them), the facts become one run of
 * id columns, sorted in SPOT order, cleared of duplicates and of facts already current — instead
 * of a map keyed by a string per fact. The result is the ordinary Stager's, fact for fact and in
 * the same order: the same flakes, events, new graphs and errors (test/core/stage-runs.test.ts
 * checks that both paths commit the same bytes).
 */
import { MIN_FLAKE_BYTES, type CommitFlake } from '../commit/commit-codec.js';
import type { CommitRows } from '../commit/commit-rows.js';
import { noveltyDeltaTooLarge } from '../errors.js';
import type { Flake } from '../flake/flake.js';
import { isDictMiss, type TermDict } from '../index/dict.js';
import { allocRun, cmpRows, copyRow, keyCols, type Run } from '../index/run.js';
import type { Db } from '../ledger/db.js';
import { defaultGraph, keyToTerm, termKey, type BlankNode, type NamedNode, type Term } from '../rdf/terms.js';
import { TimeSlice } from '../util/next-turn.js';
import { runSteps, type Steps } from '../util/steps.js';
import { dropCurrent } from './bulk-index.js';
import { sortSpot } from './bulk-sort.js';
import { checkLiteralSize, Stager, type StageOptions } from './stage.js';
import type { KeyRows, TxnQuad } from './txn-request.js';

/**
 * An insert of more quads than this stages through id runs. Below it the ordinary Stager's cost
 * is small against a request's fixed costs, and its path stays the one small writes take.
 */
export const RUN_STAGING_MIN_QUADS = 4096;
let minQuads = RUN_STAGING_MIN_QUADS;

/** Change the threshold (Infinity: never stage as runs); for differential tests and A/B runs. Returns the old one. */
export function setRunStagingMinQuads(n: number): number {
  const old = minQuads;
  minQuads = n;
  return old;
}

/** The threshold now (setRunStagingMinQuads may have changed it). */
export function runStagingMinQuads(): number {
  return minQuads;
}

/** Longest stretch (ms) resolving terms runs without giving the event loop a turn. */
const STAGE_SLICE_MS = 5;

/** True when `quads` (of an insert) stage through id runs: many of them, and no list items. */
export function stagesAsRuns(quads: readonly TxnQuad[]): boolean {
  if (quads.length <= minQuads) return false;
  for (const q of quads) if (q.listIndex !== undefined) return false;
  return true;
}

/** The staged delta of a large insert, with the ordinary Stager's interface. */
export class RunStager extends Stager {
  /** The new facts in request order; `t` holds each fact's quad index (idFlakes sets the real t). */
  private rows: Run = allocRun(0);
  private quads: readonly TxnQuad[] = [];
  /** Staged from key rows: the statements, and each row key's term (made when flakes() asks). */
  private keyRows: KeyRows | null = null;
  private rowKeys: readonly string[] = [];
  private rowTerms: (Term | undefined)[] = [];
  private readonly limit: number;

  constructor(db: Db, nextGraphId: number, opts: StageOptions = {}) {
    super(db, nextGraphId, opts);
    this.limit = opts.maxDeltaBytes !== undefined ? Math.ceil(opts.maxDeltaBytes / MIN_FLAKE_BYTES) : Infinity;
  }

  /** Stage the assertion of every quad (blank nodes already renamed). */
  async insertAll(quads: readonly TxnQuad[]): Promise<void> {
    const dict = this.db.dict;
    const dictBefore = dict.size;
    const slice = new TimeSlice(STAGE_SLICE_MS);
    const run = allocRun(quads.length);
    // Consecutive facts usually share a subject, and predicates are few: their ids are remembered.
    let lastS: Term | null = null, lastSId = -1;
    const preds = new Map<string, number>();
    for (let i = 0; i < quads.length; i++) {
      if ((i & 1023) === 0 && slice.due()) await slice.pause();
      const q = quads[i]!;
      checkLiteralSize(q.object);
      const g = this.graphId(q.graph);
      let s: number;
      if (q.subject === lastS) s = lastSId;
      else { const x = idOrIntern(dict, termKey(q.subject)); s = lastSId = typeof x === 'number' ? x : await x; lastS = q.subject; }
      let p = preds.get(q.predicate.value);
      if (p === undefined) { const x = idOrIntern(dict, q.predicate.value); preds.set(q.predicate.value, (p = typeof x === 'number' ? x : await x)); }
      const xo = idOrIntern(dict, termKey(q.object));
      const o = typeof xo === 'number' ? xo : await xo;
      const j = run.n++;
      run.g[j] = g; run.s[j] = s; run.p[j] = p; run.o[j] = o; run.m[j] = -1; run.t[j] = i; run.op[j] = 1;
    }
    this.rows = await this.keep(run, dictBefore, slice);
    this.quads = quads;
  }

  /**
   * Stage the assertion of every statement of `rows` (default graph; blank nodes `_:x` become
   * `_:lg<t>-x`): each distinct key is resolved once, in the order insertAll meets it, so the ids,
   * flakes and errors are insertAll's for the same statements as quads.
   */
  async insertKeyRows(rows: KeyRows, t: number): Promise<void> {
    const dict = this.db.dict;
    const dictBefore = dict.size;
    const slice = new TimeSlice(STAGE_SLICE_MS);
    const keys = rows.keys.map((k) => (k.charCodeAt(0) === 95 && k.charCodeAt(1) === 58 ? `_:lg${t}-${k.slice(2)}` : k));
    const ids = new Int32Array(keys.length).fill(-1);
    // Keys are distinct: one the dictionary answers absent for is new, and interned on the spot
    // (only a key whose dictionary page is not loaded yet waits for it). The byte reader's keys are
    // flat strings of their own (decoded per term, or copied over from the body thread), stored as
    // they are, as the bulk load stores them; a renamed blank node (a concatenation) is copied flat.
    const resolve = (k: number): number | Promise<number> => {
      const x = idOrIntern(dict, keys[k]!, keys[k] === rows.keys[k]);
      return typeof x === 'number' ? (ids[k] = x) : x.then((id) => (ids[k] = id));
    };
    const g = this.graphId(defaultGraph);
    const run = allocRun(rows.n);
    for (let i = 0; i < rows.n; i++) {
      if ((i & 1023) === 0 && slice.due()) await slice.pause();
      const sk = rows.s[i]!, pk = rows.p[i]!, ok = rows.o[i]!;
      // As insertAll: the object's size is checked before the statement's terms are interned.
      if (ids[ok]! < 0 && keys[ok]!.charCodeAt(0) === 34) checkLiteralSize(keyToTerm(keys[ok]!));
      let s = ids[sk]!, p = ids[pk]!, o = ids[ok]!;
      if (s < 0) { const x = resolve(sk); s = typeof x === 'number' ? x : await x; }
      if (p < 0) { const x = resolve(pk); p = typeof x === 'number' ? x : await x; }
      if (o < 0) { const x = resolve(ok); o = typeof x === 'number' ? x : await x; }
      const j = run.n++;
      run.g[j] = g; run.s[j] = s; run.p[j] = p; run.o[j] = o; run.m[j] = -1; run.t[j] = i; run.op[j] = 1;
    }
    this.rows = await this.keep(run, dictBefore, slice);
    this.keyRows = rows;
    this.rowKeys = keys;
    this.rowTerms = new Array<Term | undefined>(keys.length);
  }

  /** The run's facts that are new (first statement of each, not current), in request order. */
  private async keep(run: Run, dictBefore: number, slice: TimeSlice): Promise<Run> {
    await slice.pause();
    // A fact with a term new to this request cannot be current; the others are checked per subject.
    const fresh = await dropCurrentSliced(this.db, firstOfEach(sortSpot(run)), dictBefore, slice);
    if (fresh.n >= this.limit) {
      throw noveltyDeltaTooLarge(`the transaction stages at least ${fresh.n} flakes, at least ${fresh.n * MIN_FLAKE_BYTES} bytes of novelty, at or above reindex_max_bytes; split it into smaller transactions`);
    }
    return inRequestOrder(fresh, run.n);
  }

  /** The term of a row key (key rows only). */
  private rowTerm(k: number): Term {
    return (this.rowTerms[k] ??= keyToTerm(this.rowKeys[k]!));
  }

  /**
   * The staged facts as id columns and each id's dictionary key, for encoding the commit straight
   * from them (commit/commit-rows.ts: encodeCommit's bytes for flakes()).
   */
  commitRows(): { rows: CommitRows; keyOf: (id: number) => string } {
    const r = this.rows;
    const dict = this.db.dict;
    // Every id was looked up or interned while staging; a base page let go of since then is read
    // back from the request's own terms.
    let fallback: Map<number, string> | null = null;
    const keyOf = (id: number): string => {
      try {
        return dict.key(id);
      } catch (e) {
        if (!isDictMiss(e)) throw e;
        fallback ??= this.keysById();
        const key = fallback.get(id);
        if (key === undefined) throw e;
        return key;
      }
    };
    return { rows: { n: r.n, g: r.g, s: r.s, p: r.p, o: r.o }, keyOf };
  }

  private keysById(): Map<number, string> {
    const r = this.rows;
    const out = new Map<number, string>();
    const kr = this.keyRows;
    if (kr) {
      for (let k = 0; k < r.n; k++) {
        const i = r.t[k]!;
        out.set(r.s[k]!, this.rowKeys[kr.s[i]!]!).set(r.p[k]!, this.rowKeys[kr.p[i]!]!).set(r.o[k]!, this.rowKeys[kr.o[i]!]!);
      }
      return out;
    }
    for (let k = 0; k < r.n; k++) {
      const q = this.quads[r.t[k]!]!;
      out.set(r.s[k]!, termKey(q.subject)).set(r.p[k]!, q.predicate.value).set(r.o[k]!, termKey(q.object));
    }
    return out;
  }

  /** How many facts it stages: flakes().length, without making them. */
  count(): number {
    return this.rows.n;
  }

  /**
   * The datatypes of its literal objects, each once (what flakes()' objects name, read off each
   * distinct object's dictionary key, `"datatype|language|value`), without a term per fact.
   */
  objectDatatypes(): string[] {
    const r = this.rows;
    const { keyOf } = this.commitRows();
    const seen = new Set<number>();
    const out = new Set<string>();
    for (let k = 0; k < r.n; k++) {
      const o = r.o[k]!;
      if (seen.has(o)) continue;
      seen.add(o);
      const key = keyOf(o);
      if (key.charCodeAt(0) === 34) out.add(key.slice(1, key.indexOf('|')));
    }
    return [...out];
  }

  /** graphDelta(flakes()) from the graph column. */
  graphDeltaOfRows(): [number, string][] {
    const r = this.rows;
    const used = new Set<number>();
    for (let k = 0; k < r.n; k++) used.add(r.g[k]!);
    return this.graphDeltaOf(used);
  }

  override flakes(): CommitFlake[] {
    const r = this.rows;
    const out = new Array<CommitFlake>(r.n);
    const kr = this.keyRows;
    if (kr) {
      for (let k = 0; k < r.n; k++) {
        const i = r.t[k]!;
        out[k] = { g: r.g[k]!, s: this.rowTerm(kr.s[i]!) as NamedNode | BlankNode, p: this.rowTerm(kr.p[i]!) as NamedNode, o: this.rowTerm(kr.o[i]!), op: true };
      }
      return out;
    }
    for (let k = 0; k < r.n; k++) {
      const q = this.quads[r.t[k]!]!;
      out[k] = { g: r.g[k]!, s: q.subject as NamedNode | BlankNode, p: q.predicate, o: q.object, op: true };
    }
    return out;
  }

  override idFlakes(t: number): Flake[] {
    return runSteps(this.idFlakeSteps(t));
  }

  override *idFlakeSteps(t: number): Steps<Flake[]> {
    const r = this.rows;
    const out = new Array<Flake>(r.n);
    for (let k = 0; k < r.n; k++) {
      out[k] = { g: r.g[k]!, s: r.s[k]!, p: r.p[k]!, o: r.o[k]!, m: -1, t, op: true };
      if ((k & 4095) === 4095) yield;
    }
    return out;
  }
}

/**
 * One row per fact of a SPOT-sorted run: of equal rows, the one of the earliest quad (`t` holds
 * the quad index), as the ordinary Stager keeps a fact where the request first states it.
 */
function firstOfEach(r: Run): Run {
  const cols = keyCols(r, 'spot');
  const out = allocRun(r.n);
  for (let i = 0; i < r.n; i++) {
    if (out.n > 0 && cmpRows(cols, i, cols, i - 1) === 0) {
      if (r.t[i]! < out.t[out.n - 1]!) out.t[out.n - 1] = r.t[i]!;
    } else {
      copyRow(out, r, i);
    }
  }
  return out;
}

/** Rows checked against the head per slice before the event loop may get a turn. */
const CHECK_ROWS = 4096;

/**
 * dropCurrent over a SPOT-sorted run in pieces of about CHECK_ROWS rows (cut between subjects),
 * with a turn between pieces when the slice is used up: a request restating facts the ledger
 * holds checks each of its subjects, resolving through microtasks only.
 */
async function dropCurrentSliced(db: Db, r: Run, dictBefore: number, slice: TimeSlice): Promise<Run> {
  if (r.n <= CHECK_ROWS) return dropCurrent(db, r, dictBefore);
  const out = allocRun(r.n);
  let i = 0;
  while (i < r.n) {
    let end = Math.min(r.n, i + CHECK_ROWS);
    while (end < r.n && r.s[end] === r.s[end - 1] && r.g[end] === r.g[end - 1]) end++;
    const piece = allocRun(end - i);
    for (let k = i; k < end; k++) copyRow(piece, r, k);
    const kept = await dropCurrent(db, piece, dictBefore);
    for (let k = 0; k < kept.n; k++) copyRow(out, kept, k);
    i = end;
    if (slice.due()) await slice.pause();
  }
  return out;
}

/**
 * The rows in the order the request first states them (quad indexes are distinct and below
 * `quads`): the flakes and events come out in the ordinary Stager's order, so the commit, policy
 * and SHACL see exactly what they see there.
 */
function inRequestOrder(r: Run, quads: number): Run {
  const at = new Int32Array(quads).fill(-1);
  for (let k = 0; k < r.n; k++) at[r.t[k]!] = k;
  const out = allocRun(r.n);
  for (let i = 0; i < quads; i++) if (at[i]! >= 0) copyRow(out, r, at[i]!);
  return out;
}

/** idOf's answer when a dictionary page must be loaded first. */
const MISS = -1;

/** A key's id when the dictionary can answer now: undefined when it holds no such key, MISS when a page must be loaded first. */
function idOf(dict: TermDict, key: string): number | undefined {
  try {
    return dict.idOfKey(key);
  } catch (e) {
    if (!isDictMiss(e)) throw e;
    return MISS;
  }
}

/**
 * A key's id, interned when new: at once when the dictionary can answer now, else after loading
 * its pages. `flat`: the key is a flat string of its own, stored as it is (TermDict.internAbsentKey).
 */
function idOrIntern(dict: TermDict, key: string, flat = false): number | Promise<number> {
  const id = idOf(dict, key);
  if (id === MISS) return interned(dict, key);
  return id ?? dict.internAbsentKey(key, flat);
}

/** A key's id, loading its dictionary pages when needed, interned when new. */
async function interned(dict: TermDict, key: string): Promise<number> {
  return (await dict.lookupKey(key)) ?? dict.internKey(key);
}
