/**
 * The PostgreSQL NameService (Node, `pg`): one row per `name:branch`, compare-and-set as one
 * conditional UPDATE (or INSERT … ON CONFLICT DO NOTHING), and a change feed over LISTEN/NOTIFY
 * backed by a change log table, so a subscriber that missed a NOTIFY (dropped connection, restart)
 * re-reads the log from the last change it delivered instead of losing it.
 */
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { isLedgraphError, storageError } from '../core/errors.js';
import type { NameService, NsChange, NsRecord } from '../core/store.js';
import { ChangeFeed, byLedgerId, changeKind, checkRecord, cloneRecord } from './memory-store.js';

/** Options of the PostgreSQL nameservice. */
export interface PgNameServiceOptions {
  /** Schema holding the tables (created when missing); default `ledgraph`. */
  schema?: string;
  /** Pool size; default 10. */
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
];

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08003', '08006']);
/** True for errors that mean the connection (not the statement) failed, so a read may be retried. */
function connectionLost(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return (code !== undefined && CONNECTION_CODES.has(code)) || /Connection terminated|not queryable/i.test(String((e as Error).message));
}

const fail = (what: string, e: unknown) => (isLedgraphError(e) ? e : storageError(`nameservice (PostgreSQL): ${what}: ${(e as Error).message}`));
const ident = (name: string) => '"' + name.replace(/"/g, '""') + '"';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface ChangeRow { seq: string; ledger_id: string; kind: NsChange['kind']; record: NsRecord | null; origin: string }

/**
 * Nameservice records in PostgreSQL. Writers serialize on one transaction-scoped advisory lock so
 * change-log sequence numbers commit in order, which is what lets a reader resume from "the last
 * sequence number I delivered" without skipping a change that committed late.
 */
export class PgNameService implements NameService {
  private readonly pool: pg.Pool;
  private readonly s: string;
  private readonly channel: string;
  private readonly lockKey: string;
  private readonly origin = randomUUID();
  private readonly feed = new ChangeFeed((active) => this.watching(active));
  private readonly pollMs: number;
  private readonly reconnectMs: number;
  private readonly retentionMs: number;
  private listener: pg.Client | null = null;
  private active = false;
  private lastSeq = 0;
  private catching: Promise<void> | null = null;
  private again = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private writes = 0;
  private lockId = 0; // hashtext(lockKey), an integer, so BEGIN and the lock go as one simple query
  /** Times the LISTEN connection was re-established (tests and /status read it). */
  reconnects = 0;

  private constructor(private readonly connectionString: string, readonly schema: string, opts: PgNameServiceOptions) {
    this.pool = new pg.Pool({ connectionString, max: opts.maxConnections ?? 10 });
    // An idle pooled connection dropped by the server must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
    this.s = ident(schema);
    this.channel = `ledgraph_ns_${schema}`.slice(0, 63);
    this.lockKey = `ledgraph_ns:${schema}`;
    this.pollMs = opts.pollMs ?? 5000;
    this.reconnectMs = opts.reconnectDelayMs ?? 100;
    this.retentionMs = opts.changeRetentionMs ?? 3_600_000;
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
      this.lockId = Number((await c.query<{ k: number }>('SELECT hashtext($1) AS k', [this.lockKey])).rows[0]!.k);
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  /** A read, retried once when the connection (not the statement) failed, e.g. after a server restart. */
  private async read<R extends pg.QueryResultRow>(what: string, sql: string, params: unknown[]): Promise<R[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.pool.query<R>(sql, params)).rows;
      } catch (e) {
        if (attempt < 2 && connectionLost(e)) { await sleep(50 * (attempt + 1)); continue; }
        throw fail(what, e);
      }
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
   * Run one record change and log it, in one transaction under the writers' advisory lock; the
   * NOTIFY is delivered at commit. Not retried on a lost connection: the change may have committed.
   */
  private async change(what: string, write: string, params: unknown[], kind: NsChange['kind']): Promise<boolean> {
    const n = params.length;
    const sql = `WITH w AS (${write}),
      c AS (INSERT INTO ${this.s}.changes (ledger_id, kind, record, origin) SELECT ledger_id, $${n + 1}, record, $${n + 2} FROM w RETURNING seq)
      SELECT seq, pg_notify($${n + 3}, seq::text) FROM c`;
    let c: pg.PoolClient | undefined;
    try {
      c = await this.pool.connect();
      // One round trip for both (a simple query without parameters; lockId is an integer).
      await c.query(`BEGIN; SELECT pg_advisory_xact_lock(${this.lockId})`);
      const { rows } = await c.query(sql, [...params, kind, this.origin, this.channel]);
      if (rows.length > 0 && ++this.writes % 256 === 0) {
        await c.query(`DELETE FROM ${this.s}.changes WHERE at < now() - make_interval(secs => $1)`, [this.retentionMs / 1000]);
      }
      await c.query('COMMIT');
      return rows.length > 0;
    } catch (e) {
      await c?.query('ROLLBACK').catch(() => {});
      throw fail(what, e);
    } finally {
      c?.release();
    }
  }

  /** Hear every change, by this instance at once and by other servers through LISTEN/NOTIFY and the change log. */
  subscribe(listener: (change: NsChange) => void): () => void {
    return this.feed.subscribe(listener);
  }

  /** Re-read the change log now (what a NOTIFY or a reconnect triggers); resolves when delivered. */
  async refresh(): Promise<void> {
    while (this.catching) await this.catching;
    await this.startCatchUp();
  }

  /** Stop listening, drop subscribers, close the pool. */
  async close(): Promise<void> {
    this.feed.clear();
    this.watching(false);
    await this.catching;
    await this.pool.end().catch(() => {});
  }

  /** The server process id of the LISTEN connection (tests terminate it to simulate a network drop). */
  get listenerPid(): number | null {
    return (this.listener as unknown as { processID?: number } | null)?.processID ?? null;
  }

  private watching(active: boolean): void {
    if (active === this.active) return;
    this.active = active;
    if (active) {
      this.timer = setInterval(() => this.kick(), this.pollMs);
      this.timer.unref?.();
      this.lastSeq = -1; // set from the log's head by the first connect, so only later changes are delivered
      void this.connectListener(this.reconnectMs);
    } else {
      clearInterval(this.timer);
      this.timer = undefined;
      const l = this.listener;
      this.listener = null;
      void l?.end().catch(() => {});
    }
  }

  /** Open the LISTEN connection; on failure or loss retry with backoff, then re-read what was missed. */
  private async connectListener(delayMs: number): Promise<void> {
    if (!this.active) return;
    const client = new pg.Client({ connectionString: this.connectionString });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.listener === client) this.listener = null;
      void client.end().catch(() => {});
      if (this.active) setTimeout(() => { this.reconnects++; void this.connectListener(Math.min(delayMs * 2, 5000)); }, delayMs).unref?.();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', () => this.kick());
    try {
      await client.connect();
      await client.query(`LISTEN ${ident(this.channel)}`);
      if (this.lastSeq < 0) {
        const { rows } = await client.query<{ seq: string }>(`SELECT coalesce(max(seq), 0) AS seq FROM ${this.s}.changes`);
        this.lastSeq = Number(rows[0]!.seq);
      }
    } catch {
      onLost();
      return;
    }
    if (!this.active || lost) { void client.end().catch(() => {}); return; }
    this.listener = client;
    this.kick(); // whatever was committed while no LISTEN was in place
  }

  private kick(): void {
    if (this.catching) { this.again = true; return; }
    this.startCatchUp().catch((e) => console.error('ledgraph: nameservice change feed failed', e));
  }

  private startCatchUp(): Promise<void> {
    const run = this.catchUp();
    this.catching = run.catch(() => {}).finally(() => {
      this.catching = null;
      if (this.again) { this.again = false; if (this.active) this.kick(); }
    });
    return run;
  }

  /** Deliver every logged change after the last delivered one, skipping this instance's own (already emitted). */
  private async catchUp(): Promise<void> {
    if (!this.active || this.lastSeq < 0) return;
    const from = this.lastSeq;
    const oldest = await this.read<{ seq: string | null }>('cannot read the change log', `SELECT min(seq) AS seq FROM ${this.s}.changes`, []);
    const rows = await this.read<ChangeRow>('cannot read the change log',
      `SELECT seq, ledger_id, kind, record, origin FROM ${this.s}.changes WHERE seq > $1 ORDER BY seq LIMIT 10000`, [from]);
    if (this.lastSeq !== from) return; // another catch-up overtook this one
    const first = oldest[0]?.seq == null ? null : Number(oldest[0].seq);
    if (first !== null && first > from + 1 && from > 0) {
      // Behind the log's retention: some changes are gone, so announce every record as it is now.
      for (const record of await this.list()) this.feed.emit({ ledger_id: record.ledger_id, kind: 'update', record });
    }
    for (const r of rows) {
      this.lastSeq = Number(r.seq);
      if (r.origin !== this.origin) this.feed.emit({ ledger_id: r.ledger_id, kind: r.kind, record: r.record });
    }
    if (rows.length === 10000) this.again = true;
  }
}

/** A connection string without its password, for messages. */
export function redact(connectionString: string): string {
  return connectionString.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

