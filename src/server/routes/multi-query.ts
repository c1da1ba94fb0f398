/**
 * `POST /multi-query` (http-api.md §2.11, §4.7): independent JSON-LD and SPARQL sub-queries under
 * one snapshot moment. The envelope is validated whole first (bounds, merge rules, temporal
 * collisions, history, missing `from`, ledger count), the freshness barrier is honoured, the
 * snapshot is resolved once, and then sub-queries run at most 16 at a time under one deadline;
 * a failing alias lands in `errors` while the others still answer (HTTP 200).
 */
import type { Context } from 'hono';
import { badRequest, internalError, isLedgraphError, LedgraphError, timeoutError } from '../../core/errors.js';
import type { Connection } from '../../core/ledger/connection.js';
import { parseLedgerRef, type TimeSpec } from '../../core/ledger/ledger-id.js';
import { parseSparql } from '../../core/query/engine.js';
import { bindingToSparqlJson } from '../../core/query/results/sparql-json.js';
import { writeJsonLd } from '../../core/query/results/jsonld-writer.js';
import { runJsonLdQuery } from '../../core/query/jsonld/service.js';
import type { PolicyInputs } from '../../core/policy/index.js';
import type { AppEnv } from '../app.js';
import { parseJsonText, decodeUtf8, readBytes, requireMediaType } from '../http-util.js';
import { MEDIA_TYPE, negotiateFormat, outputOptions, type OutputOptions } from '../negotiate.js';
import { parseMinT, policyFromHeaders, waitForMinT } from '../query-headers.js';
import { requireQueryServed } from '../storage-proxy/serving.js';
import type { Registrar, ServerContext } from '../server-context.js';
import { route } from '../swagger.js';
import { executeSparql, jsonLdRequest, sparqlHistoryRange, sparqlPrologue } from './query.js';
import { formatMs } from './stream.js';
import { policyInputsFor } from '../auth/index.js';
import { quote } from '../../core/excerpt.js';

type Ctx = Context<AppEnv>;
type Obj = Record<string, unknown>;

/** §8 limits of the envelope (none overridable upward). */
export const MULTI_LIMITS = {
  subQueries: 64,
  ledgers: 8,
  concurrency: 16,
  deadlineMs: 60_000,
  responseBytes: 64 * 1024 * 1024,
} as const;

/** Option keys a sub-query may carry (jsonld-query.md §12 aliases included). */
const FUEL_KEYS = ['max-fuel', 'max_fuel', 'maxFuel'] as const;
const MIN_T_KEYS = ['min-t', 'minT'] as const;

/** One validated sub-query, ready to run. */
interface Plan {
  alias: string;
  lang: 'sparql' | 'jsonld';
  /** SPARQL text after prefix / base injection. */
  text?: string;
  /** JSON-LD body with the merged context and options. */
  body?: Obj;
  /** Merged options (envelope < sub-query < JSON-LD body). */
  opts: Obj;
  /** Distinct ledger ids the sub-query reads. */
  ledgers: string[];
  /** Refused before running (a SPARQL syntax error): reported for this alias only. */
  error?: LedgraphError;
}

/** A per-alias error entry. */
interface AliasError { code: 'timeout' | 'api_error'; message: string; effective_timeout_ms?: number }

/** One alias's outcome. */
type Outcome =
  | { ok: true; json: string; fuel?: number; tracking?: Obj; ledgers: Record<string, number> }
  | { ok: false; error: AliasError; fuel?: number };

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function pick(o: Obj | undefined, keys: readonly string[]): unknown {
  if (!o) return undefined;
  for (const k of keys) if (o[k] !== undefined) return o[k];
  return undefined;
}

function optsOf(v: unknown, where: string): Obj {
  if (v === undefined) return {};
  if (!isObj(v)) throw badRequest(`${where} must be an object`);
  if ('t' in v) throw badRequest(`${where}.t is not allowed in a multi-query; pin time with "from" or the envelope "asOf"`);
  return v;
}

function nonNegInt(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw badRequest(`${what} must be a non-negative integer`);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Merge rules (§4.7 rules 1–2)

/** Rule 1: the more specific context layer wins; an object shallow-merges, `null` resets. */
export function mergeContext(outer: unknown, inner: unknown): unknown {
  if (inner === undefined) return outer;
  if (inner === null) return null;
  if (isObj(inner) && isObj(outer)) return { ...outer, ...inner };
  return inner;
}

const PREFIX_NAME = /^[A-Za-z](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

/** A context entry that is a namespace prefix: a valid prefix name bound to a namespace-like IRI. */
function isNamespace(key: string, value: unknown): value is string {
  return PREFIX_NAME.test(key) && typeof value === 'string' && (value.endsWith('#') || value.endsWith('/') || value.includes('://'));
}

/**
 * Rule 2: with no PREFIX declared, every prefix-shaped context entry becomes a PREFIX; with no BASE
 * declared, the context's `@base` becomes the BASE. Declarations go after the leading comment
 * lines (where `# PRAGMA` comments are read) on the first query line, so error line numbers still
 * match the text as sent.
 */
export function injectPrologue(text: string, context: unknown): string {
  if (!isObj(context)) return text;
  const pro = sparqlPrologue(text);
  const lines: string[] = [];
  if (pro.prefixes === 0) {
    for (const [k, v] of Object.entries(context)) if (isNamespace(k, v)) lines.push(`PREFIX ${k}: <${v}>`);
  }
  const base = context['@base'];
  if (!pro.base && typeof base === 'string' && base) lines.push(`BASE <${base}>`);
  if (!lines.length) return text;
  const m = /^(?:[ \t]*(?:#[^\n]*)?\r?\n)*/.exec(text)!;
  return text.slice(0, m[0].length) + lines.join(' ') + ' ' + text.slice(m[0].length);
}

// ---------------------------------------------------------------------------------------------
// Ledger references and temporal pins

/** A ledger reference with its id and whether it carries its own time. */
interface RefInfo { id: string; pinned: boolean }

function refOfString(s: string, where: string): RefInfo {
  let ref;
  try { ref = parseLedgerRef(s); } catch (e) { throw isLedgraphError(e) ? badRequest(`${where}: ${e.message}`) : e; }
  return { id: ref.id, pinned: ref.time.kind !== 'head' };
}

/** Ledger references of a JSON-LD `from` / `fromNamed` value (string, array, object, alias map). */
function jsonLdRefs(v: unknown, where: string, named: boolean, out: RefInfo[]): void {
  if (v === undefined || v === null) return;
  if (typeof v === 'string') { out.push(refOfString(v, where)); return; }
  if (Array.isArray(v)) { for (const x of v) jsonLdRefs(x, where, named, out); return; }
  if (!isObj(v)) throw badRequest(`${where} must be a ledger reference, an array or an object`);
  const id = v['@id'] ?? v.id ?? v.ledger;
  if (typeof id === 'string') {
    const r = refOfString(id, where);
    out.push({ id: r.id, pinned: r.pinned || v.t !== undefined || v.at !== undefined });
    return;
  }
  if (!named) throw badRequest(`${where} object needs an "@id" ledger reference`);
  for (const [alias, x] of Object.entries(v)) jsonLdRefs(x, `${where}.${alias}`, false, out);
}

/** The ledger references of a JSON-LD query body (also `opts.from` / `opts.fromNamed`). */
function jsonLdBodyRefs(body: Obj, alias: string): RefInfo[] {
  const out: RefInfo[] = [];
  const opts = isObj(body.opts) ? body.opts : undefined;
  jsonLdRefs(body.from, `${alias}: from`, false, out);
  jsonLdRefs(body.fromNamed, `${alias}: fromNamed`, true, out);
  jsonLdRefs(opts?.from, `${alias}: opts.from`, false, out);
  jsonLdRefs(opts?.fromNamed, `${alias}: opts.fromNamed`, true, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation

/** The validated envelope. */
interface Envelope {
  plans: Plan[];
  asOf: { kind: 'none' } | { kind: 't'; t: number } | { kind: 'time'; iso: string; ms: number };
  minT: number | undefined;
  concurrency: number;
  deadlineMs: number;
  meta: boolean;
  ledgers: string[];
}

/** Validate the envelope (every 400 of §4.7) and plan each sub-query. */
export function planEnvelope(body: unknown, headerMinT: number | undefined): Envelope {
  if (!isObj(body)) throw badRequest('a multi-query envelope must be a JSON object');
  const queries = body.queries;
  if (!isObj(queries)) throw badRequest('"queries" is required: an object of alias to sub-query');
  const aliases = Object.keys(queries);
  if (aliases.length === 0) throw badRequest('"queries" must hold at least one sub-query');
  if (aliases.length > MULTI_LIMITS.subQueries) throw badRequest(`too many sub-queries: ${aliases.length} (the limit is ${MULTI_LIMITS.subQueries})`);
  const envContext = body['@context'];
  if (envContext !== undefined && !isObj(envContext)) throw badRequest('the envelope "@context" must be an object');
  const envOpts = optsOf(body.opts, 'opts');
  for (const k of FUEL_KEYS) if (k in envOpts) throw badRequest(`envelope opts.${k} is not allowed: there is no envelope fuel budget; set max-fuel per sub-query`);
  let concurrency: number = MULTI_LIMITS.concurrency;
  if (envOpts.maxConcurrency !== undefined) {
    const n = envOpts.maxConcurrency;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw badRequest('opts.maxConcurrency must be a positive integer');
    concurrency = Math.min(n, MULTI_LIMITS.concurrency);
  }
  let deadlineMs: number = MULTI_LIMITS.deadlineMs;
  if (envOpts.timeoutMs !== undefined) {
    const n = envOpts.timeoutMs;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw badRequest('opts.timeoutMs must be a positive integer');
    deadlineMs = Math.min(n, MULTI_LIMITS.deadlineMs);
  }
  const envMinT = pick(envOpts, MIN_T_KEYS);
  const minT = envMinT !== undefined ? nonNegInt(envMinT, 'opts.min-t') : headerMinT;
  // Options inherited by sub-queries: everything but the envelope's own controls.
  const { maxConcurrency: _c, timeoutMs: _t, 'min-t': _m1, minT: _m2, ...inherited } = envOpts;

  let asOf: Envelope['asOf'] = { kind: 'none' };
  if (body.asOf !== undefined) {
    const a = body.asOf;
    if (typeof a === 'number') asOf = { kind: 't', t: nonNegInt(a, 'asOf') };
    else if (typeof a === 'string' && /^\d{4}-\d{2}-\d{2}/.test(a) && !Number.isNaN(Date.parse(a))) asOf = { kind: 'time', iso: a, ms: Date.parse(a) };
    else throw badRequest(`asOf must be an integer t or an ISO 8601 date-time, got ${quote(a)}`);
  }

  const plans: Plan[] = [];
  const all = new Set<string>();
  for (const alias of aliases) {
    const entry = queries[alias];
    if (!isObj(entry)) throw badRequest(`${alias}: a sub-query must be an object with "language" and "query"`);
    const lang = entry.language === 'sparql' ? 'sparql' : entry.language === 'jsonld' || entry.language === 'json-ld' ? 'jsonld' : null;
    if (!lang) throw badRequest(`${alias}: "language" must be "jsonld" or "sparql"`);
    const subOpts = optsOf(entry.opts, `${alias}: opts`);
    const context = mergeContext(envContext, entry['@context']);
    let refs: RefInfo[];
    const plan: Plan = { alias, lang, opts: {}, ledgers: [] };
    if (lang === 'jsonld') {
      if (!isObj(entry.query)) throw badRequest(`${alias}: a jsonld sub-query's "query" must be an object`);
      const q = entry.query;
      const bodyOpts = optsOf(q.opts, `${alias}: query.opts`);
      if (q.to !== undefined || bodyOpts.to !== undefined) throw badRequest(`${alias}: history queries ("to") are not supported in a multi-query`);
      refs = jsonLdBodyRefs(q, alias);
      if (asOf.kind !== 'none' && q.t !== undefined) throw badRequest(`${alias}: a temporal pin ("t") conflicts with the envelope asOf`);
      plan.opts = { ...inherited, ...subOpts, ...bodyOpts };
      const merged: Obj = { ...q, opts: plan.opts };
      const ctx = mergeContext(context, q['@context']);
      if (ctx === undefined) delete merged['@context']; else merged['@context'] = ctx;
      plan.body = merged;
    } else {
      if (typeof entry.query !== 'string') throw badRequest(`${alias}: a sparql sub-query's "query" must be a string`);
      const history = sparqlHistoryRange(entry.query);
      if (history) throw badRequest(`${alias}: history queries (FROM ... TO ...) are not supported in a multi-query`);
      plan.opts = { ...inherited, ...subOpts };
      plan.text = injectPrologue(entry.query, context);
      refs = [];
      try {
        const ds = parseSparql(plan.text).dataset;
        for (const g of [...(ds?.defaultGraphs ?? []), ...(ds?.namedGraphs ?? [])]) refs.push(refOfString(g.value, `${alias}: FROM <${g.value}>`));
      } catch (e) {
        if (!isLedgraphError(e) || e.status !== 400 || e.message.startsWith(`${alias}:`)) throw e;
        plan.error = e;
      }
    }
    for (const k of FUEL_KEYS) if (plan.opts[k] !== undefined) nonNegInt(plan.opts[k], `${alias}: opts.${k}`);
    const subMinT = pick(plan.opts, MIN_T_KEYS);
    if (subMinT !== undefined) nonNegInt(subMinT, `${alias}: opts.min-t`);
    if (plan.opts.timeoutMs !== undefined) {
      const n = plan.opts.timeoutMs;
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw badRequest(`${alias}: opts.timeoutMs must be a positive integer`);
    }
    if (!plan.error && refs.length === 0) {
      throw badRequest(`${alias}: the sub-query names no ledger; give it "from" (JSON-LD) or FROM (SPARQL)`);
    }
    if (asOf.kind !== 'none' && refs.some((r) => r.pinned)) {
      throw badRequest(`${alias}: a temporal pin in the sub-query (@t:, @time:, @commit:, "t" or "at") conflicts with the envelope asOf`);
    }
    plan.ledgers = [...new Set(refs.map((r) => r.id))];
    for (const id of plan.ledgers) all.add(id);
    plans.push(plan);
  }
  if (all.size > MULTI_LIMITS.ledgers) throw badRequest(`too many distinct ledgers: ${all.size} (the limit is ${MULTI_LIMITS.ledgers})`);
  if (asOf.kind === 't' && all.size !== 1) {
    throw badRequest(`an integer asOf needs exactly one ledger across the envelope; this one references ${all.size}`);
  }
  return { plans, asOf, minT, concurrency, deadlineMs, meta: !!inherited.meta, ledgers: [...all] };
}

// ---------------------------------------------------------------------------------------------
// Snapshot (§4.7 "Snapshot: resolved once at envelope entry")

interface Snapshot {
  asOf?: string;
  /** t per ledger. */
  ledgers: Record<string, number>;
  /** Time of a sub-query (its ledger refs without their own specifier resolve at it). */
  at(plan: Plan): TimeSpec;
}

async function resolveSnapshot(conn: Connection, env: Envelope): Promise<Snapshot> {
  const ledgers: Record<string, number> = {};
  const a = env.asOf;
  if (a.kind === 'none') {
    const now = new Date();
    for (const id of env.ledgers) ledgers[id] = (await conn.ledger(id)).t;
    const moment: TimeSpec = { kind: 'time', iso: now.toISOString(), ms: now.getTime() };
    return {
      asOf: now.toISOString(), ledgers,
      // One ledger: its pinned t exactly. Several: the captured moment (one TimeSpec covers them all).
      at: (p) => (p.ledgers.length === 1 ? { kind: 't', t: ledgers[p.ledgers[0]!]! } : moment),
    };
  }
  if (a.kind === 't') {
    const id = env.ledgers[0]!;
    const l = await conn.ledger(id);
    if (a.t > l.t) throw badRequest(`asOf ${a.t} is beyond the head of ledger ${id} (t ${l.t})`);
    ledgers[id] = a.t;
    return { ledgers, at: () => ({ kind: 't', t: a.t }) };
  }
  const spec: TimeSpec = { kind: 'time', iso: a.iso, ms: a.ms };
  for (const id of env.ledgers) {
    const l = await conn.ledger(id);
    try {
      ledgers[id] = await l.resolveT(spec);
    } catch (e) {
      if (isLedgraphError(e) && e.status === 400 && e.message.startsWith('no data as of')) throw badRequest(`asOf ${a.iso} is before the first commit of ledger ${id}`);
      throw e;
    }
  }
  return { asOf: new Date(a.ms).toISOString(), ledgers, at: () => spec };
}

// ---------------------------------------------------------------------------------------------
// Execution

/** The error entry of a failure. */
function aliasError(e: unknown, effectiveTimeoutMs: number | undefined): AliasError {
  if (isLedgraphError(e) && (e.status === 408 || e.status === 504)) {
    const out: AliasError = { code: 'timeout', message: e.message };
    if (effectiveTimeoutMs !== undefined) out.effective_timeout_ms = effectiveTimeoutMs;
    return out;
  }
  if (isLedgraphError(e) && e.status < 500) return { code: 'api_error', message: e.message };
  return { code: 'api_error', message: 'internal error' };
}

/** Tracking members a sub-query asked for (`meta: true` or `{time, fuel, policy}`). */
function trackingOf(meta: unknown, time: string, fuel: number | undefined, policy?: unknown): Obj | undefined {
  if (!meta) return undefined;
  const want = isObj(meta) ? meta : { time: true, fuel: true, policy: true };
  const out: Obj = {};
  if (want.time) out.time = time;
  if (want.fuel && fuel !== undefined) out.fuel = fuel;
  if (want.policy && policy !== undefined) out.policy = policy;
  return out;
}

/** Shared state of one envelope run. */
export interface RunCtx {
  c: Ctx;
  ctx: ServerContext;
  /** Policy headers: the lowest layer under each JSON-LD alias's merged opts. */
  headerPolicy: PolicyInputs;
  output: OutputOptions & { agent: boolean };
  /** Aborted at the envelope deadline (reason: a 408) or when the client goes away. */
  signal: AbortSignal;
  /** Bytes of results so far; past the cap the envelope fails with 500. */
  budget: { used: number; exceeded: boolean };
}

/** Run one SPARQL alias into SPARQL Results JSON (CONSTRUCT/DESCRIBE: JSON-LD). */
async function runSparqlAlias(plan: Plan, at: TimeSpec, timeoutMs: number, rc: RunCtx): Promise<Outcome> {
  const started = performance.now();
  let fuel: number | undefined;
  const maxFuel = pick(plan.opts, FUEL_KEYS) as number | undefined;
  // SPARQL aliases observe bearer scope only; merged identity and policy opts do not apply (§4.7).
  // A verified credential's own identity still does: the server selects it (policy.md §3.1).
  const credential = policyInputsFor(rc.c, undefined, false);
  const res = await executeSparql(rc.ctx.conn, {
    text: plan.text!, at, timeoutMs, signal: rc.signal, maxFuel, ...(credential ? { policy: credential } : {}),
    onFinish: (s) => { fuel = s.fuel; },
  });
  let json: string;
  const r = res.result;
  if (r.type === 'boolean') {
    json = JSON.stringify({ head: {}, boolean: r.value });
  } else if (r.type === 'bindings') {
    const parts: string[] = [];
    let size = 0;
    for await (const b of r.rows) {
      const s = JSON.stringify(bindingToSparqlJson(b, r.variables));
      parts.push(s);
      size += s.length + 1;
      if (rc.budget.used + size > MULTI_LIMITS.responseBytes) { rc.budget.exceeded = true; throw internalError('the multi-query response exceeds 64 MiB'); }
    }
    json = `{"head":{"vars":${JSON.stringify(r.variables)}},"results":{"bindings":[${parts.join(',')}]}}`;
  } else {
    let s = '';
    for await (const c of writeJsonLd(r)) {
      s += c;
      if (rc.budget.used + s.length > MULTI_LIMITS.responseBytes) { rc.budget.exceeded = true; throw internalError('the multi-query response exceeds 64 MiB'); }
    }
    json = s.trim();
  }
  const tracking = trackingOf(plan.opts.meta, formatMs(performance.now() - started), fuel);
  return { ok: true, json, ledgers: res.ledgers, ...(fuel !== undefined ? { fuel } : {}), ...(tracking ? { tracking } : {}) };
}

/** Run one JSON-LD alias: its result JSON, and tracking when its merged opts ask for it. */
async function runJsonLdAlias(plan: Plan, at: TimeSpec, timeoutMs: number, rc: RunCtx): Promise<Outcome> {
  const body = plan.body!;
  const req = jsonLdRequest(rc.c, rc.ctx, body, {
    at, timeoutMs, signal: rc.signal, output: rc.output, agent: rc.output.agent, headerPolicy: rc.headerPolicy,
  });
  const res = await runJsonLdQuery(rc.ctx.conn, body, req);
  const json = JSON.stringify(res.result);
  if (rc.budget.used + json.length > MULTI_LIMITS.responseBytes) { rc.budget.exceeded = true; throw internalError('the multi-query response exceeds 64 MiB'); }
  const t = res.tracking;
  let tracking: Obj | undefined;
  if (t && plan.opts.meta) {
    const members = t.members ?? ['time', 'fuel', 'policy'];
    tracking = {};
    if (members.includes('time')) tracking.time = t.time;
    if (members.includes('fuel')) tracking.fuel = t.fuel;
    if (members.includes('policy') && t.policy) tracking.policy = t.policy;
  }
  return { ok: true, json, ledgers: res.ledgers, ...(t ? { fuel: t.fuel } : {}), ...(tracking ? { tracking } : {}) };
}

/** A counting semaphore: at most `n` holders. */
function semaphore(n: number): () => Promise<() => void> {
  let free = n;
  const waiting: (() => void)[] = [];
  const release = () => { const next = waiting.shift(); if (next) next(); else free++; };
  return () => new Promise((ok) => {
    if (free > 0) { free--; ok(release); } else waiting.push(() => ok(release));
  });
}

/** Handle POST /multi-query. */
async function handleMultiQuery(c: Ctx, ctx: ServerContext): Promise<Response> {
  const started = performance.now();
  requireMediaType(c, ['application/json', 'application/ld+json'], 'a multi-query envelope');
  const headers = c.req.raw.headers;
  const output = outputOptions(headers);
  const format = negotiateFormat(c.req.header('Accept'), null, ['json', 'agent']);
  const env = planEnvelope(parseJsonText(decodeUtf8(await readBytes(c))), parseMinT(headers));
  const deadline = Date.now() + env.deadlineMs;

  for (const id of env.ledgers) {
    if (!(await ctx.conn.exists(id))) throw new LedgraphError(404, 'err:db/LedgerNotFound', `ledger ${id} not found`);
  }

  // Freshness before the snapshot: the envelope barrier on every ledger, a sub-query's on its own.
  // A ledger's wait lasts as long as the most patient alias needing it may run (its own timeout).
  const serverTimeout = ctx.config.queryTimeoutMs > 0 ? ctx.config.queryTimeoutMs : Infinity;
  const ownTimeout = (p: Plan) => (typeof p.opts.timeoutMs === 'number' ? p.opts.timeoutMs : serverTimeout);
  const need = new Map<string, { t: number; ms: number }>();
  for (const p of env.plans) {
    const sub = pick(p.opts, MIN_T_KEYS) as number | undefined;
    const m = Math.max(env.minT ?? -1, sub ?? -1);
    if (m < 0) continue;
    for (const id of p.ledgers) {
      const cur = need.get(id);
      need.set(id, { t: Math.max(cur?.t ?? 0, m), ms: Math.max(cur?.ms ?? 0, ownTimeout(p)) });
    }
  }
  const stale = new Map<string, { error: LedgraphError; ms: number }>();
  await Promise.all([...need].map(async ([id, { t, ms }]) => {
    const wait = Math.max(1, Math.min(ms, deadline - Date.now()));
    try {
      await waitForMinT(ctx.conn, id, t, { timeoutMs: wait, signal: c.req.raw.signal });
    } catch (e) {
      if (isLedgraphError(e) && e.status === 408) stale.set(id, { error: e, ms: wait }); else throw e;
    }
  }));

  await requireQueryServed(ctx.conn, env.ledgers);
  const snapshot = await resolveSnapshot(ctx.conn, env);

  const ac = new AbortController();
  const onClientGone = () => ac.abort(c.req.raw.signal.reason);
  c.req.raw.signal.addEventListener('abort', onClientGone, { once: true });
  const timer = setTimeout(() => ac.abort(timeoutError(`the multi-query deadline of ${env.deadlineMs} ms passed`)), Math.max(0, deadline - Date.now()));
  const rc: RunCtx = { c, ctx, headerPolicy: policyFromHeaders(headers), output: { ...output, agent: format === 'agent' }, signal: ac.signal, budget: { used: 0, exceeded: false } };
  const acquire = semaphore(env.concurrency);

  const outcomes = new Map<string, Outcome>();
  try {
    await Promise.all(env.plans.map(async (plan) => {
      if (plan.error) { outcomes.set(plan.alias, { ok: false, error: aliasError(plan.error, undefined) }); return; }
      const staleErr = plan.ledgers.map((id) => stale.get(id)).find((e) => e);
      if (staleErr) { outcomes.set(plan.alias, { ok: false, error: aliasError(staleErr.error, staleErr.ms) }); return; }
      const release = await acquire();
      // The per-sub-query timeout is decided when the permit is acquired (§8).
      const left = deadline - Date.now();
      const effective = Math.max(0, Math.floor(Math.min(ownTimeout(plan), left)));
      try {
        if (effective <= 0 || ac.signal.aborted) throw ac.signal.reason ?? timeoutError('the multi-query deadline passed before this sub-query started');
        const at = snapshot.at(plan);
        const out = plan.lang === 'sparql' ? await runSparqlAlias(plan, at, effective, rc) : await runJsonLdAlias(plan, at, effective, rc);
        if (out.ok) rc.budget.used += out.json.length;
        if (rc.budget.used > MULTI_LIMITS.responseBytes) rc.budget.exceeded = true;
        outcomes.set(plan.alias, out);
      } catch (e) {
        if (!isLedgraphError(e) && !(ac.signal.aborted)) c.get('log').error('multi-query sub-query failed', { alias: plan.alias, error: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined });
        const err = ac.signal.aborted && isLedgraphError(ac.signal.reason) ? ac.signal.reason : e;
        outcomes.set(plan.alias, { ok: false, error: aliasError(err, effective) });
      } finally {
        release();
      }
    }));
  } finally {
    clearTimeout(timer);
    c.req.raw.signal.removeEventListener('abort', onClientGone);
  }
  if (rc.budget.exceeded) throw internalError(`the multi-query response exceeds the ${MULTI_LIMITS.responseBytes / 1024 / 1024} MiB cap`);

  // Assemble the body as text: each alias's result is already serialised.
  const results: string[] = [];
  const errors: Obj = {};
  const tracking: Obj = {};
  let failed = 0;
  let fuelTotal = 0;
  for (const p of env.plans) {
    const o = outcomes.get(p.alias)!;
    if (o.fuel !== undefined) fuelTotal += o.fuel;
    if (o.ok) {
      results.push(`${JSON.stringify(p.alias)}:${o.json}`);
      if (o.tracking) tracking[p.alias] = o.tracking;
    } else {
      failed++;
      errors[p.alias] = o.error;
    }
  }
  const status = failed === 0 ? 'ok' : failed === env.plans.length ? 'all_failed' : 'partial';
  const snap: Obj = {};
  if (snapshot.asOf !== undefined) snap.asOf = snapshot.asOf;
  snap.ledgers = snapshot.ledgers;
  let text = `{"status":${JSON.stringify(status)},"snapshot":${JSON.stringify(snap)},"results":{${results.join(',')}}`;
  if (failed) text += `,"errors":${JSON.stringify(errors)}`;
  if (Object.keys(tracking).length) text += `,"tracking":${JSON.stringify(tracking)}`;
  if (env.meta) text += `,"meta":${JSON.stringify({ fuel_total: fuelTotal, elapsed_ms: Math.round((performance.now() - started) * 100) / 100 })}`;
  text += '}';
  if (text.length > MULTI_LIMITS.responseBytes) throw internalError(`the multi-query response exceeds the ${MULTI_LIMITS.responseBytes / 1024 / 1024} MiB cap`);
  return new Response(text, { status: 200, headers: { 'Content-Type': MEDIA_TYPE[format] } });
}

/** Register POST /multi-query. */
export const multiQueryRoutes: Registrar = (api, ctx) => {
  route(api, ctx.table, {
    method: 'POST', path: '/multi-query', tag: 'query',
    summary: 'Run several JSON-LD / SPARQL sub-queries under one snapshot',
    description: 'Envelope {queries: {alias: {language, query, opts?, @context?}}, @context?, asOf?, opts?}. '
      + 'Response {status: ok|partial|all_failed, snapshot: {asOf?, ledgers}, results, errors?, tracking?, meta?}. '
      + 'Limits: 64 sub-queries, 8 ledgers, concurrency 16, 60 s deadline, 64 MiB response.',
    headers: [
      { name: 'Ledgraph-Min-T', type: 'integer', description: 'Envelope default of opts.min-t: wait until every ledger reached this t before the snapshot' },
      { name: 'Ledgraph-Output-Format', description: 'json (default) or typed-json for JSON-LD aliases' },
      { name: 'Ledgraph-Normalize-Arrays', type: 'boolean', description: 'Wrap single crawl values in arrays (JSON-LD aliases)' },
      { name: 'Ledgraph-Max-Bytes', type: 'integer', description: 'Byte budget of agent JSON (Accept: application/vnd.ledgraph.agent+json)' },
    ],
    requestTypes: ['application/json'],
    responseTypes: ['application/json', 'application/vnd.ledgraph.agent+json'],
    responses: {
      200: 'Envelope executed (per-alias failures in errors)',
      400: 'Invalid envelope: bounds, temporal collision, missing from, history query, envelope max-fuel, maxConcurrency 0, bad asOf',
      404: 'A referenced ledger does not exist',
      406: 'Only JSON output formats are available',
      500: 'Snapshot failure or response over 64 MiB',
    },
  }, (c) => handleMultiQuery(c, ctx));
};

export type { Plan as MultiQueryPlan, Outcome as MultiQueryOutcome };
