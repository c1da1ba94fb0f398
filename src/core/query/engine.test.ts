import { describe, expect, it } from 'vitest';
import type { DbView } from '../index/view.js';
import { collect } from './results/types.js';
import { querySparql } from './engine.js';
import type { Term } from '../rdf/terms.js';

// The fixture lives outside src (tsconfig rootDir), so it is loaded by a path tsc does not follow.
const FIXTURE = '../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const DATA = `
@prefix : <http://ex/> .
:alice :name "Alice" ; :age 30 ; :knows :bob, :carol .
:bob :name "Bob" ; :age 25 ; :knows :carol .
:carol :name "Carol" ; :age 35 .
:dave :name "Dave" .
`;

function show(t: Term | undefined): string {
  if (!t) return '-';
  if (t.termType === 'NamedNode') return t.value.replace('http://ex/', ':');
  if (t.termType === 'BlankNode') return '_:';
  return t.value;
}

async function rows(view: DbView, q: string): Promise<string[]> {
  const r = await querySparql('PREFIX : <http://ex/> ' + q, { view });
  if (r.type !== 'bindings') throw new Error('not bindings');
  const out = await collect(r.rows);
  return out.map((b) => r.variables.map((v) => show(b[v])).join(' ')).sort();
}

describe('engine smoke', () => {
  const view = viewFromRdf(DATA);
  it('bgp', async () => {
    expect(await rows(view, 'SELECT ?x ?n { ?x :name ?n }')).toEqual([':alice Alice', ':bob Bob', ':carol Carol', ':dave Dave']);
  });
  it('join + filter', async () => {
    expect(await rows(view, 'SELECT ?x ?y { ?x :knows ?y . ?y :age ?a FILTER(?a > 30) }')).toEqual([':alice :carol', ':bob :carol']);
  });
  it('optional', async () => {
    expect(await rows(view, 'SELECT ?x ?a { ?x :name ?n OPTIONAL { ?x :age ?a } }')).toEqual([':alice 30', ':bob 25', ':carol 35', ':dave -']);
  });
});
