/**
 * The browser peer as a library (Vite library mode): src/browser-peer/bundle.ts → dist-peer/
 * ledgraph-peer.js plus its Web Worker chunk (engine, follower, IndexedDB cache). `npm run
 * build:peer`; the e2e run builds it into e2e/dist/peer and tests the page against that output.
 */
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  publicDir: false,
  logLevel: 'warn',
  base: './',
  worker: { format: 'es' },
  build: {
    outDir: process.env.LEDGRAPH_PEER_OUT_DIR ?? resolve(root, 'dist-peer'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    minify: true,
    reportCompressedSize: false,
    lib: { entry: resolve(root, 'src/browser-peer/bundle.ts'), formats: ['es'], fileName: () => 'ledgraph-peer.js' },
  },
});
