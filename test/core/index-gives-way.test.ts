/**
 * Background index jobs give way to the ledger's writes (src/core/util/give-way.ts, docs/isolation.md
 * "Index jobs give way to writes") but are never starved: under writes that never let the
 * pipeline go idle, an index job still publishes, and what it indexed reads back exactly.
 */
import { describe, expect, it } from 'vitest';
import { MemoryContentStore, MemoryNameService } from '../../src/storage/index.js';
import { Connection } from '../../src/core/ledger/connection.js';
import { defaultGraph, literal, namedNode } from '../../src/core/rdf/terms.js';

const quad = (s: number, i: number) => ({ subject: namedNode(`http://e/s${s}`), predicate: namedNode('http://e/p'), object: literal(String(i)), graph: defaultGraph });

describe('index jobs under a continuous write load', () => {
  it('publish an index while the write pipeline never goes idle', async () => {
    const conn = new Connection({ content: new MemoryContentStore(), ns: new MemoryNameService() }, { reindexMinBytes: 20_000, reindexMaxBytes: 1 << 30 });
    await conn.create('x');
    const ledger = await conn.ledger('x');
    let stop = false, writes = 0, busyAtPublish: boolean | null = null;
    const deadline = Date.now() + 60_000;
    // Four writers keep the queue non-empty: each write is queued while the one before it stages.
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop && Date.now() < deadline; i++) {
        await conn.transact('x', { kind: 'insert', quads: Array.from({ length: 100 }, (_, k) => quad(w * 1_000_000 + i * 100 + k, i)), meta: [], opts: {} });
        writes++;
        if (ledger.tree && ledger.tree.t > 0 && busyAtPublish === null) { busyAtPublish = ledger.writes.busy; stop = true; }
      }
    };
    await Promise.all([0, 1, 2, 3].map(writer));
    expect(stop).toBe(true); // an index was published before the deadline
    expect(busyAtPublish).toBe(true); // ... while writes were still running
    const indexedT = ledger.tree!.t;
    expect(indexedT).toBeGreaterThan(0);
    expect(indexedT).toBeLessThan(ledger.t);
    // Everything written reads back (index plus novelty) once the writers stopped.
    await conn.idle();
    const db = await ledger.db();
    let n = 0;
    for await (const b of db.scan({ g: 0 })) n += b.n;
    expect(n).toBe(writes * 100);
    await conn.close();
  }, 90_000);
});
