/**
 * The explorer's browser-peer worker: the library worker (src/browser-peer/worker.ts: engine,
 * follower, IndexedDB cache) plus a count of the bytes it fetched, posted to the page as
 * `{ id: 0, kind: 'bytes', bytes }` (the page-side client ignores kinds it does not know). Plain JS
 * so the web typecheck (DOM lib) does not pull the worker's webworker lib in.
 */
import '../../src/browser-peer/worker.ts';

let bytes = 0;
new PerformanceObserver((list) => {
  // Requests of the replica (fetch), not the worker's own code chunks it loads on first use.
  for (const e of list.getEntries()) if (e.initiatorType === 'fetch') bytes += e.encodedBodySize || e.transferSize || 0;
  self.postMessage({ id: 0, kind: 'bytes', bytes });
}).observe({ type: 'resource', buffered: true });
