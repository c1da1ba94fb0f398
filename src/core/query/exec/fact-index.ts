/**
 * The build side of a triple pattern's hash join, kept as the matching facts' columns (s, p, o),
 * not as full-width solution rows: a pattern like `?offer bsbm:price ?price` hash-joined into a
 * 16-variable query stores 3 ids per fact instead of 16, and a probe checks the key columns and
 * writes the pattern's other variables straight into the output row (no generic
 * compatibility/merge pass over every slot). A single key column that arrives sorted (the scan
 * walked an index order that starts with the pattern's constants and then the key, e.g. PSO for
 * `?offer bsbm:price ?price` keyed on ?offer) is not hashed at all: a probe binary-searches it,
 * so the build is a copy of the scan.
 */
import type { FactBatch } from '../../index/view.js';
import { RowBuffer, bindSlot as put, mix } from './rows.js';
import type { Runtime } from './runtime.js';
import type { Stream } from './types.js';

/** Facts of one pattern, hashed on the columns that are join keys. */
export class FactIndex {
  n = 0;
  private cols: Int32Array[];
  private head = new Int32Array(0);
  private next = new Int32Array(0);
  private mask = 0;
  /** The single key column, while it is non-decreasing; -1 otherwise. */
  private sortedCol: number;

  /**
   * `keyCols`: the columns (0 s, 1 p, 2 o) matched against the probe row's `keySlots`;
   * `expected`: the estimated fact count (the columns start at that size, not grown by doubling).
   */
  constructor(readonly keyCols: Int32Array, expected = 64) {
    this.sortedCol = keyCols.length === 1 ? keyCols[0]! : -1;
    const size = Math.max(64, Math.min(expected, 1 << 24));
    this.cols = [new Int32Array(size), new Int32Array(size), new Int32Array(size)];
  }

  /** Append a batch of facts (copied: the view reuses its batches). */
  add(fb: FactBatch): void {
    const need = this.n + fb.n;
    if (need > this.cols[0]!.length) {
      let size = this.cols[0]!.length;
      while (size < need) size *= 2;
      this.cols = this.cols.map((c) => { const x = new Int32Array(size); x.set(c.subarray(0, this.n)); return x; });
    }
    this.cols[0]!.set(fb.s.subarray(0, fb.n), this.n);
    this.cols[1]!.set(fb.p.subarray(0, fb.n), this.n);
    this.cols[2]!.set(fb.o.subarray(0, fb.n), this.n);
    if (this.sortedCol >= 0) {
      const c = this.cols[this.sortedCol]!;
      for (let i = Math.max(1, this.n); i < need; i++) if (c[i - 1]! > c[i]!) { this.sortedCol = -1; break; }
    }
    this.n = need;
  }

  /** Build the hash chains once every fact is in. */
  seal(): this {
    if (this.sortedCol >= 0) return this;
    let size = 16;
    while (size < this.n * 2) size *= 2;
    this.mask = size - 1;
    this.head = new Int32Array(size).fill(-1);
    this.next = new Int32Array(Math.max(1, this.n));
    const k = this.keyCols;
    for (let i = this.n - 1; i >= 0; i--) {
      let h = 0x12345;
      for (let j = 0; j < k.length; j++) h = mix(h, this.cols[k[j]!]![i]!);
      const b = h & this.mask;
      this.next[i] = this.head[b]!;
      this.head[b] = i;
    }
    return this;
  }

  /**
   * join(input, facts): each input row (its `keySlots` bound) is extended by every fact whose key
   * columns equal them; `outSlots[c]` is the slot column c binds (-1 none), checked against a
   * value the row already has (a variable repeated in the pattern).
   */
  async *probe(rt: Runtime, input: Stream, keySlots: Int32Array, outSlots: Int32Array): Stream {
    const w = rt.width;
    const out = new RowBuffer(w, 256);
    const k = this.keyCols, nk = k.length;
    const [c0, c1, c2] = this.cols as [Int32Array, Int32Array, Int32Array];
    const s0 = outSlots[0]!, s1 = outSlots[1]!, s2 = outSlots[2]!;
    /** Input row `off` joined with fact `i` (dropped when a repeated variable disagrees). */
    const emitFact = (o: RowBuffer, rows: Int32Array, off: number, i: number): void => {
      const at = o.push(rows, off);
      const buf = o.rows;
      if ((s0 >= 0 && !put(buf, at + s0, c0[i]!)) || (s1 >= 0 && !put(buf, at + s1, c1[i]!)) || (s2 >= 0 && !put(buf, at + s2, c2[i]!))) o.pop();
    };
    for await (const b of input) {
      rt.check();
      if (rt.due()) await rt.pause();
      const rows = b.rows;
      for (let r = 0; r < b.n; r++) {
        const off = r * w;
        if (this.sortedCol >= 0) {
          // Sorted single key: the run of equal keys starts at the lower bound.
          const c = this.cols[this.sortedCol]!, v = rows[off + keySlots[0]!]!;
          let lo = 0, hi = this.n;
          while (lo < hi) { const m = (lo + hi) >>> 1; if (c[m]! < v) lo = m + 1; else hi = m; }
          for (let i = lo; i < this.n && c[i] === v; i++) emitFact(out, rows, off, i);
        } else {
          let h = 0x12345;
          for (let j = 0; j < nk; j++) h = mix(h, rows[off + keySlots[j]!]!);
          facts: for (let i = this.head[h & this.mask]!; i >= 0; i = this.next[i]!) {
            if (rt.spin()) await rt.pause();
            for (let j = 0; j < nk; j++) if (this.cols[k[j]!]![i] !== rows[off + keySlots[j]!]) continue facts;
            emitFact(out, rows, off, i);
          }
        }
        if (out.full) {
          if (rt.due()) await rt.pause();
          yield out.take();
        }
      }
    }
    if (out.n > 0) yield out.take();
  }
}
