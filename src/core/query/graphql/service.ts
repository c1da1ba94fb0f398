/**
 * The GraphQL request pipeline (graphql.md §2, §13–§15): derive (or reuse) the caller's schema for
 * the snapshot, then parse, check limits, reject unsupported forms, validate and execute with
 * graphql-js, and shape the response body (`data`, `errors` with `extensions.code`, explain).
 */
import {
  execute, getArgumentValues, getVariableValues, GraphQLError, Kind, lexicographicSortSchema, parse, printSchema, TypeInfo, validate, visit, visitWithTypeInfo,
  type DocumentNode, type FieldNode, type GraphQLSchema, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import type { DbView } from '../../index/view.js';
import { ActiveContext } from '../../rdf/jsonld-context.js';
import { inferModel } from './model.js';
import { applyShapes } from './shapes.js';
import { applyCurated, readCurated } from './curated.js';
import { DeclarationError } from './naming.js';
import { isLedgraphError } from '../../errors.js';
import { MutationError, planMutations, type MutationItem } from './mutate.js';
import { executeFast } from './execute.js';
import { RequestResolvers } from './resolve.js';
import { buildDerivedSchema, type DerivedSchema, type PublishedType } from './schema.js';

export type ErrorCode = 'GRAPHQL_PARSE_FAILED' | 'SCHEMA_ERROR' | 'UNSUPPORTED_QUERY' | 'EXECUTION_ERROR' | 'EMPTY_SCHEMA';

export interface GraphQLBody { data?: unknown; errors?: unknown[]; extensions?: Record<string, unknown> }

export interface GraphQLLimits { maxDepth: number; maxFields: number }
export const DEFAULT_LIMITS: GraphQLLimits = { maxDepth: 15, maxFields: 1000 };

/** One request as the endpoint read it. */
export interface GraphQLRun {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  explain: boolean;
  /** GET requests and pinned ledgers (`@t:`) cannot run mutations. */
  readOnly: 'get' | 'pinned' | false;
  limits?: GraphQLLimits;
  /** Commit a mutation's transaction through the write pipeline; the caller's view at the new t. */
  commit?: (body: Record<string, unknown>, mode: 'insert' | 'update') => Promise<{ t: number; commit_id: string; view: DbView }>;
  signal?: AbortSignal;
  deadline?: number;
}

const cache = new Map<string, Promise<DerivedSchema>>();
const CACHE_SIZE = 32;

/**
 * The caller's derived schema for a snapshot. `key` names (ledger, t, caller view, context): a
 * commit moves t, so a new head never reads a stale entry; old ones age out of the LRU.
 * `root` is the unrestricted snapshot, read only to detect shapes and schema instances (§3).
 */
export function derivedSchema(key: string, view: DbView, root: DbView, contextJson: unknown): Promise<DerivedSchema> {
  let hit = cache.get(key);
  if (hit) { cache.delete(key); cache.set(key, hit); return hit; }
  hit = (async () => {
    const ctx = ActiveContext.create(contextJson ?? null);
    const warnings: string[] = [];
    const model = await inferModel(view);
    const shaped = await applyShapes(root, model, view !== root);
    let cur;
    try { cur = await readCurated(root); } catch (e) {
      if (e instanceof DeclarationError) return { tier: 'curated', schema: null, error: e.message, warnings: [], types: new Map(), ctx } satisfies DerivedSchema;
      throw e;
    }
    if (cur.count > 1) warnings.push(`${cur.count} curated schema instances; using shaped schema`);
    if (cur.curated) {
      applyCurated(model, cur.curated);
      return buildDerivedSchema(model, ctx, warnings, 'curated', cur.curated);
    }
    return buildDerivedSchema(model, ctx, warnings, shaped ? 'shaped' : 'inferred');
  })();
  hit.catch(() => cache.delete(key));
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, hit);
  return hit;
}

/** The SDL of a derived schema (§2): sorted, or the decided line for an empty schema. */
export function schemaSdl(d: DerivedSchema): string {
  if (d.error !== undefined) return `# schema error: ${d.error}\n`;
  return d.schema ? printSchema(lexicographicSortSchema(d.schema)) + '\n' : '# empty schema: no classes are visible\n';
}

function failure(code: ErrorCode, message: string, nodes?: GraphQLError['nodes']): GraphQLBody {
  return { errors: [withCode(new GraphQLError(message, nodes ? { nodes } : {}), code)] };
}

function withCode(e: GraphQLError, code: ErrorCode): unknown {
  const j = e.toJSON() as { extensions?: Record<string, unknown> };
  return { ...j, extensions: { ...(j.extensions ?? {}), code } };
}

/** Run one request against a derived schema over `view` (all root fields read this one snapshot). */
export async function runGraphQL(d: DerivedSchema, view: DbView, contextJson: unknown, run: GraphQLRun): Promise<GraphQLBody> {
  if (d.error !== undefined) return failure('SCHEMA_ERROR', d.error);
  if (!d.schema) return failure('EMPTY_SCHEMA', 'the schema is empty: no classes are visible to this caller');
  const prep = prepared(d, run.query);
  if (prep.parseError) return { errors: [withCode(prep.parseError, 'GRAPHQL_PARSE_FAILED')] };
  const doc = prep.doc!;
  const limits = run.limits ?? DEFAULT_LIMITS;
  const op = selectedOperation(doc, run.operationName ?? undefined);
  const frags = prep.frags;
  for (const { o, m } of prep.sizes) {
    if (m.depth > limits.maxDepth) return failure('UNSUPPORTED_QUERY', `the document nests ${m.depth} levels deep; the limit is ${limits.maxDepth}`, [o]);
    if (m.fields > limits.maxFields) return failure('UNSUPPORTED_QUERY', `the document selects ${m.fields} fields; the limit is ${limits.maxFields}`, [o]);
  }
  const unsupported = prep.subscription ?? readOnlyError(op, run) ?? prep.nestedWhere;
  if (unsupported) return { errors: [withCode(unsupported, 'UNSUPPORTED_QUERY')] };
  if (prep.invalid.length) return { errors: prep.invalid.map((e) => withCode(e, 'SCHEMA_ERROR')) };
  if (op && !d.schema.getRootType(op.operation)) {
    return failure('SCHEMA_ERROR', `the schema has no ${op.operation} type: mutations are published only by a curated schema instance`, [op]);
  }
  let readView = view;
  let mutated: { t: number; commit_id: string; body: Record<string, unknown> | null; results: Map<string, { id: string; iri: string } | null> } | undefined;
  if (op?.operation === 'mutation') {
    const m = await runMutations(d, view, op, run);
    if (!('results' in m)) return m;
    mutated = m;
    if (m.view) readView = m.view;
  }
  const resolvers = new RequestResolvers({ view: readView, derived: d, contextJson, ...(run.signal ? { signal: run.signal } : {}), ...(run.deadline ? { deadline: run.deadline } : {}) });
  if (mutated) resolvers.mutationResults = mutated.results;
  const res = (op && !mutated ? await fastData(d.schema, op, frags, run, resolvers) : undefined)
    ?? await execute({ schema: d.schema, document: doc, contextValue: resolvers, variableValues: run.variables ?? null, operationName: run.operationName ?? null });
  const body: GraphQLBody = {};
  if (res.errors?.length) {
    // Errors before execution starts (variables, operation selection) are request errors: no data.
    const requestError = res.data === undefined;
    body.errors = res.errors.map((e) => withCode(e, requestError ? 'SCHEMA_ERROR' : 'EXECUTION_ERROR'));
  }
  if (res.data !== undefined) body.data = res.data;
  const ext: Record<string, unknown> = {};
  if (mutated?.body) ext.commit = { t: mutated.t, commit_id: mutated.commit_id };
  if (run.explain && op) {
    ext.explain = { tier: d.tier, warnings: d.warnings, fields: explainFields(op, frags, d, resolvers.queries), ...(mutated ? { transaction: mutated.body ? [mutated.body] : [] } : {}) };
  }
  if (Object.keys(ext).length) body.extensions = ext;
  return body;
}

/**
 * Plan and commit the root fields of a mutation as one transaction (§12). A failure writes
 * nothing: every mutation field is null with an EXECUTION_ERROR (the write's status and `@type`
 * when the pipeline refused it); `::` ids are UNSUPPORTED_QUERY.
 */
async function runMutations(d: DerivedSchema, view: DbView, op: OperationDefinitionNode, run: GraphQLRun):
  Promise<GraphQLBody | { t: number; commit_id: string; view?: DbView; body: Record<string, unknown> | null; results: Map<string, { id: string; iri: string } | null> }> {
  if (!run.commit || !d.mutations) return failure('UNSUPPORTED_QUERY', 'mutations cannot run here', [op]);
  const vars = getVariableValues(d.schema!, op.variableDefinitions ?? [], run.variables ?? {});
  if (vars.errors) return { errors: vars.errors.map((e) => withCode(e, 'SCHEMA_ERROR')) };
  const mtype = d.schema!.getMutationType()!;
  const items: MutationItem[] = [];
  const nodes = new Map<string, FieldNode>();
  for (const sel of op.selectionSet.selections) {
    if (sel.kind !== Kind.FIELD) return failure('UNSUPPORTED_QUERY', 'fragments at the root of a mutation are not supported', [sel]);
    if (sel.name.value === '__typename') continue;
    const key = sel.alias?.value ?? sel.name.value;
    items.push({ key, name: sel.name.value, args: getArgumentValues(mtype.getFields()[sel.name.value]!, sel, vars.coerced) });
    nodes.set(key, sel);
  }
  let failedKey: string | undefined;
  try {
    const plan = await planMutations(d, view, d.mutations, items, (k) => { failedKey = k; });
    failedKey = undefined;
    if (!plan.body) return { t: view.t, commit_id: '', body: null, results: plan.results };
    const c = await run.commit(plan.body, plan.mode);
    return { ...c, body: plan.body, results: plan.results };
  } catch (e) {
    if (e instanceof MutationError && e.unsupported) return failure('UNSUPPORTED_QUERY', e.message, failedKey ? [nodes.get(failedKey)!] : [op]);
    const ext: Record<string, unknown> = { code: 'EXECUTION_ERROR' };
    if (isLedgraphError(e)) { ext.status = e.status; ext['@type'] = e.type; }
    const message = e instanceof Error ? e.message : String(e);
    const errors = items.map((i) => new GraphQLError(failedKey === undefined || failedKey === i.key ? message : `not written: ${failedKey} failed`,
      { nodes: [nodes.get(i.key)!], path: [i.key], extensions: ext }).toJSON());
    return { data: Object.fromEntries(items.map((i) => [i.key, null])), errors };
  }
}

/** A query's data from the fast path (execute.ts); undefined when graphql-js must execute it. */
async function fastData(schema: GraphQLSchema, op: OperationDefinitionNode, frags: Map<string, FragmentDefinitionNode>, run: GraphQLRun,
  resolvers: RequestResolvers): Promise<{ data: Record<string, unknown>; errors?: undefined } | undefined> {
  if (op.operation !== 'query') return undefined;
  const vars = getVariableValues(schema, op.variableDefinitions ?? [], run.variables ?? {});
  if (vars.errors) return undefined;
  try {
    return { data: await executeFast(schema, op, frags, vars.coerced, resolvers) };
  } catch {
    // Fallback, or a resolver's error: graphql-js executes the request and reports errors per §14.
    return undefined;
  }
}

function selectedOperation(doc: DocumentNode, name: string | undefined): OperationDefinitionNode | undefined {
  const ops = doc.definitions.filter((x): x is OperationDefinitionNode => x.kind === Kind.OPERATION_DEFINITION);
  return name !== undefined ? ops.find((o) => o.name?.value === name) : ops.length === 1 ? ops[0] : undefined;
}

/** Depth and field count of a selection set, fragments expanded (§15). */
function measure(set: SelectionSetNode, frags: Map<string, FragmentDefinitionNode>, depth: number, stack: string[]): { depth: number; fields: number } {
  let max = depth, fields = 0;
  for (const s of set.selections) {
    let m: { depth: number; fields: number } | undefined;
    if (s.kind === Kind.FIELD) {
      fields++;
      if (s.selectionSet) m = measure(s.selectionSet, frags, depth + 1, stack);
    } else if (s.kind === Kind.INLINE_FRAGMENT) m = measure(s.selectionSet, frags, depth, stack);
    else {
      const f = frags.get(s.name.value);
      if (f && !stack.includes(f.name.value)) m = measure(f.selectionSet, frags, depth, [...stack, f.name.value]);
    }
    if (m) { max = Math.max(max, m.depth); fields += m.fields; }
  }
  return { depth: max, fields };
}

/** What a document gives against one schema, whatever the request: parsed once per (schema, text). */
interface Prepared {
  doc?: DocumentNode;
  parseError?: GraphQLError;
  frags: Map<string, FragmentDefinitionNode>;
  /** Depth and field count of every operation (§15 limits), fragments expanded. */
  sizes: { o: OperationDefinitionNode; m: { depth: number; fields: number } }[];
  /** §15 forms answered UNSUPPORTED_QUERY before validation. */
  subscription?: GraphQLError;
  nestedWhere?: GraphQLError;
  /** graphql-js validation errors (specifiedRules). */
  invalid: readonly GraphQLError[];
}

/** Prepared documents per schema (one schema per cache key), by document text; bounded. */
const preparedDocs = new WeakMap<GraphQLSchema, Map<string, Prepared>>();
const DOCS_PER_SCHEMA = 256;

/** Parse, measure, pre-check and validate `text` against `d`'s schema, or reuse that work. */
function prepared(d: DerivedSchema, text: string): Prepared {
  const schema = d.schema!;
  let docs = preparedDocs.get(schema);
  if (!docs) preparedDocs.set(schema, docs = new Map());
  let hit = docs.get(text);
  if (hit) return hit;
  hit = prepare(d, text);
  if (docs.size >= DOCS_PER_SCHEMA) docs.delete(docs.keys().next().value!);
  docs.set(text, hit);
  return hit;
}

function prepare(d: DerivedSchema, text: string): Prepared {
  let doc: DocumentNode;
  try { doc = parse(text); } catch (e) {
    return { parseError: e instanceof GraphQLError ? e : new GraphQLError(String(e)), frags: new Map(), sizes: [], invalid: [] };
  }
  const frags = new Map(doc.definitions.filter((x): x is FragmentDefinitionNode => x.kind === Kind.FRAGMENT_DEFINITION).map((x) => [x.name.value, x]));
  const sizes = doc.definitions.filter((o): o is OperationDefinitionNode => o.kind === Kind.OPERATION_DEFINITION).map((o) => ({ o, m: measure(o.selectionSet, frags, 1, []) }));
  const out: Prepared = { doc, frags, sizes, invalid: [] };
  const sub = sizes.find(({ o }) => o.operation === 'subscription');
  if (sub) out.subscription = new GraphQLError('subscription operations are not supported', { nodes: [sub.o] });
  const info = new TypeInfo(d.schema!);
  visit(doc, visitWithTypeInfo(info, {
    Argument(node) {
      if (out.nestedWhere || node.name.value !== 'where') return;
      const parent = info.getParentType();
      const def = info.getFieldDef();
      if (!parent || !def || parent.name === 'Query') return;
      out.nestedWhere = new GraphQLError(`"where" is only supported on root list fields (${parent.name}.${def.name}).`, { nodes: [node] });
    },
  }));
  if (!out.subscription && !out.nestedWhere) out.invalid = validate(d.schema!, doc);
  return out;
}

/** Mutations over GET or at a pinned t (§15). */
function readOnlyError(op: OperationDefinitionNode | undefined, run: GraphQLRun): GraphQLError | undefined {
  if (op?.operation !== 'mutation' || !run.readOnly) return undefined;
  return new GraphQLError(run.readOnly === 'get' ? 'mutations cannot be sent with GET; use POST' : 'mutations cannot run against a ledger pinned to a time', { nodes: [op] });
}

/** `extensions.explain.fields`: every selected field path in document order (§13). */
function explainFields(op: OperationDefinitionNode, frags: Map<string, FragmentDefinitionNode>, d: DerivedSchema, queries: Map<string, unknown>): unknown[] {
  const out: unknown[] = [];
  const byName = new Map([...d.types.values()].map((t) => [t.name, t]));
  const byClass = new Map([...d.types.values()].map((t) => [t.cls, t]));
  const rootType = (name: string) => [...d.types.values()].find((t) => t.root.singular === name || t.root.plural === name);
  const walk = (set: SelectionSetNode, prefix: string, type: PublishedType | undefined, root: boolean, stack: string[]): void => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        const name = s.name.value;
        const key = s.alias?.value ?? name;
        const path = prefix ? `${prefix}.${key}` : key;
        let provenance: string = d.tier;
        let child: PublishedType | undefined;
        if (name === 'id' || name.startsWith('__')) provenance = 'builtin';
        else if (root) {
          child = rootType(name) ?? d.mutations?.get(name)?.t;
          if (!child) provenance = 'builtin';
        } else {
          const f = type?.fields.get(name);
          provenance = f?.provenance ?? 'inferred';
          if (f?.kind === 'ref' && f.target !== null) child = byClass.get(f.target);
        }
        const entry: Record<string, unknown> = { field: path, provenance };
        if (root && queries.has(key)) entry.query = queries.get(key);
        out.push(entry);
        if (s.selectionSet) walk(s.selectionSet, path, child, false, stack);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, prefix, s.typeCondition ? byName.get(s.typeCondition.name.value) ?? type : type, root, stack);
      else {
        const f = frags.get(s.name.value);
        if (f && !stack.includes(f.name.value)) walk(f.selectionSet, prefix, byName.get(f.typeCondition.name.value) ?? type, root, [...stack, f.name.value]);
      }
    }
  };
  walk(op.selectionSet, '', undefined, true, []);
  return out;
}
