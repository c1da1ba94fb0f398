/**
 * Serving tiers of a ledger (replication.md §5 `serving`, http-api.md §4.10): `f:serveQuery false`
 * or `f:serveBlocks false` in the ledger's config graph switch a tier off; absent means on.
 */
import { GRAPH_CONFIG } from '../../core/flake/flake.js';
import type { DbView } from '../../core/index/view.js';
import { F, xsd } from '../../core/rdf/vocab.js';

/** False when the config graph holds `<anything> <flag> false` at the view's t. */
async function flagOn(view: DbView, flag: string): Promise<boolean> {
  const p = view.dict.idOfKey(flag);
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
