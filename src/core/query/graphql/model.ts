/**
 * The inferred GraphQL model of a snapshot (graphql.md §3, §6): which classes are publishable,
 * which properties their instances carry in the caller's view, and what GraphQL type each
 * property gets from the values observed. Derived from one scan of the view the caller reads, so
 * what a policy hides is absent (§3.1). Naming (§4) is applied afterwards by naming.ts.
 */
import type { DbView } from '../../index/view.js';
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

interface PropStats { refs: number; literals: number; scalars: Set<ScalarName>; lang: boolean; refClasses: Map<number, number>; lastDt: string; lastScalar: ScalarName }

/**
 * Derive the inferred model from what `view` shows in the default graph: one scan of the type
 * facts (instances per class), then one pass over the default graph in subject order that tallies,
 * per (class, property), references (and their targets' classes) and literals (datatype, language).
 */
export async function inferModel(view: DbView): Promise<InferredModel> {
  const dict = view.dict;
  const type = dict.idOfKey(rdf.type);
  const out: InferredModel = { classes: [], warnings: [] };
  if (type === undefined) return out;
  // Instances per class, and classes per instance (reference typing needs both).
  const instances = new Map<number, number>();
  const classesOf = new Map<number, number[]>();
  const publishable = new Map<number, boolean>();
  for await (const b of view.scan({ g: 0, p: type })) {
    for (let i = 0; i < b.n; i++) {
      const s = b.s[i]!, c = b.o[i]!;
      let ok = publishable.get(c);
      if (ok === undefined) publishable.set(c, ok = keyKind(dict.key(c)) === 0 && publishableClass(dict.key(c)));
      if (!ok) continue;
      instances.set(c, (instances.get(c) ?? 0) + 1);
      const k = classesOf.get(s);
      if (k) k.push(c); else classesOf.set(s, [c]);
    }
  }
  // Properties per class in first-seen order; a subject's facts come together (SPOT order).
  const propsOf = new Map<number, Map<number, PropStats>>([...instances.keys()].map((c) => [c, new Map()]));
  const skipped = new Map<number, boolean>();
  let subject = -1, classMaps: Map<number, PropStats>[] | undefined, lastP = -1, stats: PropStats[] = [];
  for await (const b of view.scan({ g: 0 })) {
    for (let i = 0; i < b.n; i++) {
      const s = b.s[i]!;
      if (s !== subject) {
        subject = s;
        lastP = -1;
        const cs = classesOf.get(s);
        classMaps = cs?.map((c) => propsOf.get(c)!);
      }
      if (!classMaps) continue;
      const p = b.p[i]!;
      if (p !== lastP) {
        let skip = skipped.get(p);
        if (skip === undefined) skipped.set(p, skip = p === type || dict.key(p).startsWith(F));
        lastP = p;
        stats = [];
        if (!skip) {
          for (const m of classMaps) {
            let st = m.get(p);
            if (!st) m.set(p, st = { refs: 0, literals: 0, scalars: new Set(), lang: false, refClasses: new Map(), lastDt: '', lastScalar: 'String' });
            stats.push(st);
          }
        }
      }
      if (stats.length === 0) continue;
      const o = b.o[i]!;
      const key = dict.key(o);
      if (keyKind(key) === 2) {
        for (const st of stats) tallyLiteral(st, key);
      } else {
        const targets = classesOf.get(o);
        for (const st of stats) {
          st.refs++;
          if (targets) for (const k of targets) st.refClasses.set(k, (st.refClasses.get(k) ?? 0) + 1);
        }
      }
    }
  }
  const pluralP = dict.idOfKey(F + 'graphqlPlural');
  for (const [c, props] of propsOf) {
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
        const covering = [...st.refClasses].filter(([, n]) => n === st.refs).map(([k]) => k);
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
