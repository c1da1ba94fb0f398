/**
 * The inferred GraphQL model of a snapshot (graphql.md §3, §6): which classes are publishable,
 * which properties their instances carry in the caller's view, and what GraphQL type each
 * property gets from the values observed. Derived from one scan of the view the caller reads, so
 * what a policy hides is absent (§3.1). Naming (§4) is applied afterwards by naming.ts.
 */
import type { DbView } from '../../index/view.js';
import { publishableClass, summarizeFacts, type ClassSummary } from '../../index/class-summary.js';
import { keyToTerm } from '../../rdf/terms.js';
import { F, XSD, rdf, xsd } from '../../rdf/vocab.js';

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

const INTEGER_TYPES = new Set(['integer', 'long', 'int', 'short', 'byte', 'nonNegativeInteger', 'nonPositiveInteger', 'negativeInteger',
  'positiveInteger', 'unsignedLong', 'unsignedInt', 'unsignedShort', 'unsignedByte'].map((l) => XSD + l));

export { publishableClass };

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

/**
 * Derive the inferred model from what `view` shows in the default graph: one scan of the type
 * facts (the class set of each subject), then one pass over the default graph in subject order
 * that counts, per (class set, property), references by their targets' class sets and literals by
 * datatype (index/class-summary.ts); modelFromSummary folds the class sets into classes.
 */
export async function inferModel(view: DbView): Promise<InferredModel> {
  const type = await view.dict.lookupKey(rdf.type);
  if (type === undefined) return { classes: [], warnings: [] };
  const sum = await summarizeFacts(view.dict, view.scan({ g: 0, p: type }), view.scan({ g: 0 }));
  return modelFromSummary(view, sum);
}

/** A class's tallies of one property: scalars as a bit set over SCALAR_NAMES; refSets shared until a second class set merges in. */
interface PropStats { refs: number; literals: number; scalars: number; lang: boolean; refSets: ReadonlyMap<string, number>; owned: boolean }

const SCALAR_NAMES: readonly ScalarName[] = ['String', 'Long', 'Decimal', 'Float', 'Boolean', 'Date', 'DateTime', 'Time', 'JSON'];
const SCALAR_BIT = new Map(SCALAR_NAMES.map((n, i) => [n, 1 << i]));

/**
 * The inferred model of a class summary (a full scan's, or an index root's with novelty folded
 * in): a class's property stats merge those of every class set holding it; a reference field
 * targets the class every referenced node belongs to (the one with the fewest instances). Summary
 * entries count to nothing only transiently, and are skipped.
 */
export async function modelFromSummary(view: DbView, sum: ClassSummary): Promise<InferredModel> {
  const dict = view.dict;
  // Every id the summary names gets its dictionary page loaded, so the key reads below are synchronous.
  const ids: number[] = [];
  for (const e of sum.values()) {
    ids.push(...e.classes);
    for (const [p, x] of e.props) { ids.push(p); for (const r of x.refSets.keys()) if (!sum.has(r)) ids.push(...r.split(' ').map(Number)); }
  }
  await dict.ensureIds([ids], ids.length);
  const out: InferredModel = { classes: [], warnings: [] };
  const instances = new Map<number, number>();
  for (const e of sum.values()) {
    if (e.subjects <= 0) continue;
    for (const c of e.classes) instances.set(c, (instances.get(c) ?? 0) + e.subjects);
  }
  const perClass = new Map<number, Map<number, PropStats>>();
  for (const c of instances.keys()) perClass.set(c, new Map());
  for (const e of sum.values()) {
    if (e.subjects <= 0) continue;
    for (const [p, x] of e.props) {
      let literals = 0, scalars = 0;
      for (const [dt, n] of x.lits) if (n > 0) { literals += n; scalars |= SCALAR_BIT.get(scalarOf(dt))!; }
      if (x.refs <= 0 && literals === 0) continue;
      const lang = x.lang > 0;
      for (const c of e.classes) {
        const into = perClass.get(c)!;
        const y = into.get(p);
        if (!y) { into.set(p, { refs: x.refs, literals, scalars, lang, refSets: x.refSets, owned: false }); continue; }
        y.refs += x.refs; y.literals += literals; y.scalars |= scalars; y.lang ||= lang;
        if (x.refSets.size === 0) continue;
        if (!y.owned) { y.refSets = new Map(y.refSets); y.owned = true; }
        const into2 = y.refSets as Map<string, number>;
        for (const [k, n] of x.refSets) into2.set(k, (into2.get(k) ?? 0) + n);
      }
    }
  }
  const classesOf = new Map<string, number[]>();
  for (const [k, e] of sum) classesOf.set(k, e.classes);
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
        field.target = refTarget(dict, st, classesOf, instances);
      } else if (st.refs > 0) {
        field.mixed = true;
        out.warnings.push({ cls: iri, property, text: 'holds references and literals; typed String' });
      } else {
        field.scalar = combine(st.scalars);
        if (field.scalar === 'String' && (st.scalars & (st.scalars - 1)) !== 0) out.warnings.push({ cls: iri, property, text: 'holds literals of several datatypes; typed String' });
      }
      cls.fields.push(field);
    }
    out.classes.push(cls);
  }
  return out;
}

/** The class every referenced node belongs to, the one with the fewest instances (then IRI order); null: Resource. */
function refTarget(dict: DbView['dict'], st: PropStats, classesOf: Map<string, number[]>, instances: Map<number, number>): string | null {
  const refClasses = new Map<number, number>();
  for (const [k, n] of st.refSets) {
    if (n <= 0) continue;
    for (const rc of classesOf.get(k) ?? k.split(' ').map(Number)) refClasses.set(rc, (refClasses.get(rc) ?? 0) + n);
  }
  let best: number | undefined;
  for (const [c, n] of refClasses) {
    if (n !== st.refs) continue;
    if (best === undefined) { best = c; continue; }
    const d = instances.get(c)! - instances.get(best)!;
    if (d < 0 || (d === 0 && dict.key(c) < dict.key(best))) best = c;
  }
  return best === undefined ? null : dict.key(best);
}

/** One scalar for the datatypes observed on a property (§6: integers+decimals → Decimal, with a double → Float). */
function combine(bits: number): ScalarName {
  if ((bits & (bits - 1)) === 0) return SCALAR_NAMES[31 - Math.clz32(bits)] ?? 'String';
  const numeric = SCALAR_BIT.get('Long')! | SCALAR_BIT.get('Decimal')! | SCALAR_BIT.get('Float')!;
  if ((bits & ~numeric) === 0) return bits & SCALAR_BIT.get('Float')! ? 'Float' : 'Decimal';
  return 'String';
}
