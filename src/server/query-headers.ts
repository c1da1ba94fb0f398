/**
 * Request headers of the query endpoints (http-api.md §4.5): `Ledgraph-Min-T` (read-after-write
 * barrier, with the wait itself), `Ledgraph-Max-Fuel`, and the policy inputs from
 * `Ledgraph-Identity`, `Ledgraph-Policy*`, `Ledgraph-Default-Allow` and SPARQL `# PRAGMA` comments
 * (policy.md §3). Policy inputs are parsed and validated here; the policy engine enforces them.
 */
import { badRequest, timeoutError, type LedgraphError } from '../core/errors.js';
import { mergePolicyInputs, parsePolicyValues, policyInputsFromPragmas, type PolicyInputs } from '../core/policy/index.js';
import type { Connection } from '../core/ledger/connection.js';
import { normalizeLedgerId } from '../core/ledger/ledger-id.js';
import { checkJsonTextDepth } from '../core/json-depth.js';
import { parseBoolHeader } from './negotiate.js';

/** The policy headers (read by policyFromHeaders), as OpenAPI parameters of every query endpoint. */
export const POLICY_HEADERS = [
  { name: 'Ledgraph-Identity', description: 'Identity whose policies apply' },
  { name: 'Ledgraph-Policy-Class', description: 'Policy classes (comma-separated or repeated)' },
  { name: 'Ledgraph-Policy', description: 'Inline policy (JSON)' },
  { name: 'Ledgraph-Policy-Values', description: 'Policy variable values (JSON object)' },
  { name: 'Ledgraph-Default-Allow', type: 'boolean' as const, description: 'Access when no policy matches' },
];

/** What the query headers are read from: a web `Headers`, or the fast path's stand-in for a request that has none of them. */
export type HeaderReader = Pick<Headers, 'get'>;

/** A non-negative integer header; a malformed value is a 400. */
function intHeader(headers: HeaderReader, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  const v = raw.trim();
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw badRequest(`invalid ${name} "${raw}": expected a non-negative integer`);
  return Number(v);
}

/** `Ledgraph-Min-T`: the t every queried ledger must have reached before the query runs. */
export function parseMinT(headers: HeaderReader): number | undefined {
  return intHeader(headers, 'Ledgraph-Min-T');
}

/** `Ledgraph-Max-Fuel`: the fuel budget of the query (the query's own max-fuel wins when lower). */
export function parseMaxFuel(headers: HeaderReader): number | undefined {
  return intHeader(headers, 'Ledgraph-Max-Fuel');
}

/** `Ledgraph-Ledger`: the ledger of a connection-scoped call, or undefined. */
export function headerLedger(headers: HeaderReader): string | undefined {
  const v = headers.get('Ledgraph-Ledger')?.trim();
  return v ? v : undefined;
}

function parseJsonHeader(name: string, raw: string): unknown {
  checkJsonTextDepth(raw, name);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw badRequest(`invalid ${name}: expected JSON`);
  }
}

/**
 * Policy inputs from the `Ledgraph-Identity` / `Ledgraph-Policy*` / `Ledgraph-Default-Allow`
 * headers (policy.md §3); a malformed value is a 400. Absent headers leave their key absent.
 */
export function policyFromHeaders(headers: HeaderReader): PolicyInputs {
  const out: PolicyInputs = {};
  const identity = headers.get('Ledgraph-Identity');
  if (identity !== null) {
    const v = identity.trim().replace(/^<(.*)>$/, '$1');
    if (!v || /[\s<>"]/.test(v)) throw badRequest(`invalid Ledgraph-Identity "${identity}": expected an IRI`);
    out.identity = v;
  }
  const classes = headers.get('Ledgraph-Policy-Class');
  if (classes !== null) {
    const list = classes.split(',').map((s) => s.trim().replace(/^<(.*)>$/, '$1')).filter(Boolean);
    if (!list.length) throw badRequest('invalid Ledgraph-Policy-Class: expected one or more IRIs');
    out.policyClass = list;
  }
  const policy = headers.get('Ledgraph-Policy');
  if (policy !== null) {
    const v = parseJsonHeader('Ledgraph-Policy', policy);
    if (typeof v !== 'object' || v === null) throw badRequest('invalid Ledgraph-Policy: expected a policy node or an array of policy nodes');
    out.policy = v;
  }
  const values = headers.get('Ledgraph-Policy-Values');
  if (values !== null) {
    const v = parseJsonHeader('Ledgraph-Policy-Values', values);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest('invalid Ledgraph-Policy-Values: expected a JSON object of "?$var" to IRI');
    parsePolicyValues(v);
    out.policyValues = v;
  }
  const allow = headers.get('Ledgraph-Default-Allow');
  if (allow !== null) out.defaultAllow = parseBoolHeader('Ledgraph-Default-Allow', allow);
  return out;
}

/** SPARQL policy inputs of a request: `# PRAGMA` comments overlaid by the policy headers (policy.md §3). */
export function sparqlPolicyInputs(text: string, headers: HeaderReader): PolicyInputs {
  // Pragmas live in the leading comment lines; most queries have none, so skip splitting the text.
  const pragmas = /^\s*#/.test(text) ? policyInputsFromPragmas(text) : {};
  return mergePolicyInputs(pragmas, policyFromHeaders(headers));
}

/** Options of the freshness barrier. */
export interface MinTOptions {
  /** Give up after this long with 408 err:db/Timeout (0 or undefined: wait without a limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Poll interval for changes made by other processes sharing the storage (default 50 ms). */
  pollMs?: number;
}

/**
 * Wait until the ledger's t ≥ minT (Ledgraph-Min-T). Woken by the nameservice change feed; also
 * polls, since a file nameservice shared with another process may not deliver its events. 404 when
 * the ledger does not exist; 408 when the time limit passes first.
 */
export async function waitForMinT(conn: Connection, ledgerId: string, minT: number, opts: MinTOptions = {}): Promise<void> {
  const id = normalizeLedgerId(ledgerId);
  if ((await conn.ledger(id)).t >= minT) return;
  // A peer first asks its transaction server for the current record (replication.md §14.5).
  if (conn.refresher) {
    await conn.refresher(id);
    if ((await conn.ledger(id)).t >= minT) return;
  }
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    let checking = false;
    const finish = (err?: LedgraphError | unknown) => {
      if (settled) return;
      settled = true;
      unsubscribe();
      clearInterval(poll);
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err); else resolve();
    };
    const check = () => {
      if (settled || checking) return;
      checking = true;
      conn.ledger(id).then((l) => { checking = false; if (l.t >= minT) finish(); }, (e: unknown) => { checking = false; finish(e); });
    };
    const unsubscribe = conn.ns.subscribe((ch) => {
      if (ch.ledger_id === id && (ch.record === null || ch.record.commit_t >= minT || ch.record.retracted)) check();
    });
    const poll = setInterval(check, opts.pollMs ?? 50);
    const timer = opts.timeoutMs ? setTimeout(() => finish(timeoutError(`ledger ${id} did not reach t ${minT} within ${opts.timeoutMs} ms (Ledgraph-Min-T)`)), opts.timeoutMs) : undefined;
    const onAbort = () => finish(opts.signal?.reason ?? new Error('aborted'));
    if (opts.signal?.aborted) onAbort(); else opts.signal?.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
