/**
 * Browser checks of the engine itself: a Connection over IndexedDB creates a ledger, commits,
 * indexes in the background, answers at every t, and a second Connection reopens it.
 */
import { Connection } from '../src/core/ledger/connection.js';
import type { Db } from '../src/core/ledger/db.js';
import { defaultGraph, literal, namedNode } from '../src/core/rdf/terms.js';
import { xsd } from '../src/core/rdf/vocab.js';
import type { TxnQuad } from '../src/core/transact/txn-request.js';
import { IdbContentStore, IdbNameService } from '../src/storage/indexeddb-store.js';

async function facts(db: Db): Promise<string[]> {
  const out: string[] = [];
  for await (const b of db.scan({ g: 0 })) for (let i = 0; i < b.n; i++) out.push(`${db.dict.key(b.s[i]!)} ${db.dict.key(b.o[i]!)}`);
  return out.sort();
}

function eq(a: unknown, b: unknown, what: string): void {
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: expected ${JSON.stringify(b)}, got ${JSON.stringify(a)}`);
}

/** Named checks for the self-test. */
export const ledgerChecks: Array<[string, () => Promise<void>]> = [
  ['ledger on IndexedDB: commits, background index, time travel, reopen', async () => {
    const name = `ledger-${crypto.randomUUID()}`;
    const open = () => new Connection({ content: new IdbContentStore(name), ns: new IdbNameService(name) }, { reindexMinBytes: 300 });
    const conn = open();
    await conn.create('web/demo');
    const q = (i: number): TxnQuad => ({ subject: namedNode(`http://ex.org/s${i % 4}`), predicate: namedNode('http://ex.org/v'), object: literal(String(i), namedNode(xsd.integer)), graph: defaultGraph });
    const seen: string[][] = [];
    for (let t = 1; t <= 8; t++) {
      const r = await conn.transact('web/demo', { kind: 'upsert', quads: [q(t)], meta: [], opts: {} });
      eq(r.t, t, 'receipt t');
      seen.push(await facts(await conn.db('web/demo')));
    }
    await conn.idle();
    const ledger = await conn.ledger('web/demo');
    if (!ledger.tree) throw new Error('expected a published index after background indexing');
    for (let t = 1; t <= 8; t++) eq(await facts(await conn.db(`web/demo@t:${t}`)), seen[t - 1], `facts at t ${t}`);
    const again = open();
    for (let t = 1; t <= 8; t++) eq(await facts(await again.db(`web/demo@t:${t}`)), seen[t - 1], `reopened facts at t ${t}`);
    eq((await again.ledger('web/demo')).head, ledger.head, 'reopened head');
  }],
];
