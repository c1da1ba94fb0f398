/**
 * A commit of assertions encoded straight from id columns (the bulk load's chunks,
 * transact/bulk-commits.ts, and a large insert staged through id runs, transact/stage-runs.ts,
 * whose metadata entries it encodes as encodeCommit does): exactly the bytes encodeCommit writes for the same facts, without a
 * term object or a prepared entry per flake. Each distinct subject, predicate and object is
 * prepared once; the canonical order (commit-prep.ts `comparePrep`: graph, then subject, predicate
 * and object by their strings) is found by ranking the distinct keys of each position and sorting
 * the flakes on those integer ranks. Format: docs/formats.md "Commit blob" (unchanged).
 */
import { ByteWriter } from './bytes.js';
import type { EncodedCommit } from './commit-codec.js';
import {
  COMMIT_HEADER_SIZE, CommitSids, FLAKE_ASSERT, FLAKE_HAS_LANG, NameTable, checkEnvelope, checkNonNegInt, prepMeta, writeEnvelope, writeObject,
  type EnvelopeInput, type Ref,
} from './commit-prep.js';
import type { TimeSlice } from '../util/next-turn.js';
import { runSteps, runStepsSliced, type Steps } from '../util/steps.js';
import type { NamedNode, Term } from '../rdf/terms.js';
import type { NamespaceTable, Sid } from './namespaces.js';
import { compareCodePoints, compareFast, compareObjects, hasHigh, invalid, prepLiteral, type PrepObject } from './object-tags.js';
import { ID_DATATYPE, rdf } from '../rdf/vocab.js';

const LANG_STRING = rdf.langString;

/** Assertions as id columns: graph id and the dictionary ids of subject, predicate and object. */
export interface CommitRows {
  n: number;
  g: Int32Array;
  s: Int32Array;
  p: Int32Array;
  o: Int32Array;
}

/** A commit's envelope; metadata entries as encodeCommit takes them (a bulk chunk carries none). */
export interface RowsEnvelope extends EnvelopeInput {
  nsDelta: [number, string][];
  meta?: readonly { p: NamedNode; o: Term }[];
}

/** An object prepared once per distinct id. */
interface PrepO { o: PrepObject; dt: string; lang: string; hiO: boolean; hiDt: boolean }

/** An object's tag, value, datatype and language from its dictionary key (prepObject without a term). */
function prepKey(key: string): PrepO {
  if (key.charCodeAt(0) !== 34) return { o: { tag: 0, v: key }, dt: ID_DATATYPE, lang: '', hiO: hasHigh(key), hiDt: false };
  const a = key.indexOf('|'), b = key.indexOf('|', a + 1);
  const dt = key.slice(1, a), lang = key.slice(a + 1, b);
  if (dt === '' || dt === ID_DATATYPE || dt.startsWith('_:')) throw invalid(`flake object: bad literal datatype ${JSON.stringify(dt)}`);
  if ((lang !== '') !== (dt === LANG_STRING)) throw invalid('flake object: a language tag goes with rdf:langString and only with it');
  const po = prepLiteral(key.slice(b + 1), dt, lang);
  return { o: po.o, dt, lang, hiO: typeof po.o.v === 'string' && hasHigh(po.o.v), hiDt: hasHigh(dt) };
}

/** Distinct ids of one column: `local[i]` numbers row i's id among them, `ids` lists them. */
function distinct(col: Int32Array, n: number): { local: Int32Array; ids: number[] } {
  const seen = new Map<number, number>();
  const ids: number[] = [];
  const local = new Int32Array(n);
  let last = -1, lastLocal = -1;
  for (let i = 0; i < n; i++) {
    const id = col[i]!;
    if (id === last) { local[i] = lastLocal; continue; }
    let k = seen.get(id);
    if (k === undefined) { k = ids.length; seen.set(id, k); ids.push(id); }
    local[i] = k;
    last = id; lastLocal = k;
  }
  return { local, ids };
}

/** Code-point order, the native comparison when either side has no unit >= U+D800 (commit-prep.ts). */
function cmpKey(a: string, b: string, aHi: boolean, bHi: boolean): number {
  return aHi && bHi ? compareCodePoints(a, b) : compareFast(a, b);
}

/** Ranks of `count` distinct items (keys of distinct ids) under `cmp`. */
function ranks(count: number, cmp: (a: number, b: number) => number): Int32Array {
  const order = Array.from({ length: count }, (_, k) => k).sort(cmp);
  const rank = new Int32Array(count);
  for (let k = 0; k < count; k++) rank[order[k]!] = k;
  return rank;
}

/**
 * Encode a commit of the assertions in `rows` (any order, each id's key from `keyOf`) over the
 * namespace table in effect before it: encodeCommit's bytes for the same facts.
 *
 * `sidCache` (per id) carries SIDs from one commit of a chain to the next, when every table in
 * between grew only by the codes these commits allocated: a code is allocated only for an IRI no
 * known prefix matches, so its prefix is never a longer match for an IRI resolved before, and a
 * SID once resolved stays the one encodeCommit would find.
 */
export function encodeCommitRows(
  env: RowsEnvelope, nsTable: NamespaceTable, rows: CommitRows, keyOf: (id: number) => string, sidCache?: Map<number, Sid>,
): EncodedCommit {
  return runSteps(encodeCommitRowsSteps(env, nsTable, rows, keyOf, sidCache));
}

/**
 * encodeCommitRows giving the event loop a turn whenever `slice` is used up (a large transaction's
 * commit, docs/isolation.md): the same bytes.
 */
export function encodeCommitRowsSliced(
  env: RowsEnvelope, nsTable: NamespaceTable, rows: CommitRows, keyOf: (id: number) => string, slice: TimeSlice,
): Promise<EncodedCommit> {
  return runStepsSliced(encodeCommitRowsSteps(env, nsTable, rows, keyOf), slice);
}

/** Rows handled between two possible pauses. */
const STEP_ROWS = 2048;

function* encodeCommitRowsSteps(
  env: RowsEnvelope, nsTable: NamespaceTable, rows: CommitRows, keyOf: (id: number) => string, sidCache?: Map<number, Sid>,
): Steps<EncodedCommit> {
  const { t, parents, txn } = checkEnvelope(env);
  const n = rows.n;
  if (parents.length === 1 && n === 0) throw invalid('a non-merge commit needs at least one flake');
  const sids = new CommitSids(nsTable, env.nsDelta ?? []);
  // Metadata SIDs first, as encodeCommit allocates them (the envelope comes before the flakes).
  const meta = prepMeta(env.meta ?? [], (key) => sids.sid(key));
  yield;

  // Each distinct subject, predicate and object prepared once; subjects and predicates ranked in canonical order.
  const S = distinct(rows.s, n), P = distinct(rows.p, n), O = distinct(rows.o, n);
  const sKeys = S.ids.map((id) => {
    const key = keyOf(id);
    if (key.charCodeAt(0) === 34) throw invalid(`flake subject ${JSON.stringify(key)} must be an IRI or blank node`);
    return key;
  });
  const pKeys = P.ids.map((id) => {
    const key = keyOf(id);
    if (key.charCodeAt(0) === 34 || key.startsWith('_:')) throw invalid(`flake predicate ${JSON.stringify(key)} must be an IRI`);
    return key;
  });
  const objs: PrepO[] = O.ids.map((id) => prepKey(keyOf(id)));
  const sHi = sKeys.map(hasHigh), pHi = pKeys.map(hasHigh);
  yield;
  const sRank = ranks(sKeys.length, (a, b) => cmpKey(sKeys[a]!, sKeys[b]!, sHi[a]!, sHi[b]!));
  yield;
  const pRank = ranks(pKeys.length, (a, b) => cmpKey(pKeys[a]!, pKeys[b]!, pHi[a]!, pHi[b]!));
  const cmpObj = (a: number, b: number): number => {
    if (a === b) return 0;
    const x = objs[a]!, y = objs[b]!;
    return compareObjects(x.o, y.o, x.hiO && y.hiO) || cmpKey(x.dt, y.dt, x.hiDt, y.hiDt) || compareCodePoints(x.lang, y.lang);
  };

  // Flakes in canonical order: by subject rank (a counting sort), by graph when there are several
  // (stable), then each (graph, subject) run by predicate rank and object. Objects are compared
  // only inside a run, where most runs hold one flake per predicate.
  const g = rows.g;
  const ns = sKeys.length;
  const sl = S.local, pl = P.local, ol = O.local;
  const count = new Int32Array(ns + 1);
  for (let i = 0; i < n; i++) {
    if (!(g[i]! >= 0)) checkNonNegInt(g[i], `flakes[${i}].g`);
    count[sRank[sl[i]!]! + 1]!++;
  }
  for (let r = 1; r <= ns; r++) count[r]! += count[r - 1]!;
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[count[sRank[sl[i]!]!]!++] = i;
  let graphs = false;
  for (let i = 1; i < n && !graphs; i++) graphs = g[i] !== g[0];
  if (graphs) order = Int32Array.from(Array.from(order).sort((a, b) => g[a]! - g[b]!));
  const inRun = (a: number, b: number): number => (pRank[pl[a]!]! - pRank[pl[b]!]!) || cmpObj(ol[a]!, ol[b]!);
  for (let start = 0; start < n;) {
    const i0 = order[start]!;
    let end = start + 1;
    while (end < n && sl[order[end]!] === sl[i0] && g[order[end]!] === g[i0]) end++;
    if (end - start > 16) order.set(Array.from(order.subarray(start, end)).sort(inRun), start);
    else {
      for (let k = start + 1; k < end; k++) {
        const x = order[k]!;
        let j = k - 1;
        while (j >= start && inRun(order[j]!, x) > 0) { order[j + 1] = order[j]!; j--; }
        order[j + 1] = x;
      }
    }
    for (let k = start + 1; k < end; k++) if (inRun(order[k - 1]!, order[k]!) === 0) throw invalid('duplicate flake');
    if (((start ^ end) & ~(STEP_ROWS - 1)) !== 0) yield;
    start = end;
  }

  // SIDs and local names in write order (s, p, dt, o), as encodeCommit assigns them.
  // Predicates and reference objects repeat across commits and are kept; a subject mostly does not.
  const sidOf = (id: number, key: string, keep = true): Ref => {
    if (!sidCache) return sids.sid(key);
    const known = sidCache.get(id);
    if (known) return { ns: known.ns, local: known.local, name: -1 };
    const ref = sids.sid(key);
    if (keep) sidCache.set(id, { ns: ref.ns, local: ref.local });
    return ref;
  };
  const names = new NameTable();
  const sRef: (Ref | undefined)[] = new Array(ns), pRef: (Ref | undefined)[] = new Array(pKeys.length);
  const dtRef: (Ref | undefined)[] = new Array(objs.length), oRef: (Ref | undefined)[] = new Array(objs.length);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const si = sl[i]!, pi = pl[i]!, oi = ol[i]!;
    sRef[si] ??= names.name(sidOf(S.ids[si]!, sKeys[si]!, false));
    pRef[pi] ??= names.name(sidOf(P.ids[pi]!, pKeys[pi]!));
    const ob = objs[oi]!;
    dtRef[oi] ??= names.name(sids.sid(ob.dt));
    if (ob.o.tag === 0) oRef[oi] ??= names.name(sidOf(O.ids[oi]!, ob.o.v));
    if (k % STEP_ROWS === STEP_ROWS - 1) yield;
  }

  const nsDelta = sids.delta();
  const w = new ByteWriter(64 + n * 16);
  const envelopeLen = writeEnvelope(w, t, parents, txn, env, nsDelta, meta);
  names.write(w);
  w.varint(n);
  let ref: Ref;
  const writeRef = () => w.varint(ref.ns).varint(ref.name);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const oi = ol[i]!;
    const ob = objs[oi]!;
    w.varint(g[i]!);
    ref = sRef[sl[i]!]!; writeRef();
    ref = pRef[pl[i]!]!; writeRef();
    ref = dtRef[oi]!; writeRef();
    w.u8(FLAKE_ASSERT | (ob.lang ? FLAKE_HAS_LANG : 0));
    if (ob.o.tag === 0) ref = oRef[oi]!;
    writeObject(w, ob.o, writeRef);
    if (ob.lang) w.str(ob.lang);
    if (k % STEP_ROWS === STEP_ROWS - 1) yield;
  }
  const flakesLen = w.length - COMMIT_HEADER_SIZE - envelopeLen;
  w.setU32(8, envelopeLen).setU32(12, flakesLen);
  return { bytes: w.finish(), nsTable: sids.table, nsDelta };
}
