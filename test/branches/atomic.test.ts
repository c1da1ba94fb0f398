/**
 * Atomicity of merge, rebase and revert (branches.md §1): a failure injected at each storage call
 * an operation makes (every content-store read and write and the nameservice compare-and-set)
 * leaves the branch exactly as it was — record, head, state and log — and the operation then
 * succeeds on retry with the same outcome as a run without failures.
 */
import { describe, expect, it } from 'vitest';
import type { CID } from 'multiformats/cid';
import { Connection } from '../../src/core/ledger/connection.js';
import { MemoryContentStore, MemoryNameService } from '../../src/storage/index.js';
import { createBranch } from '../../src/core/branch/fork.js';
import { mergeBranches } from '../../src/core/branch/merge.js';
import { rebaseBranch } from '../../src/core/branch/rebase.js';
import { revertCommits } from '../../src/core/branch/revert.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { xsd } from '../../src/core/rdf/vocab.js';
import type { NsRecord } from '../../src/core/store.js';
import type { TxnQuad } from '../../src/core/transact/txn-request.js';

/** A store that fails its N-th call (counting reads, writes and compare-and-sets) when armed. */
class Faults {
  calls = 0;
  failAt = 0;
  tick(what: string): void {
    this.calls++;
    if (this.failAt > 0 && this.calls === this.failAt) throw new Error(`injected failure at call ${this.calls} (${what})`);
  }
}
class FaultyContent extends MemoryContentStore {
  constructor(readonly f: Faults) { super(); }
  override async put(codec: number, bytes: Uint8Array): Promise<CID> { this.f.tick('put'); return super.put(codec, bytes); }
  override async putWithCid(cid: CID, bytes: Uint8Array): Promise<void> { this.f.tick('putWithCid'); return super.putWithCid(cid, bytes); }
  override async get(cid: CID): Promise<Uint8Array> { this.f.tick('get'); return super.get(cid); }
  override async has(cid: CID): Promise<boolean> { this.f.tick('has'); return super.has(cid); }
}
class FaultyNs extends MemoryNameService {
  constructor(readonly f: Faults) { super(); }
  override async compareAndSet(id: string, expected: NsRecord | null, next: NsRecord): Promise<boolean> { this.f.tick('compareAndSet'); return super.compareAndSet(id, expected, next); }
}

const EX = 'http://example.org/';
const q = (s: string, p: string, o: number): TxnQuad => ({ subject: namedNode(EX + s), predicate: namedNode(EX + p), object: literal(String(o), namedNode(xsd.integer)), graph: { termType: 'DefaultGraph', value: '' } });
const upsert = (...quads: TxnQuad[]) => ({ kind: 'upsert' as const, quads, meta: [], opts: {} });

/** main and dev diverged on widget/stock (as §12 step 5), plus a later main commit. */
async function scenario(): Promise<{ conn: Connection; f: Faults }> {
  const f = new Faults();
  const conn = new Connection({ content: new FaultyContent(f), ns: new FaultyNs(f) }, { indexingEnabled: false });
  await conn.create('inv');
  await conn.transact('inv', upsert(q('widget', 'stock', 10), q('widget', 'size', 1)));
  await createBranch(conn, 'inv', 'dev', 'main', undefined);
  await conn.transact('inv:dev', upsert(q('widget', 'stock', 8)));
  await conn.transact('inv:dev', upsert(q('gadget', 'stock', 1)));
  await conn.transact('inv:main', upsert(q('widget', 'stock', 12)));
  await conn.transact('inv:main', upsert(q('widget', 'size', 2)));
  return { conn, f };
}

async function snapshot(conn: Connection, id: string): Promise<unknown> {
  const rec = await conn.ns.get(id);
  const ledger = await conn.ledger(id);
  const facts: string[][] = [];
  for (let t = 0; t <= ledger.t; t++) {
    const db = await ledger.db({ kind: 't', t });
    const out: string[] = [];
    for await (const b of db.scan({ g: 0 })) for (let i = 0; i < b.n; i++) out.push([b.s[i], b.p[i], b.o[i]].map((x) => db.dict.key(x!)).join(' '));
    facts.push(out.sort());
  }
  // A fresh connection over the same storage sees the same.
  const other = new Connection({ content: conn.content, ns: conn.ns }, { indexingEnabled: false });
  const l2 = await other.ledger(id);
  return { rec, head: ledger.head, t: ledger.t, facts, freshHead: l2.head.cid, dict: ledger.dict.size };
}

const OPS: [string, string, (c: Connection) => Promise<unknown>][] = [
  ['merge commit', 'inv:main', (c) => mergeBranches(c, 'inv', 'dev', undefined, 'take-source')],
  ['rebase with replays', 'inv:dev', (c) => rebaseBranch(c, 'inv', 'dev', 'take-branch')],
  ['revert', 'inv:main', (c) => revertCommits(c, 'inv', 'main', { commits: ['t:1', 't:3'] }, 'take-source')],
  ['fast-forward merge', 'inv:main', async (c) => { await rebaseBranch(c, 'inv', 'dev', 'take-both'); await c.ledger('inv:main'); return mergeBranches(c, 'inv', 'dev', undefined, 'take-both'); }],
];

describe('a failure at any step leaves the branch as it was', () => {
  for (const [name, target, op] of OPS) {
    it(name, async () => {
      // A clean run: its outcome and how many storage calls it makes.
      const clean = await scenario();
      await snapshot(clean.conn, target); // as the runs below do: warms the same caches
      const start = clean.f.calls;
      const expected = await op(clean.conn);
      const total = clean.f.calls - start;
      const after = await snapshot(clean.conn, target);
      expect(total).toBeGreaterThan(3);
      let failures = 0;
      for (let k = 1; k <= total; k++) {
        const { conn, f } = await scenario();
        const before = await snapshot(conn, target);
        f.failAt = f.calls + k;
        const err = await op(conn).then(() => null, (e: unknown) => e);
        f.failAt = 0;
        if (err === null) continue;
        failures++;
        expect(await snapshot(conn, target), `failure at call ${k} of ${total}`).toEqual(before);
        // Retrying succeeds with the clean outcome (CIDs differ only by commit time, so compare shapes).
        const again = await op(conn) as Record<string, unknown>;
        expect(Object.keys(again).sort()).toEqual(Object.keys(expected as object).sort());
        const snap = await snapshot(conn, target) as { facts: unknown; t: number };
        expect([snap.t, snap.facts]).toEqual([(after as { t: number }).t, (after as { facts: unknown }).facts]);
      }
      expect(failures).toBe(total);
    });
  }
});
