/**
 * Reading an N-Triples request body beside the main thread (docs/bulk-load.md "Streaming
 * `POST /insert`"): the main thread checks each arriving chunk is UTF-8 (natively, without
 * decoding it), keeps it in the body's bytes and passes copies on, about 1 MiB at a time, to one
 * worker thread per server (body-worker.ts), which runs the same byte reader the inline path runs
 * (ntriples-body.ts) and posts back the keys and statement columns, and the body escaped for the
 * transaction blob (the main thread's largest remaining cost per byte). Meanwhile the main thread
 * serves other requests and background index jobs. When the body is not plain N-Triples the worker
 * says so as soon as it knows, and the caller hands the body to n3 as before. Where no worker
 * script is beside this module (the TypeScript sources, a bundle) or the thread has died, the
 * body is read inline: same statements, same errors.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { KeyRows } from '../core/transact/txn-request.js';
import { NTriplesBody, Utf8Check } from './ntriples-body.js';

/** Bytes passed to the worker per message; a body declaring fewer is read inline (a round trip would cost more). */
const SEND_BYTES = 1 << 20;
/** An idle body thread is stopped after this long (its heap is not kept for nothing); the next large body starts one. */
const IDLE_MS = 10_000;
const WORKER = new URL('./body-worker.js', import.meta.url);
/** The reader's young generation, as the bulk load's reading thread has it (load-threads.ts): fewer scavenges. */
const READER_LIMITS = { maxYoungGenerationSizeMb: 96 };

/** An N-Triples body being read: inline or on the worker thread. */
export interface NTriplesReading {
  /** The next bytes (false: not plain N-Triples, hand the body to n3). Throws the 400 for bytes that are not UTF-8. */
  feed(chunk: Uint8Array): boolean;
  /** The statements, or null for n3; `all` is the whole body (read again inline if the thread died). */
  end(all: Uint8Array): Promise<KeyRows | null>;
  /** Abandon the reading (the request failed). */
  drop(): void;
  /** After end(): the body escaped for the transaction blob, when the thread made it (txn-blob.ts Utf8Text). */
  escaped(): Uint8Array | null;
}

interface Reply { id: number; failed?: true; rows?: KeyRows; escaped?: Uint8Array | null }

/** One worker thread reading any number of bodies, each under its own id. */
export class BodyThread {
  private readonly worker: Worker;
  private dead = false;
  private nextId = 1;
  private readonly open = new Map<number, ThreadedReading>();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  /** `idle`: called when no body has been read for IDLE_MS. */
  constructor(url: URL = WORKER, private readonly idle: (() => void) | null = null) {
    this.worker = new Worker(url, { resourceLimits: READER_LIMITS });
    // Reading bodies never keeps the process alive.
    this.worker.unref();
    this.worker.on('message', (m: Reply) => this.open.get(m.id)?.reply(m));
    const died = () => {
      this.dead = true;
      for (const r of this.open.values()) r.reply(null);
      this.open.clear();
      // The next large body starts a new thread.
      this.idle?.();
    };
    this.worker.on('error', died);
    this.worker.on('exit', died);
  }

  /** A reading on this thread, or inline when the thread has died. */
  reading(): NTriplesReading {
    if (this.dead) return inlineReading();
    clearTimeout(this.idleTimer);
    const id = this.nextId++;
    const r = new ThreadedReading(this, id);
    this.open.set(id, r);
    return r;
  }

  /** Post to the worker (nothing once it has died: the reading then goes on inline). */
  post(m: { id: number; chunk?: Uint8Array; end?: true; drop?: true }): void {
    if (this.dead) return;
    if (m.chunk) this.worker.postMessage(m, [m.chunk.buffer as ArrayBuffer]);
    else this.worker.postMessage(m);
  }

  /** Forget a reading; with none left, `idle` runs after IDLE_MS unless another starts. */
  close(id: number): void {
    this.open.delete(id);
    if (this.open.size === 0 && this.idle && !this.dead) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => { if (this.open.size === 0) this.idle?.(); }, IDLE_MS);
      this.idleTimer.unref();
    }
  }

  /** Stop the thread. */
  async terminate(): Promise<void> {
    this.dead = true;
    clearTimeout(this.idleTimer);
    await this.worker.terminate();
  }
}

class ThreadedReading implements NTriplesReading {
  private readonly utf8 = new Utf8Check();
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private failed = false;
  /** The thread died: the body is read inline at the end. */
  private lost = false;
  private settle: ((r: KeyRows | null | undefined) => void) | null = null;
  private result: KeyRows | null | undefined = undefined;
  private escapedText: Uint8Array | null = null;

  constructor(private readonly thread: BodyThread, private readonly id: number) {}

  feed(chunk: Uint8Array): boolean {
    this.utf8.push(chunk);
    if (this.failed) return false;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= SEND_BYTES) this.send();
    return true;
  }

  async end(all: Uint8Array): Promise<KeyRows | null> {
    this.utf8.end();
    if (!this.failed && !this.lost) {
      this.send();
      this.thread.post({ id: this.id, end: true });
      if (this.result === undefined && !this.failed && !this.lost) await new Promise<KeyRows | null | undefined>((ok) => (this.settle = ok));
    }
    this.thread.close(this.id);
    if (this.failed) return null;
    if (this.lost) return inlineRows(all);
    return this.result ?? null;
  }

  drop(): void {
    this.thread.post({ id: this.id, drop: true });
    this.thread.close(this.id);
  }

  escaped(): Uint8Array | null {
    return this.escapedText;
  }

  /** The worker's answer (null: the thread died). */
  reply(m: Reply | null): void {
    if (m === null) this.lost = true;
    else if (m.failed) this.failed = true;
    else if (m.rows) { this.result = m.rows; this.escapedText = m.escaped ?? null; }
    if (this.lost || this.failed || this.result !== undefined) {
      this.settle?.(this.result);
      this.settle = null;
    }
  }

  private send(): void {
    if (this.pendingBytes === 0) return;
    // One copy of the pieces, into a buffer of its own that moves to the worker without another.
    const chunk = new Uint8Array(this.pendingBytes);
    let at = 0;
    for (const p of this.pending) { chunk.set(p, at); at += p.length; }
    this.pending = [];
    this.pendingBytes = 0;
    this.thread.post({ id: this.id, chunk });
  }
}

/** A reading on this thread. */
export function inlineReading(): NTriplesReading {
  const body = new NTriplesBody();
  return {
    feed: (chunk) => body.feed(chunk),
    end: () => Promise.resolve(body.end() ? body.rows() : null),
    drop: () => {},
    escaped: () => null,
  };
}

/** The whole body read inline (the bytes were checked already). */
function inlineRows(all: Uint8Array): KeyRows | null {
  const body = new NTriplesBody(false);
  for (let at = 0; at < all.length; at += SEND_BYTES) if (!body.feed(all.subarray(at, Math.min(all.length, at + SEND_BYTES)))) return null;
  return body.end() ? body.rows() : null;
}

let available: boolean | undefined;
let shared: BodyThread | null = null;
let enabled = true;

/** Turn the body thread on or off (`--body-thread-enabled`); off, every body is read inline. */
export function setBodyThreadEnabled(on: boolean): void {
  enabled = on;
}

/**
 * An N-Triples body reading: on the server's body thread when the body is large (`declared`
 * bytes, 0 when not declared) and the worker script is there, else inline.
 */
export function ntriplesReading(declared: number): NTriplesReading {
  if (!enabled || (declared > 0 && declared < SEND_BYTES)) return inlineReading();
  available ??= WORKER.protocol === 'file:' && existsSync(WORKER);
  if (!available) return inlineReading();
  if (!shared) {
    const t: BodyThread = new BodyThread(WORKER, () => { if (shared === t) shared = null; void t.terminate(); });
    shared = t;
  }
  return shared.reading();
}
