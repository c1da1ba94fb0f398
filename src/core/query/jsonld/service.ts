/**
 * JSON-LD queries against a connection (jsonld-query.md): parse the body, resolve the dataset and
 * time, apply the policy hook, translate into the shared algebra, execute on the shared engine,
 * and shape the result (crawl, compaction, construct documents, typed JSON, agent JSON). The HTTP
 * endpoints (query, stream, multi-query) call these three functions.
 */
import { ByteLru } from '../../util/byte-lru.js';
import { contextCacheBytes, DEFAULT_PARSE_CACHE_BYTES, setContextCacheBytes } from './parse.js';
import { badRequest, jsonParseError, timeoutError } from '../../errors.js';
import type { DbView } from '../../index/view.js';
import type { Connection } from '../../ledger/connection.js';
import { type TimeSpec, parseLedgerRef } from '../../ledger/ledger-id.js';
import type { Op, Query } from '../algebra/algebra.js';
import { executeQuery, fuelExhausted, type QueryContext } from '../engine.js';
import { abortError } from '../exec/runtime.js';
import { type Binding, type QueryResult, collect } from '../results/types.js';
import { agentJson } from './agent.js';
import { compileTemplate, constructDocument } from './construct.js';
import { Crawler } from './crawl.js';
import { type OutputFormat, formatter } from './format.js';
import { type OpenedDataset, openDataset, sourcePolicies } from './from.js';
import { EventView, bindEventFunctions, usesEventFunctions } from './history.js';
import { type PolicyInputs, type Tracking, parseQueryOpts } from './opts.js';
import { type ParsedQuery, effectiveContext, isHistoryBody, parseQuery } from './parse.js';
import { type CompiledSelect, compileSelect } from './query.js';
import { type Collected, batchesOf, collectValues, shapeIdRows, shapeRows } from './shape.js';
import { isObject } from './util.js';
import { WhereCompiler } from './where.js';
import { checkJsonTextDepth, checkJsonValueDepth } from '../../json-depth.js';
import { withinStack } from '../../limits.js';
import { checkAlgebraShape } from '../algebra/shape-limits.js';

export interface JsonLdQueryRequest {
  /** Default ledger of a ledger-scoped call (path / Ledgraph-Ledger header). */
  ledger?: string;
  /** Time for references without their own specifier (multi-query asOf). */
  at?: TimeSpec;
  /** Fuel budget from the Ledgraph-Max-Fuel header; `opts.max-fuel` in the body wins (§12). */
  maxFuel?: number;
  /** Read-after-write barrier from the Ledgraph-Min-T header; `opts.min-t` in the body wins. */
  minT?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  outputFormat?: 'json' | 'typed-json';
  normalizeArrays?: boolean;
  /** Agent JSON form. */
  agent?: { maxBytes?: number };
  /** The ledger's default context, when the server knows one. */
  defaultContext?: unknown;
  /** Policy hook: called on the resolved view; the view it returns is what the query reads. */
  wrapView?: (view: DbView, ledgers: Record<string, number>) => Promise<DbView>;
}

export interface JsonLdQueryResponse {
  result: unknown;
  ledgers: Record<string, number>;
  /**
   * Present when `opts.meta` (or `max-fuel`) asked for tracking. `members` lists what was asked
   * for (`meta: {"time": true}` asks for time only); the server shows only those.
   */
  tracking?: { time: string; fuel: number; policy?: { executed: number; allowed: number }; members?: (keyof Tracking)[] };
}

/** The tracking a header fuel limit implies (never mutated). */
const TRACK_FUEL: Tracking = { time: false, fuel: true, policy: false };

/** Run a JSON-LD query and return its result JSON. */
export async function runJsonLdQuery(conn: Connection, body: unknown, req: JsonLdQueryRequest = {}): Promise<JsonLdQueryResponse> {
  // The clock is read only for `meta` time (a read costs about as much as the cached parse lookup,
  // which is not timed then: a parse is, when the lookup misses).
  let started: number | undefined;
  let q = ownContextParsed(body);
  if (q === undefined) {
    started = now();
    q = parseCached(body, await storedDefault(conn, body, req));
  }
  // A fuel limit from the header implies fuel tracking, as the body's max-fuel does.
  const tracking = q.opts.tracking ?? (req.maxFuel !== undefined ? TRACK_FUEL : undefined);
  if (tracking && started === undefined) started = now();
  // Without min-t and a policy hook the dataset resolution is the one await before execution, as
  // in the SPARQL service (awaited here, not through a .then of prepare: one promise and tick less).
  let run: Run;
  if (waits(q, req)) run = await prepareWaiting(conn, q, req, tracking !== undefined);
  else {
    const deadline = deadlineOf(req);
    run = newRun(q, req, await openDataset(conn, q.dataset, q.ctx, req), undefined, deadline, tracking !== undefined);
  }
  const fmt = formatter(q.ctx, q.opts.format ?? req.outputFormat ?? 'json');
  let result: unknown;
  if (q.form === 'ask') {
    const r = await run.execute({ form: 'ask', op: run.op });
    result = r.type === 'boolean' && r.value;
  } else if (q.form === 'construct') {
    const template = compileTemplate(q.template, q.query.where, q.ctx);
    const r = await run.execute({ form: 'construct', op: run.op, template });
    if (r.type !== 'quads') throw new Error('construct did not produce quads');
    result = await constructDocument(r.quads, fmt, q.contextJson);
  } else {
    const c = run.compiled;
    let collected: Collected | undefined;
    if (c.collect) collected = collectValues(await collect(rowsOf(await run.execute({ form: 'select', op: c.collect.op, variables: c.collect.variables }))), c);
    const crawler = c.crawl
      ? new Crawler({
        view: run.crawlView, graphs: run.ds.defaultGraphs, fmt, depth: q.query.depth,
        normalizeArrays: q.opts.normalizeArrays ?? req.normalizeArrays ?? false,
        charge: (n) => run.charge(n), ...(req.signal ? { signal: req.signal } : {}),
      })
      : undefined;
    const r = selectResult(await run.execute({ form: 'select', op: c.op, variables: c.projected }));
    const shaped = await (shapeIdRows(c, r.ids, fmt) ?? shapeRows(c, batchesOf(r.rows, r.batches), fmt, crawler, collected));
    result = q.form === 'selectOne' ? shaped[0] ?? null : shaped;
  }
  if (req.agent) result = agentJson(result, q.contextJson, req.agent.maxBytes, q.query.offset);
  const out: JsonLdQueryResponse = { result, ledgers: run.ds.ledgers };
  if (tracking) {
    out.tracking = { time: `${(now() - started!).toFixed(2)}ms`, fuel: run.fuel, members: (['time', 'fuel', 'policy'] as const).filter((k) => tracking[k]) };
    const stats = (run.crawlView as { policyStats?(): { executed: number; allowed: number } }).policyStats?.();
    if (stats && tracking.policy) out.tracking.policy = stats;
  }
  return out;
}

/**
 * For NDJSON streaming: SELECT-shaped queries only; others (selectOne, graph crawl/hydration,
 * grouped value arrays and median/variance/stddev, construct, ask, history `to`) -> 400 before any row.
 */
export async function streamJsonLdSelect(conn: Connection, body: unknown, req: JsonLdQueryRequest = {}): Promise<{ vars: string[]; rows: AsyncIterable<Binding>; ledgers: Record<string, number>; fuel(): number }> {
  if (typeof body === 'string') {
    checkJsonTextDepth(body, 'the JSON-LD query');
    try { body = JSON.parse(body); } catch { throw jsonParseError('the query body is not valid JSON'); }
  }
  if (isHistoryBody(body)) throw badRequest('history queries (to) cannot be streamed');
  const q = ownContextParsed(body) ?? parseCached(body, await storedDefault(conn, body, req));
  if (q.form === 'construct' || q.form === 'ask' || q.form === 'selectOne') throw badRequest(`${q.form} queries cannot be streamed; only select and selectDistinct`);
  const run = await prepare(conn, q, req);
  const c = run.compiled;
  if (c.crawl) throw badRequest('graph crawl (hydration) queries cannot be streamed; select variables instead');
  if (c.collect) throw badRequest('grouped value arrays and median/variance/stddev cannot be streamed; aggregate every non-grouped variable');
  const rows = rowsOf(await run.execute({ form: 'select', op: c.op, variables: c.projected }));
  return { vars: c.projected, rows, ledgers: run.ds.ledgers, fuel: () => run.fuel };
}

/** True when the body is a history query (`to`), which cannot be streamed or multi-queried. */
export function isHistoryQuery(body: unknown): boolean {
  return isHistoryBody(body);
}

/** The policy inputs of a query body (`opts.identity`, `policy-class`, ...; per-source `from` policies). */
export function policyInputsOf(body: unknown, defaultContext?: unknown): PolicyInputs {
  if (!isObject(body)) throw badRequest('a JSON-LD query must be a JSON object');
  const { ctx } = effectiveContext(body, defaultContext);
  const inputs = parseQueryOpts(body['opts'], ctx).policy;
  const sources = sourcePolicies({ from: body['from'] ?? (isObject(body['opts']) ? body['opts']['from'] : undefined) });
  return sources ? { ...inputs, sources } : inputs;
}

/**
 * The default context a body is parsed under (jsonld-query.md §2.3): the caller's, else the stored
 * default context of the one ledger the query reads (the path ledger, or a single `from`); undefined
 * when the ledger has none. A body with its own `@context` ignores it, so it is not looked up then.
 */
async function storedDefault(conn: Connection, body: unknown, req: JsonLdQueryRequest): Promise<unknown> {
  if (req.defaultContext !== undefined) return req.defaultContext;
  if (isObject(body) && ('@context' in body || 'context' in body)) return undefined;
  let ledger = req.ledger;
  if (ledger === undefined && isObject(body)) {
    const opts = isObject(body['opts']) ? body['opts'] : {};
    const from = body['from'] ?? opts['from'];
    const one = Array.isArray(from) && from.length === 1 ? from[0] : from;
    if (typeof one === 'string') ledger = one;
  }
  if (ledger === undefined) return undefined;
  const ctx = await conn.defaultContext(ledger).catch(() => null);
  return ctx ?? undefined;
}

// ---------------------------------------------------------------------------------------------

/**
 * The run of a query over its opened dataset and the view it reads: executes its operators and
 * counts their fuel. A class, so that a run is one object (its methods are shared, not closures
 * made per query).
 */
class Run {
  fuel = 0;
  /** Adds each execution's fuel to the run's; absent when nothing reads the fuel (no limit, no tracking). */
  private readonly onFinish: ((stats: { fuel: number }) => void) | undefined;

  constructor(
    readonly ds: OpenedDataset,
    /** The view crawl nodes are read from (policy-wrapped, never the event view). */
    readonly crawlView: DbView,
    /** Where + values (and for construct/ask their modifiers) as one operator. */
    readonly op: Op,
    readonly compiled: CompiledSelect,
    private readonly ctx: QueryContext,
    private readonly maxFuel: number | undefined,
    private readonly deadline: number | undefined,
    private readonly signal: AbortSignal | undefined,
    countFuel: boolean,
  ) {
    this.onFinish = countFuel || maxFuel !== undefined ? ({ fuel }) => { this.fuel += fuel; } : undefined;
  }

  /** Charge fuel spent outside the engine (crawl reads); throws past the limit, on abort and on timeout. */
  charge(n: number): void {
    this.fuel += n;
    if (this.maxFuel !== undefined && this.fuel > this.maxFuel) throw fuelExhausted(this.maxFuel);
    if (this.signal?.aborted) throw abortError(this.signal);
    if (this.deadline !== undefined && Date.now() > this.deadline) throw timeoutError('query timeout exceeded');
  }

  /** Execute one query over the run's dataset, within what is left of its fuel and time. */
  execute(query: Query): ReturnType<typeof executeQuery> {
    const { ctx, maxFuel, deadline } = this;
    // The properties and order of the SPARQL service's context (absent ones undefined): the
    // engine's reads of it then meet one object shape, whichever language a process runs.
    return executeQuery(query, {
      view: ctx.view, defaultGraphs: ctx.defaultGraphs, namedGraphs: ctx.namedGraphs, resolveGraph: ctx.resolveGraph,
      maxFuel: maxFuel !== undefined ? Math.max(0, maxFuel - this.fuel) : undefined,
      timeoutMs: deadline !== undefined ? Math.max(0, deadline - Date.now()) : undefined,
      deadline: undefined, signal: this.signal, onFinish: this.onFinish, baseIri: undefined,
    });
  }
}

/** A select's result (awaited by the caller, so a run costs no extra async step). */
function selectResult(r: QueryResult): QueryResult & { type: 'bindings' } {
  if (r.type !== 'bindings') throw new Error('select did not produce bindings');
  return r;
}

/** The rows of a select's result. */
function rowsOf(r: QueryResult): AsyncIterable<Binding> {
  return selectResult(r).rows;
}

/**
 * Parsed queries by body text: clients repeat the same query bodies, and parsing (context,
 * where-clause, expressions) is a fixed cost as large as a point lookup. Parsed queries are never
 * mutated, so they are shared.
 */
const parsed = new ByteLru<string, ParsedQuery>(DEFAULT_PARSE_CACHE_BYTES / 3);
/** The same, for bodies with a ledger default context: keyed by text and that context's JSON. */
const parsedWithDefault = new ByteLru<string, ParsedQuery>(DEFAULT_PARSE_CACHE_BYTES / 3);
/** Bytes a parsed query is charged: its key, plus the parsed form estimated at 8 bytes per character of text. */
const parsedBytes = (key: string, text: string): number => 2 * key.length + 8 * text.length + 512;

/**
 * Set the byte budget of the JSON-LD parse caches (--parse-cache-bytes): parsed queries, parsed
 * queries under a default context, and processed contexts get a third each.
 */
export function setParseCacheBytes(bytes: number): void {
  parsed.resize(Math.floor(bytes / 3));
  parsedWithDefault.resize(Math.floor(bytes / 3));
  setContextCacheBytes(Math.floor(bytes / 3));
}

/** Bytes held by the JSON-LD parse caches now. */
export function parseCacheBytes(): number { return parsed.bytes + parsedWithDefault.bytes + contextCacheBytes(); }

/** Parsed queries whose body has its own context (`@context` / `context`): no default context applies to them. */
const ownContext = new WeakSet<ParsedQuery>();

/**
 * The cached parse of a query text that carries its own context, or undefined. Such a body ignores
 * the ledger's default context (jsonld-query.md §2.3), so it needs no lookup of it: the text alone
 * decides the parse (an object body is serialised first, so it takes the general path).
 */
function ownContextParsed(body: unknown): ParsedQuery | undefined {
  if (typeof body !== 'string') return undefined;
  const q = parsed.get(body);
  return q !== undefined && ownContext.has(q) ? q : undefined;
}

/** JSON of default contexts by object: stored contexts are shared, never-mutated objects (default-context.ts). */
const contextJson = new WeakMap<object, string>();
function jsonOfContext(ctx: unknown): string {
  if (ctx === null || typeof ctx !== 'object') return JSON.stringify(ctx);
  let j = contextJson.get(ctx);
  if (j === undefined) contextJson.set(ctx, j = JSON.stringify(ctx));
  return j;
}

/**
 * A body given as JSON text (as it arrives over HTTP) is cached by that text; an object body by
 * its JSON serialisation. A body with its own context is cached by its text alone, whatever the
 * default context, since that is ignored.
 */
function parseCached(body: unknown, defaultContext: unknown): ParsedQuery {
  if (typeof body !== 'string') checkJsonValueDepth(body, 'the JSON-LD query');
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  // Without a default context the text itself is the key: a string keeps its hash, so looking up
  // the text a client sent costs no copy (a concatenated key would be hashed anew every call).
  let q = parsed.get(text);
  if (q && (defaultContext === undefined || ownContext.has(q))) return q;
  const key = defaultContext === undefined ? text : text + '\u0000' + jsonOfContext(defaultContext);
  if (defaultContext !== undefined && (q = parsedWithDefault.get(key))) return q;
  let value = body;
  if (typeof body === 'string') {
    checkJsonTextDepth(body, 'the JSON-LD query');
    try { value = JSON.parse(body); } catch { throw jsonParseError('the query body is not valid JSON'); }
  }
  q = withinStack('the JSON-LD query', () => parseQuery(value, defaultContext));
  if (isObject(value) && ('@context' in value || 'context' in value)) {
    ownContext.add(q);
    parsed.set(text, q, parsedBytes(text, text));
  } else if (defaultContext === undefined) parsed.set(text, q, parsedBytes(text, text));
  else parsedWithDefault.set(key, q, parsedBytes(key, text));
  return q;
}

/**
 * A compiled select and whether it calls the `t` / `op` event functions (which need the event
 * view; found once here rather than by walking the operators on every run).
 */
interface Compiled { wc: WhereCompiler; compiled: CompiledSelect; usesEvents: boolean }

/** Compiled selects per parsed query, keyed by event mode and graph aliases. */
const compiledCache = new WeakMap<ParsedQuery, Map<string, Compiled>>();
/** The last compilation without events and graph aliases, and its query. */
let lastPlain: { q: ParsedQuery; hit: Compiled } | undefined;

/**
 * Open the query's dataset and view and set up its run. Without `min-t` and a policy hook this is
 * one asynchronous step, the dataset resolution, as in the SPARQL service. For streaming, whose
 * caller reads the fuel at the end, so it is always counted.
 */
function prepare(conn: Connection, q: ParsedQuery, req: JsonLdQueryRequest): Promise<Run> {
  if (waits(q, req)) return prepareWaiting(conn, q, req, true);
  const deadline = deadlineOf(req);
  return openDataset(conn, q.dataset, q.ctx, req).then((ds) => newRun(q, req, ds, undefined, deadline, true));
}

/** Whether a run waits for more than its dataset: read-after-write (`min-t`) or the policy hook. */
function waits(q: ParsedQuery, req: JsonLdQueryRequest): boolean {
  return q.opts.minT !== undefined || req.minT !== undefined || req.wrapView !== undefined;
}

/** The wall-clock deadline of a request's timeout, if it has one. */
function deadlineOf(req: JsonLdQueryRequest): number | undefined {
  return req.timeoutMs !== undefined ? Date.now() + req.timeoutMs : undefined;
}

/** prepare with read-after-write and the policy hook. */
async function prepareWaiting(conn: Connection, q: ParsedQuery, req: JsonLdQueryRequest, countFuel: boolean): Promise<Run> {
  const deadline = deadlineOf(req);
  const minT = q.opts.minT ?? req.minT;
  if (minT !== undefined) await waitForT(conn, q, req, minT, deadline);
  const ds = await openDataset(conn, q.dataset, q.ctx, req);
  return newRun(q, req, ds, req.wrapView ? await req.wrapView(ds.view, ds.ledgers) : undefined, deadline, countFuel);
}

/**
 * The compiled select of a query for a dataset's graph aliases and an event mode. Compilation
 * depends only on these and the parsed query (cached by text); compiled operators are never
 * mutated, so repeated queries share them.
 */
function compiledFor(q: ParsedQuery, aliases: ReadonlyMap<string, string> | undefined, events: 'history' | 'current' | undefined): Compiled {
  const plain = events === undefined && (!aliases || aliases.size === 0);
  // The last plain compilation is kept apart: a client repeating one query skips both map lookups.
  if (plain && lastPlain?.q === q) return lastPlain.hit;
  const key = !aliases || aliases.size === 0 ? events ?? '' : (events ?? '') + '\u0000' + JSON.stringify([...aliases]);
  let perQuery = compiledCache.get(q);
  if (!perQuery) compiledCache.set(q, perQuery = new Map());
  let hit = perQuery.get(key);
  if (!hit) {
    const wc = new WhereCompiler({ objectVarParsing: q.opts.objectVarParsing, ...(aliases ? { graphAliases: aliases } : {}), ...(events ? { events } : {}) });
    const { compiled, usesEvents } = withinStack('the JSON-LD query', () => {
      const compiled = compileSelect(q.query, wc, q.form !== 'construct' && q.form !== 'ask');
      // Before the recursive walks below (and the planner's): a tree too deep is a 400.
      checkAlgebraShape(compiled.op);
      if (compiled.collect) checkAlgebraShape(compiled.collect.op);
      return { compiled, usesEvents: usesEventFunctions(compiled.op) || (compiled.collect !== undefined && usesEventFunctions(compiled.collect.op)) };
    });
    hit = { wc, compiled, usesEvents };
    perQuery.set(key, hit);
  }
  if (plain) lastPlain = { q, hit };
  return hit;
}

/** The run of a query over its opened dataset and the view it reads (policy-wrapped or not). */
function newRun(q: ParsedQuery, req: JsonLdQueryRequest, ds: OpenedDataset, wrapped: DbView | undefined, deadline: number | undefined, countFuel: boolean): Run {
  const view = wrapped ?? ds.view;
  // A policy-wrapped view lists only named graphs holding a visible fact: `graph ?g` must not reveal the rest.
  const visibleGraphs = view === ds.view ? null : new Set(view.namedGraphs());
  const namedGraphs = visibleGraphs ? ds.namedGraphs.filter((g) => visibleGraphs.has(g)) : ds.namedGraphs;
  let events: 'history' | 'current' | undefined = ds.history ? 'history' : undefined;
  let { wc, compiled, usesEvents } = compiledFor(q, ds.aliases, events);
  if (!events && usesEvents) {
    events = 'current';
    ({ wc, compiled } = compiledFor(q, ds.aliases, events));
  }
  let ctx: QueryContext = { view, defaultGraphs: ds.defaultGraphs, namedGraphs, resolveGraph: ds.resolveGraph };
  if (events) {
    compiled = { ...compiled, op: bindEventFunctions(compiled.op, wc.eventOf) };
    if (compiled.collect) compiled.collect = { ...compiled.collect, op: bindEventFunctions(compiled.collect.op, wc.eventOf) };
    let range = ds.history;
    if (!range) {
      const ts = Object.values(ds.ledgers);
      if (ts.length !== 1) throw badRequest('@t / @op and the t / op functions need a dataset of one ledger');
      range = { fromT: 0, toT: ts[0]! };
    }
    const ev = new EventView(view, ds.defaultGraphs, range.fromT, range.toT, events);
    const named = events === 'current' ? [...ev.eventGraphs(), ...namedGraphs] : ev.eventGraphs();
    ctx = { view: ev, defaultGraphs: ds.defaultGraphs, namedGraphs: named, resolveGraph: (iri) => ev.graphId(iri) ?? ds.resolveGraph(iri) };
  }
  // A header supplies the default; the body's own value wins (§12, decided).
  return new Run(ds, view, compiled.op, compiled, ctx, q.opts.maxFuel ?? req.maxFuel, deadline, req.signal, countFuel);
}

/** Read-after-write (`opts.min-t`): wait until the queried ledger has reached t. */
async function waitForT(conn: Connection, q: ParsedQuery, req: JsonLdQueryRequest, minT: number, deadline: number | undefined): Promise<void> {
  const first = Array.isArray(q.dataset.from) ? q.dataset.from[0] : q.dataset.from;
  const ref = req.ledger ?? (typeof first === 'string' ? first : isObject(first) && typeof first['@id'] === 'string' ? first['@id'] : undefined);
  if (ref === undefined) throw badRequest('opts.min-t needs a ledger (path, Ledgraph-Ledger header or from)');
  const id = parseLedgerRef(ref).id;
  const until = deadline ?? Date.now() + 5_000;
  for (;;) {
    if ((await conn.ledger(id)).t >= minT) return;
    if (req.signal?.aborted) throw abortError(req.signal);
    if (Date.now() > until) throw timeoutError(`ledger ${id} did not reach t ${minT} in time (opts.min-t)`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The clock of `meta` time, looked up once: reading the global `performance` is slow before optimisation. */
const clock: { now(): number } = typeof performance !== 'undefined' ? performance : Date;

function now(): number {
  return clock.now();
}

export type { OutputFormat };
