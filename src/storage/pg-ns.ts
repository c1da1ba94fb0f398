/**
 * The PostgreSQL NameService (Node, `pg`): one row per `name:branch`, compare-and-set as one
 * conditional UPDATE (or INSERT … ON CONFLICT DO NOTHING) that also appends to a change log, in one
 * statement and one round trip, and a change feed over LISTEN/NOTIFY backed by that log (pg-feed.ts),
 * so a subscriber that missed a NOTIFY (dropped connection, restart) re-reads what it missed.
 *
 * Throughput: no lock is held across a commit, so compare-and-sets of different records from a
 * pool of connections commit concurrently and PostgreSQL merges their WAL flushes (group commit).
 * The NOTIFY is therefore not part of the compare-and-set's transaction: PostgreSQL serializes
 * notifying transactions on one lock held through their commit's WAL flush, which would undo the
 * grouping. It is sent right after, coalesced, in a transaction of its own that need not wait for
 * its flush (it carries no data: listeners re-read the log, and the poll covers a lost one).
 */
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { isLedgraphError, storageError } from '../core/errors.js';
import type { NameService, NsChange, NsRecord } from '../core/store.js';
import { ChangeFeed, byLedgerId, changeKind, checkRecord, cloneRecord } from './memory-store.js';
import { PgFeed } from './pg-feed.js';
import { ident, literal, retryRead } from './pg-util.js';

/** Options of the PostgreSQL nameservice. */
export interface PgNameServiceOptions {
  /** Schema holding the tables (created when missing); default `ledgraph`. */
  schema?: string;
  /** Pool size; default 16 (compare-and-sets of different records commit concurrently, one per connection). */
  maxConnections?: number;
  /** Re-read the change log this often even without a NOTIFY (ms); default 5000. */
  pollMs?: number;
  /** First delay before reconnecting the LISTEN connection (ms, doubled up to 5 s); default 100. */
  reconnectDelayMs?: number;
  /** Change-log rows older than this are pruned (ms); default one hour. */
  changeRetentionMs?: number;
}

/** The schema migrations, in order; `schema_version` records how many have run. */
const MIGRATIONS: ((s: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.records (
      ledger_id text PRIMARY KEY,
      commit_head_id text, commit_t bigint NOT NULL,
      index_head_id text, index_t bigint NOT NULL,
      retracted boolean NOT NULL, branches integer NOT NULL,
      record jsonb NOT NULL);
    CREATE TABLE ${s}.changes (
      seq bigserial PRIMARY KEY, ledger_id text NOT NULL, kind text NOT NULL,
      record jsonb, origin text NOT NULL, at timestamptz NOT NULL DEFAULT now());
    CREATE INDEX ON ${s}.changes (at);`,
  // The writing transaction's id, for the feed's snapshot cursor (pg-feed.ts).
  (s) => `
    ALTER TABLE ${s}.changes ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
    CREATE INDEX ON ${s}.changes (xid);`,
];

const fail = (what: string, e: unknown) => (isLedgraphError(e) ? e : storageError(`nameservice (PostgreSQL): ${what}: ${(e as Error).message}`));

/**
 * Nameservice records in PostgreSQL. A compare-and-set is one autocommit statement: the record's
 * conditional write and its change-log row commit together, durably, before it is acknowledged.
 */
export class PgNameService implements NameService {
  private readonly pool: pg.Pool;
  private readonly s: string;
  private readonly channel: string;
  private readonly lockKey: string;
  private readonly origin = randomUUID();
  private readonly changes: PgFeed;
  private readonly feed = new ChangeFeed((active) => this.changes.watching(active));
  private readonly retentionMs: number;
  private readonly notifySql: string;
  private notifying: Promise<void> | null = null;
  private notifyAgain = false;
  private readonly background = new Set<Promise<unknown>>();
  private writes = 0;

  private constructor(connectionString: string, readonly schema: string, opts: PgNameServiceOptions) {
    this.pool = new pg.Pool({ connectionString, max: opts.maxConnections ?? 16 });
    // An idle pooled connection dropped by the server must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
    this.s = ident(schema);
    this.channel = `ledgraph_ns_${schema}`.slice(0, 63);
    this.lockKey = `ledgraph_ns:${schema}`;
    this.retentionMs = opts.changeRetentionMs ?? 3_600_000;
    // Asynchronous commit is safe here: a NOTIFY carries only who wrote (so a server ignores its
    // own), and losing one costs a poll's delay.
    this.notifySql = `BEGIN; SET LOCAL synchronous_commit = off; SELECT pg_notify(${literal(this.channel)}, ${literal(this.origin)}); COMMIT`;
    this.changes = new PgFeed({
      pool: this.pool, connectionString, s: this.s, channel: this.channel, origin: this.origin,
      pollMs: opts.pollMs ?? 5000, reconnectMs: opts.reconnectDelayMs ?? 100, retentionMs: this.retentionMs,
      emit: (c) => this.feed.emit(c), list: () => this.list(),
    });
  }

  /** Connect, create or migrate the schema, and return the nameservice. */
  static async open(connectionString: string, opts: PgNameServiceOptions = {}): Promise<PgNameService> {
    const ns = new PgNameService(connectionString, opts.schema ?? 'ledgraph', opts);
    try {
      await ns.migrate();
    } catch (e) {
      await ns.pool.end().catch(() => {});
      throw fail(`cannot open ${redact(connectionString)}`, e);
    }
    return ns;
  }

  private async migrate(): Promise<void> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      // Several servers may start at once: one migrates, the others wait and then see it done.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.lockKey + ':migrate']);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.s}`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${this.s}.schema_version (version integer NOT NULL)`);
      const { rows } = await c.query<{ version: number }>(`SELECT version FROM ${this.s}.schema_version`);
      const version = rows[0]?.version ?? 0;
      if (version > MIGRATIONS.length) {
        throw storageError(`nameservice schema ${this.schema} is at version ${version}, newer than this server knows (${MIGRATIONS.length})`);
      }
      for (let v = version; v < MIGRATIONS.length; v++) await c.query(MIGRATIONS[v]!(this.s));
      if (rows.length === 0) await c.query(`INSERT INTO ${this.s}.schema_version VALUES ($1)`, [MIGRATIONS.length]);
      else await c.query(`UPDATE ${this.s}.schema_version SET version = $1`, [MIGRATIONS.length]);
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  /** A read, retried when the connection (not the statement) failed, e.g. after a server restart. */
  private async read<R extends pg.QueryResultRow>(what: string, sql: string, params: unknown[]): Promise<R[]> {
    try {
      return await retryRead(async () => (await this.pool.query<R>(sql, params)).rows);
    } catch (e) {
      throw fail(what, e);
    }
  }

  /** The record, or null. */
  async get(ledgerId: string): Promise<NsRecord | null> {
    const rows = await this.read<{ record: NsRecord }>(`cannot read ${ledgerId}`, `SELECT record FROM ${this.s}.records WHERE ledger_id = $1`, [ledgerId]);
    return rows[0]?.record ?? null;
  }

  /** Every record, sorted by ledger id (code-unit order, as the other nameservices). */
  async list(): Promise<NsRecord[]> {
    const rows = await this.read<{ record: NsRecord }>('cannot list records', `SELECT record FROM ${this.s}.records`, []);
    return rows.map((r) => r.record).sort(byLedgerId);
  }

  /** Replace the record when the stored version equals `expected`: one conditional UPDATE (or INSERT). */
  async compareAndSet(ledgerId: string, expected: NsRecord | null, next: NsRecord): Promise<boolean> {
    checkRecord(ledgerId, next);
    const stored = cloneRecord(next);
    // A successful CAS means the stored version equalled `expected`, and the change kind depends
    // only on version fields, so it is computed from `expected` without reading the old row.
    const kind = changeKind(expected === null ? null : { ...expected, ledger_id: ledgerId }, stored);
    const cols = [stored.commit_head_id, stored.commit_t, stored.index_head_id, stored.index_t, stored.retracted, stored.branches ?? 0, JSON.stringify(stored)];
    const write = expected === null
      ? `INSERT INTO ${this.s}.records (ledger_id, commit_head_id, commit_t, index_head_id, index_t, retracted, branches, record)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (ledger_id) DO NOTHING RETURNING ledger_id, record`
      : `UPDATE ${this.s}.records SET commit_head_id = $2, commit_t = $3, index_head_id = $4, index_t = $5,
           retracted = $6, branches = $7, record = $8
         WHERE ledger_id = $1 AND commit_head_id IS NOT DISTINCT FROM $9 AND commit_t = $10
           AND index_head_id IS NOT DISTINCT FROM $11 AND index_t = $12 AND retracted = $13 AND branches = $14
           AND (record->>'default_context') IS NOT DISTINCT FROM $15
         RETURNING ledger_id, record`;
    const params = expected === null ? [ledgerId, ...cols]
      : [ledgerId, ...cols, expected.commit_head_id, expected.commit_t, expected.index_head_id, expected.index_t, expected.retracted, expected.branches ?? 0, expected.default_context ?? null];
    const done = await this.change(`cannot update ${ledgerId}`, write, params, kind);
    if (done) this.feed.emit({ ledger_id: ledgerId, kind, record: cloneRecord(stored) });
    return done;
  }

  /** Purge a record; true when it existed. */
  async delete(ledgerId: string): Promise<boolean> {
    const done = await this.change(`cannot delete ${ledgerId}`,
      `DELETE FROM ${this.s}.records WHERE ledger_id = $1 RETURNING ledger_id, NULL::jsonb AS record`, [ledgerId], 'delete');
    if (done) this.feed.emit({ ledger_id: ledgerId, kind: 'delete', record: null });
    return done;
  }

  /**
   * Run one record change and log it, as one statement (its own transaction, committed durably
   * before this resolves), then announce it. Not retried on a lost connection: it may have committed.
   */
  private async change(what: string, write: string, params: unknown[], kind: NsChange['kind']): Promise<boolean> {
    const n = params.length;
    const sql = `WITH w AS (${write})
      INSERT INTO ${this.s}.changes (ledger_id, kind, record, origin) SELECT ledger_id, $${n + 1}, record, $${n + 2} FROM w RETURNING seq`;
    let rows: unknown[];
    try {
      rows = (await this.pool.query(sql, [...params, kind, this.origin])).rows;
    } catch (e) {
      throw fail(what, e);
    }
    if (rows.length === 0) return false;
    this.announce();
    if (++this.writes % 256 === 0) {
      this.track(this.pool.query(`DELETE FROM ${this.s}.changes WHERE at < now() - make_interval(secs => $1)`, [this.retentionMs / 1000]));
    }
    return true;
  }

  /**
   * NOTIFY the other servers that the log grew. Coalesced: one NOTIFY in flight at a time, and one
   * more after it when changes committed meanwhile (so every change is followed by a NOTIFY sent after its commit).
   */
  private announce(): void {
    if (this.notifying) { this.notifyAgain = true; return; }
    this.notifying = this.pool.query(this.notifySql).then(() => {}, () => {}).finally(() => {
      this.notifying = null;
      if (this.notifyAgain) { this.notifyAgain = false; this.announce(); }
    });
  }

  private track(p: Promise<unknown>): void {
    const q = p.catch(() => {}).finally(() => this.background.delete(q));
    this.background.add(q);
  }

  /** Hear every change, by this instance at once and by other servers through LISTEN/NOTIFY and the change log. */
  subscribe(listener: (change: NsChange) => void): () => void {
    return this.feed.subscribe(listener);
  }

  /** Re-read the change log now (what a NOTIFY or a reconnect triggers); resolves when delivered. */
  refresh(): Promise<void> {
    return this.changes.refresh();
  }

  /** Stop listening, drop subscribers, send the last NOTIFY, close the pool. */
  async close(): Promise<void> {
    this.feed.clear();
    await this.changes.idle();
    while (this.notifying) await this.notifying;
    await Promise.all([...this.background]);
    await this.pool.end().catch(() => {});
  }

  /** Times the LISTEN connection was re-established (tests and /status read it). */
  get reconnects(): number {
    return this.changes.reconnects;
  }

  /** The server process id of the LISTEN connection (tests terminate it to simulate a network drop). */
  get listenerPid(): number | null {
    return this.changes.listenerPid;
  }
}

/** A connection string without its password, for messages. */
export function redact(connectionString: string): string {
  return connectionString.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

