/** Texts of one shape share a parse (sparql/shape.ts): every answer is still its own text's. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/core/ledger/connection.js';
import { sparqlShapeHits } from '../../src/core/query/sparql-service.js';
import { ALICE, HANA, hrLedger, insert, rows } from '../policy/fixtures.js';

const EX = 'http://example.org/';
/** A point query on one subject, with full IRIs (the shape's parameters). */
const point = (s: string) => `SELECT ?p ?o WHERE { <${EX}${s}> ?p ?o FILTER(?p != <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>) } ORDER BY ?p ?o`;
const name = (s: string) => `SELECT ?n WHERE { <${EX}${s}> <${EX}name> ?n }`;

describe('SPARQL shape cache', () => {
  let conn: Connection;
  beforeAll(async () => { conn = await hrLedger(); });

  it('texts differing only in their IRIs give their own answers, the third on through the shape', async () => {
    expect(await rows(conn, point('alice'))).toEqual([['ex:name', 'Alice'], ['ex:salary', 120000]]);
    const before = sparqlShapeHits();
    expect(await rows(conn, point('bob'))).toEqual([['ex:name', 'Bob'], ['ex:salary', 95000]]);
    expect(await rows(conn, point('carol'))).toEqual([['ex:name', 'Carol']]);
    // The second text of a shape checks it; the third is the first to use it.
    expect(sparqlShapeHits()).toBe(before + 1);
    expect(await rows(conn, point('dave'))).toEqual([]);
    expect(sparqlShapeHits()).toBe(before + 2);
  });

  it('an IRI the dictionary has never seen gives an empty result', async () => {
    await rows(conn, point('alice'));
    const before = sparqlShapeHits();
    expect(await rows(conn, point('nobody-at-all'))).toEqual([]);
    expect(await rows(conn, `SELECT ?s WHERE { ?s <${EX}name> ?n FILTER(?s = <${EX}ghost>) }`)).toEqual([]);
    expect(await rows(conn, `SELECT ?s WHERE { ?s <${EX}never-a-predicate> ?n }`)).toEqual([]);
    expect(sparqlShapeHits()).toBeGreaterThan(before);
  });

  it('a text after a new commit sees the new data; the past t does not', async () => {
    expect(await rows(conn, name('dave'))).toEqual([]);
    const r = await insert(conn, 'hr', [{ '@id': 'ex:dave', 'ex:name': 'Dave' }]);
    const before = sparqlShapeHits();
    expect(await rows(conn, name('dave'))).toEqual([['Dave']]);
    expect(await rows(conn, name('erin'))).toEqual([]);
    expect(await rows(conn, name('frank'))).toEqual([]);
    expect(await rows(conn, name('dave'), { at: { kind: 't', t: r.t - 1 } })).toEqual([]);
    expect(await rows(conn, name('dave'), { at: { kind: 't', t: r.t } })).toEqual([['Dave']]);
    expect(sparqlShapeHits()).toBeGreaterThan(before);
  });

  it('policy-restricted identities get their own answers from texts of one shape', async () => {
    const salary = (s: string) => `SELECT ?v WHERE { <${EX}${s}> <${EX}salary> ?v }`;
    expect(await rows(conn, salary('alice'), { policy: { identity: HANA } })).toEqual([[120000]]);
    expect(await rows(conn, salary('bob'), { policy: { identity: HANA } })).toEqual([[95000]]);
    // Alice sees her own salary only, through the same shape.
    expect(await rows(conn, salary('alice'), { policy: { identity: ALICE } })).toEqual([[120000]]);
    expect(await rows(conn, salary('bob'), { policy: { identity: ALICE } })).toEqual([]);
    expect(await rows(conn, salary('bob'))).toEqual([[95000]]);
  });
});
