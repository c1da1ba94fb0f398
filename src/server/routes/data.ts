/**
 * The SPARQL 1.1 Graph Store HTTP Protocol on `/data/<ledger...>` (http-api.md §4.2): one graph,
 * named by `?graph=<iri>` or `?default`. GET/HEAD read it (a time pin in the path reads the past),
 * negotiated as Turtle, N-Triples, JSON-LD or RDF/XML; PUT replaces it (committing only the
 * difference), POST adds to it, DELETE empties it. Payloads: Turtle, N-Triples, TriG, N-Quads,
 * JSON-LD and RDF/XML. Without `?graph`/`?default` the request addresses the whole dataset (default
 * and named graphs): GET as TriG, N-Quads or JSON-LD, PUT replaces every graph, POST adds quads
 * where they say, DELETE empties all. Writes answer 204 (201 when a named graph came into being)
 * with the resulting t and commit in `Ledgraph-T` / `Ledgraph-Commit-Id` headers.
 */
import type { Context } from 'hono';
import { badRequest, isLedgraphError, notFound } from '../../core/errors.js';
import { parseLedgerRef, type LedgerRef } from '../../core/ledger/ledger-id.js';
import { toNQuads, toNTriples, toRdfXml, toTriG, toTurtle } from '../../core/query/results/rdf-writers.js';
import { toJsonLd } from '../../core/query/results/jsonld-writer.js';
import { defaultGraph, graphNameTerm, namedNode, type NamedNode, type Quad } from '../../core/rdf/terms.js';
import { rdf, xsd } from '../../core/rdf/vocab.js';
import type { Receipt } from '../../core/transact/pipeline.js';
import type { GraphName, GraphRef, MetaEntry, TxnOpts, TxnQuad, TxnRequest } from '../../core/transact/txn-request.js';
import type { Db } from '../../core/ledger/db.js';
import type { AppEnv } from '../app.js';
import { decodeUtf8, negotiate, parseJsonText, pathLedger as pathLedgerId, readBytes, requireMediaType } from '../http-util.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { route, type ParamSpec, type RouteSpec } from '../swagger.js';
import { Compactor } from './history.js';
import { BASE_PARAM, baseParam, commitWrite, graphPayload, isAbsoluteIri, JSONLD_TYPES, RDF_TYPES, readGraphBody, retarget } from './write.js';
import { requestView } from '../auth/index.js';
import { parseRdfXmlTxn, RDF_XML } from '../rdfxml.js';
import { policyFromHeaders } from '../query-headers.js';

type Ctx = Context<AppEnv>;

/** Response formats of GET, the default first. */
const GET_TYPES = ['text/turtle', 'application/n-triples', 'application/ld+json', 'application/json', 'application/rdf+xml'];
/** Response formats of a whole-dataset GET, the default first. */
const DATASET_TYPES = ['application/trig', 'application/n-quads', 'application/ld+json'];
const PAYLOAD_TYPES = [...JSONLD_TYPES, ...RDF_TYPES, RDF_XML];

/** The graph a request names: `?graph=<absolute IRI>` or `?default`; neither is the whole dataset (null). */
function targetGraph(c: Ctx): GraphRef | null {
  const g = c.req.query('graph');
  const dflt = c.req.query('default') !== undefined;
  if (g !== undefined && dflt) throw badRequest('give either ?graph=<iri> or ?default, not both');
  if (dflt) return defaultGraph;
  if (g === undefined) return null;
  if (!isAbsoluteIri(g)) throw badRequest(`graph must be an absolute IRI, not "${g}"`);
  return namedNode(g);
}

/** The payload as quads; RDF/XML goes through its own parser, an empty document is no quads. */
async function readPayload(ct: string, text: string, json: unknown, base: string | undefined): Promise<{ quads: TxnQuad[]; meta: MetaEntry[]; opts: TxnOpts; warnings?: string[] }> {
  if (ct !== RDF_XML) return graphPayload(ct, text, json, base);
  try {
    const req = await parseRdfXmlTxn(text, 'insert', base);
    return req.kind === 'insert' ? { quads: req.quads, meta: req.meta, opts: req.opts } : { quads: [], meta: [], opts: {} };
  } catch (e) {
    if (isLedgraphError(e) && e.status === 400 && e.message.startsWith('nothing to write')) return { quads: [], meta: [], opts: {} };
    throw e;
  }
}

/** The parser's warnings (values JSON-LD drops), for the receipt. */
function warningsOf(p: { warnings?: string[] }): { warnings?: string[] } { return p.warnings ? { warnings: p.warnings } : {}; }

/** True when a named graph holds triples at the head (the default graph always exists). */
async function graphExists(db: Db, target: GraphRef): Promise<boolean> {
  if (target.termType === 'DefaultGraph') return true;
  const g = db.graphId(target.value);
  if (g === undefined) return false;
  for await (const b of db.scan({ g })) if (b.n > 0) return true;
  return false;
}

/** The path ledger; writes refuse a time pin. */
function pathLedger(c: Ctx, write: boolean): LedgerRef {
  const ref = parseLedgerRef(pathLedgerId(c));
  if (ref.fragment !== null) throw badRequest('a graph store path takes no #fragment; name the graph with ?graph=');
  if (write && ref.time.kind !== 'head') throw badRequest('a time pin is read-only: PUT, POST and DELETE write at the head');
  return ref;
}

function graphLabel(g: GraphRef): string {
  return g.termType === 'DefaultGraph' ? 'the default graph' : `graph <${g.value}>`;
}

/**
 * The triples of one graph (or, for a null target, the quads of the default and every named graph)
 * at the ref's time, with the prefixes they use; 404 for a missing or empty named graph.
 */
async function readGraph(c: Ctx, ctx: ServerContext, ref: LedgerRef, target: GraphRef | null): Promise<{ quads: Quad[]; prefixes: Record<string, string> }> {
  const ledger = await ctx.conn.ledger(ref.id);
  const db = await ledger.db(ref.time);
  // Policy (policy.md §5): the graph as the caller may see it; a fully hidden named graph is a 404.
  const view = await requestView(c, ctx.conn, db, policyFromHeaders(c.req.raw.headers));
  const compactor = new Compactor(ledger.ns);
  if (target === null) {
    const quads: Quad[] = [];
    for (const g of [0, ...db.namedGraphs()]) {
      const key = db.graphIri(g);
      const name = key === undefined ? defaultGraph : graphNameTerm(key);
      for (const q of await scanGraph(view, db, g, compactor)) quads.push({ ...q, graph: name });
    }
    return { quads, prefixes: compactor.context() };
  }
  const g = target.termType === 'DefaultGraph' ? 0 : db.graphId(target.value);
  const missing = () => notFound(`${graphLabel(target)} not found in ledger ${ref.id} at t ${db.t}`);
  if (g === undefined) throw missing();
  const quads = await scanGraph(view, db, g, compactor);
  if (quads.length === 0 && g !== 0) throw missing();
  return { quads, prefixes: compactor.context() };
}

/** The triples of graph `g` in `view`, registering the IRIs the writers print as prefixed names. */
async function scanGraph(view: Awaited<ReturnType<typeof requestView>>, db: Db, g: number, compactor: Compactor): Promise<Quad[]> {
  const quads: Quad[] = [];
  for await (const b of view.scan({ g })) {
    for (let k = 0; k < b.n; k++) {
      const s = db.dict.term(b.s[k]!), p = db.dict.term(b.p[k]!) as NamedNode, o = db.dict.term(b.o[k]!);
      // Register only the IRIs the writers print as prefixed names (rdf:type is `a`, plain strings untyped).
      if (s.termType === 'NamedNode') compactor.iri(s.value);
      if (p.value !== rdf.type) compactor.iri(p.value);
      if (o.termType === 'NamedNode') compactor.iri(o.value);
      else if (o.termType === 'Literal' && !o.language && o.datatype.value !== xsd.string) compactor.iri(o.datatype.value);
      const q: Quad = { subject: s, predicate: p, object: o, graph: defaultGraph };
      // List items keep their index: the JSON-LD writer turns them back into an ordered @list.
      if (b.m[k]! >= 0) q.listIndex = b.m[k]!;
      quads.push(q);
    }
  }
  return quads;
}

async function* iterate(quads: Quad[]): AsyncIterable<Quad> { yield* quads; }

/** Serialise triples in a negotiated format. */
function serialise(type: string, quads: Quad[], prefixes: Record<string, string>): Promise<string> {
  const result = { type: 'quads' as const, quads: iterate(quads) };
  switch (type) {
    case 'application/n-triples': return toNTriples(result);
    case 'application/ld+json':
    case 'application/json': return toJsonLd(result);
    case 'application/rdf+xml': return toRdfXml(result, { prefixes });
    case 'application/n-quads': return toNQuads(result);
    case 'application/trig': return toTriG(result, { prefixes });
    default: return toTurtle(result, { prefixes });
  }
}

/** 204 (201 when the write created the graph; 200 with the receipt when it has warnings) carrying where the write left the ledger. */
function written(c: Ctx, receipt: Receipt, created = false): Response {
  c.header('Ledgraph-T', String(receipt.t));
  c.header('Ledgraph-Commit-Id', receipt.commit_id);
  // Values the payload dropped (JSON-LD's ill-formed IRIs, ...) must reach the client: the receipt
  // is the body then (200 instead of 204; the protocol allows either).
  if (receipt.warnings) return c.json(receipt, created ? 201 : 200);
  return c.body(null, created ? 201 : 204);
}

const GRAPH_PARAMS: ParamSpec[] = [
  { name: 'graph', description: 'IRI of the named graph (absolute)' },
  { name: 'default', description: 'Present (no value) to address the default graph instead; with neither, the whole dataset' },
];
const WRITE_RESPONSES = {
  200: 'Written, but the payload had values JSON-LD drops (ill-formed IRIs or language tags): the commit receipt with its warnings is the body',
  201: 'Written, and the named graph did not exist before; Ledgraph-T and Ledgraph-Commit-Id as for 204 (with a receipt body when there are warnings)',
  204: 'Written; Ledgraph-T and Ledgraph-Commit-Id headers give the resulting t and head commit',
  400: 'Missing or both graph selectors, relative graph IRI, time pin, invalid payload, or GRAPH blocks naming another graph',
  404: 'Ledger not found', 409: 'Commit conflict after retries', 413: 'Body over --body-limit',
  415: 'Unsupported Content-Type', 503: 'Novelty at capacity or too many writes in flight',
};

/** Registers GET/HEAD/PUT/POST/DELETE on /data/<ledger...>. */
export const dataRoutes: Registrar = (api, ctx) => {
  const base = { path: '/data/{ledger}', tag: 'graph-store' } as const;

  route(api, ctx.table, {
    ...base, method: 'GET', head: true, summary: 'Read one graph (Graph Store Protocol)',
    description: 'The path ledger may carry a time pin (@t:N, @time:ISO, @commit:REF). Without Accept the answer is Turtle.',
    query: GRAPH_PARAMS, responseTypes: [...GET_TYPES, ...DATASET_TYPES],
    responses: {
      200: 'The graph\'s triples', 400: 'Missing or both graph selectors, relative graph IRI, invalid time pin',
      404: 'Ledger, time or named graph not found (a named graph without triples at that time does not exist)',
      406: 'No acceptable format',
    },
  }, async (c) => {
    const ref = pathLedger(c, false);
    const target = targetGraph(c);
    const type = negotiate(c.req.header('Accept'), target === null ? DATASET_TYPES : GET_TYPES);
    const { quads, prefixes } = await readGraph(c, ctx, ref, target);
    const text = await serialise(type, quads, prefixes);
    return c.body(text, 200, {
      'Content-Type': `${type}; charset=utf-8`,
      'Content-Length': String(Buffer.byteLength(text)),
      Vary: 'Accept',
    });
  });

  const payloadWrite = (kind: 'replace' | 'insert'): ((c: Ctx) => Promise<Response>) => async (c) => {
    const ref = pathLedger(c, true);
    const target = targetGraph(c);
    const what = kind === 'replace' ? 'graph store PUT' : 'graph store POST';
    const ct = requireMediaType(c, PAYLOAD_TYPES, what);
    let bytes: Uint8Array, body: unknown, payload: Awaited<ReturnType<typeof readPayload>>;
    if (ct === RDF_XML) {
      bytes = await readBytes(c);
      const text = decodeUtf8(bytes);
      body = text;
      payload = await readPayload(ct, text, undefined, baseParam(c));
    } else {
      // Turtle, TriG, N-Triples, N-Quads are parsed while they arrive (rdf-body.ts); JSON-LD is read whole.
      ({ bytes, body, payload } = await readGraphBody(c, ct, baseParam(c)));
    }
    const head = await ctx.conn.db(ref.id);
    let req: TxnRequest;
    let created = false;
    if (target === null) {
      // The whole dataset: quads stay in the graphs they name; PUT replaces every graph there is.
      const graphs = new Map<string, GraphName>([['', defaultGraph]]);
      for (const g of head.namedGraphs()) { const key = head.graphIri(g); if (key !== undefined) graphs.set(key, graphNameTerm(key)); }
      for (const q of payload.quads) if (q.graph.termType === 'NamedNode') graphs.set(q.graph.value, q.graph);
      req = kind === 'replace'
        ? { kind: 'replace', graphs: [...graphs.values()], quads: payload.quads, meta: payload.meta, opts: payload.opts, ...warningsOf(payload) }
        : { kind: 'insert', quads: payload.quads, meta: payload.meta, opts: payload.opts, ...warningsOf(payload) };
    } else {
      const quads = retarget(payload.quads, target, what);
      created = quads.length > 0 && !(await graphExists(head, target));
      req = kind === 'replace'
        ? { kind: 'replace', graphs: [target], quads, meta: payload.meta, opts: payload.opts, ...warningsOf(payload) }
        : { kind: 'insert', quads, meta: payload.meta, opts: payload.opts, ...warningsOf(payload) };
    }
    return written(c, await commitWrite(c, ctx, ref.id, req, { contentType: ct, body, rawBody: bytes }), created);
  };
  const writeSpec = (method: RouteSpec['method'], summary: string, body: boolean): RouteSpec => ({
    ...base, method, summary, query: GRAPH_PARAMS, responses: WRITE_RESPONSES, ...(body ? { requestTypes: PAYLOAD_TYPES } : {}),
  });
  const bodySpec = (method: RouteSpec['method'], summary: string): RouteSpec => ({ ...writeSpec(method, summary, true), query: [...GRAPH_PARAMS, BASE_PARAM] });
  route(api, ctx.table, bodySpec('PUT', 'Replace one graph with the payload (commits only the difference)'), payloadWrite('replace'));
  route(api, ctx.table, bodySpec('POST', 'Add the payload to one graph'), payloadWrite('insert'));

  route(api, ctx.table, {
    ...writeSpec('DELETE', 'Remove every triple of one graph', false),
    responses: { ...WRITE_RESPONSES, 404: 'Ledger not found, or the named graph holds no triples' },
  }, async (c) => {
    const ref = pathLedger(c, true);
    const target = targetGraph(c);
    const db = await ctx.conn.db(ref.id);
    if (target !== null && !(await graphExists(db, target))) throw notFound(`${graphLabel(target)} not found in ledger ${ref.id}`);
    const graphs: GraphName[] = target !== null ? [target]
      : [defaultGraph, ...db.namedGraphs().map((g) => db.graphIri(g)).filter((k): k is string => k !== undefined).map(graphNameTerm)];
    const req: TxnRequest = { kind: 'replace', graphs, quads: [], meta: [], opts: {} };
    return written(c, await commitWrite(c, ctx, ref.id, req, { contentType: 'application/n-triples', body: '', rawBody: new Uint8Array() }));
  });
};
