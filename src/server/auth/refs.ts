/**
 * Every ledger a request references, so the token's scope can be checked before anything runs
 * (auth.md §6: query, info, log, show, SPARQL `FROM`/`FROM NAMED`, multi-query ledgers). Values
 * that are not ledger-shaped (graph IRIs) are skipped; ledger-shaped ones are checked whether or
 * not the ledger exists, so a 404 never tells an out-of-scope ledger from a missing one.
 */
import { parseLedgerRef } from '../../core/ledger/ledger-id.js';
import { parseSparql } from '../../core/query/sparql/parse.js';

/** The `name:branch` of a ledger reference (time specifier and fragment dropped), or null. */
export function ledgerIdOf(ref: unknown): string | null {
  if (typeof ref !== 'string' || ref === '') return null;
  try { return parseLedgerRef(ref).id; } catch { return null; }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function addRef(out: Set<string>, v: unknown): void {
  if (typeof v === 'string') {
    const id = ledgerIdOf(v);
    if (id) out.add(id);
  } else if (Array.isArray(v)) {
    for (const x of v) addRef(out, x);
  } else if (isObject(v)) {
    // {"@id": LEDGER, ...} (from objects) or {alias: {"@id": ...}} (fromNamed).
    if ('@id' in v || 'id' in v || 'ledger' in v) {
      addRef(out, v['@id'] ?? v['id'] ?? v['ledger']);
    } else {
      for (const x of Object.values(v)) addRef(out, x);
    }
  }
}

/** Ledgers of a JSON-LD query: `from`, `fromNamed`, `to`, also inside `opts`, plus a `ledger` key. */
export function jsonLdQueryLedgers(q: unknown, out = new Set<string>()): Set<string> {
  if (!isObject(q)) return out;
  for (const holder of [q, isObject(q['opts']) ? q['opts'] : null]) {
    if (!holder) continue;
    for (const k of ['from', 'fromNamed', 'from-named', 'to', 'ledger']) if (holder[k] !== undefined) addRef(out, holder[k]);
  }
  return out;
}

/** Ledgers a SPARQL text names in FROM / FROM NAMED; unparseable text names none (the route will 400). */
export function sparqlLedgers(text: string, out = new Set<string>()): Set<string> {
  if (!/\bFROM\b/i.test(text)) return out;
  try {
    const q = parseSparql(text);
    for (const g of [...(q.dataset?.defaultGraphs ?? []), ...(q.dataset?.namedGraphs ?? [])]) {
      const id = ledgerIdOf(g.value);
      if (id) out.add(id);
    }
  } catch { /* the query route reports the syntax error */ }
  return out;
}

/** Ledgers of a multi-query envelope: every sub-query (JSON-LD or SPARQL) and the envelope opts. */
export function multiQueryLedgers(env: unknown, out = new Set<string>()): Set<string> {
  if (!isObject(env)) return out;
  jsonLdQueryLedgers({ opts: env['opts'] }, out);
  const queries = env['queries'];
  if (!isObject(queries)) return out;
  for (const sub of Object.values(queries)) {
    if (!isObject(sub)) continue;
    jsonLdQueryLedgers({ opts: sub['opts'] }, out);
    const q = sub['query'];
    if (typeof q === 'string') sparqlLedgers(q, out);
    else jsonLdQueryLedgers(q, out);
  }
  return out;
}
