/**
 * Serving tiers of a ledger (replication.md §5 `serving`, http-api.md §4.10): `f:serveQuery false`
 * or `f:serveBlocks false` in the ledger's config graph switch a tier off; absent means on. Query
 * endpoints of this (origin) server refuse a ledger with `f:serveQuery false` (403, auth.md §6).
 */
import { forbidden, notFound } from '../../core/errors.js';
import { GRAPH_CONFIG } from '../../core/flake/flake.js';
import type { DbView } from '../../core/index/view.js';
import type { Connection } from '../../core/ledger/connection.js';
import type { Ledger } from '../../core/ledger/ledger.js';
import { F, xsd } from '../../core/rdf/vocab.js';

/** False when the config graph holds `<anything> <flag> false` at the view's t. */
async function flagOn(view: DbView, flag: string): Promise<boolean> {
  const p = await view.dict.lookupKey(flag);
  if (p === undefined) return true;
  for await (const b of view.scan({ g: GRAPH_CONFIG, p })) {
    for (let i = 0; i < b.n; i++) {
      const o = view.dict.term(b.o[i]!);
      if (o.termType === 'Literal' && o.datatype.value === xsd.boolean && (o.value === 'false' || o.value === '0')) return false;
    }
  }
  return true;
}

/** Which tiers the ledger offers: `query` unless switched off; `blocks` when the proxy is on and not switched off. */
export async function servingTiers(view: DbView, proxyEnabled: boolean): Promise<{ query: boolean; blocks: boolean }> {
  return { query: await flagOn(view, F + 'serveQuery'), blocks: proxyEnabled && (await flagOn(view, F + 'serveBlocks')) };
}

/** Ledgers this check has loaded, by the Connection's promise of them (a reload makes a new promise). */
const seen = new WeakMap<Promise<Ledger>, Ledger>();

/**
 * 403 when a queried ledger sets `f:serveQuery false`. Costs one dictionary lookup per ledger when
 * the flag was never written (the usual case), so every query can afford it: without a promise or
 * a turn of the event loop (undefined is returned) once the ledger has been seen loaded here and
 * the dictionary page that would hold the flag is resident.
 */
export function requireQueryServed(conn: Connection, ledgerIds: Iterable<string>): Promise<void> | undefined {
  let rest: string[] | null = null;
  for (const id of ledgerIds) {
    const p = conn.loadedLedger(id);
    const ledger = p && seen.get(p);
    if (ledger && ledger.dict.idOfKeySoon(SERVE_QUERY) === undefined) continue;
    (rest ??= []).push(id);
  }
  return rest ? checkQueryServed(conn, rest) : undefined;
}

async function checkQueryServed(conn: Connection, ledgerIds: string[]): Promise<void> {
  for (const id of ledgerIds) {
    // A ledger that cannot be loaded is the query's own error to report, not this check's.
    const ledger = await conn.ledger(id).catch(() => null);
    if (!ledger) continue;
    const p = conn.loadedLedger(id);
    const loaded = p && await p.catch(() => null);
    if (loaded) seen.set(p, loaded);
    if ((await ledger.dict.lookupKey(SERVE_QUERY)) === undefined) continue;
    if (!(await flagOn(await ledger.db(), SERVE_QUERY))) throw forbidden(`ledger ${id} does not serve queries here (f:serveQuery false)`);
  }
}

/**
 * 404 (as for an unknown ledger, http-api.md §4.10) when the ledger sets `f:serveBlocks false`: its
 * raw content (`/storage/objects`, `/storage/block`, `/commits`, `/pack`) is not served. One
 * dictionary lookup when the flag was never written.
 */
export async function requireBlocksServed(ledger: Ledger): Promise<void> {
  if ((await ledger.dict.lookupKey(SERVE_BLOCKS)) === undefined) return;
  if (!(await flagOn(await ledger.db(), SERVE_BLOCKS))) throw notFound('Ledger not found');
}

const SERVE_QUERY = F + 'serveQuery';
const SERVE_BLOCKS = F + 'serveBlocks';
