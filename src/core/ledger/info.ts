/**
 * Ledger info (http-api.md §2.7): heads and statistics. Counts are real time (they include
 * novelty); datatypes, class property lists and reference edges are computed from a scan of the
 * head snapshot; NDV estimates and selectivity come from the last index only.
 *
 * Under a restricting `view` (a policy, policy.md §5) nothing comes from the ledger's unrestricted
 * statistics: `flakes`, per-property and per-class counts are counted by scanning the visible facts
 * of the head outside txn-meta (like the real-time statistics), `last-modified-t` is the last t of
 * a visible event of the property, and datatypes, class property lists, reference edges and NDV
 * estimates scan the restricted snapshots. `size` is the visible fraction of the ledger's bytes:
 * size × visible flakes / all flakes, rounded (0 when nothing is visible). Heads and `indexed` are
 * not facts and stay as they are.
 */
import { GRAPH_CONFIG, GRAPH_DEFAULT, GRAPH_TXN_META } from '../flake/flake.js';
import type { DbView } from '../index/view.js';
import { withDictRetry } from '../index/dict.js';
import { keyToTerm } from '../rdf/terms.js';
import { ID_DATATYPE, rdf } from '../rdf/vocab.js';
import type { Db } from './db.js';
import type { Ledger } from './ledger.js';

export interface InfoOptions {
  /** Class property lists and reference edges (default true). */
  realtimePropertyDetails?: boolean;
  /** Per-property datatype counts (default true). */
  includePropertyDatatypes?: boolean;
  /** ndv-values, ndv-subjects, selectivity from the last index (default false). */
  includePropertyEstimates?: boolean;
}

/**
 * What a restricted caller may see of a snapshot of the ledger (e.g. its policy view): applied to
 * the head, and to the last index's snapshot when estimates are asked for.
 */
export type InfoView = (db: Db) => Promise<DbView>;

interface PropertyInfo { count: number; 'last-modified-t': number; datatypes?: Record<string, number>; 'ndv-values'?: number; 'ndv-subjects'?: number; selectivity?: number }
interface ClassInfo { count: number; properties?: Record<string, { count: number; refs: number; 'ref-classes': Record<string, number> }>; 'property-list'?: string[] }

export interface LedgerInfo {
  ledger: string;
  t: number;
  commitId: string;
  indexId: string | null;
  commit: { commit_id: string; t: number };
  index: { id: string | null; t: number };
  stats: { flakes: number; size: number; indexed: number; properties: Record<string, PropertyInfo>; classes: Record<string, ClassInfo> };
}

/** Fact counts of a snapshot, shaped like the ledger's real-time statistics. */
interface Counts { flakes: number; size: number; properties: Map<number, number>; propertyT: Map<number, number>; classes: Map<number, number> }

/**
 * Build the info document of a loaded ledger. Without `view` every count comes from the ledger's
 * real-time statistics; with it, from the facts the view keeps (see the header).
 */
export async function ledgerInfo(ledger: Ledger, opts: InfoOptions = {}, view?: InfoView): Promise<LedgerInfo> {
  // Statistics name terms by id, and the details look IRIs up: their dictionary pages are loaded
  // first, and a lookup that still misses one loads it and starts over.
  const ids = [...ledger.stats.properties.keys(), ...ledger.stats.classes.keys()];
  await ledger.dict.ensureIds([Int32Array.from(ids)], ids.length);
  return withDictRetry(() => ledgerInfoOnce(ledger, opts, view));
}

async function ledgerInfoOnce(ledger: Ledger, opts: InfoOptions, view?: InfoView): Promise<LedgerInfo> {
  const db = await ledger.db();
  // The totals of the snapshot just taken (the live statistics move on with later commits).
  const total = { flakes: ledger.stats.flakes, size: ledger.stats.size };
  const read: DbView = view ? await view(db) : db;
  const dict = read.dict;
  const stats: Counts = view ? await visibleCounts(read, total.flakes, total.size) : ledger.stats;
  const properties: Record<string, PropertyInfo> = {};
  for (const [p, count] of stats.properties) {
    if (count <= 0) continue;
    properties[dict.key(p)] = { count, 'last-modified-t': stats.propertyT.get(p) ?? 0 };
  }
  if (opts.includePropertyDatatypes !== false) await addDatatypes(read, properties);
  if (opts.includePropertyEstimates && ledger.tree) {
    const indexed = await ledger.db({ kind: 't', t: ledger.tree.t });
    await addEstimates(view ? await view(indexed) : indexed, properties);
  }
  const classes: Record<string, ClassInfo> = {};
  for (const [c, count] of stats.classes) if (count > 0) classes[dict.key(c)] = { count };
  if (opts.realtimePropertyDetails !== false) await addClassDetails(read, classes);
  const indexId = ledger.record.index_head_id;
  return {
    ledger: ledger.id, t: ledger.t, commitId: ledger.head.cid, indexId,
    commit: { commit_id: ledger.head.cid, t: ledger.t },
    index: { id: indexId, t: ledger.tree?.t ?? 0 },
    stats: { flakes: stats.flakes, size: stats.size, indexed: ledger.tree?.t ?? 0, properties, classes },
  };
}

/**
 * The real-time statistics of what `view` shows: its current facts in every graph but txn-meta
 * (the ledger's statistics leave txn-meta out too), the last t of a visible event per property,
 * and `size` scaled from the ledger's `totalSize` by visible / `totalFlakes` facts.
 */
async function visibleCounts(view: DbView, totalFlakes: number, totalSize: number): Promise<Counts> {
  const type = view.dict.idOfKey(rdf.type);
  const properties = new Map<number, number>(), classes = new Map<number, number>(), propertyT = new Map<number, number>();
  let flakes = 0;
  for (const g of [GRAPH_DEFAULT, GRAPH_CONFIG, ...view.namedGraphs()]) {
    for await (const b of view.scan({ g })) {
      flakes += b.n;
      for (let i = 0; i < b.n; i++) {
        const p = b.p[i]!;
        properties.set(p, (properties.get(p) ?? 0) + 1);
        if (p === type) classes.set(b.o[i]!, (classes.get(b.o[i]!) ?? 0) + 1);
      }
    }
  }
  for (const p of properties.keys()) {
    let last = 0;
    for await (const e of view.history({ p }, 0, view.t)) if (e.g !== GRAPH_TXN_META && e.t > last) last = e.t;
    propertyT.set(p, last);
  }
  const size = totalFlakes > 0 ? Math.round(totalSize * Math.min(flakes, totalFlakes) / totalFlakes) : 0;
  return { flakes, size, properties, propertyT, classes };
}

function datatypeOf(key: string): string {
  const t = keyToTerm(key);
  return t.termType === 'Literal' ? t.datatype.value : ID_DATATYPE;
}

async function addDatatypes(db: DbView, properties: Record<string, PropertyInfo>): Promise<void> {
  for (const iri of Object.keys(properties)) {
    const p = db.dict.idOfKey(iri)!;
    const counts: Record<string, number> = {};
    for await (const b of db.scan({ g: GRAPH_DEFAULT, p })) {
      for (let i = 0; i < b.n; i++) { const dt = datatypeOf(db.dict.key(b.o[i]!)); counts[dt] = (counts[dt] ?? 0) + 1; }
    }
    properties[iri]!.datatypes = counts;
  }
}

async function addEstimates(db: DbView, properties: Record<string, PropertyInfo>): Promise<void> {
  for (const iri of Object.keys(properties)) {
    const p = db.dict.idOfKey(iri)!;
    const values = new Set<number>(), subjects = new Set<number>();
    let n = 0;
    for await (const b of db.scan({ g: GRAPH_DEFAULT, p })) {
      for (let i = 0; i < b.n; i++) { values.add(b.o[i]!); subjects.add(b.s[i]!); n++; }
    }
    const info = properties[iri]!;
    info['ndv-values'] = values.size;
    info['ndv-subjects'] = subjects.size;
    info.selectivity = values.size === 0 ? 0 : Math.max(1, Math.round(n / values.size));
  }
}

async function addClassDetails(db: DbView, classes: Record<string, ClassInfo>): Promise<void> {
  const type = db.dict.idOfKey(rdf.type);
  if (type === undefined) return;
  for (const iri of Object.keys(classes)) {
    const c = db.dict.idOfKey(iri)!;
    const props: Record<string, { count: number; refs: number; 'ref-classes': Record<string, number> }> = {};
    const instances: number[] = [];
    for await (const b of db.scan({ g: GRAPH_DEFAULT, p: type, o: c })) for (let i = 0; i < b.n; i++) instances.push(b.s[i]!);
    for (const s of instances) {
      for await (const b of db.scan({ g: GRAPH_DEFAULT, s })) {
        for (let i = 0; i < b.n; i++) {
          const pk = db.dict.key(b.p[i]!);
          const entry = (props[pk] ??= { count: 0, refs: 0, 'ref-classes': {} });
          entry.count++;
          if (db.dict.kind(b.o[i]!) !== 2) {
            entry.refs++;
            for await (const tb of db.scan({ g: GRAPH_DEFAULT, s: b.o[i]!, p: type })) {
              for (let k = 0; k < tb.n; k++) { const ck = db.dict.key(tb.o[k]!); entry['ref-classes'][ck] = (entry['ref-classes'][ck] ?? 0) + 1; }
            }
          }
        }
      }
    }
    classes[iri]!.properties = props;
    classes[iri]!['property-list'] = Object.keys(props).sort();
  }
}
