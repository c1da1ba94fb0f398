/**
 * The commit blob, format v2 (replication.md §3; docs/formats.md "Commit blob"). A commit names
 * its IRIs through the namespace table of its first-parent chain, never through process-local ids,
 * so it can be replayed on any server. Encoding is canonical: the same commit data over the same
 * table always yields the same bytes (flakes and metadata are sorted by a table-independent order
 * before codes and names are assigned).
 */
import { CID } from 'multiformats/cid';
import { Codec } from './cid.js';
import { ByteReader, ByteWriter } from './bytes.js';
import { NamespaceTable, FIRST_ALLOCATED_NS, MAX_NS_CODE, type Sid } from './namespaces.js';
import { LedgraphError } from '../errors.js';
import { blankNode, namedNode, type BlankNode, type Literal, type NamedNode, type Term } from '../rdf/terms.js';
import { ID_DATATYPE, rdf } from '../rdf/vocab.js';
import {
  HI_DT, HI_O, HI_P, HI_S, compareCodePoints, formatDouble, hasHigh, hiBits, invalid, isCommitTime,
  nodeKey, prepObject, type PrepObject, type TaggedObject,
} from './object-tags.js';
import { quote } from '../excerpt.js';
import {
  COMMIT_HEADER_SIZE, COMMIT_MAGIC, COMMIT_VERSION, CommitSids, FLAKE_ASSERT, FLAKE_HAS_LANG, FLAKE_HAS_LIST_INDEX, MAX_PARENTS, NameTable,
  checkCid, checkEnvelope, checkGraphDelta, checkNonNegInt, comparePrep, prepMeta, writeEnvelope, writeObject, type Prep, type Ref,
} from './commit-prep.js';
import type { TimeSlice } from '../util/next-turn.js';
import { runSteps, runStepsSliced, sortSteps, type Steps } from '../util/steps.js';

export { canonicalJson, compareCodePoints, formatDouble } from './object-tags.js';

export {
  COMMIT_HEADER_SIZE, COMMIT_MAGIC, COMMIT_VERSION, FLAKE_ASSERT, FLAKE_HAS_LANG, FLAKE_HAS_LIST_INDEX, MAX_PARENTS,
} from './commit-prep.js';

/** One flake of a commit; `t` is the commit's. Blank nodes travel as ns 0, local `_:label`. */
export interface CommitFlake {
  g: number;
  s: NamedNode | BlankNode;
  p: NamedNode;
  o: Term;
  op: boolean;
  /** List index (position in an `@list`), absent when not a list member. */
  i?: number;
}

/** One user metadata entry (e.g. `f:message`). */
export interface CommitMeta { p: NamedNode; o: Term }

/** The envelope fields every view of a commit carries (§3). */
interface CommitEnvelopeFields {
  t: number;
  parents: CID[];
  time: string;
  txn: CID | null;
  author: string;
  nsDelta: [number, string][];
  graphDelta: [number, string][];
}

/** A commit with full IRIs. */
export interface CommitData extends CommitEnvelopeFields {
  meta: CommitMeta[];
  flakes: CommitFlake[];
}

/** An encoded commit and the namespace table in effect after it. */
export interface EncodedCommit {
  bytes: Uint8Array;
  /** The input table when the commit announced nothing new, else an extended copy. */
  nsTable: NamespaceTable;
  /** The `ns_delta` written (the caller's entries plus the codes allocated here). */
  nsDelta: [number, string][];
}

/** An object as stored: references as SIDs, other values typed by tag. */
export type RawObject = TaggedObject<Sid>;

/** A metadata entry as stored (inline SIDs, not yet expanded). */
export interface RawMeta { p: Sid; dt: Sid; o: RawObject; lang: string | null }

/** Header and envelope of a commit, read without touching the flakes (log and time lookups). */
export interface CommitEnvelope extends CommitEnvelopeFields {
  meta: RawMeta[];
  flakeCount: number;
  /** Blob size in bytes. */
  size: number;
}

const WHAT = 'commit blob';
const LANG_STRING = rdf.langString;

// ---------------------------------------------------------------------------------------------
// Encoding

/**
 * The fewest bytes one flake takes in a commit's flake section: graph (1), three SIDs (2 each),
 * flags (1), object tag (1) and at least one byte of value. Lets staging refuse a delta that can
 * only be too large before encoding it.
 */
export const MIN_FLAKE_BYTES = 10;

/**
 * Encode a commit over the namespace table in effect before it (never mutated). The caller's
 * `nsDelta` entries are announced as given; codes for IRIs no known prefix covers are allocated
 * (in sorted-metadata-then-sorted-flake order) and announced too.
 */
export function encodeCommit(data: CommitData, nsTable: NamespaceTable): EncodedCommit {
  return runSteps(encodeCommitSteps(data, nsTable, false));
}

/**
 * encodeCommit giving the event loop a turn whenever `slice` is used up (docs/isolation.md): the
 * same bytes, for commits big enough that encoding them in one piece would stall other requests.
 */
export function encodeCommitSliced(data: CommitData, nsTable: NamespaceTable, slice: TimeSlice): Promise<EncodedCommit> {
  return runStepsSliced(encodeCommitSteps(data, nsTable, true), slice);
}

/** Flakes handled between two possible pauses of the encoder. */
const STEP_FLAKES = 1024;

function* encodeCommitSteps(data: CommitData, nsTable: NamespaceTable, sliced: boolean): Steps<EncodedCommit> {
  const { t, parents, txn } = checkEnvelope(data);
  const flakesIn = data.flakes ?? [];
  if (parents.length === 1 && flakesIn.length === 0) throw invalid('a non-merge commit needs at least one flake');
  const refs = new CommitSids(nsTable, data.nsDelta ?? []);
  const sid = (key: string): Ref => refs.sid(key);

  // Metadata: prepared, sorted, SIDs assigned (before flakes: the envelope comes first).
  const meta = prepMeta(data.meta ?? [], sid);

  // Error positions are built only when thrown (a template string per field and flake was a
  // measurable share of a 100,000-flake commit). Subjects, predicates and datatypes come as shared
  // terms or strings, a subject's flakes together: their keys and `hi` bits are worked out once per run.
  let at = 0;
  const whereS = { toString: () => `flakes[${at}].s` }, whereP = { toString: () => `flakes[${at}].p` }, whereO = { toString: () => `flakes[${at}].o` };
  let lastS: unknown = null, sKey = '', sHi = 0, lastP: unknown = null, pKey = '', pHi = 0, lastDt = '', dtHi = 0;
  const flakes: Prep[] = new Array(flakesIn.length);
  for (let k = 0; k < flakesIn.length; k++) {
    at = k;
    const f = flakesIn[k];
    if (!f) throw invalid(`flakes[${k}] is missing`);
    const g = f.g;
    if (!(Number.isSafeInteger(g) && g >= 0)) checkNonNegInt(g, `flakes[${k}].g`);
    if (f.s !== lastS) {
      if (f.s?.termType !== 'NamedNode' && f.s?.termType !== 'BlankNode') throw invalid(`flakes[${k}].s must be an IRI or blank node`);
      sKey = nodeKey(f.s, whereS);
      sHi = hasHigh(sKey) ? HI_S : 0;
      lastS = f.s;
    }
    if (f.p !== lastP) {
      if (f.p?.termType !== 'NamedNode') throw invalid(`flakes[${k}].p must be an IRI`);
      pKey = nodeKey(f.p, whereP);
      pHi = hasHigh(pKey) ? HI_P : 0;
      lastP = f.p;
    }
    if (typeof f.op !== 'boolean') throw invalid(`flakes[${k}].op must be a boolean`);
    const i = f.i === undefined ? -1 : checkNonNegInt(f.i, `flakes[${k}].i`);
    const po = prepObject(f.o, whereO);
    if (po.dt !== lastDt) { lastDt = po.dt; dtHi = hasHigh(lastDt) ? HI_DT : 0; }
    const o = po.o;
    const hi = sHi | pHi | dtHi | (typeof o.v === 'string' && hasHigh(o.v) ? HI_O : 0);
    flakes[k] = { hi, g, s: sKey, p: pKey, o, dt: po.dt, lang: po.lang, i, op: f.op, rs: null, rp: null, rdt: null, ro: null };
    if (k % STEP_FLAKES === STEP_FLAKES - 1) yield;
  }
  // Run straight through, the engine's sort (fastest on input that is partly in order already);
  // sliced, a merge sort in steps with the same result (the order is total: duplicates are refused).
  if (sliced) yield* sortSteps(flakes, comparePrep);
  else flakes.sort(comparePrep);
  for (let k = 1; k < flakes.length; k++) {
    if (comparePrep(flakes[k - 1]!, flakes[k]!) === 0) throw invalid('duplicate flake');
    if (k % STEP_FLAKES === 0) yield;
  }

  // Flake SIDs and the local-name table, both in write order (s, p, dt, o).
  const names = new NameTable();
  const named = (ref: Ref): Ref => names.name(ref);
  let prev: Prep | null = null;
  for (let k = 0; k < flakes.length; k++) {
    const f = flakes[k]!;
    // Sorted, so a subject's flakes are adjacent: one lookup per subject.
    f.rs = prev !== null && prev.s === f.s ? prev.rs : named(sid(f.s));
    prev = f;
    f.rp = named(sid(f.p));
    f.rdt = named(sid(f.dt));
    if (f.o.tag === 0) f.ro = named(sid(f.o.v));
    if (k % STEP_FLAKES === STEP_FLAKES - 1) yield;
  }

  const nsDelta = refs.delta();
  const w = new ByteWriter(64 + flakes.length * 24);
  const envelopeLen = writeEnvelope(w, t, parents, txn, data, nsDelta, meta);

  // Flake section.
  names.write(w);
  w.varint(flakes.length);
  const writeSid = (x: Ref) => w.varint(x.ns).varint(x.name);
  for (let k = 0; k < flakes.length; k++) {
    const f = flakes[k]!;
    if (k % STEP_FLAKES === STEP_FLAKES - 1) yield;
    w.varint(f.g);
    writeSid(f.rs!); writeSid(f.rp!); writeSid(f.rdt!);
    w.u8((f.op ? FLAKE_ASSERT : 0) | (f.lang ? FLAKE_HAS_LANG : 0) | (f.i >= 0 ? FLAKE_HAS_LIST_INDEX : 0));
    const o = f.ro;
    writeObject(w, f.o, () => writeSid(o!));
    if (f.lang) w.str(f.lang);
    if (f.i >= 0) w.varint(f.i);
  }
  const flakesLen = w.length - COMMIT_HEADER_SIZE - envelopeLen;
  w.setU32(8, envelopeLen).setU32(12, flakesLen);
  return { bytes: w.finish(), nsTable: refs.table, nsDelta };
}

// ---------------------------------------------------------------------------------------------
// Decoding

interface Sections { env: ByteReader; flakes: ByteReader }

function readHeader(bytes: Uint8Array): Sections {
  if (!(bytes instanceof Uint8Array)) throw new LedgraphError(422, 'err:db/ConstraintViolation', `malformed ${WHAT}: not a byte array`);
  const r = new ByteReader(bytes, WHAT);
  if (bytes.length < COMMIT_HEADER_SIZE) throw r.fail(`${bytes.length} bytes is shorter than the ${COMMIT_HEADER_SIZE}-byte header`);
  for (let k = 0; k < 4; k++) if (bytes[k] !== COMMIT_MAGIC[k]) throw r.fail('bad magic (expected LGC2)');
  r.raw(4);
  const version = r.u8();
  if (version !== COMMIT_VERSION) throw r.fail(`unsupported format version ${version}`);
  const flags = r.u8();
  if (flags !== 0) throw r.fail(`flags must be 0, got ${flags}`);
  const reserved = r.u16();
  if (reserved !== 0) throw r.fail('reserved header bytes must be 0');
  const envLen = r.u32();
  const flakesLen = r.u32();
  if (COMMIT_HEADER_SIZE + envLen + flakesLen !== bytes.length) {
    throw r.fail(`declared lengths ${COMMIT_HEADER_SIZE}+${envLen}+${flakesLen} do not match the blob size ${bytes.length}`);
  }
  const env = r.sub(envLen, 'envelope');
  const flakes = r.sub(flakesLen, 'flake section');
  return { env, flakes };
}

function readObject(r: ByteReader, readSid: () => Sid): RawObject {
  const at = r.pos;
  const tag = r.u8();
  switch (tag) {
    case 0: return { tag, v: readSid() };
    case 1: return { tag, v: r.zigzagAny() };
    case 2: return { tag, v: r.f64() };
    case 3: case 5: return { tag, v: r.str() };
    case 4: {
      const b = r.u8();
      if (b > 1) throw r.fail(`boolean byte ${b} at offset ${at + 1}`);
      return { tag, v: b === 1 };
    }
    case 6: {
      const v = r.str();
      try { JSON.parse(v); } catch { throw r.fail(`JSON object at offset ${at} is not valid JSON`); }
      return { tag, v };
    }
    case 7: throw r.fail(`vector objects (tag 7) are not supported yet (offset ${at})`);
    default: throw r.fail(`unknown object tag ${tag} at offset ${at}`);
  }
}

interface EnvelopeCore {
  t: number;
  parents: CID[];
  time: string;
  txn: CID | null;
  author: string;
  nsDelta: [number, string][];
  graphDelta: [number, string][];
  meta: RawMeta[];
}

function readEnvelope(r: ByteReader): EnvelopeCore {
  const t = r.varint();
  const np = r.varint();
  if (np > MAX_PARENTS) throw r.fail(`${np} parents (at most ${MAX_PARENTS})`);
  const parents: CID[] = [];
  const seen = new Set<string>();
  for (let k = 0; k < np; k++) {
    const c = r.cid(Codec.commit);
    const key = c.toString();
    if (seen.has(key)) throw r.fail(`duplicate parent ${key}`);
    seen.add(key);
    parents.push(c);
  }
  if ((np === 0) !== (t === 0)) throw r.fail(`t ${t} with ${np} parents (t is 0 exactly for the genesis commit)`);
  const time = r.str();
  if (!isCommitTime(time)) throw r.fail(`time ${quote(time)} is not RFC 3339 UTC with milliseconds`);
  const txn = r.cidOrNull(Codec.txn);
  const author = r.str();
  const nsDelta: [number, string][] = [];
  let prev = -1;
  for (let n = r.varint(), k = 0; k < n; k++) {
    const code = r.varint();
    const prefix = r.str();
    if (code < FIRST_ALLOCATED_NS || code > MAX_NS_CODE) throw r.fail(`ns_delta code ${code} outside ${FIRST_ALLOCATED_NS}..${MAX_NS_CODE}`);
    if (code <= prev) throw r.fail(`ns_delta codes not strictly ascending at ${code}`);
    if (prefix === '') throw r.fail(`empty prefix for namespace code ${code}`);
    prev = code;
    nsDelta.push([code, prefix]);
  }
  const graphDelta: [number, string][] = [];
  for (let n = r.varint(), k = 0; k < n; k++) graphDelta.push([r.varint(), r.str()]);
  checkGraphDelta(graphDelta, (why) => r.fail(why));
  const meta: RawMeta[] = [];
  const inlineSid = (): Sid => ({ ns: r.varint(), local: r.str() });
  for (let n = r.varint(), k = 0; k < n; k++) {
    const p = inlineSid();
    const dt = inlineSid();
    const flags = r.u8();
    if ((flags & ~FLAKE_HAS_LANG) !== 0) throw r.fail(`metadata flags ${flags} (only bit 1 is allowed)`);
    const o = readObject(r, inlineSid);
    const lang = flags & FLAKE_HAS_LANG ? r.str() : null;
    meta.push({ p, dt, o, lang });
  }
  r.expectEnd('envelope');
  return { t, parents, time, txn, author, nsDelta, graphDelta, meta };
}

function checkFlakeCount(r: ByteReader, parents: number, flakeCount: number): void {
  if (parents === 1 && flakeCount === 0) throw r.fail('a non-genesis, non-merge commit has no flakes');
}

/** Header and envelope only (plus the flake count), validating structure but not the flakes. */
export function decodeEnvelope(bytes: Uint8Array): CommitEnvelope {
  const { env, flakes } = readHeader(bytes);
  const core = readEnvelope(env);
  for (let n = flakes.varint(), k = 0; k < n; k++) flakes.skipBytes();
  const flakeCount = flakes.varint();
  checkFlakeCount(flakes, core.parents.length, flakeCount);
  return { ...core, flakeCount, size: bytes.length };
}

/** Resolve SIDs with a base table plus a commit's own delta, without mutating the base. */
function makeResolver(r: ByteReader, base: NamespaceTable, fresh: [number, string][]): (ns: number, local: string) => string {
  const overlay = new Map(fresh);
  return (ns, local) => {
    if (ns === 0) return local;
    const prefix = overlay.get(ns) ?? base.prefixOf(ns);
    if (prefix === undefined) throw r.fail(`unknown namespace code ${ns}`);
    return prefix + local;
  };
}

function toLiteral(r: ByteReader, o: RawObject, dt: NamedNode, lang: string | null): Literal {
  let value: string;
  switch (o.tag) {
    case 1: value = o.v.toString(); break;
    case 2: value = formatDouble(o.v); break;
    case 4: value = o.v ? 'true' : 'false'; break;
    case 0: throw r.fail('reference object with a literal datatype');
    default: value = o.v;
  }
  return { termType: 'Literal', value, language: lang ?? '', datatype: dt };
}

/** Build a term from a stored object, checking the `@id`/tag and language/langString pairings. */
function toTerm(r: ByteReader, o: RawObject, dtNode: NamedNode, lang: string | null, node: (s: Sid) => NamedNode | BlankNode): Term {
  const dt = dtNode.value;
  if (dt === ID_DATATYPE) {
    if (o.tag !== 0) throw r.fail(`object tag ${o.tag} with datatype @id`);
    if (lang !== null) throw r.fail('reference object with a language tag');
    return node(o.v);
  }
  if (dt === '' || dt.startsWith('_:')) throw r.fail(`datatype ${quote(dt)} is not an IRI`);
  if ((lang !== null) !== (dt === LANG_STRING)) throw r.fail('a language tag goes with rdf:langString and only with it');
  if (lang === '') throw r.fail('empty language tag');
  return toLiteral(r, o, dtNode, lang);
}

/** Decode a full commit over the table in effect before it (not mutated; apply `nsDelta` to advance). */
export function decodeCommit(bytes: Uint8Array, nsTable: NamespaceTable): CommitData {
  const { env, flakes: fr } = readHeader(bytes);
  const core = readEnvelope(env);
  let fresh: [number, string][];
  try {
    fresh = nsTable.checkDelta(core.nsDelta);
  } catch (e) {
    throw fr.fail((e as Error).message);
  }
  const expand = makeResolver(fr, nsTable, fresh);
  const iriNode = (iri: string): NamedNode | BlankNode => {
    if (iri === '' || iri === ID_DATATYPE || iri === '_:') throw fr.fail(`${quote(iri)} is not an IRI or blank node`);
    return iri.startsWith('_:') ? blankNode(iri.slice(2)) : namedNode(iri);
  };
  const predicate = (iri: string): NamedNode => {
    if (iri.startsWith('_:') || iri === ID_DATATYPE || iri === '') throw fr.fail(`predicate ${quote(iri)} is not an IRI`);
    return namedNode(iri);
  };

  const meta: CommitMeta[] = core.meta.map((m) => ({
    p: predicate(expand(m.p.ns, m.p.local)),
    o: toTerm(fr, m.o, namedNode(expand(m.dt.ns, m.dt.local)), m.lang, (s) => iriNode(expand(s.ns, s.local))),
  }));

  const names: string[] = [];
  for (let n = fr.varint(), k = 0; k < n; k++) names.push(fr.str());
  const count = fr.varint();
  checkFlakeCount(fr, core.parents.length, count);
  // Nodes are shared per (ns, name index): subjects and predicates repeat across flakes.
  const nodes = new Map<number, NamedNode | BlankNode>();
  const datatypes = new Map<number, NamedNode>();
  const readRef = (): Sid & { key: number } => {
    const ns = fr.varint();
    if (ns > MAX_NS_CODE) throw fr.fail(`namespace code ${ns} above ${MAX_NS_CODE}`);
    const at = fr.pos;
    const idx = fr.varint();
    if (idx >= names.length) throw fr.fail(`name index ${idx} at offset ${at} beyond the ${names.length}-entry name table`);
    return { ns, local: names[idx]!, key: ns * 0x100000000 + idx };
  };
  const node = (s: Sid & { key?: number }): NamedNode | BlankNode => {
    const key = s.key!;
    let n = nodes.get(key);
    if (!n) {
      n = iriNode(expand(s.ns, s.local));
      nodes.set(key, n);
    }
    return n;
  };
  const out: CommitFlake[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const g = fr.varint();
    const s = node(readRef());
    const pRef = readRef();
    const pNode = node(pRef);
    if (pNode.termType !== 'NamedNode') throw fr.fail(`flake ${k}: predicate is a blank node`);
    const dtRef = readRef();
    let dt = datatypes.get(dtRef.key);
    if (!dt) {
      dt = namedNode(expand(dtRef.ns, dtRef.local));
      datatypes.set(dtRef.key, dt);
    }
    const flags = fr.u8();
    if (flags & ~(FLAKE_ASSERT | FLAKE_HAS_LANG | FLAKE_HAS_LIST_INDEX)) throw fr.fail(`flake ${k}: unknown flag bits in ${flags}`);
    const o = readObject(fr, readRef);
    const lang = flags & FLAKE_HAS_LANG ? fr.str() : null;
    const flake: CommitFlake = { g, s, p: pNode, o: toTerm(fr, o, dt, lang, node), op: (flags & FLAKE_ASSERT) !== 0 };
    if (flags & FLAKE_HAS_LIST_INDEX) flake.i = fr.varint();
    out[k] = flake;
  }
  fr.expectEnd('flake section');
  return {
    t: core.t,
    parents: core.parents,
    time: core.time,
    txn: core.txn,
    author: core.author,
    nsDelta: core.nsDelta,
    graphDelta: core.graphDelta,
    meta,
    flakes: out,
  };
}

/** Envelope plus assertion/retraction counts; walks (and structurally validates) every flake. */
export function inspectCommit(bytes: Uint8Array): CommitEnvelope & { asserts: number; retracts: number } {
  const { env, flakes: fr } = readHeader(bytes);
  const core = readEnvelope(env);
  const nameCount = fr.varint();
  for (let k = 0; k < nameCount; k++) fr.skipBytes();
  const count = fr.varint();
  checkFlakeCount(fr, core.parents.length, count);
  const sid = (): Sid => {
    const ns = fr.varint();
    const idx = fr.varint();
    if (idx >= nameCount) throw fr.fail(`name index ${idx} beyond the ${nameCount}-entry name table`);
    return { ns, local: '' };
  };
  let asserts = 0;
  for (let k = 0; k < count; k++) {
    fr.varint(); sid(); sid(); sid();
    const flags = fr.u8();
    if (flags & ~(FLAKE_ASSERT | FLAKE_HAS_LANG | FLAKE_HAS_LIST_INDEX)) throw fr.fail(`flake ${k}: unknown flag bits in ${flags}`);
    readObject(fr, sid);
    if (flags & FLAKE_HAS_LANG) fr.skipBytes();
    if (flags & FLAKE_HAS_LIST_INDEX) fr.varint();
    if (flags & FLAKE_ASSERT) asserts++;
  }
  fr.expectEnd('flake section');
  return { ...core, flakeCount: count, size: bytes.length, asserts, retracts: count - asserts };
}
