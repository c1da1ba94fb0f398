/*
 * The explorer's service worker: keeps the page shell (`/` and the content-hashed `/assets/*`) in a
 * cache so the explorer opens when the server is unreachable, and a ledger opened locally (its
 * replica in IndexedDB) still answers after a reload. `/` is network-first (a new build shows at
 * once); assets are cache-first (their names change with their content). Everything else — the
 * API, /events, the storage proxy — is not touched.
 */
const CACHE = 'ledgraph-explorer-v1';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname === '/') e.respondWith(networkFirst(e.request));
  else if (url.pathname.startsWith('/assets/')) e.respondWith(cacheFirst(e.request));
});

async function networkFirst(req) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(req);
    if (res.ok) await cache.put('/', res.clone());
    return res;
  } catch (err) {
    const hit = await cache.match('/');
    if (hit) return hit;
    throw err;
  }
}

async function cacheFirst(req) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(req);
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok) await cache.put(req, res.clone());
  return res;
}
