/**
 * Live updates from `GET /events?all=true` (docs/http.md "Event stream"): read with fetch so the
 * bearer token can be sent (EventSource cannot send headers), parsed with eventsource-parser, and
 * reconnected with back-off (each reconnect starts with a fresh snapshot, so nothing is missed).
 */
import { createParser } from 'eventsource-parser';
import { apiBase, getToken } from './api.js';

/** A nameservice change: the ledger id it concerns and its new head t (absent when retracted). */
export interface LedgerChange { ledger: string; t?: number; retracted: boolean }

/** Follow the event stream, calling `onChange` per event, until `signal` aborts. */
export function followEvents(onChange: (c: LedgerChange) => void, onState: (live: boolean) => void, signal: AbortSignal): void {
  let delay = 1000;
  const run = async (): Promise<void> => {
    while (!signal.aborted) {
      try {
        const headers: Record<string, string> = { Accept: 'text/event-stream' };
        const token = getToken();
        if (token) headers.Authorization = `Bearer ${token}`;
        const r = await fetch(`${apiBase()}/events?all=true`, { headers, signal });
        if (!r.ok || !r.body) throw new Error(`events: HTTP ${r.status}`);
        onState(true);
        delay = 1000;
        const parser = createParser({
          onEvent(ev) {
            try {
              const d = JSON.parse(ev.data) as { kind?: string; resource_id?: string; record?: { commit_t?: number } };
              if (d.kind === 'ledger' && d.resource_id) onChange({ ledger: d.resource_id, t: d.record?.commit_t, retracted: ev.event === 'ns-retracted' });
            } catch { /* a malformed event is skipped; the next snapshot repairs the view */ }
          },
        });
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch {
        if (signal.aborted) return;
      }
      onState(false);
      await new Promise((ok) => setTimeout(ok, delay));
      delay = Math.min(delay * 2, 30_000);
    }
  };
  void run();
}
