/**
 * Progress of clone, push, export and import on stderr: a bar redrawn in place (bytes and objects,
 * rate, ETA when the total is known) when stderr is a terminal, else a plain line every few seconds.
 */
import type { PackHeader } from '../../core/pack/frames.js';
import type { CliIo } from './io.js';

/** A byte count for people (B, KiB, MiB, GiB). */
export function size(n: number): string {
  if (n < 1024) return `${Math.round(n)} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export class Progress {
  private bytes = 0;
  private objects = 0;
  private total: number | null = null;
  private readonly started = Date.now();
  private last = 0;

  constructor(private readonly io: CliIo, private readonly label: string, private readonly intervalMs = 2000) {}

  /** Set the expected number of objects (for the bar and ETA). */
  expect(objects: number): void { this.total = objects; }

  /**
   * Expect the objects a pack Header announces: each commit and its transaction blob (the genesis
   * commit has none) plus the index artifacts. An estimate: a blob shared or missing makes it high.
   */
  expectPack(h: Pick<PackHeader, 'commit_count' | 'index_artifact_count'>): void {
    const commits = Number(h.commit_count) || 0;
    this.expect(Math.max(0, 2 * commits - 1) + (Number(h.index_artifact_count) || 0));
  }

  /** The watcher a pack reader or writer reports to: the Header sets the total, each object ticks. */
  watcher(): { header(h: Pick<PackHeader, 'commit_count' | 'index_artifact_count'>): void; object(bytes: number): void } {
    return { header: (h) => this.expectPack(h), object: (n) => this.tick(n) };
  }

  /** Account for `n` bytes: one object, or (`object` false) bytes of a stream without object boundaries. */
  tick(n: number, object = true): void {
    if (object) this.objects++;
    this.bytes += n;
    const now = Date.now();
    const gap = this.io.errIsTty ? 100 : this.intervalMs;
    if (now - this.last >= gap) { this.last = now; this.draw(false); }
  }

  private line(): string {
    const secs = Math.max(0.001, (Date.now() - this.started) / 1000);
    const rate = this.bytes / secs;
    const objects = this.objects > 0 || this.total !== null ? `${this.objects}${this.total !== null ? `/${this.total}` : ''} objects, ` : '';
    let s = `${this.label}: ${objects}${size(this.bytes)}, ${size(rate)}/s`;
    if (this.total && this.objects > 0 && this.objects < this.total) s += `, ETA ${Math.ceil(((this.total - this.objects) * secs) / this.objects)} s`;
    return s;
  }

  private draw(final: boolean): void {
    if (this.io.errIsTty) {
      const width = 30;
      const frac = this.total ? Math.min(1, this.objects / this.total) : 0;
      const bar = this.total ? `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ` : '';
      this.io.err(`\r${bar}${this.line()}\x1b[K${final ? '\n' : ''}`);
    } else {
      this.io.err(this.line() + '\n');
    }
  }

  /** The final line. */
  done(): void { this.draw(true); }
}
