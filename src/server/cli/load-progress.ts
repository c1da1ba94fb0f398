/**
 * Progress of `ledgraph load` on stderr: a bar redrawn in place on a terminal (MB read of the total,
 * statements, rate, ETA from the file sizes), else a plain line every few seconds.
 */
import type { CliIo } from './io.js';
import { size } from './progress.js';

export class LoadProgress {
  private read = 0;
  private statements = 0;
  private stage = 'read';
  private readonly started = Date.now();
  private last = 0;

  constructor(private readonly io: CliIo, private readonly label: string, private readonly total: number | null, private readonly intervalMs = 2000) {}

  /** `n` more input bytes read (compressed bytes for gzip files: the total is file sizes). */
  bytes(n: number): void {
    this.read += n;
    this.maybeDraw();
  }

  /** An engine progress report (statements read so far; then commit and index phases). */
  phase(p: { phase: string; done: number; total?: number }): void {
    if (p.phase === 'read') this.statements = p.done;
    else this.stage = p.total ? `${p.phase} ${p.done}/${p.total}` : p.phase;
    this.maybeDraw();
  }

  private maybeDraw(): void {
    const now = Date.now();
    if (now - this.last >= (this.io.errIsTty ? 100 : this.intervalMs)) { this.last = now; this.draw(false); }
  }

  private line(): string {
    const secs = Math.max(0.001, (Date.now() - this.started) / 1000);
    const rate = this.read / secs;
    let s = `${this.label}: ${size(this.read)}${this.total !== null ? ` of ${size(this.total)}` : ''}, ${size(rate)}/s`;
    if (this.statements) s += `, ${this.statements.toLocaleString('en-US')} statements (${Math.round(this.statements / secs).toLocaleString('en-US')}/s)`;
    if (this.total && this.read > 0 && this.read < this.total) s += `, ETA ${Math.ceil(((this.total - this.read) * secs) / this.read)} s`;
    if (this.stage !== 'read') s += `, ${this.stage}`;
    return s;
  }

  private draw(final: boolean): void {
    if (this.io.errIsTty) {
      const width = 30;
      const bar = this.total ? `[${'#'.repeat(Math.round(Math.min(1, this.read / this.total) * width)).padEnd(width, '.')}] ` : '';
      this.io.err(`\r${bar}${this.line()}\x1b[K${final ? '\n' : ''}`);
    } else {
      this.io.err(this.line() + '\n');
    }
  }

  /** The final line (with the facts added, when known). */
  done(triples?: number): void {
    if (triples !== undefined) this.statements = Math.max(this.statements, triples);
    this.draw(true);
  }
}
