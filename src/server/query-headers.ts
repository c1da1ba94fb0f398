/**
 * Request headers of the query endpoints (http-api.md §4.5): `Ledgraph-Min-T` (read-after-write
 * barrier, with the wait itself), `Ledgraph-Max-Fuel`, and the policy inputs from
 * `Ledgraph-Identity`, `Ledgraph-Policy*`, `Ledgraph-Default-Allow` and SPARQL `# PRAGMA` comments
 * (policy.md §3). Policy inputs are only parsed and validated here; enforcement belongs to the
 * policy engine, which receives them as a PolicyInputs object.
 */
import { badRequest, timeoutError, type LedgraphError } from '../core/errors.js';
import type { Connection } from '../core/ledger/connection.js';
import { normalizeLedgerId } from '../core/ledger/ledger-id.js';
import { parseBoolHeader } from './negotiate.js';

/** The policy selection of one request (policy.md §3), before enforcement. Absent keys were not given. */
export interface PolicyInputs {
  identity?: string;
  policyClass?: string[];
  policy?: unknown;
  policyValues?: Record<string, unknown>;
  defaultAllow?: boolean;
}

/** A non-negative integer header; a malformed value is a 400. */
function intHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  const v = raw.trim();
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw badRequest(`invalid ${name} "${raw}": expected a non-negative integer`);
  return Number(v);
}

/** `Ledgraph-Min-T`: the t every queried ledger must have reached before the query runs. */
export function parseMinT(headers: Headers): number | undefined {
  return intHeader(headers, 'Ledgraph-Min-T');
}

/** `Ledgraph-Max-Fuel`: the fuel budget of the query (the query's own max-fuel wins when lower). */
export function parseMaxFuel(headers: Headers): number | undefined {
  return intHeader(headers, 'Ledgraph-Max-Fuel');
}

/** `Ledgraph-Ledger`: the ledger of a connection-scoped call, or undefined. */
export function headerLedger(headers: Headers): string | undefined {
  const v = headers.get('Ledgraph-Ledger')?.trim();
  return v ? v : undefined;
}

function parseJsonHeader(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw badRequest(`invalid ${name}: expected JSON`);
  }
}

function policyValuesOf(where: string, v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest(`invalid ${where}: expected a JSON object of "?$var" to IRI`);
  return v as Record<string, unknown>;
}

/** Policy inputs from the `Ledgraph-Identity` / `Ledgraph-Policy*` / `Ledgraph-Default-Allow` headers. */
export function policyFromHeaders(headers: Headers): PolicyInputs {
  const out: PolicyInputs = {};
  const identity = headers.get('Ledgraph-Identity');
  if (identity !== null) {
    if (!identity.trim()) throw badRequest('invalid Ledgraph-Identity: expected an IRI');
    out.identity = identity.trim();
  }
  const classes = headers.get('Ledgraph-Policy-Class');
  if (classes !== null) {
    const list = classes.split(',').map((s) => s.trim()).filter(Boolean);
    if (!list.length) throw badRequest('invalid Ledgraph-Policy-Class: expected one or more IRIs');
    out.policyClass = list;
  }
  const policy = headers.get('Ledgraph-Policy');
  if (policy !== null) out.policy = parseJsonHeader('Ledgraph-Policy', policy);
  const values = headers.get('Ledgraph-Policy-Values');
  if (values !== null) out.policyValues = policyValuesOf('Ledgraph-Policy-Values', parseJsonHeader('Ledgraph-Policy-Values', values));
  const allow = headers.get('Ledgraph-Default-Allow');
  if (allow !== null) out.defaultAllow = parseBoolHeader('Ledgraph-Default-Allow', allow);
  return out;
}

const PRAGMA_LINE = /^#[ \t]*PRAGMA[ \t]+([A-Za-z][\w:.-]*)[ \t]*(.*?)[ \t]*$/i;

/**
 * Policy inputs from SPARQL `# PRAGMA` comments. Only the comment lines before the first
 * non-comment line count (policy.md §3); `policy-class` may repeat.
 */
export function policyFromPragmas(text: string): PolicyInputs {
  const out: PolicyInputs = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) break;
    const m = PRAGMA_LINE.exec(line);
    if (!m) continue;
    const name = m[1]!.toLowerCase();
    const value = m[2]!;
    const iri = () => {
      const v = /^<([^<>\s]*)>$/.exec(value)?.[1] ?? (/^\S+$/.test(value) ? value : undefined);
      if (!v) throw badRequest(`invalid PRAGMA ${name}: expected an IRI, got "${value}"`);
      return v;
    };
    switch (name) {
      case 'identity': out.identity = iri(); break;
      case 'policy-class': (out.policyClass ??= []).push(iri()); break;
      case 'policy-values': out.policyValues = policyValuesOf('PRAGMA policy-values', parseJsonHeader('PRAGMA policy-values', value)); break;
      case 'default-allow': out.defaultAllow = parseBoolHeader('PRAGMA default-allow', value); break;
      default: break;
    }
  }
  return out;
}

/** Overlay policy inputs key by key; later layers win (pragma < header < body opts). */
export function mergePolicy(...layers: (PolicyInputs | undefined)[]): PolicyInputs {
  const out: PolicyInputs = {};
  for (const l of layers) {
    if (!l) continue;
    for (const [k, v] of Object.entries(l)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** True when any policy input was given (an explicit policy signal). */
export function hasPolicy(p: PolicyInputs | undefined): boolean {
  return !!p && Object.values(p).some((v) => v !== undefined);
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
