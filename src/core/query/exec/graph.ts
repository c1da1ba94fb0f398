/**
 * GRAPH (SPARQL 1.1 §13.3, §18.6). A constant graph switches the active graph. A variable graph
 * either runs the inner pattern once in "quad mode" (its scans bind the graph variable, fine when
 * every solution of the pattern comes from its scans) or, in general, once per visible named graph
 * with the variable joined afterwards, exactly as the spec's union over graphs reads.
 */
import { empty } from './scan.js';
import { RowBuffer, streamOf, unitBatch } from './rows.js';
import type { Runtime } from './runtime.js';
import { UNBOUND, type Batch, type PNode, type Stream } from './types.js';

/** GRAPH <iri> { ... }: gid is the graph id, or -1 when the dataset has no such named graph. */
export class ConstGraphNode implements PNode {
  constructor(readonly inner: PNode, readonly iri: string) {}
  describe(): string { return `graph(<${this.iri}>; ${this.inner.describe()})`; }
  exec(rt: Runtime, input: Stream | null): Stream {
    const gid = rt.graphOfIri(this.iri);
    if (gid < 0) return empty();
    return this.inner.exec(rt, input, { kind: 'graph', gid });
  }
}

/** GRAPH ?g { ... } with scans that bind ?g themselves. */
export class QuadGraphNode implements PNode {
  constructor(readonly inner: PNode, readonly slot: number) {}
  describe(): string { return `graph(?${this.slot} quads; ${this.inner.describe()})`; }
  exec(rt: Runtime, input: Stream | null): Stream {
    return this.inner.exec(rt, input, { kind: 'var', slot: this.slot });
  }
}

/** GRAPH ?g { ... } evaluated once per named graph. */
export class EachGraphNode implements PNode {
  constructor(readonly inner: PNode, readonly slot: number) {}
  describe(): string { return `graph(?${this.slot} each; ${this.inner.describe()})`; }

  async *exec(rt: Runtime, input: Stream | null): Stream {
    const w = rt.width;
    const slot = this.slot;
    const batches: AsyncIterable<Batch> = input ?? streamOf(unitBatch(w));
    for await (const b of batches) {
      for (const gid of rt.namedGraphs) {
        rt.check();
        if (rt.due()) await rt.pause();
        const term = rt.graphTerm(gid);
        // Only rows whose ?g is unbound or already this graph take part.
        const sel = new RowBuffer(w, b.n);
        for (let r = 0; r < b.n; r++) {
          const v = b.rows[r * w + slot]!;
          if (v === UNBOUND || v === term) sel.push(b.rows, r * w);
        }
        if (sel.n === 0) continue;
        const seeded = input === null ? null : streamOf(sel.take());
        for await (const o of this.inner.exec(rt, seeded, { kind: 'graph', gid })) {
          const out = new RowBuffer(w, o.n);
          for (let r = 0; r < o.n; r++) {
            const v = o.rows[r * w + slot]!;
            if (v !== UNBOUND && v !== term) continue;
            const at = out.push(o.rows, r * w);
            out.rows[at + slot] = term;
          }
          if (out.n > 0) yield out.take();
        }
      }
    }
  }
}

