/** Nested fields are cut from each object's facts, read once per object per request (no query per field, no N+1). */
import { describe, expect, it } from 'vitest';
import type { DbView, ScanPattern } from '../../index/view.js';
import { ActiveContext } from '../../rdf/jsonld-context.js';
import { inferModel } from './model.js';
import { buildDerivedSchema } from './schema.js';
import { runGraphQL } from './service.js';

// The fixture view lives outside src (the typecheck's rootDir), so it is loaded dynamically.
const FIXTURE = '../../../../test/support/fixture-view.js';
const { viewFromRdf } = (await import(/* @vite-ignore */ FIXTURE)) as { viewFromRdf(text: string): DbView };

const TTL = `@prefix ex: <http://example.org/> .
${Array.from({ length: 30 }, (_, i) => `ex:p${i} a ex:Person ; ex:name "P${i}" ; ex:knows ex:p${(i + 1) % 30}, ex:p${(i + 2) % 30} .`).join('\n')}`;

/** A view that counts reads by pattern shape. */
function counting(view: DbView): { view: DbView; subjectReads: Map<number, number>; otherReads: ScanPattern[] } {
  const subjectReads = new Map<number, number>(), otherReads: ScanPattern[] = [];
  const note = (p: ScanPattern) => {
    if (p.s !== undefined && p.p === undefined) subjectReads.set(p.s, (subjectReads.get(p.s) ?? 0) + 1);
    else otherReads.push(p);
  };
  const counted = Object.create(view) as DbView;
  counted.scan = (p, o) => { note(p); return view.scan(p, o); };
  // A synchronous read that declines (null) is followed by `scan`: only answered reads count.
  if (view.scanSync) counted.scanSync = (p) => { const b = view.scanSync!(p); if (b) note(p); return b; };
  return { view: counted, subjectReads, otherReads };
}

describe('nested fields', () => {
  it('answers 30 objects × 3 levels with one read per object', async () => {
    const base = viewFromRdf(TTL);
    const ctxJson = { ex: 'http://example.org/' };
    const d = buildDerivedSchema(await inferModel(base), ActiveContext.create(ctxJson));
    const { view, subjectReads, otherReads } = counting(base);
    const body = await runGraphQL(d, view, ctxJson, { query: '{ persons { name knows { name knows { id name } } } }', explain: false, readOnly: false });
    const persons = (body.data as { persons: { name: string[]; knows: { name: string[]; knows: { id: string; name: string[] }[] }[] }[] }).persons;
    expect(persons.length).toBe(30);
    expect(persons[0]).toEqual({ name: ['P0'], knows: [{ name: ['P1'], knows: [{ id: 'ex:p2', name: ['P2'] }, { id: 'ex:p3', name: ['P3'] }] }, { name: ['P2'], knows: [{ id: 'ex:p3', name: ['P3'] }, { id: 'ex:p4', name: ['P4'] }] }] });
    // Every person is read once, however often it is reached; nothing else but the root query's scans.
    expect(subjectReads.size).toBe(30);
    expect([...subjectReads.values()].every((n) => n === 1)).toBe(true);
    expect(otherReads.every((p) => p.s === undefined)).toBe(true);
  });

  it('orders values ascending by default and descending on request, applies limit, and gives untyped references as Resource ids', async () => {
    const view = viewFromRdf(`@prefix ex: <http://example.org/> .
ex:a a ex:T ; ex:n 3, 10, 2 ; ex:r ex:c, ex:b ; ex:link ex:nowhere .
ex:b a ex:T ; ex:n 1 .
ex:c a ex:T ; ex:n 5 .`);
    const ctxJson = { ex: 'http://example.org/' };
    const d = buildDerivedSchema(await inferModel(view), ActiveContext.create(ctxJson));
    const body = await runGraphQL(d, view, ctxJson, { query: '{ t(id: "ex:a") { asc: n desc: n(orderBy: DESC) top: n(orderBy: DESC, limit: 1) r { id } rd: r(orderBy: [{field: id, direction: DESC}]) { id } link { id __typename } } }', explain: false, readOnly: false });
    expect(body).toEqual({ data: { t: { asc: [2, 3, 10], desc: [10, 3, 2], top: [10], r: [{ id: 'ex:b' }, { id: 'ex:c' }], rd: [{ id: 'ex:c' }, { id: 'ex:b' }], link: [{ id: 'ex:nowhere', __typename: 'Resource' }] } } });
  });
});
