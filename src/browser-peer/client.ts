/**
 * The browser peer's page-side API: open a ledger of a transaction server in a Web Worker that
 * persists in IndexedDB, then `query(sparql | jsonld | {graphql} | {cypher}, {t | time | commit})`,
 * `stream(...)` (the NDJSON records of `/stream/query` as they arrive), `schema()`, `info()`,
 * `subscribe(onChange)` and `close()`.
 *
 *   const worker = new Worker(new URL('ledgraph/browser-peer-worker', import.meta.url), { type: 'module' });
 *   const peer = await openBrowserPeer({ worker, url: 'https://tx.example', token, ledger: 'hr' });
 *   const rows = await peer.query('SELECT * WHERE { ?s ?p ?o } LIMIT 10');
 *   const people = await peer.query({ graphql: '{ persons { id name } }' }, { t: 3 });
 */
import type { At, PeerQuery, WireError, WorkerMessage, WorkerRequest } from './protocol.js';

export type { At, PeerQuery } from './protocol.js';

/** A request without its id (distributes Omit over the union). */
type Req = WorkerRequest extends infer R ? R extends WorkerRequest ? Omit<R, 'id'> : never : never;

export interface BrowserPeerOptions {
  /** The worker running `src/browser-peer/worker.ts` (bundlers build it from `new Worker(new URL(...))`). */
  worker: Worker;
  /** Transaction server origin, e.g. https://tx.example:8090. */
  url: string;
  /** API base of the server (default /v1/ledgraph). */
  apiBase?: string;
  /** Bearer token with storage (and events) claims for the ledger. */
  token?: string | null;
  ledger: string;
  /** IndexedDB database name prefix (default `ledgraph-peer`). */
  database?: string;
  /**
   * Read objects straight from the server's object store when it vends credentials
   * (`GET /storage/credentials`), through the storage proxy otherwise or on any failure; default
   * true. The bucket needs a CORS rule allowing GET from the page's origin.
   */
  directReads?: boolean;
  /**
   * What to keep in IndexedDB ahead of queries, after open and after each change (default `lazy`):
   * `lazy` = the commit chain (so `time` and `commit` resolve offline) besides what queries read;
   * `full` = also every object of the ledger's current index, so every query at every t answers offline.
   */
  replicate?: 'lazy' | 'full';
}

/** A query failure as the worker reported it. */
export class BrowserPeerError extends Error {
  constructor(readonly detail: WireError) {
    super(detail.message);
    this.name = 'BrowserPeerError';
  }
  get status(): number | undefined { return this.detail.status; }
  get type(): string | undefined { return this.detail.type; }
}

/** Which state to read (at most one of t, time, commit; none = the head) and a signal that cancels the query in the worker. */
export interface QueryOptions extends At { signal?: AbortSignal }

export interface BrowserPeer {
  /** The ledger id and its t when opened. */
  readonly opened: { ledger: string; t: number };
  /**
   * Answer a query as the server's endpoints would: SPARQL text or `{sparql}` (SELECT / ASK: the
   * SPARQL JSON results object; CONSTRUCT / DESCRIBE: N-Quads text), a JSON-LD query object or
   * `{jsonld}` (its result), `{graphql, variables?, operationName?}` (the GraphQL response body,
   * errors inside), `{cypher, params?, '@context'?}` (the Cypher §8 envelope).
   */
  query(q: PeerQuery, opts?: QueryOptions): Promise<unknown>;
  /**
   * A SPARQL SELECT or JSON-LD select as the NDJSON records of `/stream/query` (`head`, `row`…,
   * `end` or `error`), in text chunks of whole lines as the worker produces them; the worker runs
   * at most a few chunks ahead of the loop. Leaving the loop (or `signal`) cancels the query.
   */
  stream(q: PeerQuery, opts?: QueryOptions): AsyncIterable<string>;
  /** The derived GraphQL schema as SDL, as `GET /graphql-schema/<ledger>` answers it. */
  schema(opts?: At): Promise<string>;
  /** The ledger's info document (t, commit, statistics with classes and properties), as `GET /info`. */
  info(): Promise<Record<string, unknown>>;
  /** Called with the ledger's new t whenever the peer applied commits; returns unsubscribe. */
  subscribe(onChange: (change: { ledger: string; t: number }) => void): () => void;
  close(): Promise<void>;
}

interface Pending { chunk(text: string): void; done(m: { result?: unknown; format?: string }): void; fail(e: unknown): void }

const aborted = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');

const at = (o: At): At => ({
  ...(o.t !== undefined ? { t: o.t } : {}), ...(o.time !== undefined ? { time: o.time } : {}), ...(o.commit !== undefined ? { commit: o.commit } : {}),
});

/** Open a browser peer on `opts.ledger`; resolves when the ledger is loaded (from IndexedDB if offline). */
export async function openBrowserPeer(opts: BrowserPeerOptions): Promise<BrowserPeer> {
  const worker = opts.worker;
  const pending = new Map<number, Pending>();
  const listeners = new Set<(c: { ledger: string; t: number }) => void>();
  let next = 1;
  worker.onmessage = (ev: MessageEvent<WorkerMessage>) => {
    const m = ev.data;
    if (m.kind === 'change') { for (const f of listeners) f({ ledger: m.ledger, t: m.t }); return; }
    const p = pending.get(m.id);
    if (!p) return;
    if (m.kind === 'chunk') p.chunk(m.text);
    else {
      pending.delete(m.id);
      if (m.kind === 'done') p.done(m); else p.fail(new BrowserPeerError(m.error));
    }
  };
  const send = (req: WorkerRequest) => worker.postMessage(req);
  /** Send a request; `signal` cancels it in the worker and rejects at once. Resolves with the `done` message. */
  const call = (req: Req, onChunk: (id: number, text: string) => void = () => {}, signal?: AbortSignal): Promise<{ result?: unknown; format?: string }> =>
    new Promise((done, fail) => {
      if (signal?.aborted) { fail(aborted(signal)); return; }
      const id = next++;
      const onAbort = () => {
        if (!pending.delete(id)) return;
        send({ op: 'cancel', id });
        fail(aborted(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      pending.set(id, {
        chunk: (t) => onChunk(id, t),
        done: (m) => { settle(); done(m); },
        fail: (e) => { settle(); fail(e); },
      });
      send({ ...req, id } as WorkerRequest);
    });
  const api = opts.url.replace(/\/+$/, '') + (opts.apiBase ?? '/v1/ledgraph');
  const opened = (await call({ op: 'open', api, token: opts.token ?? null, ledger: opts.ledger, database: opts.database ?? 'ledgraph-peer', replicate: opts.replicate ?? 'lazy', directReads: opts.directReads ?? true })).result as { ledger: string; t: number };

  const stream = (q: PeerQuery, o: QueryOptions = {}): AsyncIterable<string> => ({
    [Symbol.asyncIterator]() {
      const queue: string[] = [];
      let finished = false;
      let failure: unknown = null;
      let wake: (() => void) | null = null;
      let id = 0;
      const ac = new AbortController();
      const outer = o.signal;
      const onOuter = () => ac.abort(outer!.reason);
      outer?.addEventListener('abort', onOuter, { once: true });
      if (outer?.aborted) ac.abort(outer.reason);
      const end = (e: unknown) => { failure = e; finished = true; outer?.removeEventListener('abort', onOuter); wake?.(); };
      call({ op: 'stream', query: q, at: at(o) }, (i, t) => { id = i; queue.push(t); wake?.(); }, ac.signal)
        .then(() => end(null), end);
      return {
        async next(): Promise<IteratorResult<string>> {
          while (queue.length === 0 && !finished) await new Promise<void>((r) => { wake = r; });
          wake = null;
          if (queue.length > 0) {
            // One chunk consumed: the worker may produce one more.
            if (!finished) send({ op: 'ack', id });
            return { value: queue.shift()!, done: false };
          }
          if (failure) throw failure;
          return { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<string>> {
          if (!finished) ac.abort(new DOMException('The stream was closed.', 'AbortError'));
          return { value: undefined, done: true };
        },
      };
    },
  });

  return {
    opened,
    async query(q, o = {}) {
      let text = '';
      const m = await call({ op: 'query', query: q, at: at(o) }, (_, c) => { text += c; }, o.signal);
      if (m.format === undefined) return m.result;
      return m.format === 'application/n-quads' ? text : JSON.parse(text) as unknown;
    },
    stream,
    async schema(o = {}) {
      return (await call({ op: 'schema', at: at(o) })).result as string;
    },
    async info() {
      return (await call({ op: 'info' })).result as Record<string, unknown>;
    },
    subscribe(onChange) {
      listeners.add(onChange);
      return () => { listeners.delete(onChange); };
    },
    async close() {
      await call({ op: 'close' });
      worker.terminate();
      listeners.clear();
    },
  };
}
