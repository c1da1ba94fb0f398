/**
 * The inferred GraphQL model of a snapshot (graphql.md §3, §6): which classes are publishable,
 * which properties their instances carry in the caller's view, and what GraphQL type each
 * property gets from the values observed. Derived from one scan of the view the caller reads, so
 * what a policy hides is absent (§3.1). Naming (§4) is applied afterwards by naming.ts.
 */
import type { DbView, FactBatch } from '../../index/view.js';
import { keyKind, keyToTerm } from '../../rdf/terms.js';
import { F, OWL, RDF, RDFS, SHACL, XSD, rdf, xsd } from '../../rdf/vocab.js';

/** GraphQL scalar names a property can map to. */
export type ScalarName = 'String' | 'Long' | 'Decimal' | 'Float' | 'Boolean' | 'Date' | 'DateTime' | 'Time' | 'JSON';

/** One field of a class: a reference (to a class IRI, or null = Resource) or a scalar. */
export interface FieldModel {
  property: string;
  kind: 'ref' | 'scalar';
  /** Target class IRI of a reference field (null: Resource). */
  target: string | null;
  scalar: ScalarName;
  /** Some value is language-tagged (the field takes `lang`; its filter is LangStringFilter). */
  lang: boolean;
  /** References and literals mixed: references are written as compacted IRIs. */
  mixed: boolean;
  /** Shaped fields (§7): single-valued (`sh:maxCount 1`), required (`sh:minCount >= 1`). */
  single?: boolean;
  required?: boolean;
  /** `sh:in` values (lexical forms) of an enum field. */
  enumValues?: string[];
  /** A reverse field: subjects pointing at this node via `property`. */
  reverse?: boolean;
  /** Declared name (`f:graphqlName`, curated): allocated first, never renamed (§4 rule 3). */
  declaredName?: string;
  /** Shape name (`sh:name`): the naming candidate when no name is declared (§4 rule 1). */
  shapeName?: string;
  description?: string;
  provenance?: 'inferred' | 'shaped';
}

export interface ClassModel { iri: string; instances: number; fields: FieldModel[]; plural?: string; description?: string }

export interface InferredModel { classes: ClassModel[]; warnings: { cls: string; property: string; text: string }[] }

const EXCLUDED_NS = [RDF, RDFS, OWL, XSD, SHACL, F];
const INTEGER_TYPES = new Set(['integer', 'long', 'int', 'short', 'byte', 'nonNegativeInteger', 'nonPositiveInteger', 'negativeInteger',
  'positiveInteger', 'unsignedLong', 'unsignedInt', 'unsignedShort', 'unsignedByte'].map((l) => XSD + l));

/** True for classes that never become types (§3: rdf, rdfs, owl, xsd, sh and f namespaces). */
export function publishableClass(iri: string): boolean {
  return !EXCLUDED_NS.some((ns) => iri.startsWith(ns));
}

/** The scalar of one literal datatype (§6 table). */
export function scalarOf(datatype: string): ScalarName {
  if (INTEGER_TYPES.has(datatype)) return 'Long';
  switch (datatype) {
    case xsd.decimal: return 'Decimal';
    case xsd.double: case xsd.float: return 'Float';
    case xsd.boolean: return 'Boolean';
    case xsd.dateTime: case XSD + 'dateTimeStamp': return 'DateTime';
    case xsd.date: return 'Date';
    case xsd.time: return 'Time';
    case rdf.JSON: return 'JSON';
    default: return 'String';
  }
}

interface PropStats { refs: number; literals: number; scalars: Set<ScalarName>; lang: boolean; refSets: Map<number, number>; lastDt: string; lastScalar: ScalarName }

/**
 * Derive the inferred model from what `view` shows in the default graph: one scan of the type
 * facts (the set of classes of each subject), then one pass over the default graph in subject
 * order that tallies, per (class set, property), references (by their targets' class sets) and
 * literals (datatype, language); class sets are then folded into their classes. Per fact the pass
 * does typed-array reads and a key's first characters, so a million facts take tens of ms.
 */
export async function inferModel(view: DbView): Promise<InferredModel> {
  const dict = view.dict;
  const type = await dict.lookupKey(rdf.type);
  const out: InferredModel = { classes: [], warnings: [] };
  if (type === undefined) return out;
  // Classes of each subject; a subject's type facts come together in PSOT order (a subject met
  // again later has its set widened). Each distinct combination of classes is a class set;
  // setOf[subject] = its index + 1 (0: untyped).
  const instances = new Map<number, number>();
  const publishable = new Map<number, boolean>();
  const setOf = new Int32Array(dict.size);
  const sets: number[][] = [];
  const setIndex = new Map<string, number>();
  const setFor = (cs: number[]): number => {
    const k = cs.length === 1 ? String(cs[0]) : [...cs].sort((a, b) => a - b).join(' ');
    let idx = setIndex.get(k);
    if (idx === undefined) { setIndex.set(k, idx = sets.length); sets.push(cs.length === 1 ? cs : [...cs].sort((a, b) => a - b)); }
    return idx + 1;
  };
  let run: number[] = [], runS = -1;
  const endRun = () => {
    if (runS < 0 || run.length === 0) return;
    const before = setOf[runS]!;
    setOf[runS] = setFor(before ? [...new Set([...sets[before - 1]!, ...run])] : run);
    run = [];
  };
  for await (const b of view.scan({ g: 0, p: type })) {
    for (let i = 0; i < b.n; i++) {
      const s = b.s[i]!, c = b.o[i]!;
      if (s !== runS) { endRun(); runS = s; }
      let ok = publishable.get(c);
      if (ok === undefined) publishable.set(c, ok = keyKind(dict.key(c)) === 0 && publishableClass(dict.key(c)));
      if (!ok || run.includes(c)) continue;
      instances.set(c, (instances.get(c) ?? 0) + 1);
      run.push(c);
    }
  }
  endRun();
  // One pass in SPOT order: per (class set, property) tallies.
  const tally = new Tally(dict, type, setOf, sets.length);
  for await (const b of view.scan({ g: 0 })) tally.batch(b);
  const { table, preds } = tally;
  // Properties per class set, in the order the predicates were first met.
  const propsOf = table.map((r) => new Map<number, PropStats>(r.flatMap((x, pi) => (x ? [[preds[pi]!, x] as [number, PropStats]] : []))));
  // Fold class sets into classes: a class's property stats merge those of every set holding it.
  const perClass = new Map<number, Map<number, PropStats>>([...instances.keys()].map((c) => [c, new Map()]));
  for (const [i, cs] of sets.entries()) {
    for (const c of cs) {
      const into = perClass.get(c)!;
      for (const [p, x] of propsOf[i]!) {
        const y = into.get(p);
        if (!y) { into.set(p, { ...x, scalars: new Set(x.scalars), refSets: new Map(x.refSets) }); continue; }
        y.refs += x.refs; y.literals += x.literals; y.lang ||= x.lang;
        for (const v of x.scalars) y.scalars.add(v);
        for (const [k, n] of x.refSets) y.refSets.set(k, (y.refSets.get(k) ?? 0) + n);
      }
    }
  }
  const pluralP = await dict.lookupKey(F + 'graphqlPlural');
  for (const [c, props] of perClass) {
    const iri = dict.key(c);
    const cls: ClassModel = { iri, instances: instances.get(c)!, fields: [] };
    if (pluralP !== undefined) {
      for await (const b of view.scan({ g: 0, s: c, p: pluralP })) if (b.n > 0) cls.plural = (keyToTerm(dict.key(b.o[0]!)) as { value: string }).value;
    }
    for (const [p, st] of props) {
      const property = dict.key(p);
      const field: FieldModel = { property, kind: 'scalar', target: null, scalar: 'String', lang: st.lang, mixed: false };
      if (st.refs > 0 && st.literals === 0) {
        field.kind = 'ref';
        // Classes every referenced node belongs to; the one with the fewest instances wins.
        const refClasses = new Map<number, number>();
        for (const [k, n] of st.refSets) for (const rc of sets[k]!) refClasses.set(rc, (refClasses.get(rc) ?? 0) + n);
        const covering = [...refClasses].filter(([, n]) => n === st.refs).map(([k]) => k);
        covering.sort((a, b) => (instances.get(a)! - instances.get(b)!) || (dict.key(a) < dict.key(b) ? -1 : 1));
        field.target = covering.length ? dict.key(covering[0]!) : null;
      } else if (st.refs > 0) {
        field.mixed = true;
        out.warnings.push({ cls: iri, property, text: 'holds references and literals; typed String' });
      } else {
        field.scalar = combine(st.scalars);
        if (field.scalar === 'String' && st.scalars.size > 1) out.warnings.push({ cls: iri, property, text: 'holds literals of several datatypes; typed String' });
      }
      cls.fields.push(field);
    }
    out.classes.push(cls);
  }
  return out;
}

/**
 * The per-fact pass of inferModel, kept in a small synchronous method the engine optimises well.
 * Predicates get dense indexes (pIndex[p] = index + 1, -1: not a field) so the work per fact is
 * typed-array reads and, for values that are not typed nodes, the first characters of a key.
 */
class Tally {
  readonly table: (PropStats | undefined)[][];
  readonly preds: number[] = [];
  private readonly pIndex: Int32Array;
  private subject = -1;
  private row: (PropStats | undefined)[] | undefined;
  private lastP = -1;
  private st: PropStats | undefined;

  constructor(private readonly dict: DbView['dict'], private readonly type: number, private readonly setOf: Int32Array, sets: number) {
    this.table = Array.from({ length: sets }, () => []);
    this.pIndex = new Int32Array(dict.size);
  }

  batch(b: FactBatch): void {
    const bs = b.s, bp = b.p, bo = b.o, setOf = this.setOf, pIndex = this.pIndex;
    let { subject, row, lastP, st } = this;
    for (let i = 0; i < b.n; i++) {
      const s = bs[i]!;
      if (s !== subject) {
        subject = s;
        lastP = -1;
        const k = s < setOf.length ? setOf[s]! : 0;
        row = k ? this.table[k - 1] : undefined;
      }
      if (!row) continue;
      const p = bp[i]!;
      if (p !== lastP) {
        lastP = p;
        let pi = p < pIndex.length ? pIndex[p]! : -1;
        if (pi === 0) pIndex[p] = pi = p === this.type || this.dict.key(p).startsWith(F) ? -1 : this.preds.push(p);
        st = undefined;
        if (pi > 0) {
          st = row[pi - 1];
          if (!st) row[pi - 1] = st = { refs: 0, literals: 0, scalars: new Set(), lang: false, refSets: new Map(), lastDt: '', lastScalar: 'String' };
        }
      }
      if (!st) continue;
      const o = bo[i]!;
      const k = o < setOf.length ? setOf[o]! : 0;
      if (k) { st.refs++; st.refSets.set(k - 1, (st.refSets.get(k - 1) ?? 0) + 1); continue; }
      const key = this.dict.key(o);
      if (key.charCodeAt(0) === 34 /* " literal */) tallyLiteral(st, key);
      else st.refs++;
    }
    this.subject = subject; this.row = row; this.lastP = lastP; this.st = st;
  }
}

/**
 * Count one literal (a dictionary key `"datatype|lang|value`). Values of one property mostly share
 * a datatype, so the last one is compared in place before the datatype is cut out and mapped.
 */
function tallyLiteral(st: PropStats, key: string): void {
  st.literals++;
  const dt = st.lastDt;
  let end: number;
  if (dt !== '' && key.charCodeAt(dt.length + 1) === 124 && key.startsWith(dt, 1)) end = dt.length + 1;
  else {
    end = key.indexOf('|', 1);
    st.lastDt = key.slice(1, end);
    st.lastScalar = scalarOf(st.lastDt);
    st.scalars.add(st.lastScalar);
  }
  if (key.charCodeAt(end + 1) !== 124) st.lang = true;
}

/** One scalar for the datatypes observed on a property (§6: integers+decimals → Decimal, with a double → Float). */
function combine(s: Set<ScalarName>): ScalarName {
  if (s.size === 1) return [...s][0]!;
  const numeric = [...s].every((x) => x === 'Long' || x === 'Decimal' || x === 'Float');
  if (numeric) return s.has('Float') ? 'Float' : 'Decimal';
  return 'String';
}
