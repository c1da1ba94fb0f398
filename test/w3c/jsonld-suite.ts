/**
 * The W3C JSON-LD 1.1 suites (toRdf, expand, fromRdf) for Ledgraph: manifest entries, the rule of
 * which tests apply, the preloaded contexts the document loader may serve, the expected datasets
 * in Ledgraph's list model, and running a document through the `/insert` code path.
 *
 * Applicable: every test of the manifest except those that need what Ledgraph does not offer —
 * JSON-LD 1.0 processing (`processingMode` json-ld-1.0 or `specVersion` json-ld-1.0), generalized
 * RDF (`produceGeneralizedRdf`: blank-node predicates are not RDF), an `rdfDirection` or
 * `useNativeTypes`/`useRdfType` option (request options Ledgraph has no parameter for), and
 * non-normative tests. Remote contexts named by the test documents are served from the suite's
 * files (preloaded), never fetched.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Parser as N3Parser } from 'n3';
import { Connection } from '../../src/core/ledger/connection.js';
import { isLedgraphError } from '../../src/core/errors.js';
import { parseJsonLdTxn, type JsonLdTxnOptions } from '../../src/core/transact/parse-jsonld.js';
import { blankNode, defaultGraph, fromRdfJs, graphNameTerm, literal, namedNode, type Quad, type Term } from '../../src/core/rdf/terms.js';
import { canonicalLexical, isKnownDatatype } from '../../src/core/rdf/datatypes.js';
import { openMemoryStorage } from '../../src/storage/index.js';
import { matchRows, type Row } from './compare.js';
import { W3C_DIR } from './manifest.js';
import { parseKnownFailures, type Outcome } from './harness.js';

export const JSONLD_DIR = resolve(W3C_DIR, 'jsonld11');
/** Upstream location of the suite: the base of every test document. */
export const TESTS_BASE = 'https://w3c.github.io/json-ld-api/tests/';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** One manifest entry. */
export interface JsonLdTest {
  id: string;
  name: string;
  types: string[];
  input: string;
  expect?: string;
  expectErrorCode?: string;
  option: Record<string, unknown>;
}

/** The entries of `<suite>-manifest.jsonld`, ids made absolute. */
export function loadJsonLdManifest(suite: 'toRdf' | 'expand' | 'fromRdf'): JsonLdTest[] {
  const m = JSON.parse(readFileSync(resolve(JSONLD_DIR, `${suite}-manifest.jsonld`), 'utf8')) as { sequence: Record<string, unknown>[] };
  return m.sequence.map((t) => {
    const out: JsonLdTest = {
      id: `${TESTS_BASE}${suite}-manifest${t['@id'] as string}`,
      name: t['name'] as string,
      types: ([] as string[]).concat(t['@type'] as string | string[]).map((x) => x.replace(/^jld:/, '')),
      input: t['input'] as string,
      option: (t['option'] as Record<string, unknown> | undefined) ?? {},
    };
    if (typeof t['expect'] === 'string') out.expect = t['expect'];
    if (typeof t['expectErrorCode'] === 'string') out.expectErrorCode = t['expectErrorCode'];
    return out;
  });
}

/** Why a test does not apply to Ledgraph, or undefined when it does (the rule in the file comment). */
export function notApplicable(t: JsonLdTest): string | undefined {
  const o = t.option;
  if (o['specVersion'] === 'json-ld-1.0') return 'JSON-LD 1.0 only (specVersion json-ld-1.0)';
  if (o['processingMode'] === 'json-ld-1.0') return 'needs JSON-LD 1.0 processing mode';
  if (o['produceGeneralizedRdf']) return 'generalized RDF (blank-node predicates) cannot be stored';
  if (o['rdfDirection'] !== undefined) return `rdfDirection ${String(o['rdfDirection'])}: no such request option`;
  if (o['useNativeTypes'] || o['useRdfType']) return 'useNativeTypes/useRdfType: no such response option';
  if (o['normative'] === false) return 'non-normative test';
  return undefined;
}

/** The text of a suite file (path relative to the suite root). */
export function readSuiteFile(rel: string): string { return readFileSync(resolve(JSONLD_DIR, rel), 'utf8'); }

/** Every JSON-LD file of a suite folder, by its upstream URL: the contexts the loader may serve. */
export function preloadedContexts(folder: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const f of readdirSync(resolve(JSONLD_DIR, folder), { recursive: true }) as string[]) {
    if (!f.endsWith('.jsonld')) continue;
    try { out.set(`${TESTS_BASE}${folder}/${f}`, JSON.parse(readSuiteFile(`${folder}/${f}`))); } catch { /* not JSON: never a context */ }
  }
  return out;
}

/** The parser options of a test, as the `/insert` route would build them from `base` and `context`. */
export function parserOptions(t: JsonLdTest, contexts: ReadonlyMap<string, unknown>): JsonLdTxnOptions {
  const o: JsonLdTxnOptions = { base: typeof t.option['base'] === 'string' ? t.option['base'] : TESTS_BASE + t.input, contexts };
  if (typeof t.option['expandContext'] === 'string') {
    const ctx = JSON.parse(readSuiteFile(t.option['expandContext'])) as Record<string, unknown>;
    o.ledgerDefaultContext = ctx['@context'] ?? ctx;
  }
  return o;
}

/** A quad with its list index, as stored. */
export type IndexedQuad = Quad & { listIndex?: number };

/** Insert `doc` into a fresh in-memory ledger through the insert pipeline; the stored dataset. */
export async function insertAndRead(doc: unknown, opts: JsonLdTxnOptions): Promise<IndexedQuad[]> {
  const conn = new Connection(openMemoryStorage(), { indexingEnabled: false });
  const { ledger } = await conn.create('w3c-jsonld');
  let req;
  try {
    req = await parseJsonLdTxn(doc, 'insert', opts);
  } catch (e) {
    if (isLedgraphError(e) && e.status === 400 && e.message.startsWith('nothing to write')) return [];
    throw e;
  }
  await conn.transact(ledger, req);
  return storedQuads(conn, ledger);
}

/**
 * A negative test through the insert pipeline: passes when the write is refused with a 400 whose
 * message names `code` and the ledger is left at t = 0 with no facts.
 */
export async function expectRefused(doc: unknown, opts: JsonLdTxnOptions, code: string): Promise<Outcome> {
  const conn = new Connection(openMemoryStorage(), { indexingEnabled: false });
  const { ledger } = await conn.create('w3c-jsonld');
  let error: unknown;
  try {
    await conn.transact(ledger, await parseJsonLdTxn(doc, 'insert', opts));
  } catch (e) {
    error = e;
  }
  const db = await conn.db(ledger);
  const stored = (await storedQuads(conn, ledger)).length;
  if (db.t !== 0 || stored !== 0) return { status: 'fail', message: `expected nothing written, but t = ${db.t} with ${stored} facts (${code})` };
  if (error === undefined) return { status: 'fail', message: `expected a 400 naming "${code}", but the write was accepted` };
  if (!isLedgraphError(error) || error.status !== 400) return { status: 'fail', message: `expected a 400 naming "${code}", got ${String(error)}` };
  if (!error.message.includes(code)) return { status: 'fail', message: `the 400 does not name "${code}": ${error.message}` };
  return { status: 'pass' };
}

/** Every fact of a ledger's default and named graphs at the head, with list indexes. */
export async function storedQuads(conn: Connection, ledger: string): Promise<IndexedQuad[]> {
  const db = await conn.db(ledger);
  const out: IndexedQuad[] = [];
  for await (const b of db.scan({})) {
    for (let i = 0; i < b.n; i++) {
      const g = b.g[i]!;
      if (g === 1 || g === 2) continue;
      const giri = g === 0 ? undefined : db.graphIri(g);
      const q: IndexedQuad = {
        subject: db.dict.term(b.s[i]!), predicate: db.dict.term(b.p[i]!) as Quad['predicate'], object: db.dict.term(b.o[i]!) as Term,
        graph: giri === undefined ? defaultGraph : graphNameTerm(giri),
      };
      if (b.m[i]! >= 0) q.listIndex = b.m[i]!;
      out.push(q);
    }
  }
  return out;
}

/** Parse N-Quads into quads (blank nodes prefixed so two parses never share one). */
export function parseNQuads(text: string, prefix = 'e_'): Quad[] {
  const term = (t: { termType: string; value: string }): Term => (t.termType === 'BlankNode' ? blankNode(prefix + t.value) : fromRdfJs(t as never) as Term);
  return new N3Parser({ format: 'N-Quads' }).parse(text).map((q) => ({
    subject: term(q.subject), predicate: namedNode(q.predicate.value), object: term(q.object),
    graph: q.graph.termType === 'DefaultGraph' ? defaultGraph : term(q.graph) as Quad['graph'],
  }));
}

/**
 * The expected dataset in Ledgraph's list model (http-api.md §2.2): a well-formed rdf:first/rest
 * chain that is the object of a triple becomes that triple once per item, with the item's index;
 * the empty list (rdf:nil) becomes no triple. Chains that are not plain list values (shared,
 * nested, subjects of other triples) stay as they are, so such a test shows the difference.
 */
export function withIndexedLists(quads: Quad[]): IndexedQuad[] {
  const key = (t: Term | Quad['graph']) => `${t.termType}:${t.value}`;
  const bySubject = new Map<string, Quad[]>();
  const asObject = new Map<string, number>();
  for (const q of quads) {
    const k = key(q.subject);
    const l = bySubject.get(k);
    if (l) l.push(q); else bySubject.set(k, [q]);
    asObject.set(key(q.object), (asObject.get(key(q.object)) ?? 0) + 1);
  }
  const used = new Set<Quad>();
  const items = (head: Term): Term[] | undefined => {
    const out: Term[] = [];
    const chain: Quad[] = [];
    let node = head;
    for (;;) {
      if (node.termType === 'NamedNode' && node.value === RDF + 'nil') break;
      if (node.termType !== 'BlankNode') return undefined;
      const qs = bySubject.get(key(node)) ?? [];
      const first = qs.filter((q) => q.predicate.value === RDF + 'first');
      const rest = qs.filter((q) => q.predicate.value === RDF + 'rest');
      if (qs.length !== 2 || first.length !== 1 || rest.length !== 1) return undefined;
      if (node !== head && (asObject.get(key(node)) ?? 0) !== 1) return undefined;
      const item = first[0]!.object;
      if (item.termType === 'BlankNode' && bySubject.get(key(item))?.some((q) => q.predicate.value === RDF + 'first')) return undefined;
      out.push(item);
      chain.push(first[0]!, rest[0]!);
      node = rest[0]!.object;
    }
    for (const q of chain) used.add(q);
    return out;
  };
  const out: IndexedQuad[] = [];
  for (const q of quads) {
    const o = q.object;
    const isHead = q.predicate.value !== RDF + 'rest' && q.predicate.value !== RDF + 'first'
      && ((o.termType === 'NamedNode' && o.value === RDF + 'nil') || (o.termType === 'BlankNode' && (asObject.get(key(o)) ?? 0) === 1));
    const list = isHead ? items(o) : undefined;
    if (list === undefined) { out.push(q); continue; }
    list.forEach((item, i) => out.push({ ...q, object: item, listIndex: i }));
  }
  return out.filter((q) => !used.has(q as Quad));
}

/** Literals of XSD types the engine stores by value, in canonical form (both sides of a comparison). */
function canonicalTerm(t: Term): Term {
  if (t.termType !== 'Literal' || t.language || !isKnownDatatype(t.datatype.value)) return t;
  try {
    return literal(canonicalLexical(t.datatype.value, t.value), t.datatype);
  } catch {
    return t;
  }
}

function rows(quads: IndexedQuad[]): Row[] {
  const seen = new Set<string>();
  const out: Row[] = [];
  for (const q of quads) {
    const r: Row = [q.subject, q.predicate, canonicalTerm(q.object), q.graph.termType === 'DefaultGraph' ? undefined : q.graph as Term,
      q.listIndex === undefined ? undefined : literal(String(q.listIndex))];
    const k = JSON.stringify(r);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(r);
  }
  return out;
}

/** Isomorphism of two datasets with list indexes; undefined when equal, else a description. */
export function compareIndexed(expected: IndexedQuad[], actual: IndexedQuad[]): string | undefined {
  return matchRows(rows(expected), rows(actual), ['s', 'p', 'o', 'g', 'i']);
}

/** The deliberate differences of Ledgraph's contract: test IRI -> reason. */
export function loadKnownDifferences(): Map<string, string> {
  return parseKnownFailures(readFileSync(resolve(import.meta.dirname, 'jsonld-known-differences.txt'), 'utf8'));
}
