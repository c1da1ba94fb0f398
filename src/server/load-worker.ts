/**
 * The worker thread of a bulk load (load-threads.ts), one job per thread, each with the code the
 * single-threaded path runs in core:
 * - `read`: one document's text, sent by the main thread in chunks, into statement batches
 *   (core/transact/bulk-batches.ts), each posted back with its rows transferred, not copied. A
 *   chunk is acknowledged as the reader takes it, so the main thread keeps only a few in flight.
 * - `orders`: started with the load, waits for the loaded facts, then sorts the four index orders
 *   (bulk-index.ts `loadOrders`) and transfers their columns back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isLedgraphError } from '../core/errors.js';
import type { Run } from '../core/index/run.js';
import { readBatches } from '../core/transact/bulk-batches.js';
import { loadOrders, type LoadOrders } from '../core/transact/bulk-index.js';
import type { BulkFormat } from '../core/transact/bulk-sources.js';

const port = parentPort!;
const job = workerData as { job: 'read'; format: BulkFormat; base?: string; scope: string } | { job: 'orders' };

const fail = (e: unknown) => port.postMessage({
  error: isLedgraphError(e) ? { status: e.status, type: e.type, message: e.message } : { message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined },
});

/** The facts to sort (sent once the load has read them all) and the metadata facts in each order. */
interface OrdersInput { n: number; g: Int32Array; s: Int32Array; p: Int32Array; o: Int32Array; t: Int32Array; objKind: Uint8Array; meta: LoadOrders }

if (job.job === 'orders') {
  port.once('message', (x: OrdersInput) => {
    try {
      const { n, g, s, p, o, t } = x;
      // Loaded facts are all assertions of single values.
      const rows: Run = { n, g, s, p, o, t, m: new Int32Array(n).fill(-1), op: new Uint8Array(n).fill(1) };
      const orders = loadOrders(rows, x.objKind, x.meta);
      const buffers = [orders.spot, orders.psot, orders.post, orders.opst].flatMap((r) => [r.g, r.s, r.p, r.o, r.m, r.t, r.op].map((c) => c.buffer as ArrayBuffer));
      port.postMessage({ orders }, [...new Set(buffers)]);
    } catch (e) {
      fail(e);
    }
  });
} else {
  const queue: (Uint8Array | string | null)[] = [];
  let wake: (() => void) | null = null;
  port.on('message', (m: { chunk?: Uint8Array | string; end?: true }) => {
    queue.push(m.end ? null : m.chunk!);
    wake?.();
    wake = null;
  });
  const chunks = async function* (): AsyncGenerator<Uint8Array | string> {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((r) => (wake = r));
      const c = queue.shift()!;
      if (c === null) return;
      port.postMessage({ ack: true });
      yield c;
    }
  };
  readBatches(chunks(), job.format, job.base, job.scope, (b) => port.postMessage({ batch: b }, [b.rows.buffer as ArrayBuffer]))
    .then(() => port.postMessage({ done: true }), fail);
}
