/**
 * The browser peer in the e2e bundle: `window.ledgraphBrowserPeer(opts)` opens one with its engine
 * in a Web Worker built by Vite from src/browser-peer/worker.ts.
 */
import { openBrowserPeer, type BrowserPeer, type BrowserPeerOptions } from '../src/browser-peer/client.js';

declare global {
  interface Window {
    ledgraphBrowserPeer: (opts: Omit<BrowserPeerOptions, 'worker'>) => Promise<BrowserPeer>;
  }
}

window.ledgraphBrowserPeer = (opts) =>
  openBrowserPeer({ ...opts, worker: new Worker(new URL('../src/browser-peer/worker.ts', import.meta.url), { type: 'module' }) });
