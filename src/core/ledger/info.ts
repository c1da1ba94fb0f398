/**
 * Ledger info (http-api.md §2.7): heads and statistics. Counts are real time (they include
 * novelty); datatypes, class property lists and reference edges are computed from a scan of the
 * head snapshot; NDV estimates and selectivity come from the last index only.
 */
import { GRAPH_DEFAULT } from '../flake/flake.js';
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

/** Build the info document of a loaded ledger. */
export async function ledgerInfo(ledger: Ledger, opts: InfoOptions = {}): Promise<LedgerInfo> {
  const db = await ledger.db();
  const dict = db.dict;
  const stats = ledger.stats;
  const properties: Record<string, PropertyInfo> = {};
  for (const [p, count] of stats.properties) {
    if (count <= 0) continue;
    properties[dict.key(p)] = { count, 'last-modified-t': stats.propertyT.get(p) ?? 0 };
  }
  if (opts.includePropertyDatatypes !== false) await addDatatypes(db, properties);
  if (opts.includePropertyEstimates && ledger.tree) await addEstimates(await ledger.db({ kind: 't', t: ledger.tree.t }), properties);
  const classes: Record<string, ClassInfo> = {};
  for (const [c, count] of stats.classes) if (count > 0) classes[dict.key(c)] = { count };
  if (opts.realtimePropertyDetails !== false) await addClassDetails(db, classes);
  const indexId = ledger.record.index_head_id;
  return {
    ledger: ledger.id, t: ledger.t, commitId: ledger.head.cid, indexId,
    commit: { commit_id: ledger.head.cid, t: ledger.t },
    index: { id: indexId, t: ledger.tree?.t ?? 0 },
    stats: { flakes: stats.flakes, size: stats.size, indexed: ledger.tree?.t ?? 0, properties, classes },
  };
}

function datatypeOf(key: string): string {
  const t = keyToTerm(key);
  return t.termType === 'Literal' ? t.datatype.value : ID_DATATYPE;
}

async function addDatatypes(db: Db, properties: Record<string, PropertyInfo>): Promise<void> {
  for (const iri of Object.keys(properties)) {
    const p = db.dict.idOfKey(iri)!;
    const counts: Record<string, number> = {};
    for await (const b of db.scan({ g: GRAPH_DEFAULT, p })) {
      for (let i = 0; i < b.n; i++) { const dt = datatypeOf(db.dict.key(b.o[i]!)); counts[dt] = (counts[dt] ?? 0) + 1; }
    }
    properties[iri]!.datatypes = counts;
  }
}

async function addEstimates(db: Db, properties: Record<string, PropertyInfo>): Promise<void> {
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

async function addClassDetails(db: Db, classes: Record<string, ClassInfo>): Promise<void> {
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
