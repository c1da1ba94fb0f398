/**
 * Turtle, TriG, N-Triples and N-Quads request bodies parsed while they arrive (docs/bulk-load.md):
 * each chunk is kept once in the raw-bytes buffer (the tx-id hashes it) and decoded and read at
 * once (N-Triples by the line reader while it can, ntriples-body.ts; else n3's parser), so the body
 * text is never built whole beside its bytes. The transaction blob records the text as before,
 * escaped straight from the bytes (commit/txn-blob.ts Utf8Text).
 * Results, errors and receipts are those of parsing the whole text (transact/parse-rdf.ts).
 */
import type { Context } from 'hono';
import { Parser } from 'n3';
import { Utf8Text } from '../core/commit/txn-blob.js';
import { badRequest, isLedgraphError } from '../core/errors.js';
import { syntaxError, txnFromRdfJs, type RdfContentType, type RdfJsQuad } from '../core/transact/parse-rdf.js';
import { keyRowsInsert } from '../core/transact/key-rows.js';
import type { KeyRows, TxnRequest } from '../core/transact/txn-request.js';
import type { AppEnv } from './app.js';
import { bodyReadError, smallBody } from './http-util.js';
import { ntriplesReading, type NTriplesReading } from './body-thread.js';

/** Growable byte buffer, sized from Content-Length when the client declares it. */
class Bytes {
  buf: Uint8Array;
  n = 0;
  constructor(declared: number) { this.buf = new Uint8Array(declared > 0 ? declared : 1 << 16); }
  push(chunk: Uint8Array): void {
    if (this.n + chunk.length > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + chunk.length));
      next.set(this.buf.subarray(0, this.n));
      this.buf = next;
    }
    this.buf.set(chunk, this.n);
    this.n += chunk.length;
  }
  done(): Uint8Array { return this.n === this.buf.length ? this.buf : this.buf.slice(0, this.n); }
}

/** Read and parse an RDF body for insert or upsert: its raw bytes, the lazily decoded text and the request. */
export async function readRdfBody(c: Context<AppEnv>, contentType: RdfContentType, mode: 'insert' | 'upsert', base?: string, allowEmpty = false): Promise<{ bytes: Uint8Array; body: Utf8Text; req: TxnRequest }> {
  const format = contentType === 'application/n-quads' ? 'N-Quads' : 'TriG';
  // An N-Triples body is read with the byte reader while it is plain N-Triples (ntriples-body.ts),
  // on the body thread when there is one (body-thread.ts); n3 takes over, from the first byte, at
  // the first line that is not.
  const declared = Number(c.req.header('content-length') ?? 0);
  let lines: NTriplesReading | null = contentType === 'application/n-triples' ? ntriplesReading(Number.isSafeInteger(declared) ? declared : 0) : null;
  const handlers: Record<string, (x?: unknown) => void> = {};
  const quads: RdfJsQuad[] = [];
  let failure: unknown = null;
  const startN3 = () => {
    // The same parser settings as parseRdfTxn (written blank-node labels marked with '!').
    const parser = new Parser({ format, blankNodePrefix: '!', ...(base ? { baseIRI: base } : {}) });
    const input = { on(event: string, fn: (x?: unknown) => void) { handlers[event] = fn; } };
    parser.parse(input as never, (err: Error | null, q: RdfJsQuad | null) => {
      if (failure) return;
      if (err) failure = err;
      else if (q) quads.push(q);
    });
  };
  if (!lines) startN3();
  // n3 can throw from inside its token callbacks instead of reporting an error (a TypeError in
  // _readPrefixIRI for `@prefix ex: <'…'http://…>` fed in chunks): that is a malformed document.
  const feed = (step: () => void) => {
    try { step(); } catch (e) { failure ??= e instanceof TypeError ? new Error('malformed document') : e; }
  };
  const raw = new Bytes(Number.isSafeInteger(declared) ? declared : 0);
  let decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (chunk?: Uint8Array): string => {
    try { return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode(); } catch { throw badRequest('the request body is not valid UTF-8'); }
  };
  const text = (t: string) => {
    if (t && !failure) feed(() => handlers.data?.(t));
  };
  // The line reader gave up: n3 reads the body from its first byte (the bytes are kept anyway),
  // decoded afresh in slices so the text is never held whole.
  const toN3 = () => {
    lines?.drop();
    lines = null;
    startN3();
    decoder = new TextDecoder('utf-8', { fatal: true });
    for (let at = 0; at < raw.n && !failure; at += REPLAY_BYTES) {
      const t = decode(raw.buf.subarray(at, Math.min(raw.n, at + REPLAY_BYTES)));
      if (t) feed(() => handlers.data?.(t));
    }
  };
  // A small body is read whole (no web stream is built for it); a large one is parsed as it arrives.
  const small = smallBody(c);
  const body = small ? [await small] : c.req.raw.body;
  let rows: KeyRows | null = null;
  try {
    if (body) {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        raw.push(chunk);
        // The byte reader checks the bytes are UTF-8 without decoding them (its 400 is the decoder's).
        if (lines) {
          if (!lines.feed(chunk)) toN3();
        } else {
          text(decode(chunk));
        }
      }
    }
    if (lines) {
      rows = await lines.end(raw.buf.subarray(0, raw.n));
      if (!rows) toN3();
    }
    if (!lines) text(decode());
  } catch (e) {
    lines?.drop();
    throw bodyReadError(e);
  }
  if (!lines && !failure) feed(() => handlers.end?.());
  const bytes = raw.done();
  // The error path may read the text whole: it names the line and column as parsing it whole would.
  if (failure) throw syntaxError(failure, new TextDecoder('utf-8').decode(bytes), contentType);
  let req: TxnRequest;
  try {
    req = rows ? plainInsert(rows, mode) : txnFromRdfJs(quads, mode, base);
  } catch (e) {
    // A graph store write or sync may replace a graph with nothing (as graphPayload allows).
    if (!(allowEmpty && isLedgraphError(e) && e.status === 400 && e.message.startsWith('nothing to write'))) throw e;
    req = { kind: 'insert', quads: [], meta: [], opts: {} };
  }
  return { bytes, body: new Utf8Text(bytes, rows ? lines?.escaped() ?? null : null), req };
}

/** Bytes decoded per step when n3 takes a body over from the line reader. */
const REPLAY_BYTES = 1 << 20;

/** The request of a plain N-Triples body, as txnFromRdfJs makes it (no graphs, no metadata, no anonymous nodes). */
function plainInsert(rows: KeyRows, mode: 'insert' | 'upsert'): TxnRequest {
  if (rows.n === 0) throw badRequest('nothing to write: the document contains no triples');
  return keyRowsInsert(rows, mode);
}
