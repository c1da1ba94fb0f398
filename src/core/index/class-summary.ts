/**
 * The class summary of an index root: per class set (the publishable classes a subject has), how
 * many subjects carry it and, per property of those subjects in the default graph, counts of
 * references (by the class set of the referenced node) and of literals (by datatype, and how many
 * are language-tagged). It is everything the inferred GraphQL tier (query/graphql/model.ts) reads
 * of the data, kept as counts so a retraction can be subtracted (class-summary-delta.ts), and is
 * written beside the index as an `index-summary` object named by the root (docs/graphql.md).
 */
import type { FactBatch } from './view.js';
import type { TermDict } from './dict.js';
import { keyKind } from '../rdf/terms.js';
import { F, OWL, RDF, RDFS, SHACL, XSD } from '../rdf/vocab.js';
import { LedgraphError } from '../errors.js';

/** Counts of one property over the subjects of one class set. */
export interface PropCounts {
  /** Values that are not literals (IRIs and blank nodes, typed or not). */
  refs: number;
  /** Language-tagged literals. */
  lang: number;
  /** Literals per datatype IRI. */
  lits: Map<string, number>;
  /** References per class-set key of the referenced node (untyped nodes are not listed). */
  refSets: Map<string, number>;
}

/** One class set: its classes (term ids, ascending), subjects carrying exactly it, their properties. */
export interface ClassSetCounts { classes: number[]; subjects: number; props: Map<number, PropCounts> }

/** Class sets by key (their term ids, ascending, joined by a space). */
export type ClassSummary = Map<string, ClassSetCounts>;

const EXCLUDED_NS = [RDF, RDFS, OWL, XSD, SHACL, F];

/** True for classes that never become types (graphql.md §3: rdf, rdfs, owl, xsd, sh and f namespaces). */
export function publishableClass(iri: string): boolean {
  return !EXCLUDED_NS.some((ns) => iri.startsWith(ns));
}

/** True for a class term the summary counts: an IRI outside the excluded namespaces. */
export function countedClass(dict: TermDict, c: number): boolean {
  const key = dict.key(c);
  return keyKind(key) === 0 && publishableClass(key);
}

/** True for a predicate the summary counts (not rdf:type, not in the f: namespace). */
export function countedPredicate(dict: TermDict, p: number, type: number): boolean {
  return p !== type && !dict.key(p).startsWith(F);
}

/** The key of a class set (ids ascending). */
export function setKey(classes: readonly number[]): string {
  return classes.length === 1 ? String(classes[0]) : [...classes].sort((a, b) => a - b).join(' ');
}

/** The entry of a class set, created empty when missing. */
export function setEntry(sum: ClassSummary, classes: readonly number[]): ClassSetCounts {
  const k = setKey(classes);
  let e = sum.get(k);
  if (!e) sum.set(k, e = { classes: [...classes].sort((a, b) => a - b), subjects: 0, props: new Map() });
  return e;
}

/** The counts of a property in a class set, created empty when missing. */
export function propEntry(e: ClassSetCounts, p: number): PropCounts {
  let x = e.props.get(p);
  if (!x) e.props.set(p, x = { refs: 0, lang: 0, lits: new Map(), refSets: new Map() });
  return x;
}

/**
 * Add (`sign` 1) or subtract (-1) one value: `o` with the class set `oSet` (null: not a typed
 * node). Literals are dictionary keys `"datatype|lang|value`.
 */
export function countValue(x: PropCounts, dict: TermDict, o: number, oSet: string | null, sign: number): void {
  if (oSet !== null) { x.refs += sign; x.refSets.set(oSet, (x.refSets.get(oSet) ?? 0) + sign); return; }
  const key = dict.key(o);
  if (key.charCodeAt(0) !== 34 /* " literal */) { x.refs += sign; return; }
  const end = key.indexOf('|', 1);
  const dt = key.slice(1, end);
  x.lits.set(dt, (x.lits.get(dt) ?? 0) + sign);
  if (key.charCodeAt(end + 1) !== 124) x.lang += sign;
}

/** A deep copy (a summary read from an index root is shared; folding novelty works on a copy). */
export function cloneSummary(sum: ClassSummary): ClassSummary {
  const out: ClassSummary = new Map();
  for (const [k, e] of sum) {
    const props = new Map<number, PropCounts>();
    for (const [p, x] of e.props) props.set(p, { refs: x.refs, lang: x.lang, lits: new Map(x.lits), refSets: new Map(x.refSets) });
    out.set(k, { classes: e.classes, subjects: e.subjects, props });
  }
  return out;
}

/** Drop what counts to nothing (entries a retraction emptied), so equal data gives equal bytes. */
export function pruneSummary(sum: ClassSummary): ClassSummary {
  for (const [k, e] of sum) {
    for (const [p, x] of e.props) {
      for (const [d, n] of x.lits) if (n === 0) x.lits.delete(d);
      for (const [s, n] of x.refSets) if (n === 0) x.refSets.delete(s);
      if (x.refs === 0 && x.lits.size === 0 && x.lang === 0 && x.refSets.size === 0) e.props.delete(p);
    }
    if (e.subjects === 0 && e.props.size === 0) sum.delete(k);
  }
  return sum;
}

/**
 * The summary of a snapshot from two passes over its default graph: `types` yields the rdf:type
 * facts grouped by subject (PSOT or SPOT order), `facts` every fact in subject order (SPOT).
 * Per fact the work is typed-array reads and, for values that are not typed nodes, the first
 * characters of a key, so a million facts take a fraction of a second.
 */
export async function summarizeFacts(dict: TermDict, types: AsyncIterable<FactBatch> | Iterable<FactBatch>, facts: AsyncIterable<FactBatch> | Iterable<FactBatch>): Promise<ClassSummary> {
  const sum: ClassSummary = new Map();
  const type = await dict.lookupKey(RDF + 'type');
  if (type === undefined) return sum;
  // Class set of each subject: setOf[subject] = index into `sets` + 1 (0: untyped). A subject met
  // again later (another batch source) has its set widened.
  const setOf = new Int32Array(dict.size);
  const sets: ClassSetCounts[] = [];
  const keys: string[] = [];
  const index = new Map<string, number>();
  const counted = new Map<number, boolean>();
  const setFor = (cs: number[]): number => {
    const k = setKey(cs);
    let i = index.get(k);
    if (i === undefined) { index.set(k, i = sets.length); sets.push(setEntry(sum, cs)); keys.push(k); }
    return i + 1;
  };
  let run: number[] = [], runS = -1;
  const endRun = () => {
    if (runS < 0 || run.length === 0) return;
    const before = setOf[runS]!;
    if (before) sets[before - 1]!.subjects--;
    const k = setOf[runS] = setFor(before ? [...new Set([...sets[before - 1]!.classes, ...run])] : run);
    sets[k - 1]!.subjects++;
    run = [];
  };
  for await (const b of types) {
    for (let i = 0; i < b.n; i++) {
      if (b.g[i] !== 0 || b.p[i] !== type) continue;
      const s = b.s[i]!, c = b.o[i]!;
      if (s !== runS) { endRun(); runS = s; }
      let ok = counted.get(c);
      if (ok === undefined) counted.set(c, ok = countedClass(dict, c));
      if (ok && !run.includes(c)) run.push(c);
    }
  }
  endRun();
  const tally = new Tally(dict, type, setOf, sets, keys);
  for await (const b of facts) tally.batch(b);
  return pruneSummary(sum);
}

/** The per-fact pass of summarizeFacts, a small synchronous method the engine optimises well. */
class Tally {
  /** pIndex[p]: 1 = counted, -1 = not, 0 = not yet looked at. */
  private readonly pIndex: Int32Array;
  private subject = -1;
  private row: ClassSetCounts | undefined;
  private lastP = -1;
  private x: PropCounts | undefined;
  private lastDt = '';

  constructor(private readonly dict: TermDict, private readonly type: number, private readonly setOf: Int32Array,
    private readonly sets: ClassSetCounts[], private readonly keys: string[]) {
    this.pIndex = new Int32Array(dict.size);
  }

  batch(b: FactBatch): void {
    const bg = b.g, bs = b.s, bp = b.p, bo = b.o, setOf = this.setOf, pIndex = this.pIndex;
    let { subject, row, lastP, x } = this;
    for (let i = 0; i < b.n; i++) {
      if (bg[i] !== 0) continue;
      const s = bs[i]!;
      if (s !== subject) {
        subject = s;
        lastP = -1;
        const k = s < setOf.length ? setOf[s]! : 0;
        row = k ? this.sets[k - 1] : undefined;
      }
      if (!row) continue;
      const p = bp[i]!;
      if (p !== lastP) {
        lastP = p;
        let pi = p < pIndex.length ? pIndex[p]! : -1;
        if (pi === 0) pIndex[p] = pi = countedPredicate(this.dict, p, this.type) ? 1 : -1;
        x = pi > 0 ? propEntry(row, p) : undefined;
      }
      if (!x) continue;
      const o = bo[i]!;
      const k = o < setOf.length ? setOf[o]! : 0;
      if (k) { x.refs++; const sk = this.keys[k - 1]!; x.refSets.set(sk, (x.refSets.get(sk) ?? 0) + 1); continue; }
      const key = this.dict.key(o);
      if (key.charCodeAt(0) !== 34 /* " literal */) { x.refs++; continue; }
      this.literal(x, key);
    }
    this.subject = subject; this.row = row; this.lastP = lastP; this.x = x;
  }

  /** Count a literal; values of one property mostly share a datatype, compared in place first. */
  private literal(x: PropCounts, key: string): void {
    const dt = this.lastDt;
    let end: number;
    if (dt !== '' && key.charCodeAt(dt.length + 1) === 124 && key.startsWith(dt, 1)) end = dt.length + 1;
    else { end = key.indexOf('|', 1); this.lastDt = key.slice(1, end); }
    x.lits.set(this.lastDt, (x.lits.get(this.lastDt) ?? 0) + 1);
    if (key.charCodeAt(end + 1) !== 124) x.lang++;
  }
}

interface SummaryJson {
  v: 1;
  /** [classes, subjects, [[p, refs, lang, {datatype: n}, {setKey: n}], ...]] per class set. */
  sets: [number[], number, [number, number, number, Record<string, number>, Record<string, number>][]][];
}

/** The summary as canonical JSON (class sets by key, properties by id), ready to store. */
export function summaryJson(sum: ClassSummary): SummaryJson {
  const sets: SummaryJson['sets'] = [];
  for (const k of [...sum.keys()].sort()) {
    const e = sum.get(k)!;
    const props = [...e.props].sort((a, b) => a[0] - b[0]).map(([p, x]) => [p, x.refs, x.lang, Object.fromEntries(x.lits), Object.fromEntries(x.refSets)] as [number, number, number, Record<string, number>, Record<string, number>]);
    sets.push([e.classes, e.subjects, props]);
  }
  return { v: 1, sets };
}

/** Read a stored summary (an `index-summary` object's parsed JSON). */
export function summaryFromJson(j: SummaryJson): ClassSummary {
  if (!j || j.v !== 1 || !Array.isArray(j.sets)) throw new LedgraphError(422, 'err:db/ConstraintViolation', 'malformed index summary');
  const sum: ClassSummary = new Map();
  for (const [classes, subjects, props] of j.sets) {
    const e = setEntry(sum, classes);
    e.subjects = subjects;
    for (const [p, refs, lang, lits, refSets] of props) {
      e.props.set(p, { refs, lang, lits: new Map(Object.entries(lits)), refSets: new Map(Object.entries(refSets)) });
    }
  }
  return sum;
}
