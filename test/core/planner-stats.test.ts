/**
 * Planning against a real indexed ledger: the sampled facts-per-subject hint (Db.valuesPerKey)
 * keeps star joins from looking ever more selective, so they hash-join instead of probing per row.
 */
import { describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { explainQuery, parseSparql, querySparql } from '../../src/core/query/engine.js';
import { literal, namedNode, defaultGraph, type Term } from '../../src/core/rdf/terms.js';
import { rdf, xsd } from '../../src/core/rdf/vocab.js';
import type { TxnQuad } from '../../src/core/transact/txn-request.js';
import { openMemoryStorage } from '../../src/storage/index.js';

const ex = (s: string) => namedNode('http://ex/' + s);
const q = (s: string, p: string | Term, o: Term): TxnQuad => ({ subject: ex(s), predicate: typeof p === 'string' ? ex(p) : p, object: o, graph: defaultGraph });
const int = (n: number) => literal(String(n), namedNode(xsd.integer));

describe('star joins on an indexed ledger', () => {
  it('samples facts per subject and per object from decoded leaves', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('s');
    const quads: TxnQuad[] = [];
    for (let i = 0; i < 50; i++) for (let k = 0; k < 3; k++) quads.push(q(`a${i}`, 'tag', ex(`t${(i + k) % 10}`)));
    await conn.transact('s', { kind: 'insert', quads, meta: [], opts: {} });
    await conn.reindex('s');
    const db = await conn.db('s');
    const tag = db.dict.idOf(ex('tag'))!;
    // Nothing decoded yet: no guess, and the leaf is fetched for next time.
    expect(db.valuesPerKey(tag, 's')).toBeUndefined();
    await conn.idle();
    await new Promise((r) => setTimeout(r, 10));
    expect(db.valuesPerKey(tag, 's')).toBe(3); // 150 facts over 50 subjects
    expect(db.valuesPerKey(tag, 'o')).toBeUndefined();
    await new Promise((r) => setTimeout(r, 10));
    expect((await conn.db('s')).valuesPerKey(tag, 'o')).toBe(15); // over 10 objects
  });

  it('hash-joins every arm of a star once the sample is known, with the same answers', async () => {
    const conn = new Connection(openMemoryStorage());
    await conn.create('p');
    const quads: TxnQuad[] = [];
    for (let i = 0; i < 300; i++) {
      quads.push(q(`p${i}`, namedNode(rdf.type), ex('Product')), q(`p${i}`, 'label', literal(`product ${i}`)));
      quads.push(q(`p${i}`, 'n1', int(i)), q(`p${i}`, 'n2', int(i % 7)));
    }
    // Many other subjects, so "per subject in the store" would make each arm look ~70x rarer than it is.
    for (let i = 0; i < 20000; i++) quads.push(q(`x${i}`, 'other', int(i)));
    await conn.transact('p', { kind: 'insert', quads, meta: [], opts: {} });
    await conn.reindex('p');
    const text = 'PREFIX : <http://ex/> SELECT ?s ?l ?a ?b { ?s a :Product ; :label ?l ; :n1 ?a ; :n2 ?b }';
    const run = async () => {
      const r = await querySparql(text, { view: await conn.db('p') });
      let n = 0;
      if (r.type === 'bindings') for await (const _ of r.rows) n++;
      return n;
    };
    expect(await run()).toBe(300);
    await conn.idle();
    await new Promise((r) => setTimeout(r, 20));
    expect(await run()).toBe(300); // decodes the PSOT leaves the planner samples
    await new Promise((r) => setTimeout(r, 20));
    const plan = explainQuery(parseSparql(text), { view: await conn.db('p') });
    // The type scan starts the join (its only 'inl'); every other arm is hash-joined on ?s.
    expect(plan.match(/ hash keys=0/g)?.length).toBe(3);
    expect(plan.match(/ inl\b/g)?.length).toBe(1);
    expect(await run()).toBe(300);
  });
});
