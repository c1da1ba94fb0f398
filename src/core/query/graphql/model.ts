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

interface PropStats { refs: number; literals: number; scalars: Set<ScalarName>; lang: boolean; refClasses: Map<number, number> }

/** Derive the inferred model from what `view` shows in the default graph. */
export async function inferModel(view: DbView): Promise<InferredModel> {
  const dict = view.dict;
  const type = await dict.lookupKey(rdf.type);
  const out: InferredModel = { classes: [], warnings: [] };
  if (type === undefined) return out;
  // Instances per class, and classes per instance (reference typing needs both).
  const instances = new Map<number, number[]>();
  const classesOf = new Map<number, number[]>();
  for await (const b of view.scan({ g: 0, p: type })) {
    for (let i = 0; i < b.n; i++) {
      const s = b.s[i]!, c = b.o[i]!;
      if (keyKind(dict.key(c)) !== 0 || !publishableClass(dict.key(c))) continue;
      let l = instances.get(c);
      if (!l) instances.set(c, l = []);
      l.push(s);
      let k = classesOf.get(s);
      if (!k) classesOf.set(s, k = []);
      k.push(c);
    }
  }
  const pluralP = await dict.lookupKey(F + 'graphqlPlural');
  const facts = new Map<number, { p: Int32Array; o: Int32Array }>();
  for (const [c, subjects] of instances) {
    const props = new Map<number, PropStats>();
    for (const s of subjects) {
      let f = facts.get(s);
      if (!f) {
        const ps: number[] = [], os: number[] = [];
        for await (const b of view.scan({ g: 0, s })) for (let i = 0; i < b.n; i++) { ps.push(b.p[i]!); os.push(b.o[i]!); }
        facts.set(s, f = { p: Int32Array.from(ps), o: Int32Array.from(os) });
      }
      for (let i = 0; i < f.p.length; i++) {
        const p = f.p[i]!, o = f.o[i]!;
        if (p === type || dict.key(p).startsWith(F)) continue;
        let st = props.get(p);
        if (!st) props.set(p, st = { refs: 0, literals: 0, scalars: new Set(), lang: false, refClasses: new Map() });
        const key = dict.key(o);
        if (keyKind(key) === 2) {
          const t = keyToTerm(key);
          st.literals++;
          if (t.termType === 'Literal' && t.language) st.lang = true;
          st.scalars.add(t.termType === 'Literal' ? scalarOf(t.datatype.value) : 'String');
        } else {
          st.refs++;
          for (const k of classesOf.get(o) ?? []) st.refClasses.set(k, (st.refClasses.get(k) ?? 0) + 1);
        }
      }
    }
    const iri = dict.key(c);
    const cls: ClassModel = { iri, instances: subjects.length, fields: [] };
    if (pluralP !== undefined) {
      for await (const b of view.scan({ g: 0, s: c, p: pluralP })) if (b.n > 0) cls.plural = (keyToTerm(dict.key(b.o[0]!)) as { value: string }).value;
    }
    for (const [p, st] of props) {
      const property = dict.key(p);
      const field: FieldModel = { property, kind: 'scalar', target: null, scalar: 'String', lang: st.lang, mixed: false };
      if (st.refs > 0 && st.literals === 0) {
        field.kind = 'ref';
        const covering = [...st.refClasses].filter(([, n]) => n === st.refs).map(([k]) => k);
        covering.sort((a, b) => (instances.get(a)!.length - instances.get(b)!.length) || (dict.key(a) < dict.key(b) ? -1 : 1));
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

/** One scalar for the datatypes observed on a property (§6: integers+decimals → Decimal, with a double → Float). */
function combine(s: Set<ScalarName>): ScalarName {
  if (s.size === 1) return [...s][0]!;
  const numeric = [...s].every((x) => x === 'Long' || x === 'Decimal' || x === 'Float');
  if (numeric) return s.has('Float') ? 'Float' : 'Decimal';
  return 'String';
}
