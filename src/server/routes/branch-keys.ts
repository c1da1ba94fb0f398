/** Conflict keys as previews show them: IRIs compacted by the ledger's prefixes, `g` null for the default graph. */
import type { Connection } from '../../core/ledger/connection.js';
import { Compactor } from './history.js';

/** Compact `{s, p, g}` keys with the namespace table of `ledgerId`. */
export async function conflictKeysOut(conn: Connection, ledgerId: string, keys: { s: string; p: string; g: string | null }[]): Promise<{ s: string; p: string; g: string | null }[]> {
  const c = new Compactor((await conn.ledger(ledgerId)).ns);
  const node = (s: string) => (s.startsWith('_:') ? s : c.iri(s));
  return keys.map((k) => ({ s: node(k.s), p: c.iri(k.p), g: k.g === null ? null : k.g.startsWith('#') ? k.g : c.iri(k.g) }));
}
