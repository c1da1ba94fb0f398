/**
 * The nameservice event stream's engine (replication.md §10): one subscription to the NameService
 * change feed — the only source of events, so a commit made by another process on the same storage
 * directory produces its event like a local one — fanned out to the `/events` subscribers.
 *
 * Each subscriber is a pull-driven ReadableStream (high-water mark 0: nothing is produced until the
 * socket asks for it) over its own bounded queue. A subscriber that does not read fast enough to
 * keep its queue under `maxQueueBytes` is cut off: its queue is dropped and the stream ends with a
 * `: overflow` comment, so the client reconnects and re-reads the snapshot (events carry full
 * records, so nothing is lost by that). Server memory per subscriber is thus bounded.
 */
import type { NameService, NsChange, NsRecord } from '../../core/store.js';
import { KEEP_ALIVE, ledgerRecordEvent, retractedEvent } from './sse.js';

/** What one subscriber receives (ids normalised to `name:branch`). */
export interface EventsFilter {
  all: boolean;
  ledgers: ReadonlySet<string>;
  graphSources: ReadonlySet<string>;
}

export interface EventsHubOptions {
  /** Interval of `: keep-alive` comments (ms). */
  keepAliveMs: number;
  /** Largest queued, unsent bytes per subscriber before it is cut off (default 1 MiB). */
  maxQueueBytes?: number;
}

/** The final comment of a subscriber cut off for reading too slowly. */
export const OVERFLOW_COMMENT = ': overflow: this client fell behind; reconnect for a fresh snapshot\n\n';

const enc = new TextEncoder();

/** One queued event: its bytes and, for a record event, the version it carries. */
interface Item { bytes: Uint8Array; id?: string; commitT?: number; indexT?: number }

/** One connected `/events` client. */
class Subscriber {
  private queue: Item[] = [];
  private queued = 0;
  /** Records of the snapshot still to send (encoded as the socket asks); null until listed. */
  private snapshot: NsRecord[] | null = null;
  private snapshotAt = 0;
  private wake: (() => void) | null = null;
  private ended = false;
  private overflowed = false;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  readonly stream: ReadableStream<Uint8Array>;

  constructor(readonly filter: EventsFilter, private readonly hub: EventsHub, keepAliveMs: number, private readonly maxBytes: number) {
    this.stream = new ReadableStream<Uint8Array>({
      pull: (ctl) => this.pull(ctl),
      cancel: () => this.end(),
    }, { highWaterMark: 0 });
    this.keepAlive = setInterval(() => this.push({ bytes: KEEP_ALIVE_BYTES }), keepAliveMs);
    this.keepAlive.unref?.();
  }

  /** True when this subscriber wants events about a ledger. */
  wantsLedger(id: string): boolean {
    return this.filter.all || this.filter.ledgers.has(id);
  }

  /** The snapshot: matching live records sorted by id; drops queued record events it already covers. */
  setSnapshot(records: NsRecord[]): void {
    const seen = new Map<string, NsRecord>();
    const mine: NsRecord[] = [];
    for (const r of records) {
      if (r.retracted || !this.wantsLedger(r.ledger_id)) continue;
      seen.set(r.ledger_id, r);
      mine.push(r);
    }
    mine.sort((a, b) => (a.ledger_id < b.ledger_id ? -1 : a.ledger_id > b.ledger_id ? 1 : 0));
    this.queue = this.queue.filter((it) => {
      const s = it.id === undefined ? undefined : seen.get(it.id);
      if (!s) return true;
      const older = it.commitT! < s.commit_t || (it.commitT === s.commit_t && it.indexT! <= s.index_t);
      if (older) this.queued -= it.bytes.length;
      return !older;
    });
    this.snapshot = mine;
    this.signal();
  }

  /** Queue an item; cut the subscriber off when its queue passes the bound. */
  push(item: Item): void {
    if (this.ended || this.overflowed) return;
    this.queue.push(item);
    this.queued += item.bytes.length;
    if (this.queued > this.maxBytes) {
      this.overflowed = true;
      this.queue = [];
      this.queued = 0;
      clearInterval(this.keepAlive);
      this.hub.remove(this);
    }
    this.signal();
  }

  /** End the stream (server shutdown or client gone). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.keepAlive);
    this.hub.remove(this);
    this.signal();
  }

  private signal(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** Hand the socket everything pending as one chunk, or wait until there is something. */
  private async pull(ctl: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    for (;;) {
      if (this.overflowed) {
        ctl.enqueue(OVERFLOW_BYTES);
        this.end();
        closeQuietly(ctl);
        return;
      }
      if (this.snapshot !== null) {
        // The snapshot goes out in chunks of about SNAPSHOT_CHUNK bytes, encoded only as the socket
        // asks, so a large nameservice is never held encoded; live changes follow it.
        if (this.snapshotAt < this.snapshot.length) {
          const items: Item[] = [];
          let size = 0;
          while (this.snapshotAt < this.snapshot.length && size < SNAPSHOT_CHUNK) {
            const it = recordItem(this.snapshot[this.snapshotAt++]!);
            items.push(it);
            size += it.bytes.length;
          }
          ctl.enqueue(concat(items));
          return;
        }
        const items = this.queue;
        this.queue = [];
        this.queued = 0;
        // On shutdown what is already queued still goes out, then the stream ends.
        if (items.length > 0) ctl.enqueue(concat(items));
        if (this.ended) closeQuietly(ctl);
        if (items.length > 0 || this.ended) return;
      } else if (this.ended) {
        closeQuietly(ctl);
        return;
      }
      await new Promise<void>((ok) => { this.wake = ok; });
    }
  }
}

/** Close a stream that the client may already have cancelled. */
function closeQuietly(ctl: ReadableStreamDefaultController<Uint8Array>): void {
  try { ctl.close(); } catch { /* already closed or cancelled */ }
}

const KEEP_ALIVE_BYTES = enc.encode(KEEP_ALIVE);
/** Bytes of snapshot events handed to the socket per pull. */
const SNAPSHOT_CHUNK = 64 * 1024;
const OVERFLOW_BYTES = enc.encode(OVERFLOW_COMMENT);

function recordItem(r: NsRecord): Item {
  return { bytes: enc.encode(ledgerRecordEvent(r)), id: r.ledger_id, commitT: r.commit_t, indexT: r.index_t };
}

function concat(items: Item[]): Uint8Array {
  if (items.length === 1) return items[0]!.bytes;
  let n = 0;
  for (const it of items) n += it.bytes.length;
  const out = new Uint8Array(n);
  let off = 0;
  for (const it of items) { out.set(it.bytes, off); off += it.bytes.length; }
  return out;
}

/** Fans the NameService change feed out to `/events` subscribers. */
export class EventsHub {
  private readonly subs = new Set<Subscriber>();
  private unsubscribe: (() => void) | null = null;
  /** Ledgers last reported retracted or purged, so a purge after a soft drop is not announced twice. */
  private readonly retracted = new Set<string>();
  private closed = false;
  private readonly maxQueueBytes: number;

  constructor(private readonly ns: NameService, private readonly opts: EventsHubOptions) {
    this.maxQueueBytes = opts.maxQueueBytes ?? 1024 * 1024;
  }

  /** Number of connected subscribers. */
  get size(): number { return this.subs.size; }

  /**
   * A new subscriber's stream: the snapshot of matching live records (sorted by id), then live
   * changes. Live changes are captured from before the snapshot is listed, so none falls between.
   */
  async subscribe(filter: EventsFilter): Promise<ReadableStream<Uint8Array>> {
    const sub = new Subscriber(filter, this, this.opts.keepAliveMs, this.maxQueueBytes);
    if (this.closed) { sub.end(); return sub.stream; }
    this.subs.add(sub);
    this.unsubscribe ??= this.ns.subscribe((c) => this.onChange(c));
    try {
      sub.setSnapshot(await this.ns.list());
    } catch (e) {
      sub.end();
      throw e;
    }
    return sub.stream;
  }

  /** Drop a subscriber; the feed subscription ends with the last one. */
  remove(sub: Subscriber): void {
    this.subs.delete(sub);
    if (this.subs.size === 0 && this.unsubscribe) {
      this.unsubscribe();
      this.unsubscribe = null;
    }
  }

  /** End every stream (shutdown); later subscribers get an empty, ended stream. */
  close(): void {
    this.closed = true;
    for (const s of [...this.subs]) s.end();
  }

  private onChange(c: NsChange): void {
    const r = c.record;
    let item: Item;
    if (r && !r.retracted) {
      this.retracted.delete(c.ledger_id);
      item = recordItem(r);
    } else {
      const already = this.retracted.has(c.ledger_id);
      if (r) this.retracted.add(c.ledger_id);
      else this.retracted.delete(c.ledger_id); // purged: the id may be created afresh
      if (already) return;
      item = { bytes: enc.encode(retractedEvent('ledger', c.ledger_id)) };
    }
    for (const s of this.subs) if (s.wantsLedger(c.ledger_id)) s.push(item);
  }
}
