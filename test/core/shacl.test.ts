/**
 * SHACL validation of writes (src/core/transact/shacl-*.ts, docs/shacl.md) on the graphql.md §16
 * shapes: each constraint kind the example uses, what a transaction is checked against (the state
 * after it), which nodes are re-checked, and that a failing write in a group fails alone.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { isLedgraphError } from '../../src/core/errors.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { DbDataset } from '../../src/core/rdfjs/db-dataset.js';
import { parseJsonLdTxn } from '../../src/core/transact/parse-jsonld.js';
import { parseRdfTxn } from '../../src/core/transact/parse-rdf.js';
import { readShapes } from '../../src/core/transact/shacl-shapes.js';
import { checkShapes } from '../../src/core/transact/shacl-validate.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { PEOPLE_TTL, SHAPES_TTL } from '../graphql/fixtures.js';

const PREFIXES = `@prefix ex: <http://example.org/> . @prefix schema: <http://schema.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
`;
const LEDGER = 'people:main';
let conn: Connection;

const ttl = (text: string) => conn.transact(LEDGER, parseRdfTxn(text, 'text/turtle', 'insert'));

/** The error a write is refused with (fails the test when it is accepted). */
async function refused(p: Promise<unknown>): Promise<{ status: number; type: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (!isLedgraphError(e)) throw e;
    return { status: e.status, type: e.type, message: e.message };
  }
  throw new Error('the write was accepted');
}

beforeEach(async () => {
  conn = new Connection(await openMemoryStorage());
  await conn.create(LEDGER);
  await ttl(PEOPLE_TTL);
  await ttl(SHAPES_TTL);
});

describe('SHACL validation on the §16 shapes', () => {
  it('accepts the example data and shapes (t = 2) and a conforming write', async () => {
    expect((await conn.db(LEDGER)).t).toBe(2);
    const r = await ttl(`${PREFIXES} ex:dan a ex:Person ; schema:name "Dan" ; ex:age 19 ; ex:level "junior" ; ex:knows ex:ana .`);
    expect(r.t).toBe(3);
  });

  it('sh:minCount: a Person without a name', async () => {
    expect(await refused(ttl(`${PREFIXES} ex:dan a ex:Person ; ex:age 19 .`))).toEqual({
      status: 422, type: 'err:db/ConstraintViolation',
      message: 'SHACL violation: focus node <http://example.org/dan>, path <http://schema.org/name>: sh:MinCountConstraintComponent (Less than 1 values)',
    });
    expect((await conn.db(LEDGER)).t).toBe(2);
  });

  it('sh:maxCount: a second age', async () => {
    expect((await refused(ttl(`${PREFIXES} ex:ana ex:age 35 .`))).message).toBe(
      'SHACL violation: focus node <http://example.org/ana>, path <http://example.org/age>: sh:MaxCountConstraintComponent (More than 1 values)');
  });

  it('sh:datatype: an age that is a string', async () => {
    expect((await refused(ttl(`${PREFIXES} ex:dan a ex:Person ; schema:name "Dan" ; ex:age "nineteen" .`))).message).toBe(
      'SHACL violation: focus node <http://example.org/dan>, path <http://example.org/age>: sh:DatatypeConstraintComponent, value "nineteen"^^<http://www.w3.org/2001/XMLSchema#string> (Value does not have datatype <http://www.w3.org/2001/XMLSchema#integer>)');
  });

  it('sh:in: a level outside the list', async () => {
    expect((await refused(ttl(`${PREFIXES} ex:caro ex:level "boss" .`))).message).toBe(
      'SHACL violation: focus node <http://example.org/caro>, path <http://example.org/level>: sh:InConstraintComponent, value "boss"^^<http://www.w3.org/2001/XMLSchema#string> (Value is not one of the allowed values: junior, senior)');
  });

  it('sh:class: knowing a node that is not a Person, and removing the type of a known node', async () => {
    expect((await refused(ttl(`${PREFIXES} ex:caro ex:knows ex:acme .`))).message).toBe(
      'SHACL violation: focus node <http://example.org/caro>, path <http://example.org/knows>: sh:ClassConstraintComponent, value <http://example.org/acme>');
    // caro's own facts change; ana and ben point at her through ex:knows and are re-checked.
    const msg = (await refused(conn.transact(LEDGER, await parseJsonLdTxn({ '@context': { ex: 'http://example.org/' }, delete: { '@id': 'ex:caro', '@type': 'ex:Person' }, where: {} }, 'update')))).message;
    expect(msg).toContain('focus node <http://example.org/ana>, path <http://example.org/knows>: sh:ClassConstraintComponent, value <http://example.org/caro>');
    expect(msg).toContain('focus node <http://example.org/ben>, path <http://example.org/knows>: sh:ClassConstraintComponent, value <http://example.org/caro>');
  });

  it('sh:inversePath with sh:class: a non-Company employing a Person', async () => {
    expect((await refused(ttl(`${PREFIXES} ex:caro ex:employs ex:ben .`))).message).toBe(
      'SHACL violation: focus node <http://example.org/ben>, path ^<http://example.org/employs>: sh:ClassConstraintComponent, value <http://example.org/caro>');
  });

  it('sh:closed: a Company property outside the shape', async () => {
    expect((await refused(ttl(`${PREFIXES} ex:acme ex:motto "Build" .`))).message).toBe(
      'SHACL violation: focus node <http://example.org/acme>, path <http://example.org/motto>: sh:ClosedConstraintComponent of shape <http://example.org/CompanyShape>, value "Build"^^<http://www.w3.org/2001/XMLSchema#string> (Predicate is not allowed (closed shape))');
    // rdf:type is an ignored property: a second class is fine.
    expect((await ttl(`${PREFIXES} ex:acme a ex:Org .`)).t).toBe(3);
  });

  it('a transaction that adds shapes is validated against them (every target, not only touched nodes)', async () => {
    const msg = (await refused(ttl(`${PREFIXES} ex:AgeShape a sh:NodeShape ; sh:targetClass ex:Person ; sh:property [ sh:path ex:age ; sh:maxInclusive 40 ] .`))).message;
    expect(msg).toBe('SHACL violation: focus node <http://example.org/caro>, path <http://example.org/age>: sh:MaxInclusiveConstraintComponent, value "41"^^<http://www.w3.org/2001/XMLSchema#integer> (Value is not less than or equal to 40)');
    expect((await conn.db(LEDGER)).t).toBe(2);
  });

  it('shapes written as JSON-LD with @list (ordered values) are read as RDF lists', async () => {
    await conn.transact(LEDGER, await parseJsonLdTxn({
      '@context': { ex: 'http://example.org/', sh: 'http://www.w3.org/ns/shacl#' },
      insert: { '@id': 'ex:TagShape', '@type': 'sh:NodeShape', 'sh:targetClass': { '@id': 'ex:Person' },
        'sh:property': { 'sh:path': { '@id': 'ex:tags' }, 'sh:in': { '@list': ['ops', 'admin', 'dev'] } } },
    }, 'update'));
    expect((await refused(ttl(`${PREFIXES} ex:ben ex:tags "chef" .`))).message).toContain('sh:InConstraintComponent, value "chef"');
    expect((await ttl(`${PREFIXES} ex:ben ex:tags "dev" .`)).t).toBe(4);
  });

  it('removing a shape lifts its constraints', async () => {
    await conn.transact(LEDGER, await parseJsonLdTxn({ '@context': { ex: 'http://example.org/', sh: 'http://www.w3.org/ns/shacl#' }, delete: { '@id': 'ex:CompanyShape', 'sh:closed': true }, where: {} }, 'update'));
    expect((await ttl(`${PREFIXES} ex:acme ex:motto "Build" .`)).t).toBe(4);
  });

  it('results of severity sh:Warning do not fail a write; shapes SHACL Core cannot evaluate are refused', async () => {
    await ttl(`${PREFIXES} ex:MottoShape a sh:NodeShape ; sh:targetClass ex:Person ; sh:property [ sh:path ex:motto ; sh:maxCount 1 ; sh:severity sh:Warning ] .`);
    expect((await ttl(`${PREFIXES} ex:ana ex:motto "a", "b" .`)).t).toBe(4);
    expect(await refused(ttl(`${PREFIXES} ex:SparqlShape a sh:NodeShape ; sh:targetClass ex:Person ; sh:sparql [ sh:select "SELECT $this WHERE { }" ] .`))).toEqual({
      status: 422, type: 'err:db/ConstraintViolation',
      message: "SHACL: the ledger's shapes use sh:SPARQLConstraintComponent, which Ledgraph does not evaluate (SHACL Core only); nothing was written",
    });
    expect((await conn.db(LEDGER)).t).toBe(4);
  });

  it('recursive shapes over cyclic data terminate, and a change far down the chain is re-checked', async () => {
    await ttl(`${PREFIXES} ex:ChainShape a sh:NodeShape ; sh:targetNode ex:a ;
      sh:property [ sh:path ex:next ; sh:node ex:ChainShape ] , [ sh:path ex:label ; sh:minCount 1 ] .
      ex:a ex:label "a" ; ex:next ex:b . ex:b ex:label "b" ; ex:next ex:a .`);
    expect((await conn.db(LEDGER)).t).toBe(3);
    expect((await refused(ttl(`${PREFIXES} ex:b ex:next ex:c .`))).message).toBe(
      'SHACL violation: focus node <http://example.org/a>, path <http://example.org/next>: sh:NodeConstraintComponent, value <http://example.org/b> (Value does not have shape <http://example.org/ChainShape>)');
    expect((await ttl(`${PREFIXES} ex:b ex:next ex:c . ex:c ex:label "c" .`)).t).toBe(4);
  });

  it('in a group of concurrent writes, the violating one fails alone', async () => {
    const writes = [
      ttl(`${PREFIXES} ex:d1 a ex:Person ; schema:name "D1" .`),
      ttl(`${PREFIXES} ex:d2 a ex:Person .`),
      ttl(`${PREFIXES} ex:d3 a ex:Person ; schema:name "D3" .`),
    ];
    const out = await Promise.allSettled(writes);
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await conn.db(LEDGER)).t).toBe(4);
  });

  it('checks only the nodes a transaction touched, and those whose constraints read a changed fact', async () => {
    const db = await conn.db(LEDGER);
    const shapes = readShapes(new DbDataset(db));
    expect(shapes!.targets.map((t) => t.shape.value).sort()).toEqual(['http://example.org/CompanyShape', 'http://example.org/PersonShape']);
    expect(shapes!.hops).toEqual({ all: 0, type: 1 });
    expect([...shapes!.forward].sort()).toEqual(['http://example.org/age', 'http://example.org/employs', 'http://example.org/founded', 'http://example.org/knows', 'http://example.org/level', 'http://example.org/revenue', 'http://schema.org/name']);
    expect([...shapes!.inverse]).toEqual(['http://example.org/employs']);
    const r = await ttl(`${PREFIXES} ex:caro ex:tags "x" .`);
    expect(r.t).toBe(3);
    // A fact other than rdf:type: caro alone is checked (ana and ben read only her type, sh:class).
    const after = await conn.db(LEDGER);
    const caroTags = [...new DbDataset(after).match()].filter((q) => q.predicate.value === 'http://example.org/tags' && q.subject.value === 'http://example.org/caro');
    expect(caroTags.length).toBe(1);
    const events = [{ g: 0, s: after.dict.idOfKey('http://example.org/caro')!, p: after.dict.idOfKey('http://example.org/tags')!, o: after.dict.idOf(literal('x', namedNode(xsd.string)))!, m: -1, t: 3, op: true }];
    expect(await checkShapes(after, events)).toEqual({ mode: 'focus', checked: 1, runs: 2 });
    // Her rdf:type: ana and ben (they know her through ex:knows) are checked too.
    const typeEvent = [{ ...events[0]!, p: after.dict.idOfKey('http://www.w3.org/1999/02/22-rdf-syntax-ns#type')!, o: after.dict.idOfKey('http://example.org/Person')! }];
    expect(await checkShapes(after, typeEvent)).toEqual({ mode: 'focus', checked: 3, runs: 2 });
    // A transaction staged on a snapshot whose shapes are known reuses them unless it touches them.
    const next = after.withEvents(events.map((e) => ({ ...e, t: 4 })), after.graphTableWith(new Map()), 4);
    expect(await checkShapes(next, events, undefined, after)).toEqual({ mode: 'focus', checked: 1, runs: 1 });
    const shPath = after.dict.idOfKey('http://www.w3.org/ns/shacl#path')!;
    const shapeEvent = [{ ...events[0]!, p: shPath, t: 4 }];
    const next2 = after.withEvents(shapeEvent, after.graphTableWith(new Map()), 4);
    expect(await checkShapes(next2, shapeEvent, undefined, after)).toMatchObject({ mode: 'all', runs: 2 });
  });
});
