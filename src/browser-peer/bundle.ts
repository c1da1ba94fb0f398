/**
 * Entry of the browser peer build (`npm run build:peer`, Vite library mode → dist-peer/): the
 * page-side API with its Web Worker bundled beside it, so a page only imports this file.
 * Not compiled by tsc into dist/ (the worker URL names the TypeScript source for Vite).
 */
import { openBrowserPeer, type BrowserPeer, type BrowserPeerOptions } from './client.js';

export { openBrowserPeer, BrowserPeerError, type At, type BrowserPeer, type BrowserPeerOptions, type PeerQuery, type QueryOptions } from './client.js';

/** Open a browser peer of `opts.ledger` with the bundled worker (see client.ts for the API). */
export function openLedgerPeer(opts: Omit<BrowserPeerOptions, 'worker'>): Promise<BrowserPeer> {
  return openBrowserPeer({ ...opts, worker: new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' }) });
}
