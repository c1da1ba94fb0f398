/** The graph table of a ledger: graph IRI <-> graph id (0 default, 1 txn-meta, 2 config, >= 3 named). */
import { FIRST_NAMED_GRAPH, GRAPH_CONFIG, GRAPH_TXN_META } from '../flake/flake.js';

export const TXN_META_IRI = '#txn-meta';
export const CONFIG_GRAPH_IRI = '#config';

export class GraphTable {
  private readonly ids = new Map<string, number>();
  private readonly iris = new Map<number, string>();
  private next = FIRST_NAMED_GRAPH;

  constructor(entries: [number, string][] = []) {
    this.ids.set(TXN_META_IRI, GRAPH_TXN_META);
    this.iris.set(GRAPH_TXN_META, TXN_META_IRI);
    this.ids.set(CONFIG_GRAPH_IRI, GRAPH_CONFIG);
    this.iris.set(GRAPH_CONFIG, CONFIG_GRAPH_IRI);
    for (const [id, iri] of entries) this.set(id, iri);
  }

  /** named()'s answer until the next set (every query asks for it). */
  private namedList: [number, string][] | null = null;

  /** Record an announced graph (graph_delta). */
  set(id: number, iri: string): void {
    this.namedList = null;
    this.namedIdList = null;
    this.ids.set(iri, id);
    this.iris.set(id, iri);
    if (id >= this.next) this.next = id + 1;
  }
  id(iri: string): number | undefined { return this.ids.get(iri); }
  iri(id: number): string | undefined { return this.iris.get(id); }
  /** The id a new graph would get. */
  get nextId(): number { return this.next; }
  /** Named graph entries (id >= 3), ascending. */
  named(): [number, string][] {
    // A copy: callers may keep or change theirs.
    return this.namedEntries().slice();
  }
  /** The named graph ids, ascending (shared until the next set: not to be changed). */
  namedIds(): readonly number[] {
    return (this.namedIdList ??= this.namedEntries().map(([id]) => id));
  }
  private namedIdList: number[] | null = null;
  /** The named graph entries, ascending, kept until the next set. */
  private namedEntries(): [number, string][] {
    return (this.namedList ??= [...this.iris].filter(([id]) => id >= FIRST_NAMED_GRAPH).sort((a, b) => a[0] - b[0]));
  }
  clone(): GraphTable { return new GraphTable(this.named()); }
}
