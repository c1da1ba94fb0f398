/**
 * Datasets and time for JSON-LD queries (jsonld-query.md §8–§10): `from` / `fromNamed` in string,
 * array and object forms (`t`, `at`, `graph`, `alias`, `policy`), the ledger-scoped shorthands
 * (`"default"`, `"txn-meta"`, a graph IRI), and history ranges (`from` + `to`). Everything is
 * turned into ledger references for the shared resolveDataset.
 */
import { badRequest, isLedgraphError, notFound } from '../../errors.js';
import { GRAPH_TXN_META } from '../../flake/flake.js';
import type { DbView } from '../../index/view.js';
import type { Connection } from '../../ledger/connection.js';
import { type LedgerRef, type TimeSpec, parseLedgerRef, parseTimeSpec } from '../../ledger/ledger-id.js';
import type { ActiveContext } from '../../rdf/jsonld-context.js';
import { resolveDataset } from '../dataset.js';
import type { DatasetKeys } from './parse.js';
import type { PolicyInputs } from './opts.js';
import { isObject } from './util.js';
import { quote } from '../../excerpt.js';

/** A resolved dataset, plus the history range when the query has `to`. */
export interface OpenedDataset {
  view: DbView;
  defaultGraphs: number[];
  namedGraphs: number[];
  resolveGraph(iri: string): number | undefined;
  ledgers: Record<string, number>;
  /** `fromNamed` alias -> the graph name `["graph", alias, ...]` resolves (absent: none). */
  aliases?: ReadonlyMap<string, string>;
  /** History queries: the inclusive t range. */
  history?: { fromT: number; toT: number };
}

/** One `from` / `fromNamed` entry: a canonical reference (`name:branch[@time][#graph]`). */
interface Source { ref: string; alias?: string; policy?: unknown; explicitTime: boolean }

/** Per-source policies of object-form `from` entries (for policyInputsOf). */
export function sourcePolicies(keys: DatasetKeys): PolicyInputs['sources'] {
  const out: { ledger: string; policy: unknown }[] = [];
  for (const f of Array.isArray(keys.from) ? keys.from : keys.from === undefined ? [] : [keys.from]) {
    if (isObject(f) && f['policy'] !== undefined && typeof f['@id'] === 'string') out.push({ ledger: f['@id'], policy: f['policy'] });
  }
  return out.length > 0 ? out : undefined;
}

/**
 * Resolve the query's dataset against the connection (404 for unknown ledgers, commits, graphs; an
 * instant before a ledger's first commit is the ledger's own 400 "no data as of", §9).
 */
export function openDataset(conn: Connection, keys: DatasetKeys, ctx: ActiveContext, opts: { ledger?: string; at?: TimeSpec }): Promise<OpenedDataset> {
  // A ledger-scoped query without dataset keys reads that ledger's default graph: the shared
  // resolution is all there is to do (a `#fragment` of the scope, which selects no graph here,
  // takes the general path).
  if (keys.from === undefined && keys.fromNamed === undefined && keys.to === undefined && opts.ledger !== undefined && !opts.ledger.includes('#')) {
    return resolveDataset(conn, {}, opts.at ? { defaultLedger: opts.ledger, at: opts.at } : { defaultLedger: opts.ledger });
  }
  return open(conn, keys, ctx, opts);
}

async function open(conn: Connection, keys: DatasetKeys, ctx: ActiveContext, opts: { ledger?: string; at?: TimeSpec }): Promise<OpenedDataset> {
  const scoped = opts.ledger !== undefined ? parseLedgerRef(opts.ledger) : undefined;
  const from = await fromSources(conn, keys.from, ctx, scoped);
  const aliases = new Map<string, string>();
  for (const s of from) if (s.alias !== undefined) addAlias(aliases, s.alias, s.ref);

  if (keys.to !== undefined) return openHistory(conn, from, keys, ctx, opts, aliases);

  // The anchor ledger: plain graph IRIs and same-snapshot named graphs belong to it.
  const anchor = scoped ? refString(scoped) : from[0] ? stripFragment(from[0].ref) : undefined;
  const named: string[] = [];
  const plainGraphs: string[] = [];
  for (const { alias, ref } of namedSources(keys.fromNamed, ctx)) {
    const r = parseLedgerRef(ref);
    if (scoped && r.id !== scoped.id && (await conn.exists(r.id))) throw badRequest(`fromNamed ${alias}: a ledger-scoped query cannot name another ledger (${r.id})`);
    // A graph of the anchor snapshot is named by its own IRI, so ["graph", "?g", ...] binds that IRI.
    const sameSnapshot = anchor !== undefined && r.fragment && r.fragment !== 'txn-meta' && stripFragment(ref) === anchor;
    const name = sameSnapshot ? r.fragment! : ref;
    if (sameSnapshot) plainGraphs.push(name);
    named.push(name);
    addAlias(aliases, alias, name);
  }
  if (plainGraphs.length > 0) {
    const db = await conn.db(anchor!);
    for (const g of plainGraphs) if (db.graphId(g) === undefined) throw notFound(`ledger ${db.ledgerId} has no graph <${g}>`);
  }
  const defaults = from.map((s) => s.ref);
  // A ledger-scoped query without from reads the ledger's default graph.
  if (scoped && defaults.length === 0 && named.length > 0) defaults.push(refString(scoped));
  const ds = await resolveDataset(conn, { defaultGraphs: defaults, namedGraphs: named }, {
    ...(anchor !== undefined ? { defaultLedger: anchor } : {}), ...(opts.at ? { at: opts.at } : {}),
  });
  return { ...ds, aliases };
}

async function openHistory(conn: Connection, from: Source[], keys: DatasetKeys, ctx: ActiveContext, opts: { ledger?: string; at?: TimeSpec }, aliases: Map<string, string>): Promise<OpenedDataset> {
  if (from.length !== 1) throw badRequest('a history query (to) needs exactly one from naming the same ledger');
  if (keys.fromNamed !== undefined) throw badRequest('fromNamed is not supported in history queries');
  const to = await fromSources(conn, keys.to, ctx, opts.ledger !== undefined ? parseLedgerRef(opts.ledger) : undefined);
  if (to.length !== 1) throw badRequest('to must be one ledger reference');
  const a = parseLedgerRef(from[0]!.ref), b = parseLedgerRef(to[0]!.ref);
  if (a.id !== b.id) throw badRequest(`from and to must name the same ledger (got ${a.id} and ${b.id})`);
  if (!from[0]!.explicitTime) throw badRequest('a history query needs a time specifier on from (e.g. ledger@t:1)');
  if (!to[0]!.explicitTime) throw badRequest('a history query needs a time specifier on to (e.g. ledger@t:latest)');
  const ledger = await conn.ledger(a.id);
  const fromDb = await ledger.db(a.time);
  const toDb = await ledger.db(b.time);
  if (fromDb.t > toDb.t) throw badRequest(`from (t ${fromDb.t}) is after to (t ${toDb.t})`);
  const g = a.fragment === null || a.fragment === '' ? 0 : a.fragment === 'txn-meta' ? GRAPH_TXN_META : toDb.graphId(a.fragment);
  if (g === undefined) throw notFound(`ledger ${a.id} has no graph <${a.fragment}>`);
  return {
    view: toDb, defaultGraphs: [g], namedGraphs: [], resolveGraph: (iri) => toDb.graphId(iri),
    ledgers: { [toDb.ledgerId]: toDb.t }, aliases, history: { fromT: fromDb.t, toT: toDb.t },
  };
}

function addAlias(aliases: Map<string, string>, alias: string, name: string): void {
  if (aliases.has(alias)) throw badRequest(`duplicate dataset alias ${quote(alias)}`);
  aliases.set(alias, name);
}

/** `from` (or `to`) entries as ledger reference strings. */
async function fromSources(conn: Connection, raw: unknown, ctx: ActiveContext, scoped: LedgerRef | undefined): Promise<Source[]> {
  if (raw === undefined) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) throw badRequest('from must name at least one ledger');
  const out: Source[] = [];
  for (const item of list) {
    if (typeof item === 'string') out.push({ ref: await stringSource(conn, item, ctx, scoped), explicitTime: item.includes('@') });
    else if (isObject(item)) {
      const src = objectSource(item, ctx, 'from');
      if (scoped) await checkScoped(conn, src.ref, scoped);
      out.push(src);
    } else throw badRequest(`invalid from entry ${quote(item)}: expected a ledger reference or {"@id": ledger, ...}`);
  }
  return out;
}

async function stringSource(conn: Connection, s: string, ctx: ActiveContext, scoped: LedgerRef | undefined): Promise<string> {
  if (!scoped) return canonical(asLedgerRef(s, 'from'));
  // Ledger-scoped: "default", "txn-meta", a graph IRI of the ledger, or the ledger itself.
  if (s === 'default') return refString(scoped);
  if (s === 'txn-meta') return refString(scoped) + '#txn-meta';
  const ref = tryRef(s);
  if (ref && ref.id === scoped.id) return canonical(ref);
  if (ref && !s.includes('://') && (await conn.exists(ref.id))) throw badRequest(`a ledger-scoped query cannot read another ledger in from (${ref.id}); use the connection-scoped endpoint`);
  return refString(scoped) + '#' + ctx.expandIri(s, false);
}

async function checkScoped(conn: Connection, ref: string, scoped: LedgerRef): Promise<void> {
  const r = parseLedgerRef(ref);
  if (r.id !== scoped.id && (await conn.exists(r.id))) throw badRequest(`a ledger-scoped query cannot read another ledger in from (${r.id}); use the connection-scoped endpoint`);
  if (r.id !== scoped.id) throw notFound(`ledger ${r.id} not found`);
}

/** `{"@id": LEDGER, "t"|"at", "graph"|"@graph", "alias", "policy"}` as a canonical reference. */
function objectSource(o: Record<string, unknown>, ctx: ActiveContext, what: string): Source {
  const id = o['@id'] ?? o['id'] ?? o['ledger'];
  if (typeof id !== 'string') throw badRequest(`${what}: an object entry needs "@id" naming the ledger, got ${quote(o)}`);
  const ref = asLedgerRef(id, what);
  const t = o['t'];
  const at = o['at'];
  if (t !== undefined && at !== undefined) throw badRequest(`${what} ${id}: give either t or at, not both`);
  let time: TimeSpec | undefined;
  if (t !== undefined) {
    if (t === 'latest') time = { kind: 'head' };
    else if (typeof t === 'number' && Number.isSafeInteger(t) && t >= 0) time = { kind: 't', t };
    else throw badRequest(`${what} ${id}: t must be a non-negative integer, got ${quote(t)}`);
  } else if (at !== undefined) {
    if (typeof at !== 'string' || at === '') throw badRequest(`${what} ${id}: at must be an ISO-8601 instant or "commit:<prefix>", got ${quote(at)}`);
    time = parseTimeSpec(at.startsWith('commit:') ? at : 'time:' + at);
  }
  const explicit = id.includes('@') || time !== undefined;
  if (time && id.includes('@')) throw badRequest(`${what} ${id}: the reference already has a time specifier; do not also give t/at`);
  const graph = o['graph'] ?? o['@graph'];
  let fragment = ref.fragment;
  if (graph !== undefined) {
    if (typeof graph !== 'string') throw badRequest(`${what} ${id}: graph must be "default", "txn-meta" or a graph IRI`);
    if (fragment !== null) throw badRequest(`${what} ${id}: the reference already selects a graph (#...); do not also give graph`);
    fragment = graph === 'default' ? null : graph === 'txn-meta' ? 'txn-meta' : ctx.expandIri(graph, false);
  }
  const src: Source = { ref: canonical({ ...ref, time: time ?? ref.time, fragment }), explicitTime: explicit };
  const alias = o['alias'];
  if (alias !== undefined) {
    if (typeof alias !== 'string' || alias === '') throw badRequest(`${what} ${id}: alias must be a non-empty string`);
    src.alias = alias;
  }
  if (o['policy'] !== undefined) src.policy = o['policy'];
  return src;
}

/** `fromNamed` entries as (alias, reference) pairs. */
function namedSources(raw: unknown, ctx: ActiveContext): { alias: string; ref: string }[] {
  if (raw === undefined) return [];
  const out: { alias: string; ref: string }[] = [];
  const asRef = (s: string): string => canonical(asLedgerRef(s, 'fromNamed'));
  if (typeof raw === 'string' || Array.isArray(raw)) {
    for (const s of Array.isArray(raw) ? raw : [raw]) {
      if (typeof s === 'string') out.push({ alias: s, ref: asRef(s) });
      else if (isObject(s)) {
        const src = objectSource(s, ctx, 'fromNamed');
        out.push({ alias: src.alias ?? src.ref, ref: src.ref });
      } else throw badRequest(`invalid fromNamed entry ${quote(s)}`);
    }
    return out;
  }
  if (!isObject(raw)) throw badRequest('fromNamed must be {alias: {"@id": ledger, "@graph": IRI}}, a ledger reference or an array of them');
  for (const [alias, v] of Object.entries(raw)) {
    if (typeof v === 'string') out.push({ alias, ref: asRef(v) });
    else if (isObject(v)) out.push({ alias, ref: objectSource(v, ctx, 'fromNamed').ref });
    else throw badRequest(`fromNamed ${alias}: expected {"@id": ledger, "@graph": IRI} or a ledger reference`);
  }
  return out;
}

/** Parse a reference; a malformed time specifier keeps its own message. */
function asLedgerRef(s: string, what: string): LedgerRef {
  try { return parseLedgerRef(s); } catch (e) {
    if (/^invalid time specifier/.test((e as Error).message)) throw e;
    throw badRequest(`${what} ${quote(s)} is not a ledger reference (name:branch[@t:N][#graph])`);
  }
}

/** The canonical string of a reference: `name:branch`, its time specifier, its fragment. */
function canonical(r: LedgerRef): string {
  return refString(r) + (r.fragment ? '#' + r.fragment : '');
}

function tryRef(s: string): LedgerRef | null {
  try { return parseLedgerRef(s); } catch { return null; }
}

function stripFragment(ref: string): string {
  const i = ref.indexOf('#');
  return i < 0 ? ref : ref.slice(0, i);
}

/** A reference's ledger and time, without fragment, as a string. */
function refString(r: LedgerRef): string {
  const t = r.time;
  const spec = t.kind === 'head' ? '' : t.kind === 't' ? `@t:${t.t}` : t.kind === 'time' ? `@time:${t.iso}` : `@commit:${t.ref}`;
  return r.id + spec;
}
