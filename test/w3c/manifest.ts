/**
 * W3C test manifests: where the suites live, the mapping between upstream IRIs and local files,
 * and a loader that parses Turtle manifests (each with its upstream IRI as base), follows
 * mf:include and returns the mf:entries in order.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser as N3Parser } from 'n3';

/** Root of the W3C data (/work/shared/w3c next to the repository, or $LEDGRAPH_W3C_DIR). */
export const W3C_DIR = process.env.LEDGRAPH_W3C_DIR
  ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/w3c');

/** Local folder prefix to upstream IRI prefix (README "Base IRIs"). */
const ROOTS: [string, string][] = [
  ['sparql11/', 'https://w3c.github.io/rdf-tests/sparql/sparql11/'],
  ['rdf11/', 'https://w3c.github.io/rdf-tests/rdf/rdf11/'],
];

/** True when the W3C data is present. */
export function w3cAvailable(): boolean { return existsSync(resolve(W3C_DIR, 'sparql11/manifest.ttl')); }

/** Upstream IRI of a path relative to the W3C root (e.g. `sparql11/bind/manifest.ttl`). */
export function iriOf(relPath: string): string {
  for (const [local, iri] of ROOTS) if (relPath.startsWith(local)) return iri + relPath.slice(local.length);
  throw new Error(`no upstream IRI for ${relPath}`);
}

/** Local file of an upstream IRI, or undefined when the IRI is not a W3C test file. */
export function localPathOf(iri: string): string | undefined {
  const clean = iri.replace(/#.*$/, '');
  for (const [local, prefix] of ROOTS) if (clean.startsWith(prefix)) return resolve(W3C_DIR, local + clean.slice(prefix.length));
  return undefined;
}

/** Text of the W3C file with this upstream IRI. */
export function readW3c(iri: string): string {
  const p = localPathOf(iri);
  if (!p) throw new Error(`not a W3C test file: ${iri}`);
  return readFileSync(p, 'utf8');
}

/** True when a W3C file with this IRI exists locally. */
export function w3cFileExists(iri: string): boolean {
  const p = localPathOf(iri);
  return p !== undefined && existsSync(p);
}

export const MF = 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#';
export const QT = 'http://www.w3.org/2001/sw/DataAccess/tests/test-query#';
export const UT = 'http://www.w3.org/2009/sparql/tests/test-update#';
export const DAWGT = 'http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#';
export const RDFT = 'http://www.w3.org/ns/rdftest#';
const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDFS_NS = 'http://www.w3.org/2000/01/rdf-schema#';

/** A named graph of a test dataset: the file to load and the graph's name. */
export interface GraphFile { file: string; name: string }

/** A dataset description (query action, update action, update result). */
export interface DatasetSpec {
  /** Files merged into the default graph (blank nodes kept apart per file). */
  data: string[];
  graphData: GraphFile[];
}

/** One test entry, normalised from its manifest. */
export interface W3cTest {
  /** The test's IRI (the manifest subject). */
  id: string;
  /** Local name of the rdf:type (e.g. `QueryEvaluationTest`, `TestTurtleEval`). */
  type: string;
  name: string;
  comment?: string;
  /** IRI of the manifest that lists the test. */
  manifest: string;
  /** Feature folder, e.g. `aggregates` or `rdf-turtle`. */
  folder: string;
  /** `Approved`, `Proposed`, ... (local name), when given. */
  approval?: string;
  /** Syntax and RDF tests: the input file. */
  action?: string;
  /** Query tests: the query file; update tests: the request file. */
  query?: string;
  /** Query/update tests: the initial dataset. */
  dataset?: DatasetSpec;
  /** The expected result file (query, syntax-eval tests). */
  result?: string;
  /** Update tests: the expected dataset. */
  resultDataset?: DatasetSpec;
  /** mf:resultCardinality mf:LaxCardinality (REDUCED). */
  laxCardinality: boolean;
  requires: string[];
}

type Obj = { termType: string; value: string };
class Graph {
  private readonly bySubject = new Map<string, Map<string, Obj[]>>();
  add(s: Obj, p: string, o: Obj): void {
    const sk = key(s);
    let m = this.bySubject.get(sk);
    if (!m) this.bySubject.set(sk, (m = new Map()));
    let l = m.get(p);
    if (!l) m.set(p, (l = []));
    l.push(o);
  }
  all(s: Obj, p: string): Obj[] { return this.bySubject.get(key(s))?.get(p) ?? []; }
  one(s: Obj, p: string): Obj | undefined { return this.all(s, p)[0]; }
  list(head: Obj | undefined): Obj[] {
    const out: Obj[] = [];
    let n = head;
    const seen = new Set<string>();
    while (n && !(n.termType === 'NamedNode' && n.value === RDF_NS + 'nil')) {
      if (seen.has(key(n))) throw new Error('cyclic RDF list in manifest');
      seen.add(key(n));
      const first = this.one(n, RDF_NS + 'first');
      if (first) out.push(first);
      n = this.one(n, RDF_NS + 'rest');
    }
    return out;
  }
}
const key = (t: Obj) => (t.termType === 'BlankNode' ? '_:' : '') + t.value;
const localName = (iri: string) => iri.replace(/^.*[#/]/, '');

function folderOf(iri: string): string {
  const m = /\/(?:sparql11|rdf11)\/([^/]+)\//.exec(iri);
  return m ? m[1]! : '';
}

function datasetOf(g: Graph, node: Obj, ns: string): DatasetSpec {
  const data = g.all(node, ns + 'data').map((o) => o.value);
  const graphData = g.all(node, ns + 'graphData').map((o) => {
    if (o.termType === 'NamedNode') return { file: o.value, name: o.value };
    const file = g.one(o, ns + 'graph');
    if (!file) throw new Error('graphData node without a graph file');
    const label = g.one(o, RDFS_NS + 'label');
    return { file: file.value, name: label ? label.value : file.value };
  });
  return { data, graphData };
}

/** Load a manifest (by upstream IRI) and everything it includes; entries in manifest order. */
export function loadManifest(manifestIri: string, seen = new Set<string>()): W3cTest[] {
  if (seen.has(manifestIri)) return [];
  seen.add(manifestIri);
  const g = new Graph();
  const parser = new N3Parser({ format: 'text/turtle', baseIRI: manifestIri });
  for (const q of parser.parse(readW3c(manifestIri))) g.add(q.subject, q.predicate.value, q.object);
  const self: Obj = { termType: 'NamedNode', value: manifestIri };
  const out: W3cTest[] = [];
  for (const entry of g.list(g.one(self, MF + 'entries'))) {
    const typeIri = g.all(entry, RDF_NS + 'type').map((t) => t.value).find((t) => t.startsWith(MF) || t.startsWith(RDFT) || t.startsWith(UT));
    if (!typeIri) throw new Error(`entry ${entry.value} of ${manifestIri} has no test type`);
    const action = g.one(entry, MF + 'action');
    const result = g.one(entry, MF + 'result');
    const approval = g.one(entry, DAWGT + 'approval') ?? g.one(entry, RDFT + 'approval');
    const t: W3cTest = {
      id: entry.value,
      type: localName(typeIri),
      name: g.one(entry, MF + 'name')?.value ?? localName(entry.value),
      manifest: manifestIri,
      folder: folderOf(manifestIri),
      laxCardinality: g.one(entry, MF + 'resultCardinality')?.value === MF + 'LaxCardinality',
      requires: g.all(entry, MF + 'requires').map((o) => o.value),
    };
    const comment = g.one(entry, RDFS_NS + 'comment');
    if (comment) t.comment = comment.value;
    if (approval) t.approval = localName(approval.value);
    if (action?.termType === 'NamedNode') t.action = action.value;
    else if (action) {
      const query = g.one(action, QT + 'query') ?? g.one(action, UT + 'request');
      if (query) t.query = query.value;
      t.dataset = g.one(action, UT + 'request') ? datasetOf(g, action, UT) : datasetOf(g, action, QT);
    }
    if (result?.termType === 'NamedNode') t.result = result.value;
    else if (result) t.resultDataset = datasetOf(g, result, UT);
    out.push(t);
  }
  for (const inc of g.list(g.one(self, MF + 'include'))) out.push(...loadManifest(inc.value, seen));
  return out;
}
