/**
 * Vite build of the web explorer: web/index.html + web/src into web/dist, which the server serves at
 * `/` (src/server/explorer.ts). Built by `npm ci` (the prepare script) or `npm run build:web`.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  // public/sw.js (the offline service worker) is copied to the build root as is.
  publicDir: fileURLToPath(new URL('./public', import.meta.url)),
  logLevel: 'warn',
  // The peer-mode worker is an ES module worker, so the parts it loads on first use (GraphQL,
  // Cypher, the write side) are chunks of their own rather than inlined into its start.
  worker: { format: 'es' },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    // Rolldown's plugin-timing notice is noise on a shared, busy machine.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
});
