/**
 * SERVICE <endpoint> { ... } (SPARQL 1.1 Federated Query): the group is sent as one SELECT to the
 * remote endpoint and its solutions stream back as rows; the planner hash-joins them with the
 * rest of the query. Each remote solution costs one unit of fuel; the query's deadline and
 * cancellation abort the remote request. SILENT turns a failed call (not a timeout, cancellation
 * or fuel overrun) into the rows received so far, or the one empty solution when there were none.
 */
import { isLedgraphError } from '../../errors.js';
import { remoteSolutions } from '../federation/service.js';
import { RowBuffer, unitBatch } from './rows.js';
import { abortError, isFuelExhausted, type Runtime } from './runtime.js';
import type { PNode, Stream } from './types.js';

export class ServiceNode implements PNode {
  /** `vars`: the pattern's variables and their slots (other columns of the answer are ignored). */
  constructor(readonly endpoint: string, readonly query: string, readonly silent: boolean, readonly vars: [string, number][]) {}

  describe(): string { return `service(<${this.endpoint}>${this.silent ? ' silent' : ''})`; }

  async *exec(rt: Runtime, input: Stream | null): Stream {
    if (input !== null) throw new Error('SERVICE runs on its own and is hash-joined; it takes no input rows');
    const w = rt.width;
    const out = new RowBuffer(w, 64);
    let rows = 0;
    const signal = rt.requestSignal();
    try {
      for await (const batch of remoteSolutions(this.endpoint, this.query, rt.federation, signal)) {
        rt.check();
        for (const sol of batch) {
          rt.charge(1);
          const at = out.pushEmpty();
          for (const [name, slot] of this.vars) {
            const t = sol[name];
            if (t === undefined) continue;
            let id: number;
            try { id = rt.ids.intern(t); } catch (e) { id = await rt.ids.internMissed(t, e); }
            out.rows[at + slot] = id;
          }
          rows++;
          if (out.full) yield out.take();
        }
        // Pass on what this network chunk brought, so consumers see rows before the answer ends.
        if (out.n > 0) yield out.take();
      }
    } catch (e) {
      // Time, cancellation and fuel are the query's own limits: SILENT does not hide them.
      if (signal?.aborted) throw abortError(signal);
      if (!this.silent || isFuelExhausted(e) || (isLedgraphError(e) && (e.status === 408 || e.status === 499))) throw e;
      if (rows === 0 && out.n === 0) { yield unitBatch(w); return; }
    }
    if (out.n > 0) yield out.take();
  }
}
