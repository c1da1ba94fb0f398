/** Nested fields are batched: one algebra query per selected field and level, not one per object (no N+1). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DbView } from '../../index/view.js';
import { ActiveContext } from '../../rdf/jsonld-context.js';
import { inferModel } from './model.js';
import { RequestResolvers } from './resolve.js';
import { buildDerivedSchema } from './schema.js';
import { runGraphQL } from './service.js';

// The fixture view lives outside src (the typecheck's rootDir), so it is loaded dynamically.
const FIXTURE = '../../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const TTL = `@prefix ex: <http://example.org/> .
${Array.from({ length: 30 }, (_, i) => `ex:p${i} a ex:Person ; ex:name "P${i}" ; ex:knows ex:p${(i + 1) % 30}, ex:p${(i + 2) % 30} .`).join('\n')}`;

afterEach(() => { vi.restoreAllMocks(); });

describe('batched nested fields', () => {
  it('answers 30 objects × 2 levels with one load per field and level', async () => {
    const view = viewFromRdf(TTL);
    const ctxJson = { ex: 'http://example.org/' };
    const d = buildDerivedSchema(await inferModel(view), ActiveContext.create(ctxJson));
    const load = vi.spyOn(RequestResolvers.prototype as unknown as { load(): Promise<unknown> }, 'load');
    const body = await runGraphQL(d, view, ctxJson, { query: '{ persons { name knows { name knows { id } } } }', explain: false, readOnly: false });
    const persons = (body.data as { persons: { name: string[]; knows: { name: string[]; knows: { id: string }[] }[] }[] }).persons;
    expect(persons.length).toBe(30);
    expect(persons[0]).toEqual({ name: ['P0'], knows: [{ name: ['P1'], knows: [{ id: 'ex:p2' }, { id: 'ex:p3' }] }, { name: ['P2'], knows: [{ id: 'ex:p3' }, { id: 'ex:p4' }] }] });
    // Level 1: name, knows; level 2: name, knows; level 3: nothing but id.
    expect(load).toHaveBeenCalledTimes(4);
  });
});
