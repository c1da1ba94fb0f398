/**
 * The class-summary fold reads subjects new since the index root (ids from its dictionary size on)
 * off the novelty's events instead of scanning them (class-summary-delta.ts). Differential: the
 * folded summary — at a snapshot and as the next index job stores it — equals one computed from
 * scratch, through inserts, retractions and retypes of new and indexed nodes referencing each other.
 */
import { describe, expect, it } from 'vitest';
import { CID } from 'multiformats/cid';
import { MemoryContentStore, MemoryNameService } from '../../src/storage/index.js';
import { Connection } from '../../src/core/ledger/connection.js';
import type { Db } from '../../src/core/ledger/db.js';
import { defaultGraph, literal, namedNode, type Term } from '../../src/core/rdf/terms.js';
import { rdf, XSD } from '../../src/core/rdf/vocab.js';
import { summarizeFacts, summaryFromJson, summaryJson } from '../../src/core/index/class-summary.js';
import { snapshotSummary } from '../../src/core/index/class-summary-delta.js';
import { parseJsonNode } from '../../src/core/index/root-codec.js';

const E = 'http://e/';
const n = (x: string) => namedNode(E + x);
const q = (s: string, p: string, o: Term) => ({ subject: n(s), predicate: p === 'a' ? namedNode(rdf.type) : n(p), object: o, graph: defaultGraph });
const int = (v: number) => literal(String(v), namedNode(XSD + 'integer'));

async function fromScratch(db: Db) {
  const type = db.dict.idOfKey(rdf.type)!;
  return summaryJson(await summarizeFacts(db.dict, db.scan({ g: 0, p: type }), db.scan({ g: 0 })));
}

describe('class summary fold over subjects new since the index', () => {
  it('equals the summary computed from scratch, at the snapshot and as stored by the next index job', async () => {
    const content = new MemoryContentStore();
    const conn = new Connection({ content, ns: new MemoryNameService() }, { indexingEnabled: false });
    await conn.create('x');
    const ledger = await conn.ledger('x');
    const insert = (quads: ReturnType<typeof q>[]) => conn.transact('x', { kind: 'insert', quads, meta: [], opts: {} });
    const update = (del: ReturnType<typeof q>[], ins: ReturnType<typeof q>[]) => conn.transact('x', { kind: 'update', where: null, delete: del, insert: ins, meta: [], opts: {} });
    // Indexed: typed nodes with values and references.
    await insert([q('old1', 'a', n('A')), q('old1', 'p', int(1)), q('old2', 'a', n('B')), q('old2', 'p', n('old1')), q('old3', 'p', literal('x'))]);
    await conn.reindex('x');
    const root1 = ledger.tree!;
    // New subjects referencing indexed and new nodes; an indexed node referencing a new one.
    await insert([
      q('new1', 'a', n('A')), q('new1', 'p', n('old2')), q('new1', 'q', n('new2')), q('new1', 'r', int(7)),
      q('new2', 'a', n('C')), q('new2', 'a', n('D')), q('new2', 'p', literal('hi', 'en')),
      q('new3', 'p', n('new1')), q('old2', 'q', n('new1')),
      q('new4', 'a', n('A')), q('new5', 'a', n('B')), q('new5', 'p', int(3)),
    ]);
    // A new node retyped, a new subject wholly retracted, a new value replaced, an indexed node retyped.
    await update([q('new4', 'a', n('A'))], [q('new4', 'a', n('B')), q('new4', 'p', n('new2'))]);
    await update([q('new5', 'a', n('B')), q('new5', 'p', int(3))], []);
    await update([q('new1', 'r', int(7))], [q('new1', 'r', int(8))]);
    await update([q('old1', 'a', n('A'))], [q('old1', 'a', n('C'))]);
    // A fact retracted and asserted again within the novelty.
    await update([q('new2', 'p', literal('hi', 'en'))], []);
    await insert([q('new2', 'p', literal('hi', 'en'))]);
    const db = await ledger.db();
    expect(db.dict.size).toBeGreaterThan(root1.root.dict.size); // the new subjects are past the root's dictionary
    const folded = await snapshotSummary(db);
    expect(folded).not.toBeNull();
    const want = await fromScratch(db);
    expect(summaryJson(folded!)).toEqual(want);
    // Time travel within the novelty folds only what happened by then.
    const mid = await ledger.db({ kind: 't', t: root1.t + 2 });
    expect(summaryJson((await snapshotSummary(mid))!)).toEqual(await fromScratch(mid));
    await conn.reindex('x');
    const stored = summaryFromJson(parseJsonNode(await content.get(CID.parse(ledger.tree!.root.class_summary!)), 'index summary'));
    expect(summaryJson(stored)).toEqual(want);
    // The class sets the new subjects brought are there: {A}, {B} (old2, new4), {C} (old1 retyped), {C, D} (new2).
    const sets = (want as { sets: [number[], number][] }).sets.map(([classes, subjects]) => [classes.length, subjects]);
    expect(sets).toEqual([[1, 1], [1, 2], [1, 1], [2, 1]]);
    await conn.close();
  });
});
