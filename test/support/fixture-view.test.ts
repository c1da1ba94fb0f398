import { describe, expect, it } from 'vitest';
import { FixtureView, parseRdf, viewFromRdf } from './fixture-view.js';

const TRIG = `
@prefix : <http://ex/> .
:a :p :b . :a :p :b . :a :q "x" .
:g1 { :a :p :c }
:g2 { :b :p :a }
`;

async function all(v: FixtureView, pt: Parameters<FixtureView['scan']>[0]): Promise<string[]> {
  const out: string[] = [];
  for await (const b of v.scan(pt)) for (let i = 0; i < b.n; i++) out.push([b.g[i], b.s[i], b.p[i], b.o[i]].join(' '));
  return out;
}

describe('FixtureView', () => {
  const v = viewFromRdf(TRIG);
  const id = (local: string) => v.dict.idOf({ termType: 'NamedNode', value: 'http://ex/' + local })!;

  it('deduplicates facts and numbers named graphs from 3', () => {
    expect(v.stats.flakes).toBe(4);
    expect([v.graphId('http://ex/g1'), v.graphId('http://ex/g2'), v.graphIri(4), v.namedGraphs()]).toEqual([3, 4, 'http://ex/g2', [3, 4]]);
  });
  it('scans by any combination of positions and graph', async () => {
    expect(await all(v, { s: id('a'), p: id('p') })).toEqual([`0 ${id('a')} ${id('p')} ${id('b')}`, `3 ${id('a')} ${id('p')} ${id('c')}`]);
    expect(await all(v, { g: 4, o: id('a') })).toEqual([`4 ${id('b')} ${id('p')} ${id('a')}`]);
    expect((await all(v, {})).length).toBe(4);
  });
  it('estimates exactly and keeps per-predicate statistics', () => {
    expect([v.estimate({ p: id('p') }), v.estimate({ g: 0, p: id('p') }), v.stats.predicateCount(id('q')), v.stats.subjects]).toEqual([3, 1, 1, 2]);
  });
  it('parses RDF into quads with graphs', () => {
    expect(parseRdf(TRIG).map((q) => q.graph.value)).toEqual(['', '', '', 'http://ex/g1', 'http://ex/g2']);
  });
});
