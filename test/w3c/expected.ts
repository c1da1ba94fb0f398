/**
 * Expected results of the W3C query tests: SPARQL XML (.srx), JSON (.srj), TSV (.tsv), CSV (.csv),
 * result sets written in RDF with the rs: vocabulary (.ttl/.rdf), and expected graphs; plus what
 * the query text says about ordering (a top-level ORDER BY and the variables its keys read).
 */
import { Parser as SparqlParser } from 'sparqljs';
import type { Binding } from '../../src/core/query/results/types.js';
import { parseSparqlJson, type ResultTable } from '../../src/core/query/results/sparql-json.js';
import { parseSparqlXml } from '../../src/core/query/results/sparql-xml.js';
import { parseCsv, parseTsv, type CsvTable } from '../../src/core/query/results/sparql-csv-tsv.js';
import type { Quad, Term } from '../../src/core/rdf/terms.js';
import { readW3c } from './manifest.js';
import { formatOf, readRdfFile } from './rdf-files.js';

const RS = 'http://www.w3.org/2001/sw/DataAccess/tests/result-set#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/** An expected result, by kind. */
export type Expected =
  | { kind: 'table'; table: ResultTable; /** rows carry rs:index (an ordered RDF result set) */ indexed: boolean }
  | { kind: 'graph'; quads: Quad[] }
  | { kind: 'csv'; csv: CsvTable };

const extOf = (iri: string) => iri.replace(/^.*\./, '').toLowerCase();

/** Read an RDF result set (rs: vocabulary) from quads, or undefined when there is none. */
export function resultSetFromRdf(quads: Quad[]): { table: ResultTable; indexed: boolean } | undefined {
  const props = new Map<string, Map<string, Term[]>>();
  const k = (t: Term) => (t.termType === 'BlankNode' ? '_:' : '') + t.value;
  for (const q of quads) {
    let m = props.get(k(q.subject));
    if (!m) props.set(k(q.subject), (m = new Map()));
    let l = m.get(q.predicate.value);
    if (!l) m.set(q.predicate.value, (l = []));
    l.push(q.object);
  }
  const get = (t: Term, p: string) => props.get(k(t))?.get(RS + p) ?? [];
  const rsNode = quads.find((q) => q.predicate.value === RDF_TYPE && q.object.value === RS + 'ResultSet')?.subject;
  if (!rsNode) return undefined;
  const bool = get(rsNode, 'boolean')[0];
  if (bool) return { table: { type: 'boolean', value: bool.value === 'true' }, indexed: false };
  const variables = get(rsNode, 'resultVariable').map((v) => v.value);
  const solutions = get(rsNode, 'solution').map((s) => {
    const row: Binding = {};
    for (const b of get(s, 'binding')) {
      const v = get(b, 'variable')[0];
      const val = get(b, 'value')[0];
      if (!v || !val) throw new Error('rs:binding without rs:variable or rs:value');
      row[v.value] = val;
    }
    const idx = get(s, 'index')[0];
    return { row, index: idx ? Number(idx.value) : undefined };
  });
  const indexed = solutions.length > 0 && solutions.every((s) => s.index !== undefined);
  if (indexed) solutions.sort((a, b) => a.index! - b.index!);
  return { table: { type: 'bindings', variables, rows: solutions.map((s) => s.row) }, indexed };
}

/** Read the expected result file of a query test (`form` decides how RDF files are read). */
export function readExpected(iri: string, form: 'select' | 'ask' | 'construct' | 'describe' | undefined): Expected {
  switch (extOf(iri)) {
    case 'srx': return { kind: 'table', table: parseSparqlXml(readW3c(iri)), indexed: false };
    case 'srj': return { kind: 'table', table: parseSparqlJson(readW3c(iri)), indexed: false };
    case 'tsv': return { kind: 'table', table: parseTsv(readW3c(iri)), indexed: false };
    case 'csv': return { kind: 'csv', csv: parseCsv(readW3c(iri)) };
    default: {
      formatOf(iri); // throws on unknown extensions
      const quads = readRdfFile(iri);
      if (form === 'construct' || form === 'describe') return { kind: 'graph', quads };
      const rs = resultSetFromRdf(quads);
      if (rs) return { kind: 'table', ...rs };
      if (form === undefined) return { kind: 'graph', quads };
      throw new Error(`expected result ${iri} holds no rs:ResultSet`);
    }
  }
}

/** What the query text says: its form, and for a top-level ORDER BY the variables the keys read. */
export interface QueryShape {
  form?: 'select' | 'ask' | 'construct' | 'describe';
  /** Present when the query has a top-level ORDER BY. */
  orderVars?: string[];
}

function collectVars(x: unknown, out: Set<string>): void {
  if (Array.isArray(x)) { for (const y of x) collectVars(y, out); return; }
  if (typeof x !== 'object' || x === null) return;
  const o = x as Record<string, unknown>;
  if (o.termType === 'Variable' && typeof o.value === 'string') { out.add(o.value); return; }
  for (const v of Object.values(o)) collectVars(v, out);
}

/** The form and top-level ORDER BY of a query, read with sparqljs (undefined fields when it cannot parse). */
export function queryShape(text: string, baseIri: string): QueryShape {
  let q: { type?: string; queryType?: string; order?: { expression: unknown }[] };
  try {
    q = new SparqlParser({ baseIRI: baseIri, sparqlStar: false }).parse(text) as typeof q;
  } catch {
    return {};
  }
  if (q.type !== 'query') return {};
  const shape: QueryShape = { form: q.queryType?.toLowerCase() as QueryShape['form'] };
  if (q.order && q.order.length > 0) {
    const vars = new Set<string>();
    for (const k of q.order) collectVars(k.expression, vars);
    shape.orderVars = [...vars];
  }
  return shape;
}
