/** Query history in local storage: newest first, de-duplicated, capped. */

const KEY = 'ledgraph.queryHistory';
const MAX = 50;

/** One remembered query. */
export interface HistoryEntry { lang: 'sparql' | 'jsonld' | 'graphql' | 'cypher'; text: string; ledger: string; at: string }

/** The remembered queries, newest first. */
export function loadHistory(): HistoryEntry[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? (v as HistoryEntry[]) : [];
  } catch {
    return [];
  }
}

/** Remember a query that was run. */
export function remember(e: HistoryEntry): HistoryEntry[] {
  const list = [e, ...loadHistory().filter((x) => !(x.lang === e.lang && x.text === e.text))].slice(0, MAX);
  try { localStorage.setItem(KEY, JSON.stringify(list)); } catch { /* storage full or disabled: history is best effort */ }
  return list;
}
