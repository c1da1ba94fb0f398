/**
 * The commits of a bulk load (bulk-load.ts), written while the input is still being read: every
 * `commitFlakes` statements read are one chunk, sorted in SPOT order, cleared of duplicates (of
 * each other, of earlier chunks, and in a ledger with data of facts current at its head) and, when
 * anything is left, encoded as one commit and stored. Nothing names the commits until the load
 * publishes; the facts of all chunks are then one SPOT run for the index (bulk-index.ts).
 */
import { CID } from 'multiformats/cid';
import { Codec, cidOf } from '../commit/cid.js';
import type { CommitData } from '../commit/commit-codec.js';
import { encodeCommitRows } from '../commit/commit-rows.js';
import type { Sid } from '../commit/namespaces.js';
import { GRAPH_TXN_META } from '../flake/flake.js';
import { allocRun, cmpRows, copyRow, keyCols, type Run } from '../index/run.js';
import type { DbView } from '../index/view.js';
import type { Ledger } from '../ledger/ledger.js';
import type { LedgerStores } from '../ledger/stores.js';
import { termKey, type NamedNode, type Term } from '../rdf/terms.js';
import { dropCurrent } from './bulk-index.js';
import { dedupe, sortSpot } from './bulk-sort.js';
import { nowIso } from './pipeline.js';

/** What the commits leave for the index. */
export interface LoadedFacts {
  /** Every new fact, t set: each chunk's in SPOT order, chunk after chunk. */
  rows: Run;
  /** The commit-metadata facts, t set. */
  meta: Run;
  t: number;
  commitId: string;
  commitBytes: number;
}

/** Writes a load's commits chunk by chunk. */
export class ChunkCommitter {
  private readonly chunks: Run[] = [];
  /** Per subject id: 1 + the first and last chunk holding it (0: none), to find duplicates across chunks. */
  private first = new Int32Array(1 << 16);
  private last = new Int32Array(1 << 16);
  private readonly announced = new Set<number>();
  private readonly metaTerms: { t: number; subject: NamedNode; meta: { p: NamedNode; o: Term }[] }[] = [];
  private writing: Promise<unknown> = Promise.resolve();
  /** SIDs per term id across the load's commits (the table grows only by their own allocations). */
  private readonly sids = new Map<number, Sid>();
  t: number;
  prev: string;
  commitBytes = 0;
  facts = 0;

  constructor(
    private readonly stores: LedgerStores, private readonly ledger: Ledger, private readonly head: DbView | null,
    private readonly dictBefore: number, private readonly newGraphs: Map<string, number>,
    private readonly onCommit?: (facts: number) => void,
  ) {
    this.t = ledger.t;
    this.prev = ledger.head.cid;
  }

  /** Commit the new facts among `rows` (statements read, in any order); nothing when none is new. */
  async commit(rows: Run): Promise<void> {
    let spot = this.unseen(dedupe(sortSpot(rows)));
    if (this.head) spot = await dropCurrent(this.head, spot, this.dictBefore);
    if (spot.n === 0) return;
    const dict = this.ledger.dict;
    // The encoding reads keys synchronously: pages swept while dropCurrent ran come back here.
    await dict.ensureIds([spot.s, spot.p, spot.o], spot.n);
    const t = ++this.t;
    spot.t.fill(t, 0, spot.n);
    this.note(spot);
    this.chunks.push(spot);
    const graphDelta: [number, string][] = [];
    for (let i = 0; i < spot.n; i++) {
      const g = spot.g[i]!;
      if (g >= 3 && !this.announced.has(g)) {
        this.announced.add(g);
        for (const [iri, id] of this.newGraphs) if (id === g) graphDelta.push([g, iri]);
      }
    }
    graphDelta.sort((a, b) => a[0] - b[0]);
    const data: CommitData = { t, parents: [CID.parse(this.prev)], time: nowIso(), txn: null, author: '', nsDelta: [], graphDelta, meta: [], flakes: [] };
    // Encoded from the id columns: each distinct term prepared once, no term objects per flake.
    const enc = encodeCommitRows(data, this.ledger.ns, spot, (id) => dict.key(id), this.sids);
    const cid = (await cidOf(Codec.commit, enc.bytes)).toString();
    this.commitBytes += enc.bytes.length;
    // Stored while the next chunk is read and encoded; nothing names them until the final publish.
    this.writing = this.writing.then(() => this.stores.contentFor(this.ledger.id).put(Codec.commit, enc.bytes));
    this.writing.catch(() => undefined); // awaited by finish(); avoid an unhandled rejection meanwhile
    // The shared part of applying a commit (tables, head); its metadata facts are interned when the
    // reading is done, after every key of the input (so ids do not depend on when chunks commit).
    const header = this.ledger.applyHeader({ ...data, nsDelta: enc.nsDelta }, cid, spot.n, 0);
    this.metaTerms.push({ t, subject: header.subject, meta: header.meta });
    this.prev = cid;
    this.facts += spot.n;
    this.onCommit?.(this.facts);
  }

  /** Wait for the stored commits; every loaded fact as one run and the metadata facts. */
  async finish(): Promise<LoadedFacts> {
    await this.writing;
    const dict = this.ledger.dict;
    const meta = allocRun(this.metaTerms.reduce((a, m) => a + m.meta.length, 0));
    for (const { t, subject, meta: facts } of this.metaTerms) {
      const subj = dict.internKey(termKey(subject));
      for (const m of facts) {
        const j = meta.n++;
        meta.g[j] = GRAPH_TXN_META; meta.s[j] = subj; meta.p[j] = dict.internKey(termKey(m.p)); meta.o[j] = dict.internKey(termKey(m.o));
        meta.m[j] = -1; meta.t[j] = t; meta.op[j] = 1;
      }
    }
    const all = allocRun(this.facts);
    for (const c of this.chunks) {
      for (const k of ['g', 's', 'p', 'o', 'm', 't', 'op'] as const) (all[k] as Int32Array).set((c[k] as Int32Array).subarray(0, c.n), all.n);
      all.n += c.n;
    }
    this.chunks.length = 0;
    return { rows: all, meta, t: this.t, commitId: this.prev, commitBytes: this.commitBytes };
  }

  /** Record which chunk (this one: chunks.length + 1) holds each subject. */
  private note(spot: Run): void {
    const k = this.chunks.length + 1;
    for (let i = 0; i < spot.n; i++) {
      const s = spot.s[i]!;
      if (s >= this.first.length) this.grow(s);
      if (this.first[s] === 0) this.first[s] = k;
      this.last[s] = k;
    }
  }

  private grow(id: number): void {
    let n = this.first.length;
    while (n <= id) n *= 2;
    const f = new Int32Array(n), l = new Int32Array(n);
    f.set(this.first); l.set(this.last);
    this.first = f; this.last = l;
  }

  /** Rows of a sorted, duplicate-free chunk not already in an earlier chunk (only subjects earlier chunks hold are looked up). */
  private unseen(spot: Run): Run {
    let suspects = false;
    for (let i = 0; i < spot.n && !suspects; i++) suspects = spot.s[i]! < this.first.length && this.first[spot.s[i]!] !== 0;
    if (!suspects) return spot;
    const out = allocRun(spot.n);
    const cols = keyCols(spot, 'spot');
    for (let i = 0; i < spot.n; i++) {
      const s = spot.s[i]!;
      const f = s < this.first.length ? this.first[s]! : 0;
      let dup = false;
      if (f !== 0) for (let k = f; k <= this.last[s]! && !dup; k++) dup = holds(this.chunks[k - 1]!, cols, i);
      if (!dup) copyRow(out, spot, i);
    }
    return out;
  }
}

/** True when a SPOT-sorted run holds row `i` of the key columns `cols` (binary search). */
function holds(run: Run, cols: Int32Array[], i: number): boolean {
  const rc = keyCols(run, 'spot');
  let lo = 0, hi = run.n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const d = cmpRows(rc, mid, cols, i);
    if (d === 0) return true;
    if (d < 0) lo = mid + 1; else hi = mid;
  }
  return false;
}
