/**
 * The web explorer as static files: `web/dist` (built by `npm ci` / `npm run build:web`) served at
 * the server root. `index.html` (and the service worker `sw.js`) are `no-cache` (revalidated through its ETag) so a new build shows at
 * once; Vite's content-hashed `/assets/*` are immutable for a year. A missing build is not an
 * error: the server runs the API alone and says so in its log.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { AppEnv } from './app-env.js';

/** A loaded explorer build. */
export interface ExplorerSite {
  /** The build directory (holds index.html and assets/). */
  dir: string;
  indexHtml: Uint8Array;
  indexEtag: string;
}

/** Where `vite build --config web/vite.config.ts` writes (same path from src/server and dist/server). */
export const DEFAULT_EXPLORER_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.map': 'application/json',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.json': 'application/json',
};

/** Read the build's index.html; null when the explorer was not built. */
export async function loadExplorer(dir: string = DEFAULT_EXPLORER_DIR): Promise<ExplorerSite | null> {
  try {
    const indexHtml = new Uint8Array(await readFile(join(dir, 'index.html')));
    const indexEtag = `"${createHash('sha256').update(indexHtml).digest('base64url').slice(0, 22)}"`;
    return { dir, indexHtml, indexEtag };
  } catch {
    return null;
  }
}

/** Register `GET /` (index.html), `GET /sw.js` (the offline service worker) and `GET /assets/*` on the root app. */
export function mountExplorer(app: Hono<AppEnv>, site: ExplorerSite): void {
  const assets = resolve(site.dir, 'assets');
  // Not content-hashed: revalidated on every registration check, like index.html.
  app.get('/sw.js', async (c) => {
    try {
      const body = new Uint8Array(await readFile(join(site.dir, 'sw.js')));
      return c.body(body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': CONTENT_TYPES['.js']!, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    } catch {
      return c.notFound();
    }
  });
  app.get('/', (c) => {
    const headers = { 'Cache-Control': 'no-cache', ETag: site.indexEtag, 'X-Content-Type-Options': 'nosniff' };
    if (c.req.header('If-None-Match') === site.indexEtag) return c.body(null, 304, headers);
    return c.body(site.indexHtml as Uint8Array<ArrayBuffer>, 200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
  });
  app.get('/assets/*', async (c) => {
    const rel = decodeURIComponent(c.req.path.slice('/assets/'.length));
    const file = resolve(assets, rel);
    const type = CONTENT_TYPES[extname(file)];
    if (!type || !file.startsWith(assets + sep)) return c.notFound();
    try {
      if (!(await stat(file)).isFile()) return c.notFound();
      const body = new Uint8Array(await readFile(file));
      return c.body(body as Uint8Array<ArrayBuffer>, 200, {
        'Content-Type': type, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff',
      });
    } catch {
      return c.notFound();
    }
  });
}
