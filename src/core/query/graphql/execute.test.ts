/**
 * The fast path (execute.ts) and graphql-js `execute` give the same data for the same request;
 * forms outside the fast path fall back to graphql-js. Root filters run through the rewritten
 * plans (plan.ts), so the same cases check them against the spec's `exists` form too.
 */
import { execute, getVariableValues, Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { DbView } from '../../index/view.js';
import { ActiveContext } from '../../rdf/jsonld-context.js';
import { collect } from '../results/types.js';
import { executeQuery } from '../engine.js';
import { parseQuery } from '../jsonld/parse.js';
import { compileSelect } from '../jsonld/query.js';
import { WhereCompiler } from '../jsonld/where.js';
import { executeFast, Fallback } from './execute.js';
import { inferModel } from './model.js';
import { compileRootQuery } from './plan.js';
import { RequestResolvers } from './resolve.js';
import { buildDerivedSchema } from './schema.js';

const FIXTURE = '../../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const TTL = `@prefix ex: <http://example.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a a ex:Person ; ex:name "Ann", "Anna"@en, "Anne"@fr ; ex:age 31 ; ex:knows ex:b, ex:c ; ex:tag "x", "y" .
ex:b a ex:Person ; ex:name "Bob" ; ex:age 40 ; ex:knows ex:a ; ex:tag "y" .
ex:c a ex:Person ; ex:name "Cy" ; ex:age 25 ; ex:tag "z" .
ex:d a ex:Person ; ex:name "Di" .
ex:o1 a ex:Org ; ex:member ex:a, ex:b ; ex:size 3.5 ; ex:site ex:web .`;
const CTX = { ex: 'http://example.org/' };

const QUERIES: [string, Record<string, unknown>?][] = [
  ['{ persons { id name age knows { id name } } }'],
  ['{ persons(orderBy: [{field: id, direction: DESC}], limit: 3) { id age } }'],
  ['{ persons(where: {knows: {EQ: "ex:a"}}) { id } }'],
  ['{ persons(where: {tag: {NEQ: "y"}}) { id tag } }'],
  ['{ persons(where: {OR: [{age: {GT: 35}}, {name: {RE: "^C"}}], NOT: {tag: {EQ: "z"}}}) { id } }'],
  ['{ persons(where: {tag: {EXISTS: false}}) { id } persons_count(where: {age: {GTE: 25, LTE: 31}}) }'],
  ['{ persons(where: {knows: {IN: ["ex:b", "ex:c"]}, age: {LT: 40}}, offset: 1) { id } }'],
  ['query Q($id: ID!, $n: Int, $skip: Boolean!) { person(id: $id) { ...F knows(limit: $n) @skip(if: $skip) { id } } } fragment F on Person { __typename id name(lang: "fr,en") }', { id: 'ex:a', n: 1, skip: false }],
  ['query Q($id: ID!, $skip: Boolean!) { p: person(id: $id) { ... on Person { a: name b: name(orderBy: DESC) } knows @include(if: $skip) { id } } }', { id: 'ex:a', skip: false }],
  ['{ orgs { size site { id __typename } member(orderBy: [{field: id, direction: DESC}]) { id age } } missing: person(id: "ex:zz") { id } }'],
];

function setup(): { view: DbView } {
  return { view: viewFromRdf(TTL) };
}

describe('fast path', () => {
  it('gives graphql-js data for every query', async () => {
    const { view } = setup();
    const d = buildDerivedSchema(await inferModel(view), ActiveContext.create(CTX));
    for (const [query, variables] of QUERIES) {
      const doc = parse(query);
      const op = doc.definitions.find((x): x is OperationDefinitionNode => x.kind === Kind.OPERATION_DEFINITION)!;
      const frags = new Map(doc.definitions.filter((x): x is FragmentDefinitionNode => x.kind === Kind.FRAGMENT_DEFINITION).map((x) => [x.name.value, x]));
      const vars = getVariableValues(d.schema!, op.variableDefinitions ?? [], variables ?? {});
      const fast = await executeFast(d.schema!, op, frags, vars.coerced!, new RequestResolvers({ view, derived: d, contextJson: CTX }));
      const slow = await execute({ schema: d.schema!, document: doc, contextValue: new RequestResolvers({ view, derived: d, contextJson: CTX }), variableValues: variables ?? null });
      expect(slow.errors, query).toBeUndefined();
      expect(JSON.stringify(fast), query).toBe(JSON.stringify(slow.data));
    }
  });

  it('falls back for introspection and errors', async () => {
    const { view } = setup();
    const d = buildDerivedSchema(await inferModel(view), ActiveContext.create(CTX));
    for (const query of ['{ __schema { queryType { name } } }', '{ persons(limit: -1) { id } }', '{ persons { knows(limit: -2) { id } } }']) {
      const op = parse(query).definitions[0] as OperationDefinitionNode;
      await expect(executeFast(d.schema!, op, new Map(), {}, new RequestResolvers({ view, derived: d, contextJson: CTX })), query).rejects.toBeInstanceOf(Error);
    }
    const op = parse('{ __schema { queryType { name } } }').definitions[0] as OperationDefinitionNode;
    await expect(executeFast(d.schema!, op, new Map(), {}, new RequestResolvers({ view, derived: d, contextJson: CTX }))).rejects.toBeInstanceOf(Fallback);
  });
});

describe('root query plans', () => {
  it('answer like the JSON-LD query explain shows', async () => {
    const { view } = setup();
    const d = buildDerivedSchema(await inferModel(view), ActiveContext.create(CTX));
    const run = async (op: Parameters<typeof executeQuery>[0]['op'], variables: string[]) => {
      const r = await executeQuery({ form: 'select', op, variables }, { view, defaultGraphs: [0], namedGraphs: [] });
      return r.type === 'bindings' ? (await collect(r.rows)).map((b) => variables.map((v) => b[v]?.value)) : [];
    };
    for (const [query] of QUERIES) {
      const r = new RequestResolvers({ view, derived: d, contextJson: CTX });
      await execute({ schema: d.schema!, document: parse(query), contextValue: r, variableValues: { id: 'ex:a', n: 1, skip: false } });
      for (const [path, body] of r.queries) {
        const plain = compileSelect(parseQuery({ '@context': CTX, ...(body as object) }).query, new WhereCompiler(), true);
        const plan = compileRootQuery(CTX, body as Record<string, unknown>);
        expect(await run(plan.op, plan.projected), `${query} ${path}`).toEqual(await run(plain.op, plain.projected));
      }
    }
  });
});
