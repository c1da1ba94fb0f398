/**
 * Bulk loads on two threads (docs/bulk-load.md "Performance"): a worker thread
 * (load-worker.ts) parses a document into statement batches of load-local ids while the
 * main thread interns each distinct key once, sorts, commits and indexes. The main thread reads
 * (and inflates) the bytes and transfers them to the worker in chunks, at most a few ahead; the
 * worker transfers each batch's rows back. Node-only (worker_threads), hence here and not in core;
 * core's single-threaded path (bulk-batches.ts) is the same reader, run inline.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { internalError, LedgraphError } from '../core/errors.js';
import type { StatementBatch } from '../core/transact/bulk-batches.js';
import type { Run } from '../core/index/run.js';
import type { LoadOrders } from '../core/transact/bulk-index.js';
import type { BulkDocument, OrdersJob } from '../core/transact/bulk-load.js';
import type { BulkFormat } from '../core/transact/bulk-sources.js';

/**
 * Text chunks sent ahead of the worker's reader (each up to 1 MiB): more than one commit's worth
 * (100,000 statements ≈ 25 MB of N-Triples), so the worker parses on while this thread encodes one.
 */
const CHUNKS_AHEAD = 32;
const WORKER = new URL('./load-worker.js', import.meta.url);
/**
 * The reader's young generation: 3 × a 32 MiB semi-space, as the launcher gives the main thread of
 * `ledgraph load` (bin/ledgraph.cjs): the reader allocates a few strings per statement, and V8's
 * default (16 MiB) scavenges and copies survivors twice as often.
 */
const READER_LIMITS = { maxYoungGenerationSizeMb: 96 };

/** True when the worker script is there to run (a build; not a bundle or the TypeScript sources). */
export function readWorkerAvailable(): boolean {
  return WORKER.protocol === 'file:' && existsSync(WORKER);
}

/**
 * A document of a load, read in a worker thread when one can run (formats that stream; JSON-LD is
 * one document for jsonld.js and is read inline), else inline by core.
 */
export function loadDocument(source: AsyncIterable<string | Uint8Array>, format: BulkFormat, base: string | undefined, useWorker = true): BulkDocument {
  if (!useWorker || format === 'json-ld' || !readWorkerAvailable()) return { source, format, ...(base ? { base } : {}) };
  return { format, ...(base ? { base } : {}), batches: (scope) => workerBatches(source, format, base, scope) };
}

/** Load options that put the sorting of the index orders on a worker thread, when one can run. */
export function threadOptions(useWorker = true): { orders?: typeof ordersInWorker } {
  return useWorker && readWorkerAvailable() ? { orders: ordersInWorker } : {};
}

interface WorkerError { status?: number; type?: string; message: string; stack?: string }
interface WorkerMessage { ack?: true; done?: true; batch?: StatementBatch; orders?: LoadOrders; error?: WorkerError }

/** A worker's error as thrown on this thread (Ledgraph errors keep their status and type). */
function rebuilt(err: WorkerError): Error {
  return err.status !== undefined && err.type !== undefined ? new LedgraphError(err.status, err.type, err.message) : Object.assign(new Error(err.message), { stack: err.stack });
}

/**
 * The index orders of a load's facts (bulk-index.ts `loadOrders`) on a worker thread, started when
 * the load starts so that it has loaded its code by the time the facts are read; it then sorts
 * while this thread writes the dictionary. The columns are copied to it (this thread keeps
 * counting statistics over them) and the sorted runs' columns transferred back.
 */
export function ordersInWorker(): OrdersJob {
  const worker = new Worker(WORKER, { workerData: { job: 'orders' } });
  let settle: { ok: (o: LoadOrders) => void; fail: (e: unknown) => void } | null = null;
  let early: unknown = null;
  const fail = (e: unknown) => { if (settle) settle.fail(e); else early ??= e; };
  worker.on('message', (m: WorkerMessage) => {
    if (m.orders) settle?.ok(m.orders);
    if (m.error) fail(rebuilt(m.error));
    void worker.terminate();
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(internalError(`the bulk-load sorting thread exited (${code}) without a result`)));
  return {
    run(rows: Run, objKind: Uint8Array, meta: LoadOrders): Promise<LoadOrders> {
      return new Promise<LoadOrders>((ok, no) => {
        if (early) { no(early); return; }
        settle = { ok, fail: no };
        const n = rows.n;
        const cols = { g: rows.g.slice(0, n), s: rows.s.slice(0, n), p: rows.p.slice(0, n), o: rows.o.slice(0, n), t: rows.t.slice(0, n), objKind: objKind.slice() };
        worker.postMessage({ n, ...cols, meta }, Object.values(cols).map((c) => c.buffer as ArrayBuffer));
      });
    },
    close(): void { void worker.terminate(); },
  };
}

/** The statement batches of one document, read by a worker thread. */
export async function* workerBatches(source: AsyncIterable<string | Uint8Array>, format: BulkFormat, base: string | undefined, scope: string): AsyncGenerator<StatementBatch> {
  const worker = new Worker(WORKER, { workerData: { job: 'read', format, base, scope }, resourceLimits: READER_LIMITS });
  const batches: StatementBatch[] = [];
  let done = false;
  let failure: unknown = null;
  let credit = CHUNKS_AHEAD;
  let wakeReader: (() => void) | null = null;
  let wakeFeeder: (() => void) | null = null;
  const wake = () => { wakeReader?.(); wakeReader = null; wakeFeeder?.(); wakeFeeder = null; };
  const fail = (e: unknown) => { failure ??= e; wake(); };
  worker.on('message', (m: WorkerMessage) => {
    if (m.ack) credit++;
    if (m.batch) batches.push(m.batch);
    if (m.done) done = true;
    if (m.error) {
      fail(rebuilt(m.error));
    }
    wake();
  });
  worker.on('error', fail);
  worker.on('exit', (code) => { if (!done) fail(internalError(`the bulk-load reader thread exited (${code}) before the end of the document`)); });
  let stop = false;
  const feed = (async () => {
    for await (const chunk of source) {
      while (credit <= 0 && !failure && !stop) await new Promise<void>((r) => (wakeFeeder = r));
      if (failure || stop) return;
      credit--;
      if (typeof chunk === 'string') worker.postMessage({ chunk });
      else {
        const own = new Uint8Array(chunk); // a copy with its own buffer, which can be transferred
        worker.postMessage({ chunk: own }, [own.buffer]);
      }
    }
    worker.postMessage({ end: true });
  })();
  feed.catch(fail);
  try {
    for (;;) {
      if (failure) throw failure;
      if (batches.length > 0) { yield batches.shift()!; continue; }
      if (done) break;
      await new Promise<void>((r) => (wakeReader = r));
    }
    await feed;
  } finally {
    stop = true;
    wake();
    await worker.terminate();
  }
}
