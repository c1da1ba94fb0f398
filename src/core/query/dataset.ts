/**
 * Dataset resolution for every query language: FROM / FROM NAMED (SPARQL), `from` / `fromNamed`
 * (JSON-LD), protocol graph parameters and the connection-scoped ledger become one QueryContext.
 *
 * Rules (decided): an IRI that parses as a ledger reference of an existing ledger names that ledger's
 * default graph (or its txn-meta graph with `#txn-meta`) at the reference's time specifier; any other
 * IRI names a graph of the default ledger. A dataset within one snapshot reads the Db directly; one
 * spanning ledgers or times (or naming a ledger as a named graph) reads through a UnionView.
 */
import { badRequest, notFound } from '../errors.js';
import { GRAPH_TXN_META } from '../flake/flake.js';
import type { DbView } from '../index/view.js';
import type { Connection } from '../ledger/connection.js';
import type { Db } from '../ledger/db.js';
import type { Ledger } from '../ledger/ledger.js';
import { parseLedgerRef, type LedgerRef, type TimeSpec } from '../ledger/ledger-id.js';
import { UnionView } from '../ledger/union-view.js';

export interface DatasetSpec {
  /** IRIs merged into the default graph. */
  defaultGraphs?: string[];
  /** IRIs of the named graphs. */
  namedGraphs?: string[];
}

export interface DatasetOptions {
  /** The ledger of a ledger-scoped call (path, `Ledgraph-Ledger`, query `from` fallback). */
  defaultLedger?: string;
  /** Time for references without their own specifier (multi-query `asOf`, `opts.t`). */
  at?: TimeSpec;
}

export interface ResolvedDataset {
  view: DbView;
  defaultGraphs: number[];
  namedGraphs: number[];
  resolveGraph(iri: string): number | undefined;
  /** t observed per ledger id. */
  ledgers: Record<string, number>;
}

interface Entry { name: string; role: 'default' | 'named'; ledger: LedgerRef | null }

function asLedgerRef(iri: string): LedgerRef | null {
  try { return parseLedgerRef(iri); } catch { return null; }
}

/** What a head snapshot was made from; while a ledger still has exactly these, the snapshot is current. */
interface HeadSnapshot { head: Ledger['head']; tree: Ledger['tree']; novelty: Ledger['novelty']; graphs: Ledger['graphs']; db: Db }

/** The last head snapshot of each loaded ledger (dropped with the Ledger object). */
const headSnapshots = new WeakMap<Ledger, HeadSnapshot>();

function sameParts(a: Omit<HeadSnapshot, 'db'>, l: Ledger): boolean {
  return a.head === l.head && a.tree === l.tree && a.novelty === l.novelty && a.graphs === l.graphs;
}

/** The remembered head snapshot while it is current, else undefined. */
function currentHead(ledger: Ledger): Db | undefined {
  const hit = headSnapshots.get(ledger);
  return hit && sameParts(hit, ledger) ? hit.db : undefined;
}

/**
 * A snapshot of the ledger at `time`. At the head, the previous head snapshot is reused while the
 * ledger's head, index tree, novelty and graph table are the very same objects (a commit or an
 * index install replaces them), since a Db made now would read exactly the same parts.
 */
async function openDb(ledger: Ledger, time: TimeSpec): Promise<Db> {
  if (time.kind !== 'head') return ledger.db(time);
  const hit = currentHead(ledger);
  if (hit) return hit;
  const parts = { head: ledger.head, tree: ledger.tree, novelty: ledger.novelty, graphs: ledger.graphs };
  const db = await ledger.db(time);
  // Remember it only when nothing moved while it was made (then it was made from `parts`).
  if (sameParts(parts, ledger) && db.t === parts.head.t) headSnapshots.set(ledger, { ...parts, db });
  return db;
}

/** Resolve a dataset against a connection. */
export async function resolveDataset(conn: Connection, spec: DatasetSpec, opts: DatasetOptions = {}): Promise<ResolvedDataset> {
  const defaults = spec.defaultGraphs ?? [];
  const named = spec.namedGraphs ?? [];
  const timeOf = (ref: LedgerRef): TimeSpec => (ref.time.kind === 'head' && opts.at ? opts.at : ref.time);
  const defaultRef = opts.defaultLedger !== undefined ? parseLedgerRef(opts.defaultLedger) : null;

  if (defaults.length === 0 && named.length === 0) {
    if (!defaultRef) throw badRequest('no ledger to query: name one in the path, the Ledgraph-Ledger header, or the query (from / FROM)');
    const ledger = await conn.ledger(defaultRef.id);
    const time = timeOf(defaultRef);
    // The current head snapshot without another await (every head query of a ledger asks for it).
    const db = (time.kind === 'head' ? currentHead(ledger) : undefined) ?? await openDb(ledger, time);
    return single(db, [graphOf(db, defaultRef)], db.namedGraphs());
  }

  const dbs = new Map<string, Db>();
  const open = async (ref: LedgerRef): Promise<Db> => {
    const time = timeOf(ref);
    const key = `${ref.id}@${JSON.stringify(time)}`;
    let db = dbs.get(key);
    if (!db) {
      db = await openDb(await conn.ledger(ref.id), time);
      dbs.set(key, db);
    }
    return db;
  };

  const entries: Entry[] = [];
  for (const [list, role] of [[defaults, 'default'], [named, 'named']] as const) {
    for (const name of list) {
      const ref = asLedgerRef(name);
      if (ref && (await conn.exists(ref.id))) entries.push({ name, role, ledger: ref });
      else if (defaultRef) entries.push({ name, role, ledger: null });
      else if (ref) throw notFound(`ledger ${ref.id} not found`);
      else throw badRequest(`graph <${name}> is not a ledger, and there is no default ledger to find it in`);
    }
  }
  // Snapshot per entry: its own ledger, or the default ledger for plain graph IRIs.
  const resolved: { entry: Entry; db: Db; graph: number | undefined }[] = [];
  for (const entry of entries) {
    if (entry.ledger) {
      const db = await open(entry.ledger);
      resolved.push({ entry, db, graph: graphOf(db, entry.ledger) });
    } else {
      const db = await open(defaultRef!);
      resolved.push({ entry, db, graph: db.graphId(entry.name) });
    }
  }
  const snapshots = new Set(resolved.map((r) => r.db));
  const ledgerAsNamed = resolved.some((r) => r.entry.role === 'named' && r.entry.ledger);
  if (snapshots.size === 1 && !ledgerAsNamed) {
    const db = resolved[0]!.db;
    const ids = (role: 'default' | 'named') =>
      [...new Set(resolved.filter((r) => r.entry.role === role && r.graph !== undefined).map((r) => r.graph!))];
    const namedIds = ids('named');
    return {
      view: db, defaultGraphs: ids('default'), namedGraphs: namedIds,
      // GRAPH <iri> sees only the dataset's named graphs.
      resolveGraph: (iri) => { const g = db.graphId(iri); return g !== undefined && namedIds.includes(g) ? g : undefined; },
      ledgers: { [db.ledgerId]: db.t },
    };
  }
  const union = new UnionView();
  const defaultIds: number[] = [];
  const namedIds: number[] = [];
  const ledgers: Record<string, number> = {};
  for (const r of resolved) {
    ledgers[r.db.ledgerId] = r.db.t;
    if (r.graph === undefined) continue; // a graph the ledger never had: empty
    const id = union.addGraph(r.db, r.graph, r.entry.role === 'named' ? r.entry.name : undefined);
    (r.entry.role === 'default' ? defaultIds : namedIds).push(id);
  }
  return { view: union, defaultGraphs: defaultIds, namedGraphs: namedIds, resolveGraph: (iri) => union.graphId(iri), ledgers };

  function single(db: Db, defaultGraphs: number[], namedGraphs: number[]): ResolvedDataset {
    return { view: db, defaultGraphs, namedGraphs, resolveGraph: (iri) => db.graphId(iri), ledgers: { [db.ledgerId]: db.t } };
  }
}

/** The graph a ledger reference denotes: its default graph, or txn-meta with `#txn-meta`. */
function graphOf(db: Db, ref: LedgerRef): number {
  if (ref.fragment === null || ref.fragment === '') return 0;
  if (ref.fragment === 'txn-meta') return GRAPH_TXN_META;
  const g = db.graphId(ref.fragment);
  if (g === undefined) throw notFound(`ledger ${ref.id} has no graph <${ref.fragment}>`);
  return g;
}
