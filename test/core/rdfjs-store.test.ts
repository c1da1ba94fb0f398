/**
 * The RDF/JS Source / Store over a ledger (src/core/rdfjs/store.ts): Comunica
 * (@comunica/query-sparql-rdfjs) runs SPARQL over it and must give Ledgraph's own answers, at the
 * head and at a past t; `import` / `remove` / `removeMatches` / `deleteGraph` commit through the
 * write pipeline; `match` / `countQuads` agree and honour wildcards and graphs.
 */
import { Readable } from 'node:stream';
import { QueryEngine } from '@comunica/query-sparql-rdfjs';
import type * as RDF from '@rdfjs/types';
import { DataFactory, Parser } from 'n3';
import { beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { collect } from '../../src/core/query/results/types.js';
import type { Term } from '../../src/core/rdf/terms.js';
import { DbSource, LedgerStore } from '../../src/core/rdfjs/store.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const { namedNode, literal, quad, defaultGraph } = DataFactory;
const EX = 'http://example.org/';
const ex = (s: string) => namedNode(EX + s);
const P = `PREFIX ex: <${EX}> `;

const DATA = `@prefix ex: <${EX}> .
ex:ana a ex:Person ; ex:name "Ana" ; ex:age 34 ; ex:knows ex:ben .
ex:ben a ex:Person ; ex:name "Ben" ; ex:age 27 ; ex:knows ex:cid .
ex:cid a ex:Person ; ex:name "Cid"@en .
ex:dora a ex:Person ; ex:name "Dora" ; ex:address [ ex:city "Lyon" ] .
ex:g1 { ex:ana ex:likes ex:tea . ex:ben ex:likes ex:coffee . }
ex:g2 { ex:cid ex:likes ex:tea . }
`;

const QUERIES = [
  'SELECT ?s ?name WHERE { ?s ex:name ?name }',
  'SELECT ?a ?n WHERE { ?a ex:knows ?b . ?b ex:name ?n }',
  'SELECT ?s ?age WHERE { ?s ex:age ?age FILTER(?age > 30) }',
  'SELECT (COUNT(*) AS ?c) WHERE { ?s ?p ?o }',
  'SELECT ?g ?s ?o WHERE { GRAPH ?g { ?s ex:likes ?o } }',
  'SELECT ?s WHERE { ?s a ex:Person OPTIONAL { ?s ex:age ?age } FILTER(!BOUND(?age)) }',
  'SELECT ?s ?o WHERE { ?s ex:knows+ ?o }',
  'SELECT ?s ?city WHERE { ?s ex:address ?a . ?a ex:city ?city }',
  'SELECT ?s (SUM(?age) AS ?total) WHERE { ?s ex:age ?age } GROUP BY ?s',
  'SELECT DISTINCT ?o WHERE { GRAPH <http://example.org/g1> { ?s ?p ?o } }',
  'SELECT ?s ?name WHERE { ?s ex:name ?name FILTER(LANG(?name) = "en") }',
  'SELECT ?x WHERE { VALUES ?x { ex:ana ex:zed } ?x a ex:Person }',
];

/** A term as N-Triples-like text; blank node labels differ between engines, so they are all `_:`. */
function show(t: { termType: string; value: string; language?: string; datatype?: { value: string } } | undefined): string {
  if (!t) return '-';
  switch (t.termType) {
    case 'NamedNode': return `<${t.value}>`;
    case 'BlankNode': return '_:';
    case 'Literal': return t.language ? `"${t.value}"@${t.language}` : `"${t.value}"^^<${t.datatype!.value}>`;
    default: return t.termType;
  }
}

async function comunicaRows(engine: QueryEngine, source: RDF.Source, q: string): Promise<string[]> {
  const stream = await engine.queryBindings(P + q, { sources: [source] });
  return (await stream.toArray()).map((b) => [...b].map(([v, t]) => `${v.value}=${show(t)}`).sort().join(' ')).sort();
}

async function ledgraphRows(conn: Connection, q: string, t?: number): Promise<string[]> {
  const { result } = await runSparql(conn, P + q, { ledger: 'people', ...(t !== undefined ? { at: { kind: 't' as const, t } } : {}) });
  if (result.type !== 'bindings') throw new Error('expected bindings');
  return (await collect(result.rows)).map((r) => Object.entries(r).map(([v, t]) => `${v}=${show(t as Term)}`).sort().join(' ')).sort();
}

const stream = (quads: RDF.Quad[]) => Readable.from(quads) as unknown as RDF.Stream;
const done = (e: RDF.Stream | import('../../src/core/rdfjs/emitter.js').Emitter) =>
  new Promise<unknown>((resolve, reject) => { let receipt: unknown = null; e.on('commit', (r: unknown) => { receipt = r; }); e.on('end', () => resolve(receipt)); e.on('error', reject); });

describe('RDF/JS Store over a ledger, queried by Comunica', () => {
  const engine = new QueryEngine();
  let conn: Connection;
  let store: LedgerStore;

  beforeAll(async () => {
    conn = new Connection(openMemoryStorage());
    await conn.create('people');
    store = new LedgerStore(conn, 'people');
    // t 1: the data, imported through the store.
    expect(await done(store.import(stream(new Parser({ format: 'application/trig' }).parse(DATA))))).toMatchObject({ t: 1, flakes_added: 17 });
    // t 2: Ben turns 28; t 3: Cid's age becomes known.
    expect(await done(store.remove(stream([quad(ex('ben'), ex('age'), literal('27', namedNode('http://www.w3.org/2001/XMLSchema#integer')))])))).toMatchObject({ t: 2, flakes_retracted: 1 });
    expect(await done(store.import(stream([
      quad(ex('ben'), ex('age'), literal('28', namedNode('http://www.w3.org/2001/XMLSchema#integer'))),
      quad(ex('cid'), ex('age'), literal('41', namedNode('http://www.w3.org/2001/XMLSchema#integer'))),
    ])))).toMatchObject({ t: 3, flakes_added: 2 });
  });

  it.each(QUERIES)('head: %s', async (q) => {
    const expected = await ledgraphRows(conn, q);
    expect(expected.length).toBeGreaterThan(0);
    expect(await comunicaRows(engine, store, q)).toEqual(expected);
  });

  it.each(QUERIES)('t 1: %s', async (q) => {
    const expected = await ledgraphRows(conn, q, 1);
    expect(await comunicaRows(engine, await store.at(1), q)).toEqual(expected);
  });

  it('the head and t 1 differ where the writes changed things', async () => {
    const q = 'SELECT ?s ?age WHERE { ?s ex:age ?age }';
    expect(await comunicaRows(engine, store, q)).toEqual([
      `age="28"^^<http://www.w3.org/2001/XMLSchema#integer> s=<${EX}ben>`,
      `age="34"^^<http://www.w3.org/2001/XMLSchema#integer> s=<${EX}ana>`,
      `age="41"^^<http://www.w3.org/2001/XMLSchema#integer> s=<${EX}cid>`,
    ]);
    expect(await comunicaRows(engine, await store.at(1), q)).toEqual([
      `age="27"^^<http://www.w3.org/2001/XMLSchema#integer> s=<${EX}ben>`,
      `age="34"^^<http://www.w3.org/2001/XMLSchema#integer> s=<${EX}ana>`,
    ]);
    expect(await engine.queryBoolean(`${P} ASK { ex:cid ex:age 41 }`, { sources: [store] })).toBe(true);
    expect(await engine.queryBoolean(`${P} ASK { ex:cid ex:age 41 }`, { sources: [await store.at(2)] })).toBe(false);
  });

  it('match and countQuads: wildcards, variables, graphs, unknown terms', async () => {
    const all = await collect(store.match());
    expect(all.length).toBe(18);
    expect(await store.countQuads()).toBe(18);
    expect(await store.countQuads(null, null, null, defaultGraph())).toBe(15);
    expect(await store.countQuads(undefined, ex('likes'))).toBe(3);
    expect(await store.countQuads(DataFactory.variable('s'), ex('likes'), ex('tea'))).toBe(2);
    expect(await store.countQuads(null, null, null, ex('g2'))).toBe(1);
    expect(await store.countQuads(ex('nobody'))).toBe(0);
    expect(await store.countQuads(null, null, null, ex('no-such-graph'))).toBe(0);
    const inG1 = (await collect(store.match(null, null, null, ex('g1')))).map((q) => `${q.subject.value} ${q.object.value} ${q.graph.value}`).sort();
    expect(inG1).toEqual([`${EX}ana ${EX}tea ${EX}g1`, `${EX}ben ${EX}coffee ${EX}g1`]);
    // Quads are RDF/JS terms with equals().
    const ana = (await collect(store.match(ex('ana'), ex('name'))))[0]!;
    expect(ana.equals(quad(ex('ana'), ex('name'), literal('Ana'), defaultGraph()))).toBe(true);
    // Read through events, the way asynciterator-based tools do.
    const viaEvents = await new Promise<number>((resolve, reject) => {
      let n = 0;
      const s = store.match(null, ex('name'));
      s.on('data', () => n++).on('end', () => resolve(n)).on('error', reject);
    });
    expect(viaEvents).toBe(4);
  });

  it('SPARQL UPDATE through Comunica writes through the store: one commit for the deletions, one for the insertions', async () => {
    const conn2 = new Connection(openMemoryStorage());
    await conn2.create('people');
    const s2 = new LedgerStore(conn2, 'people');
    await done(s2.import(stream(new Parser({ format: 'application/trig' }).parse(DATA))));
    await engine.queryVoid(`${P} DELETE { ?s ex:age ?a } INSERT { ?s ex:age 99 } WHERE { ?s ex:name "Ana" ; ex:age ?a }`, { sources: [s2] });
    expect((await conn2.ledger('people')).t).toBe(3);
    expect(await ledgraphRows(conn2, 'SELECT ?age WHERE { ex:ana ex:age ?age }')).toEqual(['age="99"^^<http://www.w3.org/2001/XMLSchema#integer>']);
    expect(await ledgraphRows(conn2, 'SELECT ?age WHERE { ex:ana ex:age ?age }', 1)).toEqual(['age="34"^^<http://www.w3.org/2001/XMLSchema#integer>']);
    await engine.queryVoid(`${P} DROP GRAPH ex:g1`, { sources: [s2] });
    expect(await ledgraphRows(conn2, 'SELECT ?s WHERE { GRAPH ?g { ?s ex:likes ?o } }')).toEqual([`s=<${EX}cid>`]);
  });

  it('removeMatches and deleteGraph commit; blank nodes from match name the stored nodes', async () => {
    const conn2 = new Connection(openMemoryStorage());
    await conn2.create('scratch');
    const s2 = new LedgerStore(conn2, 'scratch');
    await done(s2.import(stream(new Parser({ format: 'application/trig' }).parse(DATA))));
    const [addr] = await collect(s2.match(ex('dora'), ex('address')));
    expect(addr!.object.termType).toBe('BlankNode');
    expect(await done(s2.removeMatches(addr!.object))).toMatchObject({ t: 2, flakes_retracted: 1 });
    expect(await s2.countQuads(null, ex('city'))).toBe(0);
    expect(await done(s2.deleteGraph(`${EX}g1`))).toMatchObject({ t: 3, flakes_retracted: 2 });
    expect(await s2.countQuads(null, null, null, ex('g1'))).toBe(0);
    expect(await s2.countQuads(null, ex('likes'))).toBe(1);
    // A past snapshot still has them.
    expect(await new DbSource(await conn2.db('scratch@t:1')).countQuads(null, ex('likes'))).toBe(3);
    // Nothing to remove: no commit, still `end`.
    expect(await done(s2.removeMatches(ex('nobody')))).toBe(null);
    await expect(done(s2.import(stream([quad(literal('x') as unknown as RDF.Quad_Subject, ex('p'), ex('o'))])))).rejects.toThrow('subject must be an IRI or a blank node');
  });

  it('blank-node graph names: imported, matched and queried as the stored blank node, deleted', async () => {
    const conn2 = new Connection(openMemoryStorage());
    await conn2.create('bg');
    const s2 = new LedgerStore(conn2, 'bg');
    await done(s2.import(stream(new Parser({ format: 'application/trig' }).parse(`@prefix ex: <${EX}> . _:g { ex:eve ex:likes ex:tea . ex:eve ex:likes ex:jam } ex:eve ex:said _:g .`))));
    const [said] = await collect(s2.match(ex('eve'), ex('said')));
    expect(said!.object.termType).toBe('BlankNode');
    const g = said!.object as RDF.BlankNode;
    const inG = (await collect(s2.match(null, null, null, g))).map((q) => [q.object.value, q.graph.termType, q.graph.value]).sort();
    expect(inG).toEqual([[`${EX}jam`, 'BlankNode', g.value], [`${EX}tea`, 'BlankNode', g.value]]);
    expect(await s2.countQuads(null, null, null, DataFactory.blankNode('no-such-graph'))).toBe(0);
    expect(await comunicaRows(engine, s2, 'SELECT ?g ?o WHERE { ex:eve ex:said ?g GRAPH ?g { ex:eve ex:likes ?o } }'))
      .toEqual([`g=_: o=<${EX}jam>`, `g=_: o=<${EX}tea>`]);
    expect(await done(s2.deleteGraph(g))).toMatchObject({ t: 2, flakes_retracted: 2 });
    expect(await s2.countQuads()).toBe(1);
  });
});
