/**
 * Decoding any commit of a ledger's history with its own chain's tables (replication.md §2): a
 * commit on a loaded branch's first-parent chain is decoded with that branch's head tables (codes
 * are only ever added along a chain, so the head's tables extend every earlier commit's); any other
 * commit (one a merge brought in, or one a rebase replaced) gets tables rebuilt from the
 * `ns_delta` and `graph_delta` of its own first-parent chain.
 */
import { CID } from 'multiformats/cid';
import { decodeCommit, decodeEnvelope, type CommitData, type CommitFlake } from '../commit/commit-codec.js';
import { NamespaceTable } from '../commit/namespaces.js';
import { GRAPH_DEFAULT } from '../flake/flake.js';
import { GraphTable } from '../ledger/graph-table.js';
import type { Ledger } from '../ledger/ledger.js';
import type { ContentStore } from '../store.js';
import type { CommitGraph } from './dag.js';

/** The tables a commit is read with. */
export interface ChainTables { ns: NamespaceTable; graphs: GraphTable }

/** A decoded commit whose graph ids are resolved to IRIs (null = default graph). */
export interface ReadCommit { cid: string; data: CommitData; tables: ChainTables; flakes: KeyedFlake[] }

/** A flake with its graph named by IRI, so it can be compared and staged across branches. */
export interface KeyedFlake { g: string | null; s: CommitFlake['s']; p: CommitFlake['p']; o: CommitFlake['o']; i: number; op: boolean }

/** The conflict key of a flake: subject, predicate, graph (branches.md §6.2). */
export function conflictKey(f: Pick<KeyedFlake, 's' | 'p' | 'g'>): string {
  const s = f.s.termType === 'BlankNode' ? `_:${f.s.value}` : f.s.value;
  return `${s}\u0001${f.p.value}\u0001${f.g ?? ''}`;
}

/** The identity of a fact (graph, subject, predicate, object, list index) for set arithmetic. */
export function factKey(f: KeyedFlake): string {
  const o = f.o;
  const ok = o.termType === 'Literal' ? `L${o.value}\u0002${o.datatype.value}\u0002${o.language}` : `${o.termType === 'BlankNode' ? 'B' : 'I'}${o.value}`;
  return `${conflictKey(f)}\u0001${f.i}\u0001${ok}`;
}

const MAX_MEMO = 4096;

export class CommitReader {
  private readonly memo = new Map<string, ChainTables>();
  /** First-parent chains of the known ledgers, from the graph's envelope cache (not Ledger.chainEntries, which would read every blob again). */
  private chains: Set<string>[] | null = null;

  constructor(private readonly store: ContentStore, private readonly graph: CommitGraph, private readonly known: readonly Ledger[]) {}

  /** The tables in effect for a commit (its own deltas included). */
  async tables(cid: string): Promise<ChainTables> {
    this.chains ??= await Promise.all(this.known.map(async (l) => new Set((await this.graph.firstParents(l.head.cid)).map((x) => x.cid))));
    for (const [k, l] of this.known.entries()) {
      if (this.chains[k]!.has(cid)) return { ns: l.ns, graphs: l.graphs };
    }
    const hit = this.memo.get(cid);
    if (hit) return hit;
    // Walk first parents back to a memoized table or to genesis, then apply deltas forward.
    const path: string[] = [];
    let cur: string | undefined = cid;
    let base: ChainTables | null = null;
    while (cur) {
      const m = this.memo.get(cur);
      if (m) { base = m; break; }
      path.push(cur);
      cur = (await this.graph.node(cur)).parents[0];
    }
    const ns = base ? base.ns.clone() : new NamespaceTable();
    const graphs = base ? base.graphs.clone() : new GraphTable();
    for (let k = path.length - 1; k >= 0; k--) {
      const env = decodeEnvelope(await this.store.get(CID.parse(path[k]!)));
      ns.applyDelta(env.nsDelta);
      for (const [g, iri] of env.graphDelta) graphs.set(g, iri);
    }
    const out = { ns, graphs };
    if (this.memo.size >= MAX_MEMO) this.memo.clear();
    this.memo.set(cid, out);
    return out;
  }

  /** Decode a commit and name its graphs. */
  async read(cid: string): Promise<ReadCommit> {
    const tables = await this.tables(cid);
    const data = decodeCommit(await this.store.get(CID.parse(cid)), tables.ns);
    const local = new Map(data.graphDelta);
    const flakes = data.flakes.map((f): KeyedFlake => ({
      g: f.g === GRAPH_DEFAULT ? null : (tables.graphs.iri(f.g) ?? local.get(f.g) ?? `#graph-${f.g}`),
      s: f.s, p: f.p, o: f.o, i: f.i ?? -1, op: f.op,
    }));
    return { cid, data, tables, flakes };
  }
}
