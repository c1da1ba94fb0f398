/**
 * The PostgreSQL nameservice's change feed: LISTEN for a kick, then re-read the change log from a
 * snapshot cursor. Writers do not serialize (their commits group-commit in PostgreSQL), so change
 * sequence numbers do not commit in order and "every row after the last sequence number I saw"
 * could skip a row whose transaction committed late. The cursor is instead the last read's
 * snapshot: every row invisible to it was written by a transaction then in progress (its xid is
 * in the snapshot's in-progress list) or started later (xid ≥ the snapshot's xmax), so the next
 * read selects exactly those rows — each change is delivered once, none skipped.
 */
import pg from 'pg';
import type { NsChange, NsRecord } from '../core/store.js';
import { ident, retryRead } from './pg-util.js';

/** Where the feed has read to: a snapshot's xmax, its in-progress xids, and the database time it was taken. */
export interface FeedCursor { xmax: string; xip: string[]; atMs: number }

/** Parse `pg_current_snapshot()::text` (`xmin:xmax:xip,xip,...`) with the database time it was taken. */
export function parseSnapshot(text: string, atMs: number): FeedCursor {
  const [, xmax, xip] = text.split(':');
  if (xmax === undefined || xip === undefined) throw new Error(`unexpected snapshot ${text}`);
  return { xmax, xip: xip === '' ? [] : xip.split(','), atMs };
}

interface ChangeRow { seq: string; ledger_id: string; kind: NsChange['kind']; record: NsRecord | null }

/** What the feed needs from its nameservice. */
export interface PgFeedOptions {
  pool: pg.Pool;
  connectionString: string;
  /** Quoted schema identifier. */
  s: string;
  channel: string;
  /** This instance's origin: its own changes were emitted when they were made, so the log's copies are skipped. */
  origin: string;
  pollMs: number;
  reconnectMs: number;
  retentionMs: number;
  emit(change: NsChange): void;
  /** Every record now (announced when the cursor is older than the log's retention). */
  list(): Promise<NsRecord[]>;
}

const PAGE = 5000;
const SNAPSHOT = `SELECT pg_current_snapshot()::text AS snap, (extract(epoch FROM now()) * 1000)::float8 AS at`;

/** The LISTEN connection, the poll timer and the snapshot cursor; active while someone subscribes. */
export class PgFeed {
  private listener: pg.Client | null = null;
  private active = false;
  private cursor: FeedCursor | null = null;
  private catching: Promise<void> | null = null;
  private again = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Times the LISTEN connection was re-established. */
  reconnects = 0;

  constructor(private readonly o: PgFeedOptions) {}

  /** The server process id of the LISTEN connection. */
  get listenerPid(): number | null {
    return (this.listener as unknown as { processID?: number } | null)?.processID ?? null;
  }

  /** Re-read the change log now; resolves when delivered. */
  async refresh(): Promise<void> {
    while (this.catching) await this.catching;
    await this.startCatchUp();
  }

  /** Resolves when a catch-up in progress has finished. */
  async idle(): Promise<void> {
    await this.catching;
  }

  /** Start (first subscriber) or stop (last one gone) listening. */
  watching(active: boolean): void {
    if (active === this.active) return;
    this.active = active;
    if (active) {
      this.timer = setInterval(() => this.kick(), this.o.pollMs);
      this.timer.unref?.();
      this.cursor = null; // set by the first connect, so only later changes are delivered
      void this.connectListener(this.o.reconnectMs);
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
    const client = new pg.Client({ connectionString: this.o.connectionString });
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
    // A server's own changes were emitted as they were made: its own NOTIFYs need no re-read.
    client.on('notification', (n) => { if (n.payload !== this.o.origin) this.kick(); });
    try {
      await client.connect();
      await client.query(`LISTEN ${ident(this.o.channel)}`);
      // The first cursor is taken after LISTEN is in place: nothing committed later goes unheard.
      if (!this.cursor) {
        const { rows } = await client.query<{ snap: string; at: number }>(SNAPSHOT);
        this.cursor = parseSnapshot(rows[0]!.snap, rows[0]!.at);
      }
    } catch {
      onLost();
      return;
    }
    if (!this.active || lost) { void client.end().catch(() => {}); return; }
    this.listener = client;
    this.kick(); // whatever was committed while no LISTEN was in place
  }

  /** Schedule a catch-up (coalesced: one runs at a time, and one more after it when kicked meanwhile). */
  kick(): void {
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

  /** Deliver every change the cursor's snapshot did not see, then move the cursor to this read's snapshot. */
  private async catchUp(): Promise<void> {
    if (!this.active || !this.cursor) return;
    const from = this.cursor;
    const { rows, next } = await retryRead(() => this.readSince(from));
    if (this.cursor !== from) return; // another catch-up overtook this one
    if (next.atMs - from.atMs > this.o.retentionMs / 2) {
      // Rows this cursor never saw may have been pruned with the log's retention: announce every record as it is now.
      for (const record of await this.o.list()) this.o.emit({ ledger_id: record.ledger_id, kind: 'update', record });
    }
    this.cursor = next;
    for (const r of rows) this.o.emit({ ledger_id: r.ledger_id, kind: r.kind, record: r.record });
  }

  /** The rows invisible to `from` and visible now, in sequence order, read in one snapshot (paged). */
  private async readSince(from: FeedCursor): Promise<{ rows: ChangeRow[]; next: FeedCursor }> {
    const c = await this.o.pool.connect();
    try {
      const res = await c.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${SNAPSHOT}`) as unknown as pg.QueryResult<{ snap: string; at: number }>[];
      const snap = res[1]!.rows[0]!;
      const rows: ChangeRow[] = [];
      for (let after = '0'; ;) {
        const page = await c.query<ChangeRow>(
          `SELECT seq, ledger_id, kind, record FROM ${this.o.s}.changes
           WHERE (xid >= $1::xid8 OR xid = ANY($2::xid8[])) AND seq > $3 AND origin <> $4 ORDER BY seq LIMIT ${PAGE}`,
          [from.xmax, from.xip, after, this.o.origin]);
        rows.push(...page.rows);
        if (page.rows.length < PAGE) break;
        after = page.rows[page.rows.length - 1]!.seq;
      }
      await c.query('COMMIT');
      return { rows, next: parseSnapshot(snap.snap, snap.at) };
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }
}
