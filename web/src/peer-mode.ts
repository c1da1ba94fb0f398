/**
 * "Open locally": a browser peer of one ledger (src/browser-peer) in a Web Worker over IndexedDB,
 * fed through the server's storage proxy and following /events. This module and the engine are a
 * separate chunk, loaded only when a person switches a ledger to the local replica. The replica
 * is remembered per ledger in localStorage, so a reload (even with the server gone) reopens it.
 */
import { openBrowserPeer, type BrowserPeer } from '../../src/browser-peer/client.js';

/** What the replica panel shows. */
export interface ReplicaState { ledger: string; localT: number; bytes: number }

/** A ledger's local replica. */
export interface Replica {
  readonly state: ReplicaState;
  /** SPARQL text or a JSON-LD query object at the head or at `t`. */
  query(q: string | Record<string, unknown>, t?: number): Promise<unknown>;
  close(): Promise<void>;
}

/** The IndexedDB database name of a ledger's replica. */
export function replicaDatabase(ledger: string): string {
  return `ledgraph-explorer:${ledger}`;
}

/** Open (or reopen from IndexedDB) the replica of `ledger`; `onState` follows local t and bytes. */
export async function openReplica(opts: { origin: string; apiBase: string; token: string | null; ledger: string; onState: (s: ReplicaState) => void }): Promise<Replica> {
  // Written inline so Vite recognises and bundles the worker (and the engine) as its own chunk.
  const worker = new Worker(new URL('./peer-worker.js', import.meta.url), { type: 'module' });
  const state: ReplicaState = { ledger: opts.ledger, localT: 0, bytes: 0 };
  worker.addEventListener('message', (ev: MessageEvent<{ id: number; kind: string; bytes?: number }>) => {
    if (ev.data.kind === 'bytes' && typeof ev.data.bytes === 'number') { state.bytes = ev.data.bytes; opts.onState({ ...state }); }
  });
  let peer: BrowserPeer;
  try {
    peer = await openBrowserPeer({ worker, url: opts.origin, apiBase: opts.apiBase, token: opts.token, ledger: opts.ledger, database: replicaDatabase(opts.ledger) });
  } catch (e) {
    worker.terminate();
    throw e;
  }
  state.localT = peer.opened.t;
  opts.onState({ ...state });
  peer.subscribe((c) => { if (c.ledger === peer.opened.ledger) { state.localT = c.t; opts.onState({ ...state }); } });
  return {
    state,
    query: (q, t) => peer.query(q, t === undefined ? {} : { t }),
    close: () => peer.close(),
  };
}
