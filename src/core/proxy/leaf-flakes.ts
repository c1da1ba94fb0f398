/**
 * An index leaf as wire flakes (replication.md §11): the leaf's current rows, then the events of
 * its history blob, each resolved from dictionary ids to SIDs and typed objects and kept only when
 * `visible` (the caller's `f:view` policy) allows the fact.
 */
import type { NamespaceTable } from '../commit/namespaces.js';
import { prepObject } from '../commit/object-tags.js';
import type { TermDict } from '../index/dict.js';
import type { Run } from '../index/run.js';
import type { GraphTable } from '../ledger/graph-table.js';
import { graphNameTerm, type Term } from '../rdf/terms.js';
import { rdf, xsd, ID_DATATYPE, XSD } from '../rdf/vocab.js';
import type { WireFlake, WireObject, WireSid } from './flakes-codec.js';

/** What resolving a leaf needs from its ledger: the dictionary its ids point into and the SID tables. */
export interface LeafTables { dict: TermDict; ns: NamespaceTable; graphs: GraphTable }

/** Decides whether a fact may be seen; null = every fact (root policy). */
export type FactFilter = ((s: Term, p: Term, o: Term) => Promise<boolean>) | null;

const ID_SID: WireSid = { ns: 0, name: ID_DATATYPE };

/** Lexical-form types by datatype (tag-5 literals); anything else travels as `string`. */
const LEXICAL_TYPES = new Map<string, WireObject['type']>([
  [xsd.decimal, 'bigdec'], [xsd.dateTime, 'datetime'], [XSD + 'dateTimeStamp', 'datetime'], [xsd.date, 'date'], [xsd.time, 'time'],
]);

/** The SID of an IRI or blank node (blank nodes are `(0, "_:label")`, as in commits). */
function sidOf(ns: NamespaceTable, t: Term): WireSid {
  if (t.termType === 'BlankNode') return { ns: 0, name: '_:' + t.value };
  const iri = t.value;
  const sid = ns.lookup(iri);
  return sid ? { ns: sid.ns, name: sid.local } : { ns: 0, name: iri };
}

/**
 * The typed wire object of a term and its datatype SID. `long`, `double` and `bool` are used only
 * when the lexical form is the canonical print of the value (the commit format's tags 1, 2, 4);
 * every other literal carries its exact lexical form as a string, typed by its datatype.
 */
export function wireObject(ns: NamespaceTable, o: Term): { o: WireObject; dt: WireSid; lang?: string } {
  if (o.termType !== 'Literal') return { o: { type: 'ref', value: sidOf(ns, o) }, dt: ID_SID };
  const dt = sidOf(ns, o.datatype);
  const lang = o.language || undefined;
  const { o: tagged } = prepObject(o, 'index leaf');
  let w: WireObject;
  switch (tagged.tag) {
    case 1: w = typeof tagged.v === 'bigint' || !Number.isSafeInteger(tagged.v) ? { type: 'bigint', value: o.value } : { type: 'long', value: tagged.v }; break;
    case 2: w = Number.isFinite(tagged.v) && !Object.is(tagged.v, -0) ? { type: 'double', value: tagged.v } : { type: 'string', value: o.value }; break;
    case 4: w = { type: 'bool', value: tagged.v }; break;
    case 6: w = { type: 'json', value: o.value }; break;
    case 5: w = { type: o.datatype.value === rdf.JSON ? 'json' : LEXICAL_TYPES.get(o.datatype.value) ?? 'string', value: o.value }; break;
    default: w = { type: 'string', value: o.value };
  }
  return lang === undefined ? { o: w, dt } : { o: w, dt, lang };
}

/** Append the visible rows of a leaf or history run to `out`, in run order. */
export async function appendRunFlakes(run: Run, tables: LeafTables, visible: FactFilter, out: WireFlake[]): Promise<void> {
  const { dict, ns, graphs } = tables;
  await dict.ensureIds([run.s, run.p, run.o], run.n);
  for (let i = 0; i < run.n; i++) {
    const s = dict.term(run.s[i]!), p = dict.term(run.p[i]!), o = dict.term(run.o[i]!);
    if (visible && !(await visible(s, p, o))) continue;
    const obj = wireObject(ns, o);
    const f: WireFlake = { s: sidOf(ns, s), p: sidOf(ns, p), o: obj.o, dt: obj.dt, t: run.t[i]!, op: run.op[i] === 1 };
    if (obj.lang !== undefined) f.lang = obj.lang;
    const m = run.m[i]!;
    if (m >= 0) f.i = m;
    const g = run.g[i]!;
    if (g !== 0) f.g = sidOf(ns, graphNameTerm(graphs.iri(g) ?? `#graph-${g}`));
    out.push(f);
  }
}
