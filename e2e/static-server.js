/**
 * A read-only static file server on 127.0.0.1 (the e2e runner and the browser part of the peer
 * bench). Vite's content-hashed `/assets/*` are immutable for a year, as the transaction server
 * serves the explorer's (src/server/explorer.ts), so a reload takes them from the HTTP cache;
 * everything else (index.html, the unhashed library entry) is `no-store`.
 */
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.map': 'application/json', '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm', '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8',
};

/** Serve `dir` read-only on 127.0.0.1 (random port); resolves to { url, close }. */
export async function serveStatic(dir) {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const file = resolve(dir, '.' + (path.endsWith('/') ? path + 'index.html' : path));
      if (file !== dir && !file.startsWith(dir + sep)) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
      if (!(await stat(file)).isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOENT' });
      const body = await readFile(file);
      const cache = path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-store';
      res.writeHead(200, { 'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': cache });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (e) {
      const missing = e?.code === 'ENOENT' || e?.code === 'ENOTDIR' || e instanceof URIError;
      res.writeHead(missing ? 404 : 500, { 'Content-Type': 'text/plain' });
      res.end(missing ? 'not found' : 'error');
    }
  });
  await new Promise((ok, fail) => { server.once('error', fail); server.listen(0, '127.0.0.1', ok); });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((ok) => { server.close(() => ok()); server.closeAllConnections(); }),
  };
}
