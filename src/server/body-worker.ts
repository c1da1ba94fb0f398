/**
 * The thread that reads N-Triples request bodies (body-thread.ts): one per server, any number of
 * bodies at once, each an NTriplesBody (ntriples-body.ts) fed the bytes the main thread has
 * already checked to be UTF-8. A body that is not plain N-Triples is reported as soon as that is
 * known (the main thread hands it to n3); a finished one posts its keys and its statement columns
 * (transferred, not copied).
 */
import { parentPort } from 'node:worker_threads';
import { NTriplesBody } from './ntriples-body.js';

const port = parentPort!;
const bodies = new Map<number, NTriplesBody>();

/** Messages from the main thread: the next bytes of body `id`, its end, or its abandonment. */
interface BodyMessage { id: number; chunk?: Uint8Array; end?: true; drop?: true }

port.on('message', (m: BodyMessage) => {
  if (m.drop) { bodies.delete(m.id); return; }
  let body = bodies.get(m.id);
  if (!body) bodies.set(m.id, (body = new NTriplesBody(false)));
  try {
    if (m.chunk) {
      if (!body.failed && !body.feed(m.chunk)) port.postMessage({ id: m.id, failed: true });
      return;
    }
    bodies.delete(m.id);
    if (body.failed || !body.end()) { port.postMessage({ id: m.id, failed: true }); return; }
    const rows = body.rows();
    // The columns are views of larger arrays: copied to their own buffers, which move without a copy.
    const s = rows.s.slice(), p = rows.p.slice(), o = rows.o.slice();
    port.postMessage({ id: m.id, rows: { n: rows.n, keys: rows.keys, s, p, o } }, [s.buffer, p.buffer, o.buffer]);
  } catch (e) {
    bodies.delete(m.id);
    port.postMessage({ id: m.id, failed: true, error: e instanceof Error ? e.message : String(e) });
  }
});
