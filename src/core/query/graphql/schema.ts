/**
 * Build the graphql-js schema of a derived model (graphql.md §6, §9): one object type per
 * published class with `id` and its fields, `TWhere` / `TOrderBy` / `TOrderField` helpers, and
 * the root fields (singular, plural, `_count`). Resolvers delegate to the per-request executor
 * passed as the graphql-js context (resolve.ts), so one schema serves every request of its key.
 */
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLID, GraphQLInterfaceType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema,
  GraphQLString, type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap, type GraphQLOutputType,
} from 'graphql';
import type { ActiveContext } from '../../rdf/jsonld-context.js';
import type { ClassModel, FieldModel, InferredModel } from './model.js';
import type { Curated } from './curated.js';
import { allocateNames, DeclarationError, localPart, RESERVED_TYPE_NAMES, rootNames, sanitize } from './naming.js';
import { FILTERS, IDFilter, LangStringFilter, Long, OrderDirection, PRELUDE_TYPES, Resource, SCALARS } from './scalars.js';

/** A published type: its class, its fields by GraphQL name, its root field names. */
export interface PublishedType {
  name: string;
  cls: string;
  fields: Map<string, FieldModel>;
  root: { singular: string; plural: string; count: string };
}

/** What the executor resolves through: implemented by resolve.ts per request. */
export interface Resolvers {
  single(t: PublishedType, args: Record<string, unknown>, path: string): unknown;
  list(t: PublishedType, args: Record<string, unknown>, path: string): Promise<unknown>;
  count(t: PublishedType, args: Record<string, unknown>, path: string): Promise<unknown>;
  /** The values of a nested field: an array, or a promise of one when facts must be fetched. */
  field(src: unknown, t: PublishedType, f: FieldModel, args: Record<string, unknown>): unknown;
  id(src: unknown): string;
  /** The node (or id) a mutation root field produced; computed before execution (§12). */
  mutationResult(key: string): unknown;
}

export interface DerivedSchema {
  tier: 'inferred' | 'shaped' | 'curated';
  /** An invalid curated instance or duplicate declared names: SCHEMA_ERROR on every request. */
  error?: string;
  /** Mutation root fields (curated tier, §12) by name. */
  mutations?: Map<string, { t: PublishedType; kind: 'create' | 'update' | 'delete' }>;
  /** Null when no class is visible (every request is EMPTY_SCHEMA). */
  schema: GraphQLSchema | null;
  warnings: string[];
  types: Map<string, PublishedType>;
  ctx: ActiveContext;
}

/** Build the schema of a model under the naming context `ctx`. */
export function buildDerivedSchema(model: InferredModel, ctx: ActiveContext, extraWarnings: string[] = [], tier: DerivedSchema['tier'] = 'inferred', curated?: Curated): DerivedSchema {
  try {
    return build(model, ctx, extraWarnings, tier, curated);
  } catch (e) {
    if (e instanceof DeclarationError) return { tier, schema: null, error: e.message, warnings: [...extraWarnings].sort(), types: new Map(), ctx };
    throw e;
  }
}

function build(model: InferredModel, ctx: ActiveContext, extraWarnings: string[], tier: DerivedSchema['tier'], curated: Curated | undefined): DerivedSchema {
  const classes = model.classes;
  const declaredTypes = new Map((curated?.types ?? []).filter((t) => t.name !== undefined).map((t) => [t.cls, t.name!]));
  const typeNames = allocateNames(classes.map((c) => c.iri), ctx, RESERVED_TYPE_NAMES, declaredTypes);
  qualifyHelperClashes(typeNames, classes, ctx);
  const roots = rootNames(classes.map((c) => ({ name: typeNames.get(c.iri)!, plural: c.plural })));
  const types = new Map<string, PublishedType>();
  const byClass = new Map<string, PublishedType>();
  const fieldNameMemo = new Map<string, Map<string, string>>();
  for (const c of classes) {
    const name = typeNames.get(c.iri)!;
    const keyOf = (f: FieldModel) => (f.reverse ? '^' : '') + f.property;
    const declared = new Map(c.fields.filter((f) => f.declaredName !== undefined).map((f) => [keyOf(f), f.declaredName!]));
    const named = new Map(c.fields.filter((f) => f.shapeName !== undefined).map((f) => [keyOf(f), f.shapeName!]));
    // Classes often carry the same properties (a class hierarchy's members): name each list once.
    const memoKey = JSON.stringify([c.fields.map(keyOf), [...declared], [...named]]);
    let fieldNames = fieldNameMemo.get(memoKey);
    if (!fieldNames) fieldNameMemo.set(memoKey, fieldNames = allocateNames(c.fields.map(keyOf), ctx, new Set(['id']), declared, named));
    const fields = new Map<string, FieldModel>();
    for (const f of [...c.fields].sort((a, b) => (fieldNames!.get(keyOf(a))! < fieldNames!.get(keyOf(b))! ? -1 : 1))) fields.set(fieldNames!.get(keyOf(f))!, f);
    const t: PublishedType = { name, cls: c.iri, fields, root: roots.get(name)! };
    types.set(name, t);
    byClass.set(c.iri, t);
  }
  const warnings = [...extraWarnings, ...model.warnings.map((w) => {
    const t = byClass.get(w.cls)!;
    const fname = [...t.fields].find(([, f]) => f.property === w.property && !f.reverse)?.[0] ?? ctx.compactIri(w.property, false);
    return `${t.name}.${fname}: ${ctx.compactIri(w.property, false)} ${w.text}`;
  })].sort();
  if (types.size === 0) return { tier, schema: null, warnings, types, ctx };

  const objects = new Map<string, GraphQLObjectType>();
  const interfaces = new Map<string, GraphQLInterfaceType>();
  const interfaceNames = allocateNames((curated?.interfaces ?? []).map((i) => i.node), ctx, new Set([...RESERVED_TYPE_NAMES, ...types.keys()]),
    new Map((curated?.interfaces ?? []).filter((i) => i.name !== undefined).map((i) => [i.node, i.name!])));
  const implementers = new Map<string, PublishedType[]>();
  for (const ct of curated?.types ?? []) {
    const t = byClass.get(ct.cls);
    for (const i of ct.implements) {
      if (!interfaceNames.has(i)) throw new DeclarationError(`f:GraphQLType ${ct.node} implements ${i}, which is not an f:graphqlInterface of the schema`);
      if (t) (implementers.get(i) ?? implementers.set(i, []).get(i)!).push(t);
    }
  }
  /** The GraphQL name of an interface field: declared, else the name an implementer gives its path. */
  const ifaceFieldName = (f: { path: string; inverse: boolean; name?: string }, impl: PublishedType[]): string =>
    f.name ?? [...(impl[0]?.fields ?? [])].find(([, x]) => x.property === f.path && !!x.reverse === f.inverse)?.[0] ?? sanitize(localPart(f.path, ctx).local);
  for (const i of curated?.interfaces ?? []) {
    const impl = implementers.get(i.node) ?? [];
    interfaces.set(i.node, new GraphQLInterfaceType({
      name: interfaceNames.get(i.node)!,
      fields: () => {
        const out: GraphQLFieldConfigMap<unknown, Resolvers> = { id: { type: new GraphQLNonNull(GraphQLID) } };
        for (const f of i.fields) {
          const name = ifaceFieldName(f, impl);
          const fromImpl = impl.length ? objects.get(impl[0]!.name)!.getFields()[name] : undefined;
          out[name] = { type: fromImpl?.type ?? new GraphQLList(new GraphQLNonNull(GraphQLString)) };
        }
        return out;
      },
    }));
  }
  const curatedOf = new Map((curated?.types ?? []).map((ct) => [ct.cls, ct]));
  const orderBys = new Map<string, GraphQLInputObjectType>();
  const wheres = new Map<string, GraphQLInputObjectType>();
  const refType = (f: FieldModel): GraphQLObjectType => (f.target !== null && byClass.has(f.target) ? objects.get(byClass.get(f.target)!.name)! : Resource);
  const enums = new Map<FieldModel, { type: GraphQLEnumType; filter: GraphQLInputObjectType }>();
  for (const t of types.values()) {
    for (const [name, f] of t.fields) {
      if (!f.enumValues) continue;
      const type = enumType(`${t.name}${name.charAt(0).toUpperCase()}${name.slice(1)}`, f.enumValues);
      const list = new GraphQLList(new GraphQLNonNull(type));
      enums.set(f, { type, filter: new GraphQLInputObjectType({ name: `${type.name}Filter`, fields: { EQ: { type }, NEQ: { type }, IN: { type: list }, NIN: { type: list }, EXISTS: { type: GraphQLBoolean } } }) });
    }
    const orderable = ['id', ...[...t.fields].filter(([, f]) => f.single && !f.reverse && f.kind === 'scalar').map(([n]) => n)].sort();
    const orderField = new GraphQLEnumType({ name: `${t.name}OrderField`, values: Object.fromEntries(orderable.map((n) => [n, {}])) });
    orderBys.set(t.name, new GraphQLInputObjectType({
      name: `${t.name}OrderBy`,
      fields: { field: { type: new GraphQLNonNull(orderField) }, direction: { type: OrderDirection, defaultValue: 'ASC' } },
    }));
    const where: GraphQLInputObjectType = new GraphQLInputObjectType({
      name: `${t.name}Where`,
      fields: () => {
        const w: GraphQLInputFieldConfigMap = {
          AND: { type: new GraphQLList(new GraphQLNonNull(where)) }, OR: { type: new GraphQLList(new GraphQLNonNull(where)) }, NOT: { type: where }, id: { type: IDFilter },
        };
        for (const [name, f] of t.fields) {
          if (f.reverse) continue;
          w[name] = { type: f.kind === 'ref' ? IDFilter : enums.has(f) ? enums.get(f)!.filter : f.lang ? LangStringFilter : f.mixed ? FILTERS.String : FILTERS[f.scalar] };
        }
        return w;
      },
    });
    wheres.set(t.name, where);
    objects.set(t.name, new GraphQLObjectType<unknown, Resolvers>({
      name: t.name,
      interfaces: () => (curatedOf.get(t.cls)?.implements ?? []).map((i) => interfaces.get(i)!),
      ...(model.classes.find((c) => c.iri === t.cls)?.description !== undefined ? { description: model.classes.find((c) => c.iri === t.cls)!.description! } : {}),
      fields: () => {
        const out: GraphQLFieldConfigMap<unknown, Resolvers> = { id: { type: new GraphQLNonNull(GraphQLID), resolve: (src, _a, r) => r.id(src) } };
        for (const [name, f] of t.fields) {
          const item: GraphQLOutputType = f.kind === 'ref' ? refType(f) : enums.has(f) ? enums.get(f)!.type : f.mixed ? GraphQLString : SCALARS[f.scalar];
          const description = f.description !== undefined ? { description: f.description } : {};
          if (f.reverse) {
            out[name] = { type: new GraphQLList(new GraphQLNonNull(item)), ...description, resolve: (src, _a, r) => r.field(src, t, f, {}) };
            continue;
          }
          if (f.single) {
            out[name] = { type: f.required ? new GraphQLNonNull(item) : item, ...description, resolve: (src, _a, r) => first(r.field(src, t, f, {})) };
            continue;
          }
          const args = f.kind === 'ref'
            ? { orderBy: { type: new GraphQLList(new GraphQLNonNull(f.target !== null && byClass.has(f.target) ? orderBys.get(byClass.get(f.target)!.name)! : resourceOrderBy())) }, limit: { type: GraphQLInt } }
            : { ...(f.lang ? { lang: { type: GraphQLString } } : {}), orderBy: { type: OrderDirection }, limit: { type: GraphQLInt } };
          const list = new GraphQLList(new GraphQLNonNull(item));
          out[name] = { type: f.required ? new GraphQLNonNull(list) : list, args, ...description, resolve: (src, a, r) => r.field(src, t, f, a) };
        }
        return out;
      },
    }));
  }
  const query = new GraphQLObjectType<unknown, Resolvers>({
    name: 'Query',
    fields: () => {
      const out: GraphQLFieldConfigMap<unknown, Resolvers> = {};
      for (const t of types.values()) {
        const obj = objects.get(t.name)!;
        out[t.root.singular] = { type: obj, args: { id: { type: new GraphQLNonNull(GraphQLID) } }, resolve: (_s, a, r, info) => r.single(t, a, String(info.path.key)) };
        out[t.root.plural] = {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(obj))),
          args: { where: { type: wheres.get(t.name)! }, orderBy: { type: new GraphQLList(new GraphQLNonNull(orderBys.get(t.name)!)) }, limit: { type: GraphQLInt }, offset: { type: GraphQLInt } },
          resolve: (_s, a, r, info) => r.list(t, a, String(info.path.key)),
        };
        out[t.root.count] = { type: new GraphQLNonNull(Long), args: { where: { type: wheres.get(t.name)! } }, resolve: (_s, a, r, info) => r.count(t, a, String(info.path.key)) };
      }
      return out;
    },
  });
  const declaredMutations = new Map((curated?.types ?? []).filter((ct) => ct.mutations.length).map((ct) => [ct.cls, ct.mutations]));
  const mutations = mutationFields({ types }, declaredMutations);
  const mutation = mutations.size ? mutationType(mutations, objects, enums) : undefined;
  const schema = new GraphQLSchema({ query, ...(mutation ? { mutation } : {}), types: [...PRELUDE_TYPES, ...objects.values(), ...interfaces.values()] });
  // An implementing type must publish every interface field with the same name and type (§8).
  for (const i of curated?.interfaces ?? []) {
    const iface = interfaces.get(i.node)!;
    for (const t of implementers.get(i.node) ?? []) {
      const own = objects.get(t.name)!.getFields();
      for (const [name, f] of Object.entries(iface.getFields())) {
        if (!own[name] || String(own[name]!.type) !== String(f.type)) throw new DeclarationError(`${t.name} does not publish the field ${name}: ${String(f.type)} of interface ${iface.name} (${i.node})`);
      }
    }
  }
  return { tier, schema, warnings, types, ctx, ...(mutations.size ? { mutations } : {}) };
}

/** The type and kind of every mutation root field of a schema. */
export function mutationFields(d: Pick<DerivedSchema, 'types'>, declared: Map<string, ('create' | 'update' | 'delete')[]>): Map<string, { t: PublishedType; kind: 'create' | 'update' | 'delete' }> {
  const out = new Map<string, { t: PublishedType; kind: 'create' | 'update' | 'delete' }>();
  for (const t of d.types.values()) for (const kind of declared.get(t.cls) ?? []) out.set(`${kind}${t.name}`, { t, kind });
  return out;
}

const LangStringInput = new GraphQLInputObjectType({ name: 'LangStringInput', fields: { value: { type: new GraphQLNonNull(GraphQLString) }, lang: { type: new GraphQLNonNull(GraphQLString) } } });

/** The Mutation type (§12): createT / updateT / deleteT with their TCreateInput / TUpdateInput. */
function mutationType(fields: ReturnType<typeof mutationFields>, objects: Map<string, GraphQLObjectType>, enums: Map<FieldModel, { type: GraphQLEnumType }>): GraphQLObjectType {
  const inputs = new Map<string, { create: GraphQLInputObjectType; update: GraphQLInputObjectType }>();
  const inputOf = (t: PublishedType) => {
    let i = inputs.get(t.name);
    if (i) return i;
    const make = (create: boolean) => new GraphQLInputObjectType({
      name: `${t.name}${create ? 'Create' : 'Update'}Input`,
      fields: () => {
        const out: GraphQLInputFieldConfigMap = create ? { id: { type: new GraphQLNonNull(GraphQLID) } } : {};
        for (const [name, f] of t.fields) {
          if (f.reverse) continue;
          const item = f.kind === 'ref' ? GraphQLID : enums.has(f) ? enums.get(f)!.type : f.lang ? LangStringInput : f.mixed ? GraphQLString : SCALARS[f.scalar];
          const type = f.single && !f.lang ? item : new GraphQLList(new GraphQLNonNull(item));
          out[name] = { type: create && f.required ? new GraphQLNonNull(type) : type };
        }
        return out;
      },
    });
    inputs.set(t.name, i = { create: make(true), update: make(false) });
    return i;
  };
  return new GraphQLObjectType<unknown, Resolvers>({
    name: 'Mutation',
    fields: () => Object.fromEntries([...fields].map(([name, { t, kind }]) => {
      const resolve = (_s: unknown, _a: unknown, r: Resolvers, info: { path: { key: string | number } }) => r.mutationResult(String(info.path.key));
      if (kind === 'create') return [name, { type: objects.get(t.name)!, args: { input: { type: new GraphQLNonNull(inputOf(t).create) } }, resolve }];
      if (kind === 'update') return [name, { type: objects.get(t.name)!, args: { id: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(inputOf(t).update) } }, resolve }];
      return [name, { type: GraphQLID, args: { id: { type: new GraphQLNonNull(GraphQLID) } }, resolve: (_s: unknown, _a: unknown, r: Resolvers, info: { path: { key: string | number } }) => (r.mutationResult(String(info.path.key)) as { deleted?: string } | null)?.deleted ?? null }];
    })),
  });
}

/** An enum of `sh:in` strings: names sanitised (§4), `true`/`false`/`null` prefixed with `_`; values are the lexical forms. */
function enumType(name: string, values: string[]): GraphQLEnumType {
  return new GraphQLEnumType({
    name,
    values: Object.fromEntries(values.map((v) => {
      const n = sanitize(v);
      return [n === 'true' || n === 'false' || n === 'null' ? '_' + n : n, { value: v }];
    })),
  });
}

let resourceOrder: GraphQLInputObjectType | undefined;
/** Order input of references to unpublished targets: by `id` only. */
function resourceOrderBy(): GraphQLInputObjectType {
  return resourceOrder ??= new GraphQLInputObjectType({
    name: 'ResourceOrderBy',
    fields: { field: { type: new GraphQLNonNull(new GraphQLEnumType({ name: 'ResourceOrderField', values: { id: {} } })) }, direction: { type: OrderDirection, defaultValue: 'ASC' } },
  });
}

/** §4 rule 5: a class named like another type's helper (`TWhere`, …) is qualified like a collision. */
function qualifyHelperClashes(names: Map<string, string>, classes: ClassModel[], ctx: ActiveContext): void {
  const helpers = new Set<string>();
  for (const n of names.values()) for (const s of ['Where', 'OrderBy', 'OrderField', 'CreateInput', 'UpdateInput']) helpers.add(n + s);
  helpers.add('ResourceOrderBy');
  helpers.add('ResourceOrderField');
  const clashing = classes.filter((c) => helpers.has(names.get(c.iri)!));
  if (!clashing.length) return;
  const reserved = new Set([...RESERVED_TYPE_NAMES, ...helpers, ...[...names].filter(([iri]) => !clashing.some((c) => c.iri === iri)).map(([, n]) => n)]);
  for (const [iri, n] of allocateNames(clashing.map((c) => c.iri), ctx, reserved)) names.set(iri, n);
}


/** The first value of a single-valued field (null when none), keeping a synchronous answer synchronous. */
function first(v: unknown): unknown {
  return v instanceof Promise ? v.then((x) => (x as unknown[])[0] ?? null) : (v as unknown[])[0] ?? null;
}
