/**
 * JSON-LD transaction bodies -> `TxnRequest` (jsonld-transactions.md §1–§10): the document, node,
 * array and update forms, node objects and values, blank-node labelling, named graphs and commit
 * metadata. The `opts` object and the metadata rules and limits are in txn-opts.ts; the update
 * form's `where` is compiled by the shared JSON-LD where compiler.
 */
import { badRequest } from '../errors.js';
import { checkJsonValueDepth } from '../json-depth.js';
import { withinStack } from '../limits.js';
import { ActiveContext } from '../rdf/jsonld-context.js';
import {
  type BlankNode, type NamedNode, type Term, type Variable, blankNode, defaultGraph, namedNode, termKey, variable,
} from '../rdf/terms.js';
import { rdf } from '../rdf/vocab.js';
import type { Op } from '../query/algebra/algebra.js';
import { coercedTerm, iriOrBlank, isVariableString, jsonLiteral, valueObjectTerm, varName } from '../query/jsonld/expr.js';
import { WhereCompiler } from '../query/jsonld/where.js';
import type { GraphRef, MetaEntry, TemplateQuad, TxnOpts, TxnQuad, TxnRequest } from './txn-request.js';
import { MAX_GRAPH_IRI_BYTES, checkMetaEntries, parseOpts, utf8Length } from './txn-opts.js';
import { quote } from '../excerpt.js';

export { MAX_GRAPH_IRI_BYTES, checkMetaEntries, utf8Length } from './txn-opts.js';

/** Options of `parseJsonLdTxn`. */
export interface JsonLdTxnOptions {
  /**
   * The ledger's stored default context, used when the body has no `@context`: its JSON, or an
   * ActiveContext the caller already processed (and may cache per ledger).
   */
  ledgerDefaultContext?: unknown;
}

const UPDATE_KEYS = new Set(['@context', 'context', 'where', 'delete', 'insert', 'values', 'graph', 'from', 'fromNamed', 'from-named', 'opts', 'ledger']);
const INVALID_IRI_CHARS = /[\u0000-\u0020<>"{}|^`\\]/;

type Subject = NamedNode | BlankNode | Variable;
type GraphTarget = GraphRef | Variable;
type Mode = 'data' | 'delete' | 'insert';

/**
 * Parse a JSON-LD transaction body for the insert, upsert or update endpoint. On `update`, a body
 * without `where`/`delete`/`insert`/`values` is an insert (§1). Throws 400 LedgraphErrors.
 */
export function parseJsonLdTxn(body: unknown, mode: 'insert' | 'upsert' | 'update', opts: JsonLdTxnOptions = {}): TxnRequest {
  if (body === null || typeof body !== 'object') throw badRequest('a JSON-LD transaction must be a JSON object or an array of node objects');
  checkJsonValueDepth(body, 'the JSON-LD transaction');
  return withinStack('the JSON-LD transaction', () => parseTxnBody(body, mode, opts));
}

function parseTxnBody(body: object, mode: 'insert' | 'upsert' | 'update', opts: JsonLdTxnOptions): TxnRequest {
  const defaultCtx = lazyContext(opts.ledgerDefaultContext);
  const kind = mode === 'upsert' ? 'upsert' : 'insert';
  if (Array.isArray(body)) return arrayForm(body, kind, defaultCtx);
  const obj = body as Record<string, unknown>;
  const updateKeys = ['where', 'delete', 'insert', 'values'].filter((k) => k in obj);
  if (mode === 'update' && updateKeys.length > 0) return updateForm(obj, defaultCtx);
  const ctx = '@context' in obj ? ActiveContext.create(obj['@context']) : defaultCtx();
  if (updateKeys.length > 0 && updateKeys.some((k) => ctx.termDefinition(k) === undefined)) {
    throw badRequest(`${updateKeys.join('/')} are update keys: send where/delete/insert bodies to the update endpoint`);
  }
  const graph = obj[findKey(obj, '@graph', ctx) ?? '@graph'];
  if (graph !== undefined && typeof graph === 'object' && graph !== null) return documentForm(obj, kind, ctx);
  return nodeForm(obj, kind, ctx);
}

function lazyContext(raw: unknown): () => ActiveContext {
  let ctx: ActiveContext | undefined;
  return () => (ctx ??= raw instanceof ActiveContext ? raw : raw === undefined ? ActiveContext.empty() : ActiveContext.create(raw));
}

// -----------------------------------------------------------------------------------------------
// Forms

function arrayForm(body: unknown[], kind: 'insert' | 'upsert', defaultCtx: () => ActiveContext): TxnRequest {
  const b = new Builder('data', false);
  for (const item of body) {
    if (!isObject(item)) throw badRequest(`each element of a transaction array must be a node object, got ${quote(item)}`);
    const ctx = '@context' in item ? ActiveContext.create(item['@context']) : defaultCtx();
    b.node(item, ctx, defaultGraph, false, true);
  }
  return dataRequest(kind, b, [], {});
}

function nodeForm(obj: Record<string, unknown>, kind: 'insert' | 'upsert', ctx: ActiveContext): TxnRequest {
  const node: Record<string, unknown> = {};
  let rawOpts: unknown;
  for (const [k, v] of Object.entries(obj)) {
    // `opts` and `ledger` belong to the request unless the context makes them data.
    if ((k === 'opts' || k === 'ledger') && ctx.termDefinition(k) === undefined) {
      if (k === 'opts') rawOpts = v;
      continue;
    }
    node[k] = v;
  }
  const { opts } = parseOpts(rawOpts, ctx);
  const b = new Builder('data', false);
  b.node(node, ctx, defaultGraph, false, false);
  return dataRequest(kind, b, [], opts);
}

function documentForm(obj: Record<string, unknown>, kind: 'insert' | 'upsert', outer: ActiveContext): TxnRequest {
  let ctx = outer;
  const local: Record<string, unknown> = {};
  for (const k of ['@base', '@vocab'] as const) if (k in obj) local[k] = obj[k];
  // Top-level @base/@vocab act as if they were written in the context.
  if (Object.keys(local).length > 0) ctx = ActiveContext.create(local, ctx);
  let graphIri: NamedNode | undefined;
  let nodes: unknown;
  let types: unknown;
  const metaKeys: string[] = [];
  for (const key of Object.keys(obj)) {
    if (key === 'opts' || key === 'ledger' || key === '@context') continue;
    const kw = ctx.keyword(key);
    if (kw === '@graph') nodes = obj[key];
    else if (kw === '@id') {
      const id = obj[key];
      if (typeof id !== 'string' || id.startsWith('_:') || isVariableString(id)) throw badRequest('the @id of a document (its named graph) must be an IRI');
      graphIri = graphNode(id, ctx);
    } else if (kw === '@type') types = obj[key];
    else if (kw === '@base' || kw === '@vocab') continue;
    else metaKeys.push(key);
  }
  const { opts } = parseOpts(obj['opts'], ctx);
  const b = new Builder('data', false);
  const g: GraphRef = graphIri ?? defaultGraph;
  for (const n of Array.isArray(nodes) ? nodes : [nodes]) {
    if (!isObject(n)) throw badRequest(`each @graph entry must be a node object, got ${quote(n)}`);
    b.node(n, ctx, g, false, true);
  }
  if (types !== undefined) {
    if (!graphIri) throw badRequest('@type on a document needs an @id naming the graph it describes');
    b.node({ '@id': graphIri.value, '@type': types }, ctx, defaultGraph, false, false);
  }
  return dataRequest(kind, b, parseMeta(obj, metaKeys, ctx), opts);
}

function dataRequest(kind: 'insert' | 'upsert', b: Builder, meta: MetaEntry[], opts: TxnOpts): TxnRequest {
  const quads = b.finish() as TxnQuad[];
  if (quads.length === 0) throw badRequest('nothing to write: the transaction contains no facts');
  return { kind, quads, meta, opts };
}

function updateForm(obj: Record<string, unknown>, defaultCtx: () => ActiveContext): TxnRequest {
  for (const k of Object.keys(obj)) {
    if (!UPDATE_KEYS.has(k)) throw badRequest(`unknown key "${k}" in an update body (commit metadata is only accepted in the document form)`);
  }
  const ctxKey = '@context' in obj ? '@context' : 'context' in obj ? 'context' : undefined;
  const ctx = ctxKey ? ActiveContext.create(obj[ctxKey]) : defaultCtx();
  const { opts, objectVarParsing } = parseOpts(obj['opts'], ctx);
  const hasWhere = obj['where'] !== undefined || obj['values'] !== undefined;
  if (!('delete' in obj) && !('insert' in obj)) throw badRequest('nothing to write: an update needs delete and/or insert');

  const aliases = new Map<string, string>();
  const usingNamed = obj['fromNamed'] ?? obj['from-named'];
  const named = usingNamed === undefined ? undefined : listOf(usingNamed).map((x) => {
    if (typeof x === 'string') return graphNode(x, ctx);
    if (isObject(x) && typeof x['graph'] === 'string') {
      const g = graphNode(x['graph'], ctx);
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
    templateGraph = graphRef(obj['graph'], ctx);
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
      using = from.map((x) => graphNode(x, ctx));
    }
  } else if (templateGraph.termType === 'NamedNode') {
    // Like SPARQL WITH: the update's graph is also the default graph of its WHERE.
    using = [templateGraph];
  }

  const compiler = new WhereCompiler({ objectVarParsing, graphAliases: aliases });
  let where: Op | null = null;
  if (obj['values'] !== undefined) where = compiler.values(obj['values'], ctx);
  if (obj['where'] !== undefined) {
    const w = compiler.where(obj['where'], ctx);
    where = where ? { type: 'join', inputs: [where, w] } : w;
  }

  const b = new Builder('insert', hasWhere && objectVarParsing);
  const del = templates(b, 'delete', obj['delete'], ctx, templateGraph, aliases);
  const ins = templates(b, 'insert', obj['insert'], ctx, templateGraph, aliases);
  b.finish();
  const req: TxnRequest = { kind: 'update', where, delete: dedupe(del), insert: dedupe(ins), meta: [], opts };
  if (using) req.using = using;
  if (named) req.usingNamed = named;
  return req;
}

/** The quads of a `delete` or `insert` value: a node, an array of nodes / graph blocks, or `{"@graph": [...]}`. */
function templates(b: Builder, which: 'delete' | 'insert', value: unknown, ctx: ActiveContext, graph: GraphRef,
  aliases: ReadonlyMap<string, string>): TemplateQuad[] {
  if (value === undefined) return [];
  b.mode = which;
  const start = b.quads.length;
  const one = (n: unknown, c: ActiveContext, g: GraphTarget) => {
    if (!isObject(n)) throw badRequest(`each ${which} template must be a node object, got ${quote(n)}`);
    const nctx = '@context' in n ? ActiveContext.create(n['@context'], c) : c;
    const gk = findKey(n, '@graph', nctx);
    if (gk && !findKey(n, '@id', nctx) && typeof n[gk] === 'object') {
      for (const x of listOf(n[gk])) one(x, nctx, g);
      return;
    }
    const before = b.quads.length;
    b.node(n, c, g, false, false);
    if (b.quads.length === before) {
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
      const target: GraphTarget = isVariableString(g) ? variable(varName(g)) : aliases.has(g) ? graphNode(aliases.get(g)!, ActiveContext.empty()) : graphRef(g, ctx);
      for (const n of item.slice(2)) for (const x of listOf(n)) one(x, ctx, target);
    } else {
      one(item, ctx, graph);
    }
  }
  return b.quads.slice(start);
}

// -----------------------------------------------------------------------------------------------
// Node objects and values

/** Accumulates quads; labels unlabeled blank nodes b0, b1, ... once the whole document is seen. */
class Builder {
  readonly quads: TemplateQuad[] = [];
  mode: Mode;
  private readonly anon: BlankNode[] = [];
  private readonly used = new Set<string>();

  /** `objectVars`: bare "?x" objects are variables (update with where/values, objectVarParsing on). */
  constructor(mode: Mode, private readonly objectVars: boolean) { this.mode = mode; }

  private get templates(): boolean { return this.mode !== 'data'; }

  /**
   * Write one node object's facts into graph `g`; returns its subject. `nested` = it is the value
   * of a property (so it needs a subject even without properties).
   */
  node(obj: Record<string, unknown>, outer: ActiveContext, g: GraphTarget, nested: boolean, allowGraphContent: boolean): Subject | undefined {
    const ctx = '@context' in obj ? ActiveContext.create(obj['@context'], outer) : outer;
    let id: unknown;
    let types: unknown;
    let graphValue: unknown;
    const props: [string, unknown][] = [];
    for (const [key, value] of Object.entries(obj)) {
      if (key === '@context') continue;
      const kw = ctx.keyword(key);
      if (kw === undefined) {
        if (key.startsWith('@')) throw badRequest(`unknown keyword ${key}`);
        props.push([key, value]);
        continue;
      }
      switch (kw) {
        case '@id': id = value; break;
        case '@type': types = value; break;
        case '@graph': graphValue = value; break;
        case '@index': break;
        case '@reverse': throw badRequest('reverse properties are query-only and cannot be written');
        case '@value': case '@list': case '@set': case '@variable':
          throw badRequest(`${key} is not allowed on a node object`);
        default: throw badRequest(`${key} is not supported in transactions`);
      }
    }
    let graph = g;
    let content: unknown[] | undefined;
    if (graphValue !== undefined) {
      if (typeof graphValue === 'string') {
        if (isVariableString(graphValue) && !this.templates) throw badRequest(`variables such as ${graphValue} are only allowed in update templates`);
        graph = isVariableString(graphValue) ? variable(varName(graphValue)) : graphRef(graphValue, ctx);
      } else if (typeof graphValue === 'object' && graphValue !== null && allowGraphContent) content = listOf(graphValue);
      else throw badRequest('@graph must be a graph IRI or an array of node objects');
    }
    const needSubject = nested || types !== undefined || props.length > 0 || (content !== undefined && id !== undefined);
    const subject = needSubject ? this.subject(id, ctx) : undefined;
    if (content) {
      let cg: GraphTarget = graph;
      if (subject) {
        if (subject.termType === 'BlankNode') throw badRequest('a named graph needs an IRI, not a blank node');
        cg = subject.termType === 'Variable' ? subject : graphRef(subject.value, ActiveContext.empty());
      }
      for (const n of content) {
        if (!isObject(n)) throw badRequest(`each @graph entry must be a node object, got ${quote(n)}`);
        this.node(n, ctx, cg, false, true);
      }
    }
    if (!subject) return undefined;
    if (types !== undefined) {
      if (typeof types !== 'string' && !(Array.isArray(types) && types.every((t) => typeof t === 'string'))) {
        throw badRequest(`@type must be a string or an array of strings, got ${quote(types)}`);
      }
      const p = namedNode(rdf.type);
      for (const t of listOf(types) as string[]) this.push(subject, p, this.typeTerm(t, ctx), graph, undefined, false);
    }
    for (const [key, value] of props) this.property(subject, key, value, ctx, graph);
    return subject;
  }

  private subject(id: unknown, ctx: ActiveContext): Subject {
    if (id === undefined) {
      if (this.mode === 'delete') throw badRequest('a delete template cannot contain a node without @id: use a variable ("@id": "?x")');
      const b = blankNode('');
      this.anon.push(b);
      return b;
    }
    if (typeof id !== 'string') throw badRequest(`@id must be a string, got ${quote(id)}`);
    if (isVariableString(id)) {
      if (!this.templates) throw badRequest(`variables such as ${id} are only allowed in update templates`);
      return variable(varName(id));
    }
    if (id.startsWith('_:')) return this.labeled(id.slice(2));
    return iri(ctx.expandIri(id, false), '@id');
  }

  private labeled(label: string): BlankNode {
    if (label === '') throw badRequest('invalid blank node identifier "_:"');
    this.used.add(label);
    return blankNode(label);
  }

  private typeTerm(t: string, ctx: ActiveContext): NamedNode | Variable {
    if (isVariableString(t)) {
      if (!this.templates) throw badRequest(`variables such as ${t} are only allowed in update templates`);
      return variable(varName(t));
    }
    return iri(ctx.expandIri(t, true), '@type');
  }

  private property(s: Subject, key: string, value: unknown, ctx: ActiveContext, g: GraphTarget): void {
    let p: NamedNode | Variable;
    const def = ctx.termDefinition(key);
    if (isVariableString(key)) {
      if (!this.templates) throw badRequest(`variables such as ${key} are only allowed in update templates`);
      p = variable(varName(key));
    } else {
      if (def?.reverse) throw badRequest(`${key} is a reverse property: reverse terms are query-only`);
      if (def?.path !== undefined) throw badRequest(`${key} is a path alias: paths are query-only`);
      if (def && def.id === null) return;
      const e = ctx.expandIri(key, true);
      if (e.startsWith('@')) throw badRequest(`${key} is not supported in transactions`);
      if (e === rdf.type) throw badRequest(`${key} cannot be used as a property: write the type with @type`);
      p = iri(e, 'property');
    }
    const vctx = def?.context !== undefined ? ActiveContext.create(def.context, ctx) : ctx;
    if (value === null) return;
    if (def?.type === '@json') {
      // A @json term takes the whole value, arrays included, as one JSON literal.
      this.push(s, p, jsonLiteral(value), g, undefined, false);
      return;
    }
    const container = def?.container ?? [];
    if (container.includes('@list')) {
      if (isObject(value) && findKey(value, '@list', vctx)) this.value(s, p, value, def?.type, this.lang(def, vctx), vctx, g, undefined);
      else this.list(s, p, listOf(value), def?.type, this.lang(def, vctx), vctx, g);
      return;
    }
    if (container.includes('@language') && isObject(value) && !findKey(value, '@value', vctx)) {
      for (const [tag, texts] of Object.entries(value)) {
        for (const t of flatten(texts)) {
          if (t === null) continue;
          if (typeof t !== 'string') throw badRequest(`a language map of ${key} must hold strings`);
          this.value(s, p, t, undefined, tag === '@none' ? null : tag, vctx, g, undefined);
        }
      }
      return;
    }
    for (const v of flatten(value)) this.value(s, p, v, def?.type, this.lang(def, vctx), vctx, g, undefined);
  }

  private lang(def: { language?: string | null } | undefined, ctx: ActiveContext): string | null {
    return def?.language !== undefined ? def.language : ctx.language;
  }

  private list(s: Subject, p: NamedNode | Variable, items: unknown[], type: string | undefined, lang: string | null,
    ctx: ActiveContext, g: GraphTarget): void {
    let i = 0;
    for (const item of items) {
      if (item === null) continue;
      if (Array.isArray(item)) throw badRequest('nested lists are not supported');
      this.value(s, p, item, type, lang, ctx, g, i++);
    }
  }

  /** Write one value (scalar, value object, list object, reference or nested node). */
  private value(s: Subject, p: NamedNode | Variable, v: unknown, type: string | undefined, lang: string | null,
    ctx: ActiveContext, g: GraphTarget, listIndex: number | undefined): void {
    if (v === null) return;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      if (typeof v === 'string' && this.objectVars && isVariableString(v)) {
        this.push(s, p, variable(varName(v)), g, listIndex, false);
        return;
      }
      const t = typeof v === 'string' && type === '@id' && v.startsWith('_:') ? this.labeled(v.slice(2)) : coercedTerm(v, type, lang, ctx);
      // A plain JSON literal (no datatype or language from the context) retracts by value (§3.5).
      const loose = t.termType === 'Literal' && (type === undefined || type === '@id' || type === '@vocab' || type === '@none') && !(typeof v === 'string' && lang);
      if (t.termType !== 'Literal') this.checkRef(t);
      this.push(s, p, t, g, listIndex, loose);
      return;
    }
    if (!isObject(v)) throw badRequest(`invalid value ${quote(v)}`);
    if (type === '@json') {
      this.push(s, p, jsonLiteral(v), g, listIndex, false);
      return;
    }
    if ('@variable' in v) {
      const name = v['@variable'];
      if (!this.templates) throw badRequest('{"@variable": ...} is only allowed in update templates');
      if (!isVariableString(name) || Object.keys(v).length !== 1) throw badRequest('{"@variable": "?x"} must hold exactly one variable');
      this.push(s, p, variable(varName(name)), g, listIndex, false);
      return;
    }
    if (findKey(v, '@value', ctx)) {
      const t = valueObjectTerm(v, ctx);
      if (t.termType !== 'Literal') this.checkRef(t);
      this.push(s, p, t, g, listIndex, false);
      return;
    }
    const listKey = findKey(v, '@list', ctx);
    if (listKey) {
      if (listIndex !== undefined) throw badRequest('nested lists are not supported');
      if (Object.keys(v).length !== 1) throw badRequest('a list object cannot have keys besides @list');
      this.list(s, p, listOf(v[listKey]), type, lang, ctx, g);
      return;
    }
    const setKey = findKey(v, '@set', ctx);
    if (setKey) {
      for (const x of flatten(v[setKey])) this.value(s, p, x, type, lang, ctx, g, listIndex);
      return;
    }
    const keys = Object.keys(v);
    const idKey = findKey(v, '@id', ctx);
    let o: Subject;
    if (keys.length === 1 && idKey) {
      const id = v[idKey];
      if (typeof id === 'string' && isVariableString(id) && this.templates) o = variable(varName(id));
      else if (typeof id === 'string' && !isVariableString(id)) {
        const ref = id.startsWith('_:') ? this.labeled(id.slice(2)) : iriOrBlank(id, ctx);
        this.checkRef(ref);
        o = ref;
      } else o = this.subject(id, ctx);
    } else {
      o = this.node(v, ctx, g, true, false)!;
    }
    this.push(s, p, o, g, listIndex, false);
  }

  private checkRef(t: Term): void {
    if (t.termType === 'NamedNode') iri(t.value, 'reference');
  }

  private push(s: Subject, p: NamedNode | Variable, o: Term | Variable, g: GraphTarget, listIndex: number | undefined, loose: boolean): void {
    // Labels written in the document (also via "@type": "@id" values) are taken before b<n> labels are handed out.
    if (s.termType === 'BlankNode') this.used.add(s.value);
    if (o.termType === 'BlankNode') this.used.add(o.value);
    const q: TemplateQuad = { subject: s, predicate: p, object: o, graph: g };
    if (listIndex !== undefined) q.listIndex = listIndex;
    if (loose && this.mode === 'delete') q.looseObject = true;
    this.quads.push(q);
  }

  /** Give unlabeled blank nodes their labels (b0, b1, ... skipping used ones) and drop duplicates. */
  finish(): TemplateQuad[] {
    let n = 0;
    for (const b of this.anon) {
      while (this.used.has('b' + n)) n++;
      (b as { value: string }).value = 'b' + n++;
    }
    this.anon.length = 0;
    return dedupe(this.quads);
  }
}

function dedupe(quads: TemplateQuad[]): TemplateQuad[] {
  const seen = new Set<string>();
  const out: TemplateQuad[] = [];
  for (const q of quads) {
    const k = [q.subject, q.predicate, q.object, q.graph].map(tkey).join(' ') + ' ' + (q.listIndex ?? '') + (q.looseObject ? ' ~' : '');
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(q);
  }
  return out;
}

function tkey(t: Term | Variable | GraphRef): string {
  if (t.termType === 'Variable') return '?' + t.value;
  if (t.termType === 'DefaultGraph') return '';
  return termKey(t).replace(/ /g, '\\u0020');
}

// -----------------------------------------------------------------------------------------------
// Graphs and metadata

/** A graph target: "default" is the default graph; "txn-meta" cannot be written (§7). */
function graphRef(g: string, ctx: ActiveContext): GraphRef {
  if (g === 'default') return defaultGraph;
  return graphNode(g, ctx);
}

/** A named graph IRI from a graph name (expanded through `ctx`), enforcing the reserved names and size limit. */
export function graphNode(g: string, ctx: ActiveContext): NamedNode {
  if (g === 'txn-meta' || g === 'default') throw badRequest(`the graph name "${g}" is reserved${g === 'txn-meta' ? ': txn-meta cannot be written directly; use document metadata' : ''}`);
  if (g.startsWith('_:')) throw badRequest('a graph name must be an IRI, not a blank node');
  const e = ctx.expandIri(g, false);
  if (utf8Length(e) > MAX_GRAPH_IRI_BYTES) throw badRequest(`graph IRI too long: at most ${MAX_GRAPH_IRI_BYTES} bytes`);
  return iri(e, 'graph');
}

/** An IRI term, rejecting strings no IRI may contain (spaces, angle brackets, ...). */
function iri(s: string, what: string): NamedNode {
  if (s === '') throw badRequest(`empty IRI in ${what}`);
  if (s.startsWith('@')) throw badRequest(`${s} is not an IRI (in ${what})`);
  if (INVALID_IRI_CHARS.test(s)) throw badRequest(`invalid IRI ${quote(s)} in ${what}`);
  return namedNode(s);
}

/** Commit metadata from the document form's extra top-level keys (§8). */
function parseMeta(obj: Record<string, unknown>, keys: string[], ctx: ActiveContext): MetaEntry[] {
  const out: MetaEntry[] = [];
  let bytes = 0;
  for (const key of keys) {
    if (key.startsWith('@') || ctx.keyword(key) !== undefined) throw badRequest(`${key} is not allowed at the top of a document`);
    const def = ctx.termDefinition(key);
    if (def?.reverse || def?.path !== undefined) throw badRequest(`${key} cannot be used as metadata: reverse and path terms are query-only`);
    if (def && def.id === null) continue;
    const value = obj[key];
    bytes += utf8Length(JSON.stringify({ [key]: value }));
    const predicate = iri(ctx.expandIri(key, true), 'metadata key');
    const vctx = def?.context !== undefined ? ActiveContext.create(def.context, ctx) : ctx;
    for (const v of Array.isArray(value) ? value : [value]) {
      out.push({ predicate: predicate.value, object: metaValue(key, v, def?.type, def?.language !== undefined ? def.language : vctx.language, vctx) });
    }
  }
  checkMetaEntries(out, bytes);
  return out;
}

function metaValue(key: string, v: unknown, type: string | undefined, lang: string | null, ctx: ActiveContext): Term {
  if (v === null) throw badRequest(`metadata ${key} cannot be null`);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
    const t = coercedTerm(v, type, lang, ctx);
    if (t.termType === 'BlankNode') throw badRequest(`metadata ${key} cannot reference a blank node`);
    return t;
  }
  if (isObject(v)) {
    if (findKey(v, '@value', ctx)) return valueObjectTerm(v, ctx);
    const idKey = findKey(v, '@id', ctx);
    if (idKey && Object.keys(v).length === 1 && typeof v[idKey] === 'string' && !(v[idKey] as string).startsWith('_:')) {
      return iri(ctx.expandIri(v[idKey] as string, false), 'metadata reference');
    }
  }
  throw badRequest(`metadata ${key} must be a string, number, boolean, {"@id": ...} or a value object (no nested nodes or arrays)`);
}

// -----------------------------------------------------------------------------------------------
// helpers

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The key of `o` that is (or aliases) keyword `kw`. */
function findKey(o: Record<string, unknown>, kw: string, ctx: ActiveContext): string | undefined {
  for (const k of Object.keys(o)) if (k === kw || ctx.keyword(k) === kw) return k;
  return undefined;
}

function listOf(v: unknown): unknown[] { return v === undefined ? [] : Array.isArray(v) ? v : [v]; }

/** Nested arrays of a non-list property are flattened (JSON-LD expansion). */
function flatten(v: unknown): unknown[] {
  if (!Array.isArray(v)) return [v];
  return v.flatMap((x) => flatten(x));
}
