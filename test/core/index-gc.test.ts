import { describe, expect, it } from 'vitest';
import { MemoryContentStore, MemoryNameService } from '../../src/storage/index.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { IndexGc } from '../../src/core/ledger/index-gc.js';
import { runIndexJob } from '../../src/core/index/indexer.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { Codec } from '../../src/core/commit/cid.js';
import { CID } from 'multiformats/cid';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

describe('IndexGc', () => {
  it('a sweep waits for running index writers, and writers started meanwhile wait for the sweep', async () => {
    const gc = new IndexGc(new MemoryContentStore(), new MemoryNameService(), 0);
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
});
