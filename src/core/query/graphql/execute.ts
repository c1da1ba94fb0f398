/**
 * The fast path of query execution: the validated operation is compiled once per request into a
 * field plan (fragments expanded, `@skip`/`@include` and arguments evaluated once per field node
 * by graphql-js's own helpers), then the plan is completed over the schema's resolvers — which
 * read each object's facts once (resolve.ts) — without graphql-js's per-value type dispatch and
 * argument coercion. It covers the common case only: object and leaf types, no errors. Anything
 * else (introspection, abstract types, an error or a null in a non-null position) raises
 * `Fallback`, and the request is executed by graphql-js `execute` instead, which then gives the
 * spec's partial results and error paths. Both read the same snapshot, so the answers agree.
 */
import {
  getArgumentValues, getDirectiveValues, GraphQLIncludeDirective, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSkipDirective, Kind,
  isLeafType, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLLeafType, type GraphQLOutputType, type GraphQLResolveInfo,
  type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';

/** Raised when the fast path does not apply; the caller runs graphql-js `execute`. */
export class Fallback extends Error {}

interface Plan {
  key: string;
  /** `__typename`: the parent type's name. */
  typename?: string;
  field?: GraphQLField<unknown, unknown>;
  args: Record<string, unknown>;
  info: GraphQLResolveInfo;
  /** Completion of the field's type. */
  out: Completion;
}

/** Values still being read; `failed` once any read or completion failed (every rejection is caught here). */
interface Run { pending: Promise<void>[]; failed: boolean }

type Completion =
  | { kind: 'leaf'; type: GraphQLLeafType; nonNull: boolean }
  | { kind: 'list'; of: Completion; nonNull: boolean }
  | { kind: 'object'; plans: Plan[]; nonNull: boolean };

/** Execute a query operation on the fast path; its `data`, or Fallback. */
export async function executeFast(schema: GraphQLSchema, op: OperationDefinitionNode, frags: Map<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>, context: unknown): Promise<Record<string, unknown>> {
  if (op.operation !== 'query') throw new Fallback();
  const root = schema.getQueryType()!;
  const plans = compile(schema, root, [op.selectionSet], frags, variables);
  const run: Run = { pending: [], failed: false };
  const data = completeObject(undefined, plans, context, run);
  while (run.pending.length && !run.failed) await Promise.all(run.pending.splice(0));
  if (run.failed) throw new Fallback();
  return data;
}

/** The field plans of selection sets on an object type (fields of one response key merged). */
function compile(schema: GraphQLSchema, type: GraphQLObjectType, sets: readonly SelectionSetNode[], frags: Map<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>): Plan[] {
  const grouped = new Map<string, FieldNode[]>();
  const seen = new Set<string>();
  const collect = (set: SelectionSetNode): void => {
    for (const s of set.selections) {
      if (!included(s, variables)) continue;
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        const l = grouped.get(key);
        if (l) l.push(s); else grouped.set(key, [s]);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (!s.typeCondition || applies(s.typeCondition.name.value, type)) collect(s.selectionSet);
      } else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const f = frags.get(s.name.value);
        if (f && applies(f.typeCondition.name.value, type)) collect(f.selectionSet);
      }
    }
  };
  for (const set of sets) collect(set);
  const out: Plan[] = [];
  for (const [key, nodes] of grouped) {
    const name = nodes[0]!.name.value;
    const info = { fieldName: name, path: { key, prev: undefined, typename: type.name }, parentType: type, schema } as unknown as GraphQLResolveInfo;
    if (name === '__typename') { out.push({ key, typename: type.name, args: {}, info, out: { kind: 'leaf', type: null as never, nonNull: true } }); continue; }
    if (name.startsWith('__')) throw new Fallback();
    const field = type.getFields()[name];
    if (!field) throw new Fallback();
    const args = getArgumentValues(field, nodes[0]!, variables);
    const subSets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
    out.push({ key, field: field as GraphQLField<unknown, unknown>, args, info, out: completion(schema, field.type, subSets, frags, variables) });
  }
  return out;
}

function completion(schema: GraphQLSchema, t: GraphQLOutputType, sets: SelectionSetNode[], frags: Map<string, FragmentDefinitionNode>, variables: Record<string, unknown>): Completion {
  let nonNull = false;
  if (t instanceof GraphQLNonNull) { nonNull = true; t = t.ofType as GraphQLOutputType; }
  if (t instanceof GraphQLList) return { kind: 'list', of: completion(schema, t.ofType as GraphQLOutputType, sets, frags, variables), nonNull };
  if (isLeafType(t)) return { kind: 'leaf', type: t, nonNull };
  if (t instanceof GraphQLObjectType) return { kind: 'object', plans: compile(schema, t, sets, frags, variables), nonNull };
  throw new Fallback(); // interfaces and unions: graphql-js resolves their runtime types
}

function included(s: { directives?: readonly unknown[] }, variables: Record<string, unknown>): boolean {
  if (!s.directives?.length) return true;
  const node = s as Parameters<typeof getDirectiveValues>[1];
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}

function applies(condition: string, type: GraphQLObjectType): boolean {
  return condition === type.name || type.getInterfaces().some((i) => i.name === condition);
}

/** One object's result: keys in plan order; values that need a read are filled in as they arrive. */
function completeObject(src: unknown, plans: Plan[], context: unknown, run: Run): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of plans) {
    if (p.typename !== undefined) { out[p.key] = p.typename; continue; }
    const f = p.field!;
    const v = f.resolve ? f.resolve(src, p.args, context, p.info) : (src as Record<string, unknown>)[f.name];
    if (v instanceof Promise) {
      out[p.key] = null;
      run.pending.push(v.then((x) => { out[p.key] = complete(p.out, x, context, run); }).catch(() => { run.failed = true; }));
    } else out[p.key] = complete(p.out, v, context, run);
  }
  return out;
}

function complete(c: Completion, v: unknown, context: unknown, run: Run): unknown {
  if (v === null || v === undefined) {
    if (c.nonNull) throw new Fallback();
    return null;
  }
  switch (c.kind) {
    case 'leaf': {
      const x = c.type.serialize(v);
      if (x === undefined || x === null) throw new Fallback();
      return x;
    }
    case 'list': {
      if (!Array.isArray(v)) throw new Fallback();
      return v.map((x) => complete(c.of, x, context, run));
    }
    case 'object': return completeObject(v, c.plans, context, run);
  }
}
