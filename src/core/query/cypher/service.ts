/**
 * Cypher against a connection (cypher.md §1): read the body (raw text or `{"cypher", "params"}`),
 * resolve the ledger (with its time specifier) and the policy view, run, and shape the §8 envelope.
 */
import { badRequest, jsonParseError } from '../../errors.js';
import type { Connection } from '../../ledger/connection.js';
import { isRootPolicy, restrictDataset, type PolicyInputs } from '../../policy/index.js';
import { resolveDataset } from '../dataset.js';
import type { QueryContext } from '../engine.js';
import { cypherError } from './errors.js';
import { Graph } from './graph.js';
import { Names } from './names.js';
import { parseCypher } from './parse.js';
import { runStatement, type CypherTable } from './run.js';
import { fromParam, jsonOf, type Value } from './values.js';

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
  return { results: [{ columns: table.columns, data: table.rows.map((r) => ({ row: r.map((v) => jsonOf(v, names)), meta: r.map(() => null) })) }] };
}

/** Rows as objects keyed by column (Accept: application/ld+json). */
export function rowObjects(table: CypherTable, names: Names): Record<string, unknown>[] {
  return table.rows.map((r) => Object.fromEntries(table.columns.map((c, i) => [c, jsonOf(r[i]!, names)])));
}

/** Names of a statement: the envelope's `@context`, else the ledger's stored default context (§3). */
export async function namesFor(conn: Connection, body: CypherBody, ledger: string): Promise<Names> {
  return new Names(body.context !== undefined ? body.context : await conn.defaultContext(ledger));
}

/** Run a read statement against the connection. */
export async function runCypherRead(conn: Connection, body: CypherBody, req: CypherRequest): Promise<{ table: CypherTable; names: Names; ledgers: Record<string, number> }> {
  const stmt = parseCypher(body.text);
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

export { cypherError };
