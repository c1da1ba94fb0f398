import { describe, expect, it } from 'vitest';
import { MemoryContentStore, MemoryNameService } from '../../src/storage/index.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { IndexGc } from '../../src/core/ledger/index-gc.js';
import { runIndexJob } from '../../src/core/index/indexer.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { Codec } from '../../src/core/commit/cid.js';
import { CID } from 'multiformats/cid';
import { collectReachable } from '../../src/core/ledger/reachable.js';
import { snapshotSummary } from '../../src/core/index/class-summary-delta.js';
import { rdf } from '../../src/core/rdf/vocab.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

describe('IndexGc', () => {
  it('a sweep waits for running index writers, and writers started meanwhile wait for the sweep', async () => {
    const content = new MemoryContentStore();
    const gc = new IndexGc({ contentFor: () => content, partitionOf: () => '', ns: new MemoryNameService() }, 0);
    const log: string[] = [];
    const w1 = deferred();
    const writer = gc.writing(async () => { log.push('w1 start'); await w1.promise; log.push('w1 end'); });
    const sweep = gc.exclusively(async () => { log.push('sweep'); });
    const late = gc.writing(async () => { log.push('w2'); });
    await new Promise((r) => setTimeout(r, 5));
    expect(log).toEqual(['w1 start']);
    w1.resolve();
    await Promise.all([writer, sweep, late]);
    expect(log).toEqual(['w1 start', 'w1 end', 'sweep', 'w2']);
  });

  it('an index job whose publish is refused retires its root, and the sweep deletes its new objects', async () => {
    const content = new MemoryContentStore();
    const conn = new Connection({ content, ns: new MemoryNameService() }, { indexingEnabled: false, gcGraceMs: 0 });
    await conn.create('x');
    const quad = (o: string) => ({ subject: namedNode('http://e/s'), predicate: namedNode('http://e/p'), object: literal(o), graph: { termType: 'DefaultGraph' as const, value: '' as const } });
    await conn.transact('x', { kind: 'insert', quads: [quad('1')], meta: [], opts: {} });
    const ledger = await conn.ledger('x');
    const indexObjects = () => [...content.objects.keys()].filter((c) => CID.parse(c).code !== Codec.commit && CID.parse(c).code !== Codec.txn).sort();
    const before = indexObjects();
    // The chain moves away before the job publishes (as a fast-forward does to a running job).
    ledger.superseded = true;
    await runIndexJob(conn, ledger);
    expect((await conn.ns.get('x:main'))!.index_head_id).toBeNull();
    expect(indexObjects().length).toBeGreaterThan(before.length);
    await conn.idle();
    expect(indexObjects()).toEqual(before);
    expect(conn.gc.deleted).toBeGreaterThan(0);
    await conn.close();
  });

  it('index roots name their class summaries: reachable from the record, kept by sweeps while named, deleted with their root', async () => {
    const content = new MemoryContentStore();
    const ns = new MemoryNameService();
    const conn = new Connection({ content, ns }, { indexingEnabled: false, gcGraceMs: 0 });
    await conn.create('x');
    const q = (s: string, p: string, o: ReturnType<typeof namedNode> | ReturnType<typeof literal>, g?: string) =>
      ({ subject: namedNode('http://e/' + s), predicate: namedNode(p), object: o, graph: g ? namedNode(g) : { termType: 'DefaultGraph' as const, value: '' as const } });
    const insert = (...quads: ReturnType<typeof q>[]) => conn.transact('x', { kind: 'insert', quads, meta: [], opts: {} });
    await insert(q('a', rdf.type, namedNode('http://e/A')), q('a', 'http://e/p', literal('1')));
    await conn.reindex('x');
    const ledger = await conn.ledger('x');
    const first = ledger.tree!.root.class_summary!;
    expect(CID.parse(first).code).toBe(Codec.indexSummary);
    const reach = new Set<string>();
    await collectReachable(content, (await ns.get('x:main'))!, reach);
    expect(reach.has(first)).toBe(true);
    // A job that is not published retires its root. Its summary equals the live root's (a named
    // graph changed, the default graph did not): the sweep keeps it, since the live root names it.
    await insert(q('a', 'http://e/p', literal('2'), 'http://e/g'));
    ledger.superseded = true;
    await runIndexJob(conn, ledger);
    await conn.idle();
    expect(content.objects.has(first)).toBe(true);
    // A retired root's own summary goes with it.
    await insert(q('b', rdf.type, namedNode('http://e/B')));
    await runIndexJob(conn, ledger);
    ledger.superseded = false;
    await conn.idle();
    const summaries = () => [...content.objects.keys()].filter((c) => CID.parse(c).code === Codec.indexSummary);
    expect(summaries()).toEqual([first]);
    await conn.close();
    const reopened = new Connection({ content, ns }, { indexingEnabled: false });
    // The live root's summary plus the novelty (b's commit, never indexed): A and B, one each.
    const sum = await snapshotSummary(await (await reopened.ledger('x')).db());
    expect([...sum!.values()].map((e) => e.subjects)).toEqual([1, 1]);
    await reopened.close();
  });
});
