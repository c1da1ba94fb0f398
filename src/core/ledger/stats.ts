/** Real-time ledger statistics: fact counts per predicate, class and graph, kept as commits apply. */
import { GRAPH_TXN_META, type Flake } from '../flake/flake.js';
import type { IndexStatsJson } from '../index/root-codec.js';

export class LedgerStats {
  flakes = 0;
  size = 0;
  readonly properties = new Map<number, number>();
  readonly classes = new Map<number, number>();
  readonly graphs = new Map<number, number>();
  /** Last t each predicate changed. */
  readonly propertyT = new Map<number, number>();

  constructor(private readonly rdfTypeId: () => number | undefined) {}

  /** Apply one commit's flakes (asserts count +1, retracts -1). `bytes` is its encoded size. */
  apply(flakes: readonly Flake[], bytes: number): void {
    const typeId = this.rdfTypeId();
    for (const f of flakes) {
      const d = f.op ? 1 : -1;
      this.graphs.set(f.g, (this.graphs.get(f.g) ?? 0) + d);
      if (f.g === GRAPH_TXN_META) continue;
      this.flakes += d;
      this.properties.set(f.p, (this.properties.get(f.p) ?? 0) + d);
      this.propertyT.set(f.p, f.t);
      if (f.p === typeId) this.classes.set(f.o, (this.classes.get(f.o) ?? 0) + d);
    }
    this.size += bytes;
  }

  toJson(): IndexStatsJson {
    return {
      flakes: this.flakes,
      size: this.size,
      properties: Object.fromEntries([...this.properties].map(([k, v]) => [String(k), v])),
      classes: Object.fromEntries([...this.classes].map(([k, v]) => [String(k), v])),
      graphs: Object.fromEntries([...this.graphs].map(([k, v]) => [String(k), v])),
    };
  }

  /** Restore from an index root's statistics. */
  load(j: IndexStatsJson): void {
    this.flakes = j.flakes;
    this.size = j.size;
    for (const [k, v] of Object.entries(j.properties)) this.properties.set(Number(k), v);
    for (const [k, v] of Object.entries(j.classes)) this.classes.set(Number(k), v);
    for (const [k, v] of Object.entries(j.graphs ?? {})) this.graphs.set(Number(k), v);
  }
}
