/**
 * A commit of assertions encoded straight from id columns (the bulk load's chunks,
 * transact/bulk-commits.ts): exactly the bytes encodeCommit writes for the same facts, without a
 * term object or a prepared entry per flake. Each distinct subject, predicate and object is
 * prepared once; the canonical order (commit-prep.ts `comparePrep`: graph, then subject, predicate
 * and object by their strings) is found by ranking the distinct keys of each position and sorting
 * the flakes on those integer ranks. Format: docs/formats.md "Commit blob" (unchanged).
 */
import { ByteWriter } from './bytes.js';
import type { EncodedCommit } from './commit-codec.js';
import {
  COMMIT_HEADER_SIZE, CommitSids, FLAKE_ASSERT, FLAKE_HAS_LANG, NameTable, checkEnvelope, checkNonNegInt, writeEnvelope, writeObject,
  type EnvelopeInput, type Ref,
} from './commit-prep.js';
import type { NamespaceTable } from './namespaces.js';
import { compareCodePoints, compareFast, compareObjects, hasHigh, invalid, prepObject, type PrepObject } from './object-tags.js';
import { keyToTerm } from '../rdf/terms.js';

/** Assertions as id columns: graph id and the dictionary ids of subject, predicate and object. */
export interface CommitRows {
  n: number;
  g: Int32Array;
  s: Int32Array;
  p: Int32Array;
  o: Int32Array;
}

/** A commit's envelope without metadata entries (a bulk chunk carries none). */
export interface RowsEnvelope extends EnvelopeInput {
  nsDelta: [number, string][];
}

/** An object prepared once per distinct id. */
interface PrepO { o: PrepObject; dt: string; lang: string; hiO: boolean; hiDt: boolean }

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

/** Ranks of `count` items under `cmp`; items comparing equal share a rank. */
function ranks(count: number, cmp: (a: number, b: number) => number): Int32Array {
  const order = Array.from({ length: count }, (_, k) => k).sort(cmp);
  const rank = new Int32Array(count);
  let r = 0;
  for (let k = 0; k < count; k++) {
    if (k > 0 && cmp(order[k - 1]!, order[k]!) !== 0) r++;
    rank[order[k]!] = r;
  }
  return rank;
}

/**
 * Encode a commit of the assertions in `rows` (any order, each id's key from `keyOf`) over the
 * namespace table in effect before it: encodeCommit's bytes for the same facts.
 */
export function encodeCommitRows(env: RowsEnvelope, nsTable: NamespaceTable, rows: CommitRows, keyOf: (id: number) => string): EncodedCommit {
  const { t, parents, txn } = checkEnvelope(env);
  const n = rows.n;
  if (parents.length === 1 && n === 0) throw invalid('a non-merge commit needs at least one flake');
  const sids = new CommitSids(nsTable, env.nsDelta ?? []);

  // Each distinct subject, predicate and object prepared once, then ranked in canonical order.
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
  const objs: PrepO[] = O.ids.map((id) => {
    const po = prepObject(keyToTerm(keyOf(id)), 'flake object');
    return { ...po, hiO: typeof po.o.v === 'string' && hasHigh(po.o.v), hiDt: hasHigh(po.dt) };
  });
  const sHi = sKeys.map(hasHigh), pHi = pKeys.map(hasHigh);
  const sRank = ranks(sKeys.length, (a, b) => cmpKey(sKeys[a]!, sKeys[b]!, sHi[a]!, sHi[b]!));
  const pRank = ranks(pKeys.length, (a, b) => cmpKey(pKeys[a]!, pKeys[b]!, pHi[a]!, pHi[b]!));
  const oRank = ranks(objs.length, (a, b) => {
    const x = objs[a]!, y = objs[b]!;
    return compareObjects(x.o, y.o, x.hiO && y.hiO) || cmpKey(x.dt, y.dt, x.hiDt, y.hiDt) || compareCodePoints(x.lang, y.lang);
  });

  // Flakes in (graph, subject, predicate, object) rank order: one number per flake when it fits.
  const g = rows.g;
  for (let i = 0; i < n; i++) if (!(g[i]! >= 0)) checkNonNegInt(g[i], `flakes[${i}].g`);
  const rs = new Int32Array(n), rp = new Int32Array(n), ro = new Int32Array(n);
  for (let i = 0; i < n; i++) { rs[i] = sRank[S.local[i]!]!; rp[i] = pRank[P.local[i]!]!; ro[i] = oRank[O.local[i]!]!; }
  const order = Array.from({ length: n }, (_, k) => k);
  let maxG = 0;
  for (let i = 0; i < n; i++) if (g[i]! > maxG) maxG = g[i]!;
  const ns = sKeys.length, np = pKeys.length, no = objs.length;
  if ((maxG + 1) * ns * np * no < Number.MAX_SAFE_INTEGER) {
    const key = new Float64Array(n);
    for (let i = 0; i < n; i++) key[i] = ((g[i]! * ns + rs[i]!) * np + rp[i]!) * no + ro[i]!;
    order.sort((a, b) => key[a]! - key[b]!);
  } else {
    order.sort((a, b) => (g[a]! - g[b]!) || (rs[a]! - rs[b]!) || (rp[a]! - rp[b]!) || (ro[a]! - ro[b]!));
  }
  for (let k = 1; k < n; k++) {
    const a = order[k - 1]!, b = order[k]!;
    if (g[a] === g[b] && rs[a] === rs[b] && rp[a] === rp[b] && ro[a] === ro[b]) throw invalid('duplicate flake');
  }

  // SIDs and local names in write order (s, p, dt, o), as encodeCommit assigns them.
  const names = new NameTable();
  const sRef: (Ref | undefined)[] = new Array(ns), pRef: (Ref | undefined)[] = new Array(np);
  const dtRef: (Ref | undefined)[] = new Array(no), oRef: (Ref | undefined)[] = new Array(no);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const sl = S.local[i]!, pl = P.local[i]!, ol = O.local[i]!;
    sRef[sl] ??= names.name(sids.sid(sKeys[sl]!));
    pRef[pl] ??= names.name(sids.sid(pKeys[pl]!));
    const ob = objs[ol]!;
    dtRef[ol] ??= names.name(sids.sid(ob.dt));
    if (ob.o.tag === 0) oRef[ol] ??= names.name(sids.sid(ob.o.v));
  }

  const nsDelta = sids.delta();
  const w = new ByteWriter(64 + n * 16);
  const envelopeLen = writeEnvelope(w, t, parents, txn, env, nsDelta, []);
  names.write(w);
  w.varint(n);
  let ref: Ref;
  const writeRef = () => w.varint(ref.ns).varint(ref.name);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const ol = O.local[i]!;
    const ob = objs[ol]!;
    w.varint(g[i]!);
    ref = sRef[S.local[i]!]!; writeRef();
    ref = pRef[P.local[i]!]!; writeRef();
    ref = dtRef[ol]!; writeRef();
    w.u8(FLAKE_ASSERT | (ob.lang ? FLAKE_HAS_LANG : 0));
    if (ob.o.tag === 0) ref = oRef[ol]!;
    writeObject(w, ob.o, writeRef);
    if (ob.lang) w.str(ob.lang);
  }
  const flakesLen = w.length - COMMIT_HEADER_SIZE - envelopeLen;
  w.setU32(8, envelopeLen).setU32(12, flakesLen);
  return { bytes: w.finish(), nsTable: sids.table, nsDelta };
}
