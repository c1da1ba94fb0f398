/**
 * The thread that reads N-Triples request bodies (body-thread.ts): one per server, any number of
 * bodies at once, each an NTriplesBody (ntriples-body.ts) fed the bytes the main thread has
 * already checked to be UTF-8. A body that is not plain N-Triples is reported as soon as that is
 * known (the main thread hands it to n3); a finished one posts its keys, its statement columns and
 * its text escaped for the transaction blob (txn-blob.ts escapeJsonUtf8, done here as the bytes
 * arrive), all transferred, not copied.
 */
import { parentPort } from 'node:worker_threads';
import { escapeJsonUtf8 } from '../core/commit/txn-blob.js';
import { NTriplesBody } from './ntriples-body.js';

const port = parentPort!;
/** Per body: its reader, and its text escaped for the transaction blob as it arrives (null: left to the main thread). */
const bodies = new Map<number, { body: NTriplesBody; escaped: Uint8Array[] | null; first: boolean }>();

/** Messages from the main thread: the next bytes of body `id`, its end, or its abandonment. */
interface BodyMessage { id: number; chunk?: Uint8Array; end?: true; drop?: true }

port.on('message', (m: BodyMessage) => {
  if (m.drop) { bodies.delete(m.id); return; }
  let b = bodies.get(m.id);
  if (!b) bodies.set(m.id, (b = { body: new NTriplesBody(false), escaped: [], first: true }));
  const body = b.body;
  try {
    if (m.chunk) {
      if (!body.failed && !body.feed(m.chunk)) port.postMessage({ id: m.id, failed: true });
      if (!body.failed && b.escaped) escape(b, m.chunk);
      return;
    }
    bodies.delete(m.id);
    if (body.failed || !body.end()) { port.postMessage({ id: m.id, failed: true }); return; }
    const rows = body.rows();
    // The columns are views of larger arrays: copied to their own buffers, which move without a copy.
    const s = rows.s.slice(), p = rows.p.slice(), o = rows.o.slice();
    const escaped = b.escaped ? joined(b.escaped) : null;
    const moved = [s.buffer, p.buffer, o.buffer, ...(escaped ? [escaped.buffer] : [])] as ArrayBuffer[];
    port.postMessage({ id: m.id, rows: { n: rows.n, keys: rows.keys, s, p, o }, escaped }, moved);
  } catch (e) {
    bodies.delete(m.id);
    port.postMessage({ id: m.id, failed: true, error: e instanceof Error ? e.message : String(e) });
  }
});

/** The transaction blob's escaping (txn-blob.ts) of the next bytes: bytewise, so chunk by chunk. */
function escape(b: { escaped: Uint8Array[] | null; first: boolean }, chunk: Uint8Array): void {
  let from = 0;
  if (b.first) {
    b.first = false;
    // A byte-order mark is dropped as decoding drops it; a first chunk too short to tell is left to the main thread.
    if (chunk.length < 3) { b.escaped = null; return; }
    if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) from = 3;
  }
  b.escaped!.push(escapeJsonUtf8(chunk, from, chunk.length));
}

function joined(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
