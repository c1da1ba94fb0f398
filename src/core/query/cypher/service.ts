/**
 * Cypher against a connection (cypher.md §1): read the body (raw text or `{"cypher", "params"}`),
 * resolve the ledger (with its time specifier) and the policy view, run, and shape the §8 envelope;
 * writes run inside the one write pipeline as a `program` request.
 */
import { badRequest, jsonParseError } from '../../errors.js';
import type { Connection } from '../../ledger/connection.js';
import { normalizeLedgerId, parseLedgerRef } from '../../ledger/ledger-id.js';
import { isRootPolicy, restrictDataset, type PolicyInputs } from '../../policy/index.js';
import { resolveDataset } from '../dataset.js';
import type { QueryContext } from '../engine.js';
import { cypherError } from './errors.js';
import { Graph } from './graph.js';
import { Names } from './names.js';
import { parseCypher } from './parse.js';
import { runStatement, type CypherTable } from './run.js';
import { fromParam, jsonOf, type Value } from './values.js';
import { isWriteStatement, type Statement } from './ast.js';
import { ByteLru } from '../../util/byte-lru.js';
import type { Env } from './props.js';
import { CypherWriter } from './write.js';
import type { Receipt, TxnContext } from '../../transact/pipeline.js';
import type { StageHandle, TxnOpts, TxnRequest } from '../../transact/txn-request.js';

/** A Cypher request body, read. */
export interface CypherBody { text: string; params: Record<string, Value>; context?: unknown }

/**
 * Read a body: a JSON envelope when its first non-space character is `{`, else raw text. Besides
 * `cypher` and `params`, the envelope's `@context` replaces the ledger's stored default context for
 * this statement (§3); other keys are ignored.
 */
export function readCypherBody(text: string): CypherBody {
  if (!text.trimStart().startsWith('{')) return { text, params: {} };
  let json: unknown;
  try { json = JSON.parse(text); } catch (e) {
    throw jsonParseError(`invalid JSON envelope: ${e instanceof Error ? e.message : String(e)}`);
  }
  const o = json as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || Array.isArray(o) || typeof o.cypher !== 'string') throw badRequest('a Cypher JSON envelope is {"cypher": string, "params"?: object}');
  const p = o.params ?? {};
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw badRequest('"params" must be a JSON object');
  const params = Object.fromEntries(Object.entries(p).map(([k, v]) => [k, fromParam(v)]));
  return { text: o.cypher, params, ...(o['@context'] !== undefined ? { context: o['@context'] } : {}) };
}

export interface CypherRequest {
  /** The ledger of the path, optionally with a time specifier (`social:main@t:3`). */
  ledger: string;
  policy?: PolicyInputs;
  maxFuel?: number;
  deadline?: number;
  signal?: AbortSignal;
}

/** The §8 envelope of a table. */
export function envelope(table: CypherTable, names: Names): { results: { columns: string[]; data: { row: unknown[]; meta: null[] }[] }[] } {
  const ids = names.memo();
  return { results: [{ columns: table.columns, data: table.rows.map((r) => ({ row: r.map((v) => jsonOf(v, ids)), meta: r.map(() => null) })) }] };
}

/** Rows as objects keyed by column (Accept: application/ld+json). */
export function rowObjects(table: CypherTable, names: Names): Record<string, unknown>[] {
  const ids = names.memo();
  return table.rows.map((r) => Object.fromEntries(table.columns.map((c, i) => [c, jsonOf(r[i]!, ids)])));
}

/** Parsed statements by text, and processed contexts by their JSON: clients repeat both, and neither is mutated. */
const statements = new ByteLru<string, Statement>(4 * 1024 * 1024);
const contexts = new ByteLru<string, Names>(1024 * 1024);

/** Parse a statement, from the cache when the same text was parsed before. */
export function parseCached(text: string): Statement {
  let stmt = statements.get(text);
  if (!stmt) statements.set(text, stmt = parseCypher(text), 2 * text.length * 8 + 256);
  return stmt;
}

function namesOf(ctx: unknown, key = JSON.stringify(ctx ?? null)): Names {
  let names = contexts.get(key);
  if (!names) contexts.set(key, names = new Names(ctx), 8 * key.length + 256);
  return names;
}

/**
 * Names of a statement: the envelope's `@context`, else the ledger's stored default context (§3),
 * processed once per stored context (keyed by its CID in the ledger's record, so the blob is not
 * read and serialised again for every statement).
 */
export async function namesFor(conn: Connection, body: CypherBody, ledger: string): Promise<Names> {
  if (body.context !== undefined) return namesOf(body.context);
  const rec = await conn.record(normalizeLedgerId(parseLedgerRef(ledger).id));
  const cid = rec && !rec.retracted ? rec.default_context : undefined;
  if (!cid) return namesOf(null);
  const hit = contexts.get('cid:' + cid);
  if (hit) return hit;
  const names = namesOf(await conn.defaultContext(ledger));
  contexts.set('cid:' + cid, names, 8 * cid.length + 256);
  return names;
}

/** Run a read statement against the connection. */
export async function runCypherRead(conn: Connection, body: CypherBody, req: CypherRequest): Promise<{ table: CypherTable; names: Names; ledgers: Record<string, number> }> {
  const stmt = parseCached(body.text);
  if (isWriteStatement(stmt)) throw cypherError('SemanticError', 'a write statement (CREATE, MERGE, SET, REMOVE, DELETE) on /query: send it to /update/<ledger>');
  const resolved = await resolveDataset(conn, {}, { defaultLedger: req.ledger });
  const ds = isRootPolicy(req.policy) ? resolved : (await restrictDataset(conn, resolved, req.policy)).ds;
  const ctx: QueryContext = {
    view: ds.view, defaultGraphs: ds.defaultGraphs, namedGraphs: ds.namedGraphs, resolveGraph: ds.resolveGraph,
    ...(req.maxFuel !== undefined ? { maxFuel: req.maxFuel } : {}),
    ...(req.deadline !== undefined ? { deadline: req.deadline } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
  };
  const names = await namesFor(conn, body, req.ledger);
  const table = await runStatement(stmt, { g: new Graph(ctx), names, params: body.params, now: new Date() });
  return { table, names, ledgers: ds.ledgers };
}

/** A write statement made ready for the pipeline: its request, and what the run produced. */
export interface CypherWrite {
  /** The `program` request to commit (through Connection.transact or the server's commitWrite). */
  req: TxnRequest;
  names: Names;
  /** True when the statement ends with RETURN (the response carries the §8 envelope). */
  returns: boolean;
  /** The RETURN table of the run that committed (empty before the commit). */
  table(): CypherTable;
}

/**
 * Prepare a write statement (§7) as one transaction of the write pipeline: the statement runs
 * while the commit is staged, under the ledger's write lock, reading its own writes as it goes, and
 * again from the start should the pipeline restage it. Any error stages nothing.
 */
export async function prepareCypherWrite(conn: Connection, body: CypherBody, ledger: string): Promise<CypherWrite> {
  const stmt = parseCached(body.text);
  if (!isWriteStatement(stmt)) throw cypherError('SemanticError', 'a statement without writing clauses on /update: send reads to /query/<ledger>');
  const names = await namesFor(conn, body, ledger);
  let table: CypherTable = { columns: [], rows: [] };
  const run = async (h: StageHandle): Promise<void> => {
    const g = new Graph({
      view: await h.view(),
      ...(h.limits.signal ? { signal: h.limits.signal } : {}),
      ...(h.limits.deadline !== undefined ? { deadline: h.limits.deadline } : {}),
      ...(h.limits.maxFuel !== undefined ? { maxFuel: h.limits.maxFuel } : {}),
    });
    const writer = new CypherWriter(h);
    const env: Env = { g, names, params: body.params, now: new Date(), writer };
    writer.bind(env);
    table = await runStatement(stmt, env);
    await writer.finish(env);
  };
  const last = stmt.clauses[stmt.clauses.length - 1]!;
  return { req: { kind: 'program', run, meta: [], opts: {} }, names, returns: last.k === 'return', table: () => table };
}

/** Run a write statement against the connection (library use; the server goes through commitWrite). */
export async function runCypherWrite(conn: Connection, body: CypherBody, ledger: string, opts: TxnOpts = {}, txn: TxnContext = {}): Promise<{ table: CypherTable; names: Names; receipt: Receipt }> {
  const w = await prepareCypherWrite(conn, body, ledger);
  const receipt = await conn.transact(ledger, { ...w.req, opts } as TxnRequest, { contentType: 'application/cypher', body: body.text, ...txn });
  return { table: w.table(), names: w.names, receipt };
}

export { cypherError };
