/**
 * The browser peer's page-side API: open a ledger of a transaction server in a Web Worker that
 * persists in IndexedDB, then `query(sparql | jsonld, {t})`, `stream(...)` (result text as it
 * arrives), `subscribe(onChange)` and `close()`.
 *
 *   const worker = new Worker(new URL('ledgraph/browser-peer-worker', import.meta.url), { type: 'module' });
 *   const peer = await openBrowserPeer({ worker, url: 'https://tx.example', token, ledger: 'hr' });
 *   const rows = await peer.query('SELECT * WHERE { ?s ?p ?o } LIMIT 10');
 */
import type { WireError, WorkerMessage, WorkerRequest } from './protocol.js';

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

export interface QueryOptions { t?: number }

export interface BrowserPeer {
  /** The ledger id and its t when opened. */
  readonly opened: { ledger: string; t: number };
  /**
   * SPARQL (SELECT / ASK: the SPARQL JSON results object; CONSTRUCT / DESCRIBE: N-Quads text) or a
   * JSON-LD query (its result), at the head or at `t`.
   */
  query(q: string | Record<string, unknown>, opts?: QueryOptions): Promise<unknown>;
  /** SPARQL results as text (SPARQL JSON, or N-Quads for graphs), chunk by chunk as the engine writes them. */
  stream(q: string, opts?: QueryOptions): AsyncIterable<string>;
  /** Called with the ledger's new t whenever the peer applied commits; returns unsubscribe. */
  subscribe(onChange: (change: { ledger: string; t: number }) => void): () => void;
  close(): Promise<void>;
}

interface Pending { chunk(text: string): void; done(result: unknown): void; fail(e: BrowserPeerError): void }

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
      if (m.kind === 'done') p.done(m.result); else p.fail(new BrowserPeerError(m.error));
    }
  };
  const call = (req: Req, onChunk: (t: string) => void = () => {}): Promise<unknown> => new Promise((done, fail) => {
    const id = next++;
    pending.set(id, { chunk: onChunk, done, fail });
    worker.postMessage({ ...req, id } as WorkerRequest);
  });
  const api = opts.url.replace(/\/+$/, '') + (opts.apiBase ?? '/v1/ledgraph');
  const opened = (await call({ op: 'open', api, token: opts.token ?? null, ledger: opts.ledger, database: opts.database ?? 'ledgraph-peer', directReads: opts.directReads ?? true })) as { ledger: string; t: number };

  const chunks = (q: string, o: QueryOptions, onFormat: (f: string) => void): AsyncIterable<string> => ({
    [Symbol.asyncIterator]() {
      const queue: string[] = [];
      let finished = false;
      let failure: unknown = null;
      let wake: (() => void) | null = null;
      call({ op: 'query', query: q, ...(o.t !== undefined ? { t: o.t } : {}) }, (t) => { queue.push(t); wake?.(); })
        .then((r) => { onFormat((r as { format?: string } | undefined)?.format ?? ''); finished = true; wake?.(); }, (e: unknown) => { failure = e; finished = true; wake?.(); });
      return {
        async next(): Promise<IteratorResult<string>> {
          while (queue.length === 0 && !finished) await new Promise<void>((r) => { wake = r; });
          wake = null;
          if (queue.length > 0) return { value: queue.shift()!, done: false };
          if (failure) throw failure;
          return { value: undefined, done: true };
        },
      };
    },
  });

  const stream = (q: string, o: QueryOptions = {}): AsyncIterable<string> => chunks(q, o, () => {});

  return {
    opened,
    async query(q, o = {}) {
      if (typeof q !== 'string') return call({ op: 'query', query: q, ...(o.t !== undefined ? { t: o.t } : {}) });
      let text = '';
      let format = '';
      for await (const c of chunks(q, o, (f) => { format = f; })) text += c;
      return format === 'application/n-quads' ? text : JSON.parse(text) as unknown;
    },
    stream,
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
