/**
 * JSON-LD output of graph results (CONSTRUCT, DESCRIBE, graph store reads) through jsonld.js's
 * `fromRDF` (JSON-LD 1.1 "Serialize RDF as JSON-LD"): expanded form, one node object per subject
 * sorted by `@id`, named graphs as `{"@id": g, "@graph": [...]}`, rdf:JSON literals as `@json`
 * values, well-formed rdf:first/rest chains as `@list`. Values stored as list items (a list index,
 * http-api.md §2.2) come out as one `@list` per subject and property, in index order. The quads are
 * buffered (a node needs all of them), then written one node object per line.
 */
import jsonld from 'jsonld';
import type { Quad, Term } from '../../rdf/terms.js';
import { blankNode, namedNode } from '../../rdf/terms.js';
import { rdf } from '../../rdf/vocab.js';
import { quadsOf, type QueryResult } from './types.js';
import { BlankLabeler } from './rdf-writers.js';

const RDF_FIRST = namedNode(rdf.first);
const RDF_REST = namedNode(rdf.rest);
const RDF_NIL = namedNode(rdf.nil);

/** Stream a graph or dataset result as expanded JSON-LD (an array of node objects, one per line). */
export async function* writeJsonLd(result: QueryResult): AsyncIterable<string> {
  // An RDF dataset is a set: duplicates go; blank labels become ones every syntax accepts.
  const labeler = new BlankLabeler();
  const label = <T extends Term | Quad['graph']>(t: T): T => (t.termType === 'BlankNode' ? blankNode(labeler.label(t.value)) as T : t);
  const quads: Quad[] = [];
  const seen = new Set<string>();
  for await (const q of quadsOf(result, 'JSON-LD')) {
    const k = `${key(q.subject)} ${q.predicate.value} ${key(q.object)} ${key(q.graph)} ${q.listIndex ?? ''}`;
    if (seen.has(k)) continue;
    seen.add(k);
    const out: Quad = { subject: label(q.subject), predicate: q.predicate, object: label(q.object), graph: label(q.graph) };
    if (q.listIndex !== undefined) out.listIndex = q.listIndex;
    quads.push(out);
  }
  const nodes = await jsonld.fromRDF(withListChains(quads).map(graphNameForJsonLd) as never) as Record<string, unknown>[];
  if (nodes.length === 0) { yield '[]\n'; return; }
  yield '[';
  for (let i = 0; i < nodes.length; i++) yield (i === 0 ? '\n' : ',\n') + JSON.stringify(sortedKeys(nodes[i]!));
  yield '\n]\n';
}

/** A graph or dataset result as a JSON-LD string. */
export async function toJsonLd(result: QueryResult): Promise<string> {
  let s = '';
  for await (const c of writeJsonLd(result)) s += c;
  return s;
}

/**
 * List items (quads with a list index) as rdf:first/rest chains of fresh blank nodes, so fromRDF
 * writes them as `@list`; every other quad as it is.
 */
function withListChains(quads: Quad[]): Quad[] {
  const lists = new Map<string, Quad[]>();
  const out: Quad[] = [];
  const used = new Set<string>();
  for (const q of quads) {
    for (const t of [q.subject, q.object, q.graph]) if (t.termType === 'BlankNode') used.add(t.value);
    if (q.listIndex === undefined) { out.push(q); continue; }
    const k = `${key(q.graph)} ${key(q.subject)} ${q.predicate.value}`;
    const l = lists.get(k);
    if (l) l.push(q); else lists.set(k, [q]);
  }
  let n = 0;
  const fresh = () => {
    let label: string;
    do label = `list${n++}`; while (used.has(label));
    return blankNode(label);
  };
  for (const items of lists.values()) {
    items.sort((a, b) => a.listIndex! - b.listIndex!);
    const first = items[0]!;
    const cells = items.map(() => fresh());
    out.push({ subject: first.subject, predicate: first.predicate, object: cells[0]!, graph: first.graph });
    items.forEach((q, i) => {
      out.push({ subject: cells[i]!, predicate: RDF_FIRST, object: q.object, graph: q.graph });
      out.push({ subject: cells[i]!, predicate: RDF_REST, object: cells[i + 1] ?? RDF_NIL, graph: q.graph });
    });
  }
  return out;
}

/**
 * jsonld.js 9 fromRDF names a graph by `graph.value` where it names subjects and objects by
 * `_:` + label, so a blank graph name would lose its `_:` and read as a relative IRI; give it the
 * prefix it expects (the graph name's termType is only tested against DefaultGraph).
 */
function graphNameForJsonLd(q: Quad): Quad {
  return q.graph.termType === 'BlankNode' ? { ...q, graph: { termType: 'BlankNode', value: '_:' + q.graph.value } } : q;
}

function key(t: Term | Quad['graph']): string {
  return t.termType === 'Literal' ? `L${t.value.length}:${t.value}@${t.language}^${t.datatype.value}` : `${t.termType[0]}${t.value.length}:${t.value}`;
}

/** A node object with `@id`, `@type`, `@graph` first, then its properties sorted (stable output). */
function sortedKeys(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['@id', '@type', '@graph']) if (k in node) out[k] = k === '@graph' ? (node[k] as Record<string, unknown>[]).map(sortedKeys) : node[k];
  for (const k of Object.keys(node).filter((x) => !x.startsWith('@')).sort()) out[k] = node[k];
  return out;
}
