/**
 * An RDF/JS Stream (https://rdf.js.org/stream-spec/) over an async iterable of chunks: `read()`
 * with `readable` / `end` / `error` events (what Comunica's asynciterator wrapping reads), or
 * flowing `data` events once a `data` listener is attached. It pulls the next chunk only when the
 * buffered one is consumed, so a consumer that stops reading stops the scan.
 */
import { Emitter } from './emitter.js';

export class PullStream<T> extends Emitter {
  private readonly source: AsyncIterator<readonly T[]>;
  private buffer: T[] = [];
  private pos = 0;
  private pulling = false;
  private exhausted = false;
  private ended = false;
  private flowing = false;

  constructor(chunks: AsyncIterable<readonly T[]>) {
    super();
    this.source = chunks[Symbol.asyncIterator]();
  }

  /** The next buffered item, or null (then `readable` follows, or `end` once the source is exhausted). */
  read(): T | null {
    if (this.pos < this.buffer.length) {
      const item = this.buffer[this.pos++]!;
      if (this.pos === this.buffer.length) this.refill();
      return item;
    }
    // As in Node, `end` only follows a read that finds nothing left.
    if (this.exhausted) this.finish();
    else this.refill();
    return null;
  }

  /** Stop reading; the source iterator is closed. */
  destroy(error?: Error): void {
    this.exhausted = true;
    this.buffer = [];
    this.pos = 0;
    void this.source.return?.();
    if (error) this.fail(error);
    else this.finish();
  }

  /** Consume as an async iterable (for `for await`). */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.read();
      if (item !== null) { yield item; continue; }
      if (this.ended) return;
      await new Promise<void>((resolve, reject) => {
        const done = () => { this.off('readable', done); this.off('end', done); this.off('error', failed); resolve(); };
        const failed = (e: unknown) => { this.off('readable', done); this.off('end', done); this.off('error', failed); reject(e); };
        this.on('readable', done).on('end', done).on('error', failed);
      });
      if (this.ended && this.pos >= this.buffer.length) return;
    }
  }

  protected override listenerAdded(name: string | symbol): void {
    if (name === 'data' && !this.flowing) {
      this.flowing = true;
      queueMicrotask(() => this.flow());
    } else if (name === 'readable') {
      this.refill();
    }
  }

  /** Flowing mode: emit everything buffered as `data`, then pull on. */
  private flow(): void {
    while (this.pos < this.buffer.length) this.emit('data', this.buffer[this.pos++]!);
    if (this.exhausted) this.finish();
    else this.refill();
  }

  private refill(): void {
    if (this.pos < this.buffer.length || this.exhausted || this.pulling) return;
    this.pulling = true;
    this.source.next().then((r) => {
      this.pulling = false;
      if (this.exhausted) return; // destroyed meanwhile
      if (r.done) {
        this.exhausted = true;
        // A paused consumer learns of the end by reading (null) after this `readable`.
        if (this.flowing) this.finish();
        else this.emit('readable');
        return;
      }
      this.buffer = [...r.value];
      this.pos = 0;
      if (this.buffer.length === 0) this.refill();
      else if (this.flowing) this.flow();
      else this.emit('readable');
    }, (e: unknown) => {
      this.pulling = false;
      this.exhausted = true;
      this.fail(e instanceof Error ? e : new Error(String(e)));
    });
  }

  private finish(): void {
    if (this.ended || this.pos < this.buffer.length) return;
    this.ended = true;
    // Asynchronously, so a consumer never sees `end` from inside its own read() call.
    queueMicrotask(() => this.emit('end'));
  }

  private fail(e: Error): void {
    if (this.ended) return;
    this.ended = true;
    queueMicrotask(() => this.emit('error', e));
  }
}
