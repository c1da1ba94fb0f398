/**
 * An `/events` subscriber for tests, reading the stream the way peers and browsers do
 * (replication.md §10): `fetch` with a streaming body and the `eventsource-parser` package.
 *
 *   const sub = await subscribe(`${srv.api}/events?all=true`);
 *   await sub.waitFor((e) => e.data.resource_id === 'a:main');
 *   sub.close();
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One received event with its JSON data parsed. */
export interface SseEvent { event: string | undefined; id: string | undefined; data: Record<string, unknown> }

export interface Subscription {
  response: Response;
  /** Every event received so far, in order. */
  events: SseEvent[];
  /** Every comment received so far (without the leading colon and space). */
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Wait until an event matching `pred` has arrived (at or after index `from`); returns it. */
  waitFor(pred: (e: SseEvent) => boolean, opts?: { ms?: number; from?: number }): Promise<SseEvent>;
  /** Wait until a comment matching `pred` has arrived. */
  waitForComment(pred: (c: string) => boolean, ms?: number): Promise<string>;
  close(): void;
}

/** Open a subscription; throws unless the answer is a 200 event stream (use plain fetch for error cases). */
export async function subscribe(url: string, headers: Record<string, string> = {}): Promise<Subscription> {
  const ctl = new AbortController();
  const response = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: ctl.signal });
  if (response.status !== 200) throw new Error(`events: ${response.status} ${await response.text()}`);
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let notify = () => {};
  const parser = createParser({
    onEvent(m: EventSourceMessage) { events.push({ event: m.event, id: m.id, data: JSON.parse(m.data) as Record<string, unknown> }); notify(); },
    onComment(c: string) { comments.push(c.trim()); notify(); },
  });
  const reader = response.body!.getReader();
  const dec = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(dec.decode(value, { stream: true }));
      }
    } catch { /* aborted by close() */ }
    notify();
  })();
  let done = false;
  void ended.then(() => { done = true; });
  const wait = async <T>(find: () => T | undefined, ms: number, what: string): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const hit = find();
      if (hit !== undefined) return hit;
      if (done) throw new Error(`stream ended before ${what}; got ${JSON.stringify(events)}`);
      const left = end - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(events)}`);
      await new Promise<void>((ok) => { const t = setTimeout(ok, Math.min(left, 50)); notify = () => { clearTimeout(t); ok(); }; });
    }
  };
  return {
    response, events, comments, ended,
    waitFor: (pred, opts = {}) => wait(() => events.slice(opts.from ?? 0).find(pred), opts.ms ?? 10_000, 'an event'),
    waitForComment: (pred, ms = 10_000) => wait(() => comments.find(pred), ms, 'a comment'),
    close: () => ctl.abort(),
  };
}
