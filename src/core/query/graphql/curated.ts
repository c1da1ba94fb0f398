/**
 * The curated tier (graphql.md §8): one `f:GraphQLSchema` node decides which classes are
 * published, under which names, plurals and descriptions, with which fields and interfaces.
 * Read from the default graph with root visibility and applied to the (shaped) model. An invalid
 * instance is reported as a message naming the node (SCHEMA_ERROR on every request).
 */
import type { DbView } from '../../index/view.js';
import { keyToTerm, type Term } from '../../rdf/terms.js';
import { F, rdf } from '../../rdf/vocab.js';
import type { ClassModel, FieldModel, InferredModel } from './model.js';
import { DeclarationError } from './naming.js';

export interface CuratedField { path: string; inverse: boolean; name?: string }
export interface CuratedType { node: string; cls: string; name?: string; plural?: string; description?: string; implements: string[]; fields?: CuratedField[]; mutations: ('create' | 'update' | 'delete')[] }
export interface CuratedInterface { node: string; name?: string; fields: CuratedField[] }
export interface Curated { types: CuratedType[]; interfaces: CuratedInterface[] }


async function objects(view: DbView, s: Term, p: string): Promise<Term[]> {
  const sid = await view.dict.lookupKey(s.termType === 'BlankNode' ? '_:' + s.value : s.value), pid = await view.dict.lookupKey(p);
  if (sid === undefined || pid === undefined) return [];
  const out: Term[] = [];
  for await (const b of view.scan({ g: 0, s: sid, p: pid })) for (let i = 0; i < b.n; i++) out.push(keyToTerm(view.dict.key(b.o[i]!)));
  return out;
}
const text = async (view: DbView, s: Term, p: string): Promise<string | undefined> => {
  const t = (await objects(view, s, p)).find((x) => x.termType === 'Literal');
  return t?.value;
};
const label = (t: Term) => (t.termType === 'BlankNode' ? `_:${t.value}` : t.value);

/** The schema instances of the snapshot: none, one (read), or how many there are. */
export async function readCurated(root: DbView): Promise<{ count: number; curated?: Curated }> {
  const type = await root.dict.lookupKey(rdf.type), cls = await root.dict.lookupKey(F + 'GraphQLSchema');
  if (type === undefined || cls === undefined) return { count: 0 };
  const nodes: Term[] = [];
  for await (const b of root.scan({ g: 0, p: type, o: cls })) for (let i = 0; i < b.n; i++) nodes.push(keyToTerm(root.dict.key(b.s[i]!)));
  if (nodes.length !== 1) return { count: nodes.length };
  const s = nodes[0]!;
  const curated: Curated = { types: [], interfaces: [] };
  for (const n of await objects(root, s, F + 'graphqlInterface')) {
    const i: CuratedInterface = { node: label(n), fields: await fieldsOf(root, n) ?? [] };
    const name = await text(root, n, F + 'graphqlName');
    if (name !== undefined) i.name = name;
    curated.interfaces.push(i);
  }
  for (const n of await objects(root, s, F + 'graphqlType')) {
    const classes = (await objects(root, n, F + 'graphqlClass')).filter((c) => c.termType === 'NamedNode');
    if (classes.length !== 1) throw new DeclarationError(`f:GraphQLType ${label(n)} must have exactly one f:graphqlClass (has ${classes.length})`);
    const mutations = (await objects(root, n, F + 'graphqlMutation')).map((m) => m.value);
    const bad = mutations.find((m) => m !== 'create' && m !== 'update' && m !== 'delete');
    if (bad !== undefined) throw new DeclarationError(`f:GraphQLType ${label(n)}: unknown f:graphqlMutation "${bad}" (create, update or delete)`);
    const t: CuratedType = { node: label(n), cls: classes[0]!.value, implements: (await objects(root, n, F + 'graphqlImplements')).map(label), mutations: mutations as CuratedType['mutations'] };
    for (const [k, p] of [['name', 'graphqlName'], ['plural', 'graphqlPlural'], ['description', 'graphqlDescription']] as const) {
      const v = await text(root, n, F + p);
      if (v !== undefined) t[k] = v;
    }
    const fields = await fieldsOf(root, n);
    if (fields) t.fields = fields;
    curated.types.push(t);
  }
  return { count: 1, curated };
}

async function fieldsOf(root: DbView, n: Term): Promise<CuratedField[] | undefined> {
  const nodes = await objects(root, n, F + 'graphqlField');
  if (!nodes.length) return undefined;
  const out: CuratedField[] = [];
  for (const f of nodes) {
    const path = (await objects(root, f, F + 'graphqlPath')).find((x) => x.termType === 'NamedNode');
    if (!path) throw new DeclarationError(`f:GraphQLField ${label(f)} needs an f:graphqlPath IRI`);
    const field: CuratedField = { path: path.value, inverse: (await objects(root, f, F + 'graphqlInverse')).some((x) => x.value === 'true') };
    const name = await text(root, f, F + 'graphqlName');
    if (name !== undefined) field.name = name;
    out.push(field);
  }
  return out;
}

/** Restrict the model to the curated types, with their declared names, plurals, descriptions and fields. */
export function applyCurated(model: InferredModel, c: Curated): Map<string, CuratedType> {
  const byClass = new Map<string, CuratedType>();
  const classes: ClassModel[] = [];
  for (const t of c.types) {
    byClass.set(t.cls, t);
    const base = model.classes.find((k) => k.iri === t.cls) ?? { iri: t.cls, instances: 0, fields: [] };
    const cls: ClassModel = { ...base };
    if (t.plural !== undefined) cls.plural = t.plural;
    if (t.description !== undefined) cls.description = t.description;
    if (t.fields) {
      cls.fields = t.fields.map((d): FieldModel => {
        const f = base.fields.find((x) => x.property === d.path && !!x.reverse === d.inverse)
          ?? { property: d.path, kind: d.inverse ? 'ref' : 'scalar', target: null, scalar: 'String', lang: false, mixed: false, ...(d.inverse ? { reverse: true } : {}), provenance: 'inferred' };
        return d.name !== undefined ? { ...f, declaredName: d.name } : f;
      });
    }
    classes.push(cls);
  }
  model.classes = classes;
  model.warnings = model.warnings.filter((w) => classes.some((k) => k.iri === w.cls && k.fields.some((f) => f.property === w.property)));
  return byClass;
}
