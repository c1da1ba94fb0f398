/**
 * A thread that reads pieces of N-Triples request bodies (body-thread.ts, body-pieces.ts): one of
 * the server's reading threads, any number of bodies at once, each a PieceReader fed the pieces of
 * the body the main thread gives this thread (already checked to be UTF-8, cut after a line feed).
 * Per piece it posts the keys new to it, the piece's statement columns and its text escaped for the
 * transaction blob (txn-blob.ts escapeJsonUtf8), all transferred, not copied; or that the piece is
 * not plain N-Triples (the main thread then hands the body to n3).
 */
import { parentPort } from 'node:worker_threads';
import { PieceReader } from './body-pieces.js';

const port = parentPort!;
/** Per body: its reader here (null: a piece was not plain N-Triples; the rest are not read). */
const bodies = new Map<number, PieceReader | null>();

/** Messages from the main thread: piece `seq` of body `id` (`first`, `last`: the body's first, last), or the body's end here. */
interface BodyMessage { id: number; seq?: number; chunk?: Uint8Array; first?: true; last?: true; drop?: true }

port.on('message', (m: BodyMessage) => {
  if (m.drop || !m.chunk) { bodies.delete(m.id); return; }
  let reader = bodies.get(m.id);
  if (reader === null) {
    if (m.last) bodies.delete(m.id);
    port.postMessage({ id: m.id, seq: m.seq, bytes: m.chunk.length, failed: true });
    return;
  }
  if (!reader) bodies.set(m.id, (reader = new PieceReader()));
  let piece;
  try {
    piece = reader.read(m.chunk, m.first === true, m.last === true);
  } catch {
    piece = null;
  }
  if (m.last) bodies.delete(m.id);
  else if (!piece) bodies.set(m.id, null);
  if (!piece) { port.postMessage({ id: m.id, seq: m.seq, bytes: m.chunk.length, failed: true }); return; }
  port.postMessage({ id: m.id, seq: m.seq, bytes: m.chunk.length, piece }, [piece.s.buffer, piece.p.buffer, piece.o.buffer, piece.escaped.buffer] as ArrayBuffer[]);
});
