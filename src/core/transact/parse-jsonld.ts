/**
 * JSON-LD transaction bodies -> `TxnRequest` (jsonld-transactions.md §1–§10): the document, node,
 * array and update forms, commit metadata and named graphs. Context processing and expansion of
 * every data node and update template go through jsonld.js (jsonld-expand.ts); the expanded form
 * becomes quads in jsonld-quads.ts. The update form's `where`, `values`, `from` and `graph` are the
 * query language's (compiled by the shared JSON-LD where compiler); `opts` is in txn-opts.ts.
 */
import { badRequest } from '../errors.js';
import { quote } from '../excerpt.js';
import { checkJsonValueDepth } from '../json-depth.js';
import { isStackOverflow, tooComplexError } from '../limits.js';
import { ActiveContext } from '../rdf/jsonld-context.js';
import { type NamedNode, type Term, defaultGraph, variable } from '../rdf/terms.js';
import type { Op } from '../query/algebra/algebra.js';
import { isVariableString, varName } from '../query/jsonld/expr.js';
import { WhereCompiler } from '../query/jsonld/where.js';
import type { GraphName, GraphRef, MetaEntry, TemplateQuad, TxnQuad, TxnRequest } from './txn-request.js';
import { MAX_GRAPH_IRI_BYTES, checkMetaEntries, parseOpts, utf8Length } from './txn-opts.js';
import { type Expanded, expandJsonLd } from './jsonld-expand.js';
import {
  DEFAULT_GRAPH_IRI, ExpandedWriter, GRAPH_KEY, type GraphTarget, VAR_PREFIX, checkedGraph, dedupeQuads, iri, valueTerm,
} from './jsonld-quads.js';

export { MAX_GRAPH_IRI_BYTES, checkMetaEntries, utf8Length } from './txn-opts.js';

/** Options of `parseJsonLdTxn`. */
export interface JsonLdTxnOptions {
  /** The ledger's default context (JSON), applied when the body has no `@context`. */
  ledgerDefaultContext?: unknown;
  /** Base IRI for relative references (the `base` request parameter); a context's `@base` wins. */
  base?: string;
  /** Contexts the document may name by URL, preloaded by the caller (never fetched). */
  contexts?: ReadonlyMap<string, unknown>;
  /** false: expand plain documents through jsonld.js too, not the fast path (for comparing both). */
  fastPath?: boolean;
}

const UPDATE_KEYS = new Set(['@context', 'context', 'where', 'delete', 'insert', 'values', 'graph', 'from', 'fromNamed', 'from-named', 'opts', 'ledger']);
/** Top-level keys of a document that are the request's, not data or metadata (unless the context defines them). */
const REQUEST_KEYS = ['opts', 'ledger'] as const;

/**
 * Parse a JSON-LD transaction body for the insert, upsert or update endpoint. On `update`, a body
 * without `where`/`delete`/`insert`/`values` is an insert (§1). Throws 400 LedgraphErrors.
 */
export async function parseJsonLdTxn(body: unknown, mode: 'insert' | 'upsert' | 'update', opts: JsonLdTxnOptions = {}): Promise<TxnRequest> {
  if (body === null || typeof body !== 'object') throw badRequest('a JSON-LD transaction must be a JSON object or an array of node objects');
  checkJsonValueDepth(body, 'the JSON-LD transaction');
  try {
    return await parseTxnBody(body, mode, opts);
  } catch (e) {
    throw isStackOverflow(e) ? tooComplexError('the JSON-LD transaction') : e;
  }
}

async function parseTxnBody(body: object, mode: 'insert' | 'upsert' | 'update', opts: JsonLdTxnOptions): Promise<TxnRequest> {
  const kind = mode === 'upsert' ? 'upsert' : 'insert';
  if (Array.isArray(body)) {
    for (const item of body) {
      if (!isObject(item)) throw badRequest(`each element of a transaction array must be a node object, got ${quote(item)}`);
    }
    return dataForm(body, kind, opts, false);
  }
  const obj = body as Record<string, unknown>;
  const updateKeys = ['where', 'delete', 'insert', 'values'].filter((k) => k in obj);
  if (mode === 'update' && updateKeys.length > 0) return updateForm(obj, opts);
  if (updateKeys.length > 0 && updateKeys.some((k) => !definesTerm(obj['@context'] ?? opts.ledgerDefaultContext, k, opts.contexts))) {
    throw badRequest(`${updateKeys.join('/')} are update keys: send where/delete/insert bodies to the update endpoint`);
  }
  return dataForm(obj, kind, opts, true);
}

// -----------------------------------------------------------------------------------------------
// Data forms (document, node, array)

async function dataForm(body: Record<string, unknown> | unknown[], kind: 'insert' | 'upsert', o: JsonLdTxnOptions, single: boolean): Promise<TxnRequest> {
  let doc: unknown = body;
  let rawOpts: unknown;
  let metaBytes = 0;
  if (single) {
    const obj = { ...(body as Record<string, unknown>) };
    const ctxValue = obj['@context'] ?? o.ledgerDefaultContext;
    for (const k of REQUEST_KEYS) {
      if (k in obj && !definesTerm(ctxValue, k, o.contexts)) {
        if (k === 'opts') rawOpts = obj[k];
        delete obj[k];
      }
    }
    // Top-level @base/@vocab act as if they were written in the context (§8).
    const local: Record<string, unknown> = {};
    for (const k of ['@base', '@vocab'] as const) if (k in obj) { local[k] = obj[k]; delete obj[k]; }
    if (Object.keys(local).length > 0) obj['@context'] = obj['@context'] === undefined ? local : [...listOf(obj['@context']), local];
    for (const [k, v] of Object.entries(obj)) {
      if (k.startsWith('@')) continue;
      if (v === null && isDocument(obj)) throw badRequest(`metadata ${k} cannot be null`);
      metaBytes += utf8Length(JSON.stringify({ [k]: v }));
    }
    doc = withGraphMarkers(obj, false);
  } else {
    doc = (body as unknown[]).map((n) => withGraphMarkers(n, false));
  }
  const { expanded, dropped } = await expandJsonLd(doc, expandOptions(o, single ? (body as Record<string, unknown>)['@context'] : undefined));
  const w = new ExpandedWriter('data');
  let meta: MetaEntry[] = [];
  const top = single && expanded.length === 1 && '@graph' in expanded[0]! ? expanded[0]! : undefined;
  if (top) {
    // Document form: keys beside @graph are commit metadata (§8), the nodes go to the default graph or to @id's graph.
    const id = top['@id'] as string | undefined;
    if (id !== undefined && id.startsWith(VAR_PREFIX)) throw badRequest('the @id of a document (its named graph) must be an IRI or a blank node');
    const g: GraphName = id !== undefined ? w.graphName(id) : defaultGraph;
    for (const n of top['@graph'] as Expanded[]) w.node(n, g, false);
    for (const n of (top['@included'] as Expanded[] | undefined) ?? []) w.node(n, defaultGraph, false);
    if (top['@type'] !== undefined) {
      if (id === undefined) throw badRequest('@type on a document needs an @id naming the graph it describes');
      w.node({ '@id': id, '@type': top['@type'] }, defaultGraph, false);
    }
    if (top['@reverse'] !== undefined) throw badRequest('@reverse is not allowed at the top of a document');
    meta = metaEntries(top, metaBytes);
  } else {
    for (const n of expanded) w.node(n, defaultGraph, false);
  }
  const quads = w.finish() as TxnQuad[];
  const warnings = w.warnings();
  if (quads.length === 0) {
    const why = dropped.length > 0 ? ` (${dropped.map((k) => JSON.stringify(k)).join(', ')} expand to no IRI: define them in the @context or set @vocab)` : '';
    throw badRequest(`nothing to write: the transaction contains no facts${why}${warnings.length > 0 ? `; ${warnings.join('; ')}` : ''}`);
  }
  const ctx = lazyQueryContext(single ? (body as Record<string, unknown>)['@context'] : undefined, o);
  const req: TxnRequest = { kind, quads, meta, opts: parseOpts(rawOpts, { expandIri: (s, v) => ctx().expandIri(s, v) }).opts };
  if (warnings.length > 0) req.warnings = warnings;
  return req;
}

/** True when `obj` is in the document form (a `@graph` holding nodes, not naming a graph). */
function isDocument(obj: Record<string, unknown>): boolean {
  const g = obj['@graph'];
  return typeof g === 'object' && g !== null;
}

/** Commit metadata from the document's expanded top-level properties (§8). */
function metaEntries(top: Expanded, bytes: number): MetaEntry[] {
  const out: MetaEntry[] = [];
  for (const key of Object.keys(top)) {
    if (key.startsWith('@') || key === GRAPH_KEY) continue;
    const predicate = iri(key, 'metadata key').value;
    for (const v of top[key] as Expanded[]) out.push({ predicate, object: metaValue(key, v) });
  }
  checkMetaEntries(out, bytes);
  return out;
}

function metaValue(key: string, v: Expanded): Term {
  if ('@value' in v) return valueTerm(v)!.term;
  const keys = Object.keys(v);
  const id = v['@id'];
  if (keys.length === 1 && typeof id === 'string' && !id.startsWith('_:')) return iri(id, 'metadata reference');
  throw badRequest(`metadata ${key} must be a string, number, boolean, {"@id": ...} or a value object (no nested nodes or lists)`);
}

// -----------------------------------------------------------------------------------------------
// Update form

async function updateForm(obj: Record<string, unknown>, o: JsonLdTxnOptions): Promise<TxnRequest> {
  for (const k of Object.keys(obj)) {
    if (!UPDATE_KEYS.has(k)) throw badRequest(`unknown key "${k}" in an update body (commit metadata is only accepted in the document form)`);
  }
  const ctxKey = '@context' in obj ? '@context' : 'context' in obj ? 'context' : undefined;
  const rawCtx = ctxKey ? obj[ctxKey] : undefined;
  // The query language's context processor serves where/values/from/graph (jsonld-query.md §2.2).
  const qctx = lazyQueryContext(rawCtx, o);
  const { opts, objectVarParsing } = parseOpts(obj['opts'], { expandIri: (s, v) => qctx().expandIri(s, v) });
  const hasWhere = obj['where'] !== undefined || obj['values'] !== undefined;
  if (!('delete' in obj) && !('insert' in obj)) throw badRequest('nothing to write: an update needs delete and/or insert');

  const aliases = new Map<string, string>();
  const usingNamed = obj['fromNamed'] ?? obj['from-named'];
  const named = usingNamed === undefined ? undefined : listOf(usingNamed).map((x) => {
    if (typeof x === 'string') return graphNode(x, qctx());
    if (isObject(x) && typeof x['graph'] === 'string') {
      const g = graphNode(x['graph'], qctx());
      if (x['alias'] !== undefined) {
        if (typeof x['alias'] !== 'string') throw badRequest('fromNamed alias must be a string');
        if (aliases.has(x['alias'])) throw badRequest(`duplicate fromNamed alias ${x['alias']}`);
        aliases.set(x['alias'], g.value);
      }
      return g;
    }
    throw badRequest(`invalid fromNamed entry ${quote(x)}: expected an IRI or {"alias": A, "graph": IRI}`);
  });

  let templateGraph: GraphRef = defaultGraph;
  if (obj['graph'] !== undefined) {
    if (typeof obj['graph'] !== 'string') throw badRequest('graph must be an IRI string');
    templateGraph = obj['graph'] === 'default' ? defaultGraph : graphNode(obj['graph'], qctx());
  }
  let using: NamedNode[] | undefined;
  if (obj['from'] !== undefined) {
    const from = listOf(obj['from']).map((x) => {
      if (typeof x === 'string') return x;
      if (isObject(x) && typeof x['graph'] === 'string') return x['graph'];
      throw badRequest(`invalid from entry ${quote(x)}: expected an IRI or {"graph": IRI}`);
    });
    if (from.includes('default')) {
      // The ledger's default graph is what an absent `using` means; it cannot be listed beside IRIs.
      if (from.length > 1) throw badRequest('from: "default" cannot be combined with graph IRIs');
    } else {
      using = from.map((x) => graphNode(x, qctx()));
    }
  } else if (templateGraph.termType === 'NamedNode') {
    // Like SPARQL WITH: the update's graph is also the default graph of its WHERE.
    using = [templateGraph];
  }

  let where: Op | null = null;
  if (hasWhere) {
    const compiler = new WhereCompiler({ objectVarParsing, graphAliases: aliases });
    if (obj['values'] !== undefined) where = compiler.values(obj['values'], qctx());
    if (obj['where'] !== undefined) {
      const w = compiler.where(obj['where'], qctx());
      where = where ? { type: 'join', inputs: [where, w] } : w;
    }
  }

  const w = new ExpandedWriter('insert');
  const t = { writer: w, rawCtx, options: o, graph: templateGraph, aliases, objectVars: hasWhere && objectVarParsing, ctx: qctx };
  const del = await templates(t, 'delete', obj['delete']);
  const ins = await templates(t, 'insert', obj['insert']);
  w.finish();
  const req: TxnRequest = { kind: 'update', where, delete: dedupeQuads(del), insert: dedupeQuads(ins), meta: [], opts };
  const warnings = w.warnings();
  if (warnings.length > 0) req.warnings = warnings;
  if (using) req.using = using;
  if (named) req.usingNamed = named;
  return req;
}

interface TemplateScope {
  writer: ExpandedWriter;
  rawCtx: unknown;
  options: JsonLdTxnOptions;
  graph: GraphRef;
  aliases: ReadonlyMap<string, string>;
  objectVars: boolean;
  ctx: () => ActiveContext;
}

/** The quads of a `delete` or `insert` value: a node, an array of nodes / graph blocks, or `{"@graph": [...]}`. */
async function templates(t: TemplateScope, which: 'delete' | 'insert', value: unknown): Promise<TemplateQuad[]> {
  if (value === undefined) return [];
  const w = t.writer;
  w.mode = which;
  const start = w.quads.length;
  const one = async (n: unknown, g: GraphTarget): Promise<void> => {
    if (!isObject(n)) throw badRequest(`each ${which} template must be a node object, got ${quote(n)}`);
    const graphContent = n['@graph'];
    if (typeof graphContent === 'object' && graphContent !== null && !('@id' in n)) {
      for (const x of listOf(graphContent)) await one(isObject(x) && n['@context'] !== undefined ? { '@context': n['@context'], ...x } : x, g);
      return;
    }
    const doc = withGraphMarkers(n, true, t.objectVars) as Record<string, unknown>;
    const wrapped = t.rawCtx === undefined ? doc : { ...doc, '@context': doc['@context'] === undefined ? t.rawCtx : [...listOf(t.rawCtx), ...listOf(doc['@context'])] };
    const { expanded } = await expandJsonLd(wrapped, expandOptions(t.options, t.rawCtx));
    const before = w.quads.length;
    for (const x of expanded) w.node(x, g, false);
    if (w.quads.length === before) {
      throw badRequest(`${which} template ${quote(n)} has no predicate or @type: say which facts to ${which}`);
    }
  };
  // A lone ["graph", G, node...] is one item, not a list of items.
  const items = Array.isArray(value) ? (typeof value[0] === 'string' ? [value] : value) : [value];
  for (const item of items) {
    if (Array.isArray(item)) {
      if (typeof item[0] !== 'string' || item[0].toLowerCase() !== 'graph' || item.length < 3 || typeof item[1] !== 'string') {
        throw badRequest(`invalid ${which} item ${quote(item)}: expected a node or ["graph", G, node...]`);
      }
      const g = item[1];
      const target: GraphTarget = isVariableString(g) ? variable(varName(g)) : t.aliases.has(g) ? checkedGraph(t.aliases.get(g)!) : g === 'default' ? defaultGraph : graphNode(g, t.ctx());
      for (const n of item.slice(2)) for (const x of listOf(n)) await one(x, target);
    } else {
      await one(item, t.graph);
    }
  }
  return w.quads.slice(start);
}

// -----------------------------------------------------------------------------------------------
// Variables and node graphs through expansion

/**
 * A copy of a node object in which the Ledgraph extensions survive JSON-LD expansion: a node's
 * `"@graph": "<IRI>"` becomes a `GRAPH_KEY` reference, and in update templates variables become
 * `VAR_PREFIX` IRIs (`"@id": "?s"`, `"?p"` keys, `"@type": "?t"`, `{"@variable": "?x"}`, and bare
 * `"?o"` objects when `objectVars`).
 */
function withGraphMarkers(n: unknown, templates: boolean, objectVars = false): unknown {
  // Plain data without a string-valued @graph anywhere goes to jsonld.js as it is (no copy).
  if (!templates && !hasStringGraph(n)) return n;
  const varIri = (s: string) => VAR_PREFIX + varName(s);
  const node = (o: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      if (k === '@context') { out[k] = v; continue; }
      if (k === '@graph' && typeof v === 'string') {
        if (v === 'txn-meta') throw badRequest('the graph name "txn-meta" is reserved: txn-meta cannot be written directly; use document metadata');
        if (isVariableString(v) && !templates) throw badRequest(`variables such as ${v} are only allowed in update templates`);
        out[GRAPH_KEY] = { '@id': v === 'default' ? DEFAULT_GRAPH_IRI : isVariableString(v) ? varIri(v) : v };
        continue;
      }
      if (!templates) { out[k] = k === '@graph' || !k.startsWith('@') ? value(v) : v; continue; }
      const key = isVariableString(k) ? varIri(k) : k;
      if (k === '@id' && isVariableString(v)) out[key] = varIri(v as string);
      else if (k === '@type') out[key] = Array.isArray(v) ? v.map((x) => (isVariableString(x) ? varIri(x as string) : x)) : isVariableString(v) ? varIri(v as string) : v;
      else if (k.startsWith('@') && k !== '@graph' && k !== '@reverse' && k !== '@included') out[key] = v;
      else out[key] = value(v);
    }
    return out;
  };
  const value = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(value);
    if (templates && objectVars && isVariableString(v)) return { '@id': varIri(v as string) };
    if (!isObject(v)) return v;
    if (templates && '@variable' in v) {
      if (!isVariableString(v['@variable']) || Object.keys(v).length !== 1) throw badRequest('{"@variable": "?x"} must hold exactly one variable');
      return { '@id': varIri(v['@variable'] as string) };
    }
    if ('@value' in v) return v;
    if ('@list' in v || '@set' in v) {
      const k = '@list' in v ? '@list' : '@set';
      return { ...v, [k]: value(v[k]) };
    }
    return node(v);
  };
  return isObject(n) ? node(n) : n;
}

/** Does any object inside `v` have a string-valued `@graph`? */
function hasStringGraph(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasStringGraph);
  if (!isObject(v)) return false;
  for (const k in v) {
    const x = v[k];
    if (k === '@graph' ? typeof x === 'string' || hasStringGraph(x) : k !== '@context' && typeof x === 'object' && x !== null && hasStringGraph(x)) return true;
  }
  return false;
}

// -----------------------------------------------------------------------------------------------
// helpers

function expandOptions(o: JsonLdTxnOptions, ownContext: unknown) {
  const out: { base?: string; expandContext?: unknown; contexts?: ReadonlyMap<string, unknown>; fastPath?: boolean } = {};
  if (o.fastPath === false) out.fastPath = false;
  if (o.base !== undefined) out.base = o.base;
  // The ledger's default context applies only to a body without its own @context (jsonld-query.md §2.3).
  if (ownContext === undefined && o.ledgerDefaultContext !== undefined) out.expandContext = o.ledgerDefaultContext;
  if (o.contexts) out.contexts = o.contexts;
  return out;
}

/** The query-language context (where, values, from, graph, opts IRIs), processed on first use. */
function lazyQueryContext(raw: unknown, o: JsonLdTxnOptions): () => ActiveContext {
  let ctx: ActiveContext | undefined;
  return () => {
    if (ctx) return ctx;
    const base = raw === undefined && o.ledgerDefaultContext !== undefined ? ActiveContext.create(o.ledgerDefaultContext) : ActiveContext.empty();
    const withBase = o.base !== undefined ? ActiveContext.create({ '@base': o.base }, base) : base;
    ctx = raw === undefined ? withBase : ActiveContext.create(raw, withBase);
    return ctx;
  };
}

/** Does a context (inline JSON, array, or preloaded URL) define `term` at the top level? */
function definesTerm(ctx: unknown, term: string, contexts: ReadonlyMap<string, unknown> | undefined): boolean {
  if (typeof ctx === 'string') {
    const doc = contexts?.get(ctx);
    return isObject(doc) && definesTerm(doc['@context'], term, contexts);
  }
  if (Array.isArray(ctx)) return ctx.some((c) => definesTerm(c, term, contexts));
  return isObject(ctx) && Object.prototype.hasOwnProperty.call(ctx, term) && ctx[term] !== null;
}

/** A named graph IRI from a graph name (expanded through the query context), enforcing the reserved names and size limit. */
export function graphNode(g: string, ctx: ActiveContext): NamedNode {
  if (g === 'txn-meta' || g === 'default') throw badRequest(`the graph name "${g}" is reserved${g === 'txn-meta' ? ': txn-meta cannot be written directly; use document metadata' : ''}`);
  if (g.startsWith('_:')) throw badRequest('a graph name must be an IRI, not a blank node');
  const e = ctx.expandIri(g, false);
  if (utf8Length(e) > MAX_GRAPH_IRI_BYTES) throw badRequest(`graph IRI too long: at most ${MAX_GRAPH_IRI_BYTES} bytes`);
  return iri(e, 'graph');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function listOf(v: unknown): unknown[] { return v === undefined ? [] : Array.isArray(v) ? v : [v]; }
