/**
 * Keeping the page shell for offline use: once a ledger is opened locally, `/` and every
 * `/assets/*` file this page loaded go into the cache the service worker (public/sw.js) answers
 * from when the server is unreachable (the worker's script, fetched through the service worker,
 * is cached by it as it loads).
 */

/** The cache name shared with public/sw.js. */
export const SHELL_CACHE = 'ledgraph-explorer-v1';

/** Put the page shell and the scripts loaded so far (and `extra`) into the offline cache. */
export async function keepForOffline(...extra: string[]): Promise<void> {
  if (!('caches' in window)) return;
  const assets = performance.getEntriesByType('resource').map((e) => e.name)
    .filter((u) => { try { const p = new URL(u); return p.origin === location.origin && p.pathname.startsWith('/assets/'); } catch { return false; } });
  const urls = [...new Set(['/', ...assets, ...extra])];
  try {
    const cache = await caches.open(SHELL_CACHE);
    await cache.addAll(urls);
  } catch { /* best effort: without the cache the page needs the server to reload */ }
}
