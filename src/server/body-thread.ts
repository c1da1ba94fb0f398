/**
 * Reading an N-Triples request body beside the main thread (docs/bulk-load.md "Streaming
 * `POST /insert`"): the main thread checks each arriving chunk is UTF-8 (natively, without
 * decoding it), keeps it in the body's bytes, and cuts the bytes after a line feed into pieces of
 * about PIECE_BYTES, copies handed to the server's reading threads (body-worker.ts; as many as
 * there are cores, at most two), each piece to the one with the least still to read. A thread reads
 * its pieces with the same byte reader the inline path runs (ntriples-body.ts) and posts back per
 * piece its keys and statement columns and the piece escaped for the transaction blob; the main
 * thread merges the pieces in body order as they come (body-pieces.ts), so what is left after the
 * last byte is the reading of the last pieces, shared by the threads. When a piece is not plain
 * N-Triples the body is handed to n3 as before. Where no worker script is beside this module (the
 * TypeScript sources, a bundle) or a thread has died, the body is read inline: same statements,
 * same errors.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { KeyRows } from '../core/transact/txn-request.js';
import { PieceMerge, PieceReader, type PieceRows } from './body-pieces.js';
import { MAX_LINE_BYTES, NTriplesBody, Utf8Check } from './ntriples-body.js';

/** A body declaring fewer bytes is read inline (the round trips would cost more). */
const SEND_BYTES = 1 << 20;
/** About the bytes of a piece: small enough that little is left to read after the last byte, large enough that a message costs little beside its reading. */
const PIECE_BYTES = 1 << 19;
/**
 * A thread is handed another piece while it has fewer bytes than this still to read; the rest wait
 * on the main thread, which reads them itself after the last byte. Large: on merged main the main
 * thread is the insert path's bottleneck (staging, ≈90 % busy), and reading pieces there cost more
 * than it saved (1M-triple POST /insert 8.28–8.32 s with every piece on the threads, 8.44–8.96 s
 * with at most 1 MiB queued per thread); only a body far larger than the threads keep up with
 * leaves pieces to the main thread.
 */
const QUEUED_BYTES = 32 << 20;
/** Idle reading threads are stopped after this long (their heaps are not kept for nothing); the next large body starts them. */
const IDLE_MS = 10_000;
/** Reading threads per server: two keep pace with bytes over loopback; more would take cores from staging and indexing. */
const MAX_THREADS = 2;
/** The reading threads' script (tests point it at a bundle of body-worker.ts: setBodyWorker). */
let WORKER = new URL('./body-worker.js', import.meta.url);
/** The reader's young generation, as the bulk load's reading thread has it (load-threads.ts): fewer scavenges. */
const READER_LIMITS = { maxYoungGenerationSizeMb: 96 };

/** An N-Triples body being read: inline or on the reading threads. */
export interface NTriplesReading {
  /** The next bytes (false: not plain N-Triples, hand the body to n3). Throws the 400 for bytes that are not UTF-8. */
  feed(chunk: Uint8Array): boolean;
  /** The statements, or null for n3; `all` is the whole body (read again inline if a thread died). */
  end(all: Uint8Array): Promise<KeyRows | null>;
  /** Abandon the reading (the request failed). */
  drop(): void;
  /** After end(): the body escaped for the transaction blob, when the threads made it (txn-blob.ts Utf8Text). */
  escaped(): Uint8Array | null;
}

/** A thread's answer for piece `seq` of body `id`, of `bytes` bytes. */
interface Reply { id: number; seq: number; bytes: number; failed?: true; piece?: PieceRows }
/** A piece of body `id`, or its end on a thread. */
interface PieceMessage { id: number; seq?: number; chunk?: Uint8Array; first?: true; last?: true; drop?: true }

/** The server's reading threads, reading any number of bodies at once, each under its own id. */
export class BodyThreads {
  private readonly workers: Worker[] = [];
  /** Per thread: bytes handed to it and not answered yet. */
  private readonly queued: number[] = [];
  private dead = false;
  private nextId = 1;
  private readonly open = new Map<number, PiecedReading>();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `idle`: called when no body has been read for IDLE_MS, or when a thread has died. `threads`:
   * how many. `queuedBytes`: the most a thread is handed ahead of its reading (QUEUED_BYTES; tests
   * lower it to have the main thread read held pieces).
   */
  constructor(url: URL = WORKER, private readonly idle: (() => void) | null = null, threads = defaultThreads(), private readonly queuedBytes = QUEUED_BYTES) {
    let gone = false;
    const died = () => {
      this.dead = true;
      for (const r of this.open.values()) r.reply(null, -1);
      this.open.clear();
      // The next large body starts new threads.
      if (!gone) { gone = true; this.idle?.(); }
    };
    for (let w = 0; w < Math.max(1, threads); w++) {
      const worker = new Worker(url, { resourceLimits: READER_LIMITS });
      // Reading bodies never keeps the process alive.
      worker.unref();
      worker.on('message', (m: Reply) => {
        // Counted off whether or not the reading is still open (an abandoned body's pieces are answered too).
        this.queued[w]! -= m.bytes;
        this.open.get(m.id)?.reply(m, w);
        // A thread has room again: pieces held back are handed on.
        for (const r of this.open.values()) r.pump();
      });
      worker.on('error', died);
      worker.on('exit', died);
      this.workers.push(worker);
      this.queued.push(0);
    }
  }

  /** A reading on these threads, or inline when one has died. */
  reading(): NTriplesReading {
    if (this.dead) return inlineReading();
    clearTimeout(this.idleTimer);
    const id = this.nextId++;
    const r = new PiecedReading(this, id);
    this.open.set(id, r);
    return r;
  }

  /** The thread with the least to read, if it has room for another piece (-1: none has; -2: the threads have died). */
  roomy(): number {
    if (this.dead) return -2;
    let w = 0;
    for (let k = 1; k < this.workers.length; k++) if (this.queued[k]! < this.queued[w]!) w = k;
    return this.queued[w]! < this.queuedBytes ? w : -1;
  }

  /** Hand a piece to thread `w` (roomy()). */
  send(w: number, m: PieceMessage & { chunk: Uint8Array }): void {
    this.queued[w]! += m.chunk.length;
    this.workers[w]!.postMessage(m, [m.chunk.buffer as ArrayBuffer]);
  }

  /** Tell thread `w` that body `id` is over (or abandoned) there. */
  drop(w: number, id: number): void {
    if (!this.dead) this.workers[w]!.postMessage({ id, drop: true } satisfies PieceMessage);
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

  /** Stop the threads. */
  async terminate(): Promise<void> {
    this.dead = true;
    clearTimeout(this.idleTimer);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** min(MAX_THREADS, cores): with one core, one thread. */
function defaultThreads(): number {
  return Math.max(1, Math.min(MAX_THREADS, availableParallelism()));
}

class PiecedReading implements NTriplesReading {
  private readonly utf8 = new Utf8Check();
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Bytes since the last line feed. */
  private lineBytes = 0;
  /** Pieces cut. */
  private seq = 0;
  /** Pieces cut and not handed to a thread yet (the threads have enough queued): at the end the main thread reads these itself. */
  private held: (PieceMessage & { chunk: Uint8Array; seq: number })[] = [];
  /** Threads that took a piece of this body. */
  private readonly used = new Set<number>();
  private readonly merge = new PieceMerge();
  private ended = false;
  private failed = false;
  /** A thread died: the body is read inline at the end. */
  private lost = false;
  private settle: (() => void) | null = null;
  private escapedText: Uint8Array | null = null;

  constructor(private readonly threads: BodyThreads, private readonly id: number) {}

  feed(chunk: Uint8Array): boolean {
    this.utf8.push(chunk);
    if (this.failed) return false;
    const nl = chunk.lastIndexOf(10);
    this.lineBytes = nl < 0 ? this.lineBytes + chunk.length : chunk.length - nl - 1;
    // A line this long is left to n3, as the inline reader leaves it.
    if (this.lineBytes > MAX_LINE_BYTES) { this.fail(); return false; }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    // Pieces end at the first line feed from PIECE_BYTES on.
    for (let at; this.pendingBytes > PIECE_BYTES && !this.lost && (at = this.lineEnd(PIECE_BYTES - 1)) > 0;) this.cut(at, false);
    return true;
  }

  async end(all: Uint8Array): Promise<KeyRows | null> {
    this.utf8.end();
    if (!this.failed && !this.lost) {
      this.cut(this.pendingBytes, true);
      // The main thread has nothing else to do for this body: it reads the pieces still held, from
      // the body's end, while the threads take them from the front as they have room.
      while (this.held.length > 0 && !this.failed && !this.lost) {
        const m = this.held.pop()!;
        let piece: PieceRows | null = null;
        try { piece = new PieceReader().read(m.chunk, m.first === true, m.last === true); } catch { /* not plain */ }
        if (!piece) { this.fail(); break; }
        // Each piece read here has a reader of its own (a reader's pieces must come in body order).
        this.merge.add(m.seq, -1 - m.seq, piece);
        // Let the threads' answers (and other requests) in between pieces.
        await new Promise((ok) => setImmediate(ok));
      }
      this.ended = true;
      if (!this.failed && !this.lost) for (const w of this.used) this.threads.drop(w, this.id);
      if (!this.done()) await new Promise<void>((ok) => (this.settle = ok));
    }
    this.threads.close(this.id);
    if (this.failed) return null;
    if (this.lost) return inlineRows(all);
    const { rows, escaped } = this.merge.result();
    this.escapedText = escaped;
    return rows;
  }

  drop(): void {
    this.fail();
    this.threads.close(this.id);
  }

  escaped(): Uint8Array | null {
    return this.escapedText;
  }

  /** A thread's answer for a piece (null: a thread died). */
  reply(m: Reply | null, w: number): void {
    if (m === null) this.lost = true;
    else {
      if (this.failed || this.lost) return;
      if (m.failed) this.fail();
      else this.merge.add(m.seq, w, m.piece!);
    }
    if (this.done()) {
      this.settle?.();
      this.settle = null;
    }
  }

  private done(): boolean {
    return this.failed || this.lost || (this.ended && this.merge.merged === this.seq);
  }

  private fail(): void {
    if (this.failed) return;
    this.failed = true;
    for (const w of this.used) this.threads.drop(w, this.id);
    this.pending = [];
    this.held = [];
    this.settle?.();
    this.settle = null;
  }

  /** Where the first line feed at or after pending byte `from` ends (-1: none yet). */
  private lineEnd(from: number): number {
    let base = 0;
    for (const p of this.pending) {
      if (from < base + p.length) {
        const nl = p.indexOf(10, Math.max(0, from - base));
        if (nl >= 0) return base + nl + 1;
      }
      base += p.length;
    }
    return -1;
  }

  /** Cut the first `bytes` pending bytes as the next piece (`last`: the body's last, maybe empty) and hand it on when a thread has room. */
  private cut(bytes: number, last: boolean): void {
    // One copy of the piece, into a buffer of its own that moves to a thread without another.
    const chunk = new Uint8Array(bytes);
    let at = 0, k = 0;
    for (; k < this.pending.length && at < bytes; k++) {
      const p = this.pending[k]!;
      const take = Math.min(p.length, bytes - at);
      chunk.set(take === p.length ? p : p.subarray(0, take), at);
      at += take;
      // The rest of a chunk cut in the middle stays pending.
      if (take < p.length) { this.pending[k] = p.subarray(take); break; }
    }
    this.pending = this.pending.slice(k);
    this.pendingBytes -= bytes;
    const m: PieceMessage & { chunk: Uint8Array; seq: number } = { id: this.id, seq: this.seq++, chunk };
    if (m.seq === 0) m.first = true;
    if (last) m.last = true;
    this.held.push(m);
    this.pump();
  }

  /** Hand held pieces, in body order, to threads with room. */
  pump(): void {
    while (this.held.length > 0 && !this.failed && !this.lost) {
      const w = this.threads.roomy();
      if (w === -2) { this.lost = true; break; }
      if (w < 0) break;
      this.threads.send(w, this.held.shift()!);
      this.used.add(w);
    }
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
let shared: BodyThreads | null = null;
let enabled = true;

/** Turn the reading threads on or off (`--body-thread-enabled`); off, every body is read inline. */
export function setBodyThreadEnabled(on: boolean): void {
  enabled = on;
}

/** Read bodies with this worker script from now on (tests: a bundle of body-worker.ts, as dist/ has it beside this module). */
export function setBodyWorker(url: URL): void {
  WORKER = url;
  available = undefined;
  void shared?.terminate();
  shared = null;
}

/**
 * An N-Triples body reading: on the server's reading threads when the body is large (`declared`
 * bytes, 0 when not declared) and the worker script is there, else inline.
 */
export function ntriplesReading(declared: number): NTriplesReading {
  if (!enabled || (declared > 0 && declared < SEND_BYTES)) return inlineReading();
  available ??= WORKER.protocol === 'file:' && existsSync(WORKER);
  if (!available) return inlineReading();
  if (!shared) {
    const t: BodyThreads = new BodyThreads(WORKER, () => { if (shared === t) shared = null; void t.terminate(); });
    shared = t;
  }
  return shared.reading();
}
