/**
 * Vite build of the e2e browser bundle: e2e/index.html + e2e/browser-entry.ts (which imports
 * src/core and src/storage/indexeddb-store.ts) into e2e/dist. e2e/run.js builds it through Vite's
 * JS API; `npx vite build` does the same by hand.
 */
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: resolve(root, 'e2e'),
  base: './',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: resolve(root, 'e2e/dist'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    minify: false,
    reportCompressedSize: false,
    rollupOptions: { input: resolve(root, 'e2e/index.html') },
  },
});
