/**
 * The peer's subscription to a transaction server's `/events` stream (replication.md §10, §14.1),
 * read with `fetch` and eventsource-parser so that Node and browsers share it (EventSource cannot
 * send `Authorization`). Reconnects with Backoff after an error or the end of the stream; every
 * connect starts with a fresh snapshot, announced by `onConnect` so the caller clears its watermarks.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { NsRecord } from '../core/store.js';
import { Backoff } from './backoff.js';

/** Callbacks and transport of a subscription. */
export interface EventsOptions {
  /** The full stream URL, query included (see eventsUrl). */
  url: string;
  /** Bearer token of the events claim, if the server needs one. */
  token?: string | null;
  fetch?: typeof fetch;
  backoff?: Backoff;
  /** A connection was accepted: a fresh snapshot follows. */
  onConnect?(): void;
  /** The full current record of a ledger (snapshot or live). */
  onRecord(record: NsRecord): void;
  /** A ledger was soft-dropped or purged. */
  onRetracted?(ledgerId: string): void;
  /** The connection failed or ended; the next attempt is in `retryInMs`. */
  onDisconnect?(error: Error, retryInMs: number): void;
}

/** A running subscription. */
export interface EventsSubscription {
  /** True while a stream is open. */
  readonly connected: boolean;
  /** Number of successful connects so far. */
  readonly connects: number;
  /** Stop for good (aborts the open stream and any pending retry). */
  close(): void;
}

/** The `/events` URL for all ledgers or the given ones. */
export function eventsUrl(base: string, sub: { all: boolean; ledgers?: readonly string[]; graphSources?: readonly string[] }): string {
  const q = new URLSearchParams();
  if (sub.all) q.set('all', 'true');
  for (const l of sub.ledgers ?? []) q.append('ledger', l);
  for (const g of sub.graphSources ?? []) q.append('graph-source', g);
  return `${base}?${q.toString()}`;
}

/** Subscribe and keep subscribed until close(). */
export function followEvents(opts: EventsOptions): EventsSubscription {
  const doFetch = opts.fetch ?? fetch;
  const backoff = opts.backoff ?? new Backoff();
  let closed = false;
  let connected = false;
  let connects = 0;
  let abort: AbortController | null = null;
  let wake: (() => void) | null = null;

  const onEvent = (ev: EventSourceMessage) => {
    let body: { kind?: string; resource_id?: string; record?: NsRecord };
    try {
      body = JSON.parse(ev.data) as typeof body;
    } catch {
      return; // not ours to interpret; unknown or broken events are ignored
    }
    if (body.kind !== 'ledger') return;
    if (ev.event === 'ns-record' && body.record) opts.onRecord(body.record);
    else if (ev.event === 'ns-retracted' && body.resource_id) opts.onRetracted?.(body.resource_id);
  };

  const connectOnce = async (): Promise<void> => {
    abort = new AbortController();
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    const res = await doFetch(opts.url, { headers, signal: abort.signal });
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`events: HTTP ${res.status} from ${opts.url}`);
    }
    connected = true;
    connects++;
    backoff.reset();
    opts.onConnect?.();
    const parser = createParser({ onEvent });
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } finally {
      connected = false;
      reader.releaseLock();
    }
    throw new Error('events: the stream ended');
  };

  void (async () => {
    while (!closed) {
      try {
        await connectOnce();
      } catch (e) {
        connected = false;
        if (closed) break;
        const ms = backoff.delay();
        opts.onDisconnect?.(e instanceof Error ? e : new Error(String(e)), ms);
        await new Promise<void>((ok) => {
          const timer = setTimeout(ok, ms);
          wake = () => { clearTimeout(timer); ok(); };
        });
        wake = null;
      }
    }
  })();

  return {
    get connected() { return connected; },
    get connects() { return connects; },
    close() {
      closed = true;
      abort?.abort();
      wake?.();
    },
  };
}
