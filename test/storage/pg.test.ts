/**
 * The PostgreSQL nameservice against a real PostgreSQL (a throwaway cluster this file starts and
 * stops): the storage contract, two writers racing on one ledger, a NOTIFY lost across a reconnect,
 * a server restart mid-run, and schema migration.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NsChange } from '../../src/core/store.js';
import { MemoryContentStore } from '../../src/storage/memory-store.js';
import { PgNameService, redact } from '../../src/storage/pg-ns.js';
import { rec, rejection, storageContract } from './contract.js';
import { pgUnavailable, startPgCluster, type PgCluster } from './pg-cluster.js';

const why = pgUnavailable();
if (why) console.warn(`\n!!! SKIPPING PostgreSQL nameservice tests: ${why}\n`);

let cluster: PgCluster;
let schemas = 0;
const schema = () => `t${process.pid}_${++schemas}`;

/** Wait until `cond` holds (polling), failing after `ms`. */
async function until(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(why !== null)('PostgreSQL nameservice', () => {
  beforeAll(async () => { cluster = await startPgCluster(); }, 120_000);
  afterAll(async () => { await cluster?.stop(); });

  storageContract('postgresql', async () => {
    const objects = new Map<string, Uint8Array>();
    const ns = await PgNameService.open(cluster.url, { schema: schema() });
    return {
      content: new MemoryContentStore(objects),
      ns,
      tamper: async (cid, bytes) => { objects.set(cid.toString(), bytes); },
      settle: () => ns.refresh(),
      cleanup: async () => {},
    };
  });

  describe('across servers', () => {
    const open: PgNameService[] = [];
    afterEach(async () => { for (const ns of open.splice(0)) await ns.close(); });
    const openNs = async (s: string, opts = {}) => {
      const ns = await PgNameService.open(cluster.url, { schema: s, ...opts });
      open.push(ns);
      return ns;
    };

    it('two writers racing on one ledger: every acknowledged write is in the feed, t contiguous', async () => {
      const s = schema();
      const [a, b, watcher] = [await openNs(s), await openNs(s), await openNs(s)];
      const seen: NsChange[] = [];
      watcher.subscribe((c) => seen.push(c));
      await until(() => watcher.listenerPid !== null);
      await a.compareAndSet('hr:main', null, rec('hr:main'));
      const acked: { t: number; head: string }[] = [];
      const writer = async (ns: PgNameService, name: string, n: number) => {
        for (let i = 0; i < n;) {
          const cur = (await ns.get('hr:main'))!;
          const next = { ...cur, commit_head_id: `${name}-${i}`, commit_t: cur.commit_t + 1 };
          if (await ns.compareAndSet('hr:main', cur, next)) {
            acked.push({ t: next.commit_t, head: next.commit_head_id });
            i++;
          }
        }
      };
      await Promise.all([writer(a, 'a', 40), writer(b, 'b', 40)]);
      expect((await a.get('hr:main'))!.commit_t).toBe(80);
      expect(acked.map((x) => x.t).sort((x, y) => x - y)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      await until(() => seen.length === 81);
      await watcher.refresh();
      expect(seen[0]).toMatchObject({ kind: 'create' });
      const commits = seen.slice(1);
      expect(commits.every((c) => c.kind === 'commit')).toBe(true);
      expect(commits.map((c) => c.record!.commit_t)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      const byT = new Map(commits.map((c) => [c.record!.commit_t, c.record!.commit_head_id]));
      for (const w of acked) expect(byT.get(w.t)).toBe(w.head);
    });

    it('a NOTIFY lost while the LISTEN connection is down is detected and repaired on reconnect', async () => {
      const s = schema();
      const writer = await openNs(s);
      const reader = await openNs(s, { reconnectDelayMs: 400, pollMs: 600_000 });
      const seen: NsChange[] = [];
      reader.subscribe((c) => seen.push(c));
      await until(() => reader.listenerPid !== null);
      await writer.compareAndSet('hr:main', null, rec('hr:main'));
      await until(() => seen.length === 1);

      // Drop the reader's LISTEN connection server-side, then write while it is away: that NOTIFY
      // goes nowhere, and polling is effectively off, so only the re-read on reconnect can find it.
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [reader.listenerPid]);
      await admin.end();
      await until(() => reader.listenerPid === null, 2000);
      const r1 = rec('hr:main', { commit_head_id: 'bag1', commit_t: 1 });
      expect(await writer.compareAndSet('hr:main', rec('hr:main'), r1)).toBe(true);
      expect(seen.length).toBe(1);

      await until(() => seen.length === 2);
      expect(reader.reconnects).toBeGreaterThanOrEqual(1);
      expect(seen[1]).toEqual({ ledger_id: 'hr:main', kind: 'commit', record: r1 });
      // And the feed keeps working live after the repair.
      expect(await writer.delete('hr:main')).toBe(true);
      await until(() => seen.length === 3);
      expect(seen[2]).toEqual({ ledger_id: 'hr:main', kind: 'delete', record: null });
    });

    it('survives a PostgreSQL restart mid-run: reads, writes and the feed carry on', async () => {
      const s = schema();
      const writer = await openNs(s);
      const reader = await openNs(s, { reconnectDelayMs: 100, pollMs: 600_000 });
      const seen: NsChange[] = [];
      reader.subscribe((c) => seen.push(c));
      await until(() => reader.listenerPid !== null);
      await writer.compareAndSet('hr:main', null, rec('hr:main'));
      await until(() => seen.length === 1);

      await cluster.restart();
      expect(await reader.get('hr:main')).toEqual(rec('hr:main'));
      const r1 = rec('hr:main', { commit_head_id: 'bag1', commit_t: 1 });
      expect(await writer.compareAndSet('hr:main', rec('hr:main'), r1)).toBe(true);
      await until(() => seen.length === 2);
      expect(seen[1]).toEqual({ ledger_id: 'hr:main', kind: 'commit', record: r1 });
      expect(reader.reconnects).toBeGreaterThanOrEqual(1);
      expect((await writer.list()).map((r) => r.commit_t)).toEqual([1]);
    }, 60_000);

    it('no lock across commits: a write waiting on one ledger does not hold up another ledger', async () => {
      const s = schema();
      const [x, y] = [await openNs(s), await openNs(s)];
      await x.compareAndSet('a:main', null, rec('a:main'));
      await x.compareAndSet('b:main', null, rec('b:main'));
      // Another session holds a:main's row lock, so x's compare-and-set of a:main waits on it.
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query(`BEGIN; SELECT 1 FROM "${s}".records WHERE ledger_id = 'a:main' FOR UPDATE`);
      const a1 = rec('a:main', { commit_head_id: 'a1', commit_t: 1 });
      let aDone = false;
      const waiting = x.compareAndSet('a:main', rec('a:main'), a1).then((ok) => { aDone = true; return ok; });
      await new Promise((r) => setTimeout(r, 200));
      expect(await y.compareAndSet('b:main', rec('b:main'), rec('b:main', { commit_head_id: 'b1', commit_t: 1 }))).toBe(true);
      expect(aDone).toBe(false);
      await admin.query('COMMIT');
      await admin.end();
      expect(await waiting).toBe(true);
      expect(await y.get('a:main')).toEqual(a1);
    });

    it('a change that commits after a later-numbered one is still delivered (the feed cursor is a snapshot)', async () => {
      const s = schema();
      const writer = await openNs(s);
      const watcher = await openNs(s, { pollMs: 600_000 });
      const seen: NsChange[] = [];
      watcher.subscribe((c) => seen.push(c));
      await until(() => watcher.listenerPid !== null);
      await writer.compareAndSet('b:main', null, rec('b:main'));
      await until(() => seen.length === 1);
      // A writer's transaction takes its change-log sequence number and stays open...
      const slow = new pg.Client({ connectionString: cluster.url });
      await slow.connect();
      const late = rec('a:main');
      await slow.query('BEGIN');
      const { rows } = await slow.query(`INSERT INTO "${s}".changes (ledger_id, kind, record, origin) VALUES ('a:main', 'create', $1, 'elsewhere') RETURNING seq`, [JSON.stringify(late)]);
      // ...while a later-numbered change commits and is delivered.
      const b1 = rec('b:main', { commit_head_id: 'b1', commit_t: 1 });
      expect(await writer.compareAndSet('b:main', rec('b:main'), b1)).toBe(true);
      await until(() => seen.length === 2);
      await watcher.refresh();
      expect(seen[1]).toEqual({ ledger_id: 'b:main', kind: 'commit', record: b1 });
      const after = await slow.query(`SELECT max(seq) AS seq FROM "${s}".changes`);
      expect(Number(after.rows[0].seq)).toBeGreaterThan(Number(rows[0].seq));
      // The early number commits last: a cursor of "last sequence number seen" would skip it.
      await slow.query(`COMMIT; NOTIFY "ledgraph_ns_${s}"`);
      await slow.end();
      await until(() => seen.length === 3);
      expect(seen[2]).toEqual({ ledger_id: 'a:main', kind: 'create', record: late });
      await watcher.refresh();
      expect(seen.length).toBe(3);
    });

    it('a feed cursor older than half the log retention announces every record as it is now', async () => {
      const s = schema();
      const writer = await openNs(s);
      const watcher = await openNs(s, { pollMs: 600_000, changeRetentionMs: 2000 });
      await writer.compareAndSet('a:main', null, rec('a:main'));
      const seen: NsChange[] = [];
      watcher.subscribe((c) => seen.push(c));
      await until(() => watcher.listenerPid !== null);
      await new Promise((r) => setTimeout(r, 1200)); // the cursor ages past 1 s: rows it missed may be pruned
      const b = rec('b:main');
      await writer.compareAndSet('b:main', null, b);
      await until(() => seen.length >= 3);
      await watcher.refresh();
      expect(seen).toEqual([
        { ledger_id: 'a:main', kind: 'update', record: rec('a:main') },
        { ledger_id: 'b:main', kind: 'update', record: b },
        { ledger_id: 'b:main', kind: 'create', record: b },
      ]);
    });

    it('concurrent writers on many ledgers: a watcher hears every change exactly once, each ledger in order', async () => {
      const s = schema();
      const writers = [await openNs(s), await openNs(s)];
      const watcher = await openNs(s);
      const seen: NsChange[] = [];
      watcher.subscribe((c) => seen.push(c));
      await until(() => watcher.listenerPid !== null);
      const ledgers = Array.from({ length: 12 }, (_, i) => `l${i}:main`);
      const N = 15;
      await Promise.all(ledgers.map(async (id, i) => {
        const ns = writers[i % 2]!;
        let cur = rec(id);
        expect(await ns.compareAndSet(id, null, cur)).toBe(true);
        for (let t = 1; t <= N; t++) {
          const next = { ...cur, commit_head_id: `${id}-${t}`, commit_t: t };
          expect(await ns.compareAndSet(id, cur, next)).toBe(true);
          cur = next;
        }
      }));
      await until(() => seen.length === ledgers.length * (N + 1));
      await watcher.refresh();
      expect(seen.length).toBe(ledgers.length * (N + 1));
      for (const id of ledgers) {
        const mine = seen.filter((c) => c.ledger_id === id);
        expect(mine.map((c) => c.record!.commit_t)).toEqual(Array.from({ length: N + 1 }, (_, t) => t));
      }
    });

    it('creates the schema once, reopens it, and refuses a schema newer than it knows', async () => {
      const s = schema();
      const [x, y] = await Promise.all([openNs(s), openNs(s)]);
      await x.compareAndSet('hr:main', null, rec('hr:main'));
      expect(await y.get('hr:main')).toEqual(rec('hr:main'));
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      expect((await admin.query(`SELECT version FROM "${s}".schema_version`)).rows).toEqual([{ version: 2 }]);
      await admin.query(`UPDATE "${s}".schema_version SET version = 99`);
      await admin.end();
      const err = await rejection(PgNameService.open(cluster.url, { schema: s }));
      expect(err.status).toBe(502);
      expect(err.message).toContain('version 99');
    });

    it('migrates a version-1 schema (change log without transaction ids) and keeps its records', async () => {
      const s = schema();
      const x = await openNs(s);
      await x.compareAndSet('hr:main', null, rec('hr:main'));
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      // Back to what version 1 created.
      await admin.query(`ALTER TABLE "${s}".changes DROP COLUMN xid; UPDATE "${s}".schema_version SET version = 1`);
      const y = await openNs(s);
      expect((await admin.query(`SELECT version FROM "${s}".schema_version`)).rows).toEqual([{ version: 2 }]);
      await admin.end();
      const seen: NsChange[] = [];
      y.subscribe((c) => seen.push(c));
      await until(() => y.listenerPid !== null);
      const r1 = rec('hr:main', { commit_head_id: 'c1', commit_t: 1 });
      expect(await x.compareAndSet('hr:main', rec('hr:main'), r1)).toBe(true);
      await until(() => seen.length === 1);
      expect(seen[0]).toEqual({ ledger_id: 'hr:main', kind: 'commit', record: r1 });
    });

    it('an unreachable server is a 502 naming the server without its password', async () => {
      const err = await rejection(PgNameService.open(`postgres://u:secret@127.0.0.1:${cluster.port + 1}/x`, { schema: schema() }));
      expect(err.status).toBe(502);
      expect(err.message).toContain('u:***@127.0.0.1');
      expect(err.message).not.toContain('secret');
      expect(redact('postgres://me:pw@h/db')).toBe('postgres://me:***@h/db');
    });
  });
});
