/**
 * The pieces of a commit's encoding that do not depend on the blob layout: a flake prepared for
 * the canonical sort (`Prep`), that sort's comparison, the envelope's field checks and an
 * object's bytes. Split from commit-codec.ts to keep that file one size.
 */
import { CID } from 'multiformats/cid';
import type { ByteWriter } from './bytes.js';
import { Codec } from './cid.js';
import type { NamespaceTable, Sid } from './namespaces.js';
import type { LedgraphError } from '../errors.js';
import { ID_DATATYPE } from '../rdf/vocab.js';
import type { NamedNode, Term } from '../rdf/terms.js';
import {
  HI_DT, HI_O, HI_P, HI_S, compareCodePoints, compareFast, compareObjects, hiBits, invalid, isCommitTime, nodeKey, prepObject, type PrepObject,
} from './object-tags.js';

/** `LGC2`. */
export const COMMIT_MAGIC: readonly number[] = [0x4c, 0x47, 0x43, 0x32];
export const COMMIT_VERSION = 2;
/** Fixed header: magic, version, flags, reserved, envelope_len, flakes_len. */
export const COMMIT_HEADER_SIZE = 16;
export const MAX_PARENTS = 16;

/** Flake flag bits. */
export const FLAKE_ASSERT = 1;
export const FLAKE_HAS_LANG = 2;
export const FLAKE_HAS_LIST_INDEX = 4;

/** A flake prepared for the canonical sort, keys as strings. */
export interface Prep {
  /** Bit set per string field holding a unit >= U+D800 (only those need the slow comparison). */
  hi: number;
  g: number;
  s: string;
  p: string;
  o: PrepObject;
  dt: string;
  lang: string;
  i: number;
  op: boolean;
  /** SIDs of s, p, dt and a reference object, assigned after sorting. */
  rs: Ref | null;
  rp: Ref | null;
  rdt: Ref | null;
  ro: Ref | null;
}

/** A SID plus its index in the flake section's name table (-1 until a flake uses it). */
export interface Ref extends Sid { name: number }

/** Writer order: (g, s, p, o, dt), then language and list index, retraction before assertion. */
export function comparePrep(a: Prep, b: Prep): number {
  const hi = a.hi & b.hi;
  return (a.g - b.g)
    || (hi & HI_S ? compareCodePoints(a.s, b.s) : compareFast(a.s, b.s))
    || (hi & HI_P ? compareCodePoints(a.p, b.p) : compareFast(a.p, b.p))
    || compareObjects(a.o, b.o, (hi & HI_O) !== 0)
    || (hi & HI_DT ? compareCodePoints(a.dt, b.dt) : compareFast(a.dt, b.dt))
    || compareCodePoints(a.lang, b.lang)
    || (a.i - b.i)
    || (Number(a.op) - Number(b.op));
}

/**
 * A commit's metadata entries prepared, in canonical order, with their SIDs assigned through
 * `sid` (before any flake's: the envelope comes first, so its codes are allocated first).
 */
export function prepMeta(entries: readonly { p: NamedNode; o: Term }[], sid: (key: string) => Ref): Prep[] {
  const meta = entries.map((m, k): Prep => {
    if (!m || m.p?.termType !== 'NamedNode') throw invalid(`meta[${k}].p must be an IRI`);
    const po = prepObject(m.o, `meta[${k}].o`);
    const p = nodeKey(m.p, `meta[${k}].p`);
    return { hi: hiBits('', p, po.o, po.dt), g: 0, s: '', p, o: po.o, dt: po.dt, lang: po.lang, i: -1, op: true, rs: null, rp: null, rdt: null, ro: null };
  }).sort(comparePrep);
  for (let k = 1; k < meta.length; k++) if (comparePrep(meta[k - 1]!, meta[k]!) === 0) throw invalid('duplicate metadata entry');
  for (const m of meta) {
    m.rp = sid(m.p);
    m.rdt = sid(m.dt);
    if (m.o.tag === 0) m.ro = sid(m.o.v);
  }
  return meta;
}

/** A non-negative safe integer up to max, else a 422. */
export function checkNonNegInt(v: unknown, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > max) throw invalid(`${what} must be an integer in 0..${max}, got ${String(v)}`);
  return v;
}

/** A CIDv1 sha2-256 of the codec, else a 422. */
export function checkCid(c: unknown, codec: number, what: string): CID {
  const cid = CID.asCID(c);
  if (!cid || cid.version !== 1 || cid.multihash.code !== 0x12 || cid.multihash.digest.length !== 32) throw invalid(`${what} is not a CIDv1 with a sha2-256 digest`);
  if (cid.code !== codec) throw invalid(`${what} has codec 0x${cid.code.toString(16)}, expected 0x${codec.toString(16)}`);
  return cid as CID;
}

/** Graph ids from 3, strictly ascending, with non-empty IRIs. */
export function checkGraphDelta(delta: readonly (readonly [number, string])[], fail: (why: string) => LedgraphError): void {
  let prev = -1;
  for (const [g, iri] of delta) {
    if (!Number.isSafeInteger(g) || g < 3) throw fail(`graph id ${g} in graph_delta is below 3`);
    if (g <= prev) throw fail(`graph_delta ids not strictly ascending at ${g}`);
    if (typeof iri !== 'string' || iri === '') throw fail(`empty graph IRI for graph ${g}`);
    prev = g;
  }
}

/** An object's tag and value (a reference's SID through `ref`). */
export function writeObject(w: ByteWriter, o: PrepObject, ref: (() => void) | null): void {
  w.u8(o.tag);
  switch (o.tag) {
    case 0: ref!(); break;
    case 1: w.zigzag(o.v); break;
    case 2: w.f64(o.v); break;
    case 4: w.u8(o.v ? 1 : 0); break;
    default: w.str(o.v);
  }
}

/** The envelope fields a writer checks (each violation a 422). */
export interface EnvelopeInput {
  t: number;
  parents: CID[];
  time: string;
  txn: CID | null;
  author: string;
  graphDelta: [number, string][];
}

/** The envelope's fields checked: t, the parents and txn as CIDs. */
export function checkEnvelope(data: EnvelopeInput): { t: number; parents: CID[]; txn: CID | null } {
  const t = checkNonNegInt(data.t, 't');
  const parents = (data.parents ?? []).map((c, k) => checkCid(c, Codec.commit, `parents[${k}]`));
  if (parents.length > MAX_PARENTS) throw invalid(`${parents.length} parents (at most ${MAX_PARENTS})`);
  if (new Set(parents.map(String)).size !== parents.length) throw invalid('duplicate parent');
  if ((parents.length === 0) !== (t === 0)) throw invalid('t is 0 exactly for the genesis commit (no parents)');
  if (!isCommitTime(data.time)) throw invalid(`time ${JSON.stringify(data.time)} is not RFC 3339 UTC with milliseconds`);
  const txn = data.txn == null ? null : checkCid(data.txn, Codec.txn, 'txn');
  if (typeof data.author !== 'string') throw invalid('author must be a string');
  checkGraphDelta(data.graphDelta ?? [], invalid);
  return { t, parents, txn };
}

const ID_SID: Sid = { ns: 0, local: ID_DATATYPE };

/**
 * One SID per distinct IRI of a commit being written, over the namespace table in effect before it
 * (cloned on the first allocation, never mutated): codes for IRIs no known prefix covers are
 * allocated in the order they are first asked for.
 */
export class CommitSids {
  table: NamespaceTable;
  private readonly refs = new Map<string, Ref>();
  private readonly allocated: [number, string][] = [];
  private readonly callerDelta: [number, string][];

  constructor(private readonly base: NamespaceTable, nsDelta: readonly (readonly [number, string])[]) {
    this.table = base;
    this.callerDelta = nsDelta.map(([c, p]) => [c, p] as [number, string]);
    if (base.checkDelta(this.callerDelta).length > 0) this.own().applyDelta(this.callerDelta);
  }

  private own(): NamespaceTable {
    return this.table === this.base ? (this.table = this.base.clone()) : this.table;
  }

  /** The SID of a key (an IRI, `_:label` or `@id`), its name index unset until the flake section names it. */
  sid(key: string): Ref {
    let ref = this.refs.get(key);
    if (ref) return ref;
    let x: Sid;
    if (key === ID_DATATYPE) x = ID_SID;
    else if (key.startsWith('_:')) x = { ns: 0, local: key };
    else {
      const known = this.table.lookup(key);
      if (known) x = known;
      else {
        const r = this.own().split(key);
        if (r.isNew) this.allocated.push([r.ns, this.table.prefixOf(r.ns)!]);
        x = r;
      }
    }
    ref = { ns: x.ns, local: x.local, name: -1 };
    this.refs.set(key, ref);
    return ref;
  }

  /** The `ns_delta` to write: the caller's entries, then the codes allocated here. */
  delta(): [number, string][] {
    return [...this.callerDelta, ...this.allocated];
  }
}

/** The flake section's local-name table, names numbered in the order the flakes first use them. */
export class NameTable {
  private readonly names = new Map<string, number>();
  private readonly list: string[] = [];

  /** The ref with its name index set. */
  name(ref: Ref): Ref {
    if (ref.name < 0) {
      let idx = this.names.get(ref.local);
      if (idx === undefined) {
        idx = this.list.length;
        this.names.set(ref.local, idx);
        this.list.push(ref.local);
      }
      ref.name = idx;
    }
    return ref;
  }

  write(w: ByteWriter): void {
    w.varint(this.list.length);
    for (const n of this.list) w.str(n);
  }
}

/** Header (lengths left 0) and envelope into `w`; returns the envelope's length. */
export function writeEnvelope(
  w: ByteWriter, t: number, parents: CID[], txn: CID | null, data: EnvelopeInput, nsDelta: [number, string][], meta: readonly Prep[],
): number {
  w.raw(Uint8Array.from(COMMIT_MAGIC)).u8(COMMIT_VERSION).u8(0).u16(0).u32(0).u32(0);
  w.varint(t);
  w.varint(parents.length);
  for (const p of parents) w.cid(p);
  w.str(data.time);
  if (txn) w.cid(txn); else w.varint(0);
  w.str(data.author);
  w.varint(nsDelta.length);
  for (const [code, prefix] of nsDelta) w.varint(code).str(prefix);
  const graphDelta = data.graphDelta ?? [];
  w.varint(graphDelta.length);
  for (const [g, iri] of graphDelta) w.varint(g).str(iri);
  w.varint(meta.length);
  for (const m of meta) {
    const p = m.rp!, dt = m.rdt!, o = m.ro;
    w.varint(p.ns).str(p.local).varint(dt.ns).str(dt.local);
    w.u8(m.lang ? FLAKE_HAS_LANG : 0);
    writeObject(w, m.o, () => w.varint(o!.ns).str(o!.local));
    if (m.lang) w.str(m.lang);
  }
  return w.length - COMMIT_HEADER_SIZE;
}
