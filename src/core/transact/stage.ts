/**
 * Staging: resolve asserts and retracts against the state before the transaction. Asserting a
 * current fact or retracting a non-current one produces nothing; an assert and a retract of the same
 * fact in one transaction cancel out (jsonld-transactions.md §2).
 */
import { MIN_FLAKE_BYTES, type CommitFlake } from '../commit/commit-codec.js';
import { badRequest, noveltyDeltaTooLarge } from '../errors.js';
import { excerpt } from '../excerpt.js';
import { exceedsUtf8Bytes, inputLimits, sizeLimitError } from '../limits.js';
import { GRAPH_DEFAULT, type Flake } from '../flake/flake.js';
import type { Db } from '../ledger/db.js';
import { isDictMiss } from '../index/dict.js';
import { CONFIG_GRAPH_IRI, TXN_META_IRI } from '../ledger/graph-table.js';
import { graphNameKey, termKey, type BlankNode, type NamedNode, type Term } from '../rdf/terms.js';
import { TimeSlice } from '../util/next-turn.js';
import { runSteps, type Steps } from '../util/steps.js';
import type { GraphName, GraphRef, TxnQuad } from './txn-request.js';

/** Refuse asserting a literal larger than maxLiteralBytes (413; retractions of stored values stay possible). */
export function checkLiteralSize(o: Term): void {
  if (o.termType !== 'Literal') return;
  const max = inputLimits().maxLiteralBytes;
  if (exceedsUtf8Bytes(o.value, max)) throw sizeLimitError('maxLiteralBytes', `a literal of ${o.value.length} characters is larger than allowed ("${excerpt(o.value, 40)}")`);
}

/** Most new named graphs one transaction may introduce. */
export const MAX_NEW_GRAPHS = 256;
/** Longest graph IRI. */
export const MAX_GRAPH_IRI_BYTES = 8192;

/** Longest stretch (ms) staging runs without giving the event loop a turn. */
const STAGE_SLICE_MS = 5;

/** What bounds one request's staging. */
export interface StageOptions {
  /**
   * The commit's flake section may not reach this many bytes (reindex_max_bytes): staging stops
   * with 413 as soon as the staged flakes cannot fit, instead of building and encoding them all.
   */
  maxDeltaBytes?: number | undefined;
}

interface Staged {
  g: number; s: NamedNode | BlankNode; p: NamedNode; o: Term; i: number; op: boolean;
  /** Dictionary keys of s and o, and the ids staging found for s, p, o (undefined: new terms, interned later). */
  sk: string; ok: string; si: number | undefined; pi: number | undefined; oi: number | undefined;
}

export class Stager {
  private readonly staged = new Map<string, Staged>();
  /** New named graphs: graph key (IRI, or `_:label` for a blank graph name) -> id. */
  readonly newGraphs = new Map<string, number>();
  private nextGraph: number;
  private readonly maxFlakes: number;
  // Staging a large delta (an update with many solutions, a CLEAR of a big graph) is a long run of
  // scans that resolve through microtasks only; without a turn now and then it would hold the
  // event loop, and every other request, for seconds.
  private readonly slice = new TimeSlice(STAGE_SLICE_MS);

  /** The state operations read: the snapshot, or an overlay with earlier operations' changes. */
  db: Db;

  constructor(db: Db, nextGraphId: number, opts: StageOptions = {}) {
    this.db = db;
    this.nextGraph = nextGraphId;
    this.maxFlakes = opts.maxDeltaBytes !== undefined ? Math.ceil(opts.maxDeltaBytes / MIN_FLAKE_BYTES) : Infinity;
  }

  /** Give the event loop a turn when this slice of staging work is used up. */
  async breathe(): Promise<void> {
    if (this.slice.due()) await this.slice.pause();
  }

  /** Graph id for a graph reference, allocating new named graphs. */
  graphId(ref: GraphName): number {
    if (ref.termType === 'DefaultGraph') return GRAPH_DEFAULT;
    const iri = graphNameKey(ref);
    if (iri === TXN_META_IRI || iri === CONFIG_GRAPH_IRI || iri === 'txn-meta' || iri === 'default') {
      throw badRequest(`graph name "${iri}" is reserved and cannot be written directly`);
    }
    const known = this.db.graphId(iri) ?? this.newGraphs.get(iri);
    if (known !== undefined) return known;
    if (new TextEncoder().encode(iri).length > MAX_GRAPH_IRI_BYTES) throw badRequest(`graph IRI longer than ${MAX_GRAPH_IRI_BYTES} bytes`);
    if (this.newGraphs.size >= MAX_NEW_GRAPHS) throw badRequest(`a transaction may create at most ${MAX_NEW_GRAPHS} named graphs`);
    const id = this.nextGraph++;
    this.newGraphs.set(iri, id);
    return id;
  }

  /** Graph id if the graph exists (no allocation). */
  existingGraphId(ref: GraphName): number | undefined {
    if (ref.termType === 'DefaultGraph') return GRAPH_DEFAULT;
    const key = graphNameKey(ref);
    return this.db.graphId(key) ?? this.newGraphs.get(key);
  }

  /** Dictionary ids of three terms (synchronous unless a dictionary page must be loaded). */
  private async ids(s: Term, p: Term, o: Term): Promise<(number | undefined)[]> {
    return this.idsOfKeys(termKey(s), termKey(p), termKey(o));
  }

  /**
   * Dictionary ids of three keys, or null when a dictionary page must be loaded first. A term's
   * key is built once per staged fact and used for its staging key, this lookup and its
   * interning: a literal's key is a fresh string each time it is built, flattened and hashed again
   * by every lookup.
   */
  private idsOfKeysNow(sk: string, pk: string, ok: string): (number | undefined)[] | null {
    const dict = this.db.dict;
    try {
      return [dict.idOfKey(sk), dict.idOfKey(pk), dict.idOfKey(ok)];
    } catch (e) {
      if (!isDictMiss(e)) throw e;
      return null;
    }
  }

  /** Dictionary ids of three keys, loading pages as needed. */
  private async idsOfKeys(sk: string, pk: string, ok: string): Promise<(number | undefined)[]> {
    const dict = this.db.dict;
    return this.idsOfKeysNow(sk, pk, ok) ?? [await dict.lookupKey(sk), await dict.lookupKey(pk), await dict.lookupKey(ok)];
  }

  /** True when the fact is current in the snapshot. */
  async isCurrent(g: number, s: Term, p: NamedNode, o: Term, i: number): Promise<boolean> {
    const [si, pi, oi] = await this.ids(s, p, o);
    return this.isCurrentIds(g, si, pi, oi, i);
  }

  private async isCurrentIds(g: number, si: number | undefined, pi: number | undefined, oi: number | undefined, i: number): Promise<boolean> {
    if (si === undefined || pi === undefined || oi === undefined) return false;
    for await (const b of this.db.scan({ g, s: si, p: pi, o: oi })) {
      for (let k = 0; k < b.n; k++) if (b.m[k] === i) return true;
    }
    return false;
  }

  /** Stage an assertion. */
  async assert(q: TxnQuad): Promise<void> {
    checkLiteralSize(q.object);
    const g = this.graphId(q.graph);
    await this.stage(g, q.subject, q.predicate, q.object, q.listIndex ?? -1, true);
  }

  /**
   * Stage a retraction. Without a list index it retracts the value at every list position it holds
   * (a DELETE of a triple removes it whether or not it was written as a list item).
   */
  async retract(q: TxnQuad): Promise<void> {
    const g = this.existingGraphId(q.graph);
    if (g === undefined) return;
    if (q.listIndex !== undefined) return this.stage(g, q.subject, q.predicate, q.object, q.listIndex, false);
    const [si, pi, oi] = await this.ids(q.subject, q.predicate, q.object);
    const positions = new Set<number>([-1]);
    if (si !== undefined && pi !== undefined && oi !== undefined) {
      for await (const b of this.db.scan({ g, s: si, p: pi, o: oi })) for (let k = 0; k < b.n; k++) positions.add(b.m[k]!);
    }
    for (const i of positions) await this.stage(g, q.subject, q.predicate, q.object, i, false);
  }

  /** Stage by graph id (used when the fact came from a scan). */
  async stage(g: number, s: NamedNode | BlankNode, p: NamedNode, o: Term, i: number, op: boolean): Promise<void> {
    // Awaited only when there is something to wait for: a big insert stages every fact through
    // here, and an await per step was a microtask each.
    if (this.slice.due()) await this.slice.pause();
    const sk = termKey(s), ok = termKey(o);
    const k = `${g}\u0001${sk}\u0001${p.value}\u0001${i}\u0001${ok}`;
    const prev = this.staged.get(k);
    if (prev) {
      if (prev.op !== op) this.staged.delete(k); // assert + retract in one transaction cancel out
      return;
    }
    const [si, pi, oi] = this.idsOfKeysNow(sk, p.value, ok) ?? await this.idsOfKeys(sk, p.value, ok);
    // A fact with a term the dictionary has never seen cannot be current.
    const current = si === undefined || pi === undefined || oi === undefined ? false : await this.isCurrentIds(g, si, pi, oi, i);
    if (current === op) return; // asserting a current fact / retracting an absent one: no flake
    this.staged.set(k, { g, s, p, o, i, op, sk, ok, si, pi, oi });
    if (this.staged.size >= this.maxFlakes) {
      throw noveltyDeltaTooLarge(`the transaction stages at least ${this.staged.size} flakes, at least ${this.staged.size * MIN_FLAKE_BYTES} bytes of novelty, at or above reindex_max_bytes; split it into smaller transactions`);
    }
  }

  /** The staged flakes in commit form. */
  flakes(): CommitFlake[] {
    const out: CommitFlake[] = [];
    for (const f of this.staged.values()) {
      const cf: CommitFlake = { g: f.g, s: f.s, p: f.p, o: f.o, op: f.op };
      if (f.i >= 0) cf.i = f.i;
      out.push(cf);
    }
    return out;
  }

  /** Staged flakes as id flakes at t, interning new terms (for overlays; the caller undoes interning on failure). */
  idFlakes(t: number): Flake[] {
    return runSteps(this.idFlakeSteps(t));
  }

  /** idFlakes in steps that may pause (util/steps.ts): interning a big delta takes a while. */
  *idFlakeSteps(t: number): Steps<Flake[]> {
    const dict = this.db.dict;
    const out = new Array<Flake>(this.staged.size);
    let k = 0;
    for (const f of this.staged.values()) {
      // An id staging found stays valid: the dictionary only grows while a request stages.
      out[k] = { g: f.g, s: f.si ?? dict.internKey(f.sk), p: f.pi ?? dict.internKey(f.p.value), o: f.oi ?? dict.internKey(f.ok), m: f.i, t, op: f.op };
      if (++k % 1024 === 0) yield;
    }
    return out;
  }

  /** Graph delta for the commit: only graphs that actually received a flake. */
  graphDelta(flakes: CommitFlake[]): [number, string][] {
    return this.graphDeltaOf(new Set(flakes.map((f) => f.g)));
  }

  /** The graphs this request creates that `used` (graph ids of its facts) holds, as [id, iri] by id. */
  graphDeltaOf(used: ReadonlySet<number>): [number, string][] {
    return [...this.newGraphs].filter(([, id]) => used.has(id)).map(([iri, id]) => [id, iri] as [number, string]).sort((a, b) => a[0] - b[0]);
  }
}
