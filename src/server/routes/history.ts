/**
 * Commit history (http-api.md §4.3): `GET /show` decodes one commit (§2.3) with its flakes as
 * compacted tuples (§2.2), and `GET /log` lists commit summaries newest first (§2.4).
 *
 * Both run under the caller's credential identity and the server's default policy class (policy.md
 * §5): a restricted caller sees only the flakes it may view, decided at the state the commit
 * produced, and every count is of those flakes. `/log` then decodes each commit like `/show`; its
 * `message` is the first `f:message` string entry whose txn-meta fact the caller may view.
 */
import { CID } from 'multiformats/cid';
import { decodeCommit, type CommitData, type CommitFlake } from '../../core/commit/commit-codec.js';
import { summarize } from '../../core/commit/commit-ref.js';
import type { NamespaceTable } from '../../core/commit/namespaces.js';
import { badRequest, notFound } from '../../core/errors.js';
import { GRAPH_DEFAULT } from '../../core/flake/flake.js';
import { normalizeLedgerId } from '../../core/ledger/ledger-id.js';
import { commitSubject } from '../../core/ledger/commit-meta.js';
import type { ChainEntry, Ledger } from '../../core/ledger/ledger.js';
import type { Connection } from '../../core/ledger/connection.js';
import { CommitReader, type ChainTables } from '../../core/branch/reader.js';
import { resolveRef } from '../../core/branch/refs.js';
import type { Term } from '../../core/rdf/terms.js';
import { F, rdf, xsd, XSD } from '../../core/rdf/vocab.js';
import { intQuery, pathLedger } from '../http-util.js';
import type { Registrar } from '../server-context.js';
import { route } from '../swagger.js';
import { isRootPolicy, termFilter, type PolicyInputs, type TermFilter } from '../../core/policy/index.js';
import { showFilter, showPolicyInputs } from '../auth/index.js';

/** Default and hard maximum of `/log?limit=` (§8). */
export const LOG_DEFAULT_LIMIT = 100;
export const LOG_MAX_LIMIT = 5000;

/** A flake as `/show` prints it: `[s, p, o, dt, op]` plus `{lang?, i?, g?}` when such metadata exists. */
export type FlakeTuple = [string, string, unknown, string, boolean] | [string, string, unknown, string, boolean, FlakeMeta];
export interface FlakeMeta { lang?: string; i?: number; g?: string }

/**
 * Compacts IRIs with a ledger's namespace table (`ex:alice`) and remembers which prefixes it used,
 * so the response `@context` lists exactly those. IRIs under no named namespace stay whole.
 */
export class Compactor {
  private readonly used = new Set<number>();
  constructor(private readonly ns: NamespaceTable) {}

  /** The compact form of an IRI. */
  iri(iri: string): string {
    const sid = this.ns.lookup(iri);
    if (!sid || sid.ns === 0) return iri;
    const name = this.ns.nameOf(sid.ns);
    if (name === undefined) return iri;
    this.used.add(sid.ns);
    return `${name}:${sid.local}`;
  }

  /** A subject or reference: compact IRI or `_:label`. */
  node(t: Term): string {
    return t.termType === 'BlankNode' ? `_:${t.value}` : this.iri(t.value);
  }

  /** The `@context` of the prefixes used so far. */
  context(): Record<string, string> { return this.ns.prefixes(this.used); }
}

const INTEGER_TYPES = new Set([
  'integer', 'long', 'int', 'short', 'byte', 'nonNegativeInteger', 'nonPositiveInteger', 'positiveInteger',
  'negativeInteger', 'unsignedLong', 'unsignedInt', 'unsignedShort', 'unsignedByte',
].map((n) => XSD + n));

/**
 * An object in native JSON form: strings as strings, booleans as booleans, integers within the safe
 * range and finite doubles as numbers, rdf:JSON as its JSON value; every other literal (decimals,
 * dates, big integers, INF/NaN) keeps its lexical form so nothing loses precision.
 */
export function nativeValue(o: Term, c: Compactor): unknown {
  if (o.termType !== 'Literal') return c.node(o);
  const dt = o.datatype.value;
  if (dt === xsd.boolean) return o.value === 'true' || o.value === '1';
  if (INTEGER_TYPES.has(dt)) {
    const n = Number(o.value);
    return Number.isSafeInteger(n) ? n : o.value;
  }
  if (dt === xsd.double || dt === xsd.float) {
    const n = Number(o.value);
    return Number.isFinite(n) ? n : o.value;
  }
  if (dt === rdf.JSON) {
    try { return JSON.parse(o.value) as unknown; } catch { return o.value; }
  }
  return o.value;
}

/** One flake as a §2.2 tuple; `graphIri` names graph ids other than the default graph. */
export function flakeTuple(f: CommitFlake, c: Compactor, graphIri: (g: number) => string | undefined): FlakeTuple {
  const o = f.o;
  const dt = o.termType === 'Literal' ? c.iri(o.datatype.value) : '@id';
  const tuple: FlakeTuple = [c.node(f.s), c.iri(f.p.value), nativeValue(o, c), dt, f.op];
  const meta: FlakeMeta = {};
  if (o.termType === 'Literal' && o.language) meta.lang = o.language;
  if (f.i !== undefined) meta.i = f.i;
  if (f.g !== GRAPH_DEFAULT) {
    const g = graphIri(f.g);
    meta.g = g === undefined ? String(f.g) : g.startsWith('#') || g.startsWith('_:') ? g : c.iri(g);
  }
  return Object.keys(meta).length ? [...tuple, meta] as FlakeTuple : tuple;
}

/**
 * The commit a `commit=` reference names: `t:N` on the first-parent chain, or a hex digest prefix
 * (>= 6) or full CID of any commit reachable from the head (pre-fork and merged-in commits too).
 */
async function resolveCommit(conn: Connection, ledger: Ledger, ref: string | undefined): Promise<ChainEntry> {
  if (!ref) throw badRequest('missing commit: use ?commit=t:<N>, a hex digest prefix (at least 6 characters) or a full commit CID');
  const hit = await resolveRef(conn.graphFor(ledger.id), ledger, /^[0-9A-F]+$/.test(ref) ? ref.toLowerCase() : ref);
  return { t: hit.t, cid: hit.cid, time: hit.time };
}

/** The flakes of a decoded commit that `filter` lets through (every flake when it is null). */
async function visibleFlakes(data: CommitData, filter: TermFilter | null): Promise<CommitFlake[]> {
  if (!filter) return data.flakes;
  const out: CommitFlake[] = [];
  for (const f of data.flakes) if (await filter.visible(f.s, f.p, f.o)) out.push(f);
  return out;
}

const F_MESSAGE = F + 'message';

/**
 * A commit summary of `/log` under a restricting policy: the commit decoded as `/show` decodes it,
 * its flakes filtered at the state it produced, and the first string `f:message` entry (the one an
 * unrestricted summary shows, when visible) whose txn-meta fact `(commit, f:message, value)` the
 * caller may view, else null.
 */
async function visibleSummary(ns: NamespaceTable, entry: ChainEntry, bytes: Uint8Array, filter: TermFilter): Promise<{ asserts: number; retracts: number; message: string | null }> {
  const data = decodeCommit(bytes, ns);
  let asserts = 0, retracts = 0;
  for (const f of await visibleFlakes(data, filter)) if (f.op) asserts++; else retracts++;
  let message: string | null = null;
  const subject = commitSubject(entry.cid);
  for (const m of data.meta) {
    if (m.p.value !== F_MESSAGE || m.o.termType !== 'Literal') continue;
    if (m.o.datatype.value !== xsd.string && m.o.datatype.value !== rdf.langString) continue;
    if (await filter.visible(subject, m.p, m.o)) { message = m.o.value; break; }
  }
  return { asserts, retracts, message };
}

/** The decoded commit of `/show` (§2.3). */
export async function showCommit(ledger: Ledger, entry: ChainEntry, filter: TermFilter | null = null, tables: ChainTables = ledger): Promise<Record<string, unknown>> {
  const bytes = await ledger.commitBytes(entry.cid);
  const data = decodeCommit(bytes, tables.ns);
  const graphNames = new Map(data.graphDelta);
  const graphIri = (g: number) => tables.graphs.iri(g) ?? graphNames.get(g);
  const c = new Compactor(tables.ns);
  let asserts = 0, retracts = 0;
  const flakes: unknown[] = [];
  // Policy (§4.3): unreadable flakes are omitted and asserts/retracts count visible flakes only.
  for (const f of await visibleFlakes(data, filter)) {
    if (f.op) asserts++; else retracts++;
    flakes.push(flakeTuple(f, c, graphIri));
  }
  return {
    id: entry.cid, t: data.t, time: data.time, size: bytes.length,
    previous: data.parents[0]?.toString() ?? null,
    asserts, retracts, '@context': c.context(), flakes,
  };
}

/**
 * Every commit reachable from the head through any parent (branches.md §10): t descending; on equal
 * t the first-parent-chain commit first, then by commit id.
 */
async function historyOrder(conn: Connection, ledger: Ledger): Promise<ChainEntry[]> {
  const head = ledger.head.cid;
  const chain = await ledger.chainEntries();
  const nodes = [];
  const graph = conn.graphFor(ledger.id);
  for (const cid of await graph.ancestors(head)) nodes.push(await graph.node(cid));
  const onChain = (n: { cid: string; t: number }) => (chain[n.t]?.cid === n.cid ? 0 : 1);
  nodes.sort((a, b) => b.t - a.t || onChain(a) - onChain(b) || (a.cid < b.cid ? -1 : a.cid > b.cid ? 1 : 0));
  return nodes.map((n) => ({ t: n.t, cid: n.cid, time: n.time }));
}

/** Registers /show and /log. */
export const historyRoutes: Registrar = (api, ctx) => {
  route(api, ctx.table, {
    method: 'GET', path: '/show/{ledger}', tag: 'history', summary: 'One decoded commit with its flakes',
    query: [{ name: 'commit', required: true, description: 't:<N>, a hex SHA-256 digest prefix (at least 6 characters) or a full commit CID' }],
    responses: {
      200: 'Decoded commit {id, t, time, size, previous, asserts, retracts, @context, flakes}',
      400: 'Missing, invalid or ambiguous commit reference', 404: 'Ledger or commit not found',
    },
  }, async (c) => {
    const ledger = await ctx.conn.ledger(normalizeLedgerId(pathLedger(c)));
    const entry = await resolveCommit(ctx.conn, ledger, c.req.query('commit'));
    const tables = await new CommitReader(ctx.conn.contentFor(ledger.id), ctx.conn.graphFor(ledger.id), [ledger]).tables(entry.cid);
    return c.json(await showCommit(ledger, entry, await showFilter(c, ctx.conn, await ledger.db({ kind: 't', t: Math.min(entry.t, ledger.t) })), tables));
  });

  route(api, ctx.table, {
    method: 'GET', path: '/log/{ledger}', tag: 'history', summary: 'Commit summaries, newest first',
    query: [{ name: 'limit', type: 'integer', description: `Most commits to return (default ${LOG_DEFAULT_LIMIT}; values above ${LOG_MAX_LIMIT} are clamped)` }],
    responses: {
      200: 'Commit summary list {ledger_id, commits [{t, commit_id, time, asserts, retracts, flake_count, message}], count, truncated}',
      400: 'Invalid limit', 404: 'Ledger not found',
    },
  }, async (c) => {
    const limit = intQuery(c, 'limit', LOG_DEFAULT_LIMIT, { min: 0, max: LOG_MAX_LIMIT, clamp: true });
    const ledger = await ctx.conn.ledger(normalizeLedgerId(pathLedger(c)));
    // Resolved as for /show; root keeps the envelope-only summaries (no flake is decoded).
    const inputs: PolicyInputs | undefined = showPolicyInputs(c);
    const restricted = !isRootPolicy(inputs);
    // Snapshot the head first: commits landing during the walk must not shift the page.
    const headT = ledger.t;
    const all = await historyOrder(ctx.conn, ledger);
    const reader = new CommitReader(ctx.conn.contentFor(ledger.id), ctx.conn.graphFor(ledger.id), [ledger]);
    const commits = [];
    for (const entry of all) {
      if (commits.length >= limit) break;
      const bytes = await ledger.commitBytes(entry.cid);
      const s = summarize(CID.parse(entry.cid), bytes);
      let { asserts, retracts, message } = s;
      if (restricted) {
        const filter = await termFilter(ctx.conn, await ledger.db({ kind: 't', t: Math.min(entry.t, headT) }), inputs);
        if (filter) ({ asserts, retracts, message } = await visibleSummary((await reader.tables(entry.cid)).ns, entry, bytes, filter));
      }
      commits.push({
        t: s.t, commit_id: entry.cid, time: s.time, asserts, retracts,
        flake_count: asserts + retracts, message,
      });
    }
    const count = all.length;
    return c.json({ ledger_id: ledger.id, commits, count, truncated: count > commits.length });
  });
};
