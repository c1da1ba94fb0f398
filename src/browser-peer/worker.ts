/**
 * The browser peer's Web Worker: the engine and the follower of src/peer run here, over an
 * IndexedDB cache of verified objects and the nameservice records last seen, so queries never
 * block the page and the peer reopens offline. Query results go back to the page as they are
 * written (SPARQL JSON, or N-Quads for graphs, in text chunks), then a `done` message naming the format.
 */
/// <reference lib="webworker" />
import { createStore, set, values } from 'idb-keyval';
import { isLedgraphError } from '../core/errors.js';
import { runJsonLdQuery } from '../core/query/jsonld/service.js';
import { writeNQuads } from '../core/query/results/rdf-writers.js';
import { writeSparqlJson } from '../core/query/results/sparql-json.js';
import { runSparql } from '../core/query/sparql-service.js';
import type { NsRecord } from '../core/store.js';
import { openPeer, type Peer } from '../peer/open-peer.js';
import { FetchS3Reader } from '../peer/s3-fetch-reader.js';
import { IdbContentStore } from '../storage/indexeddb-store.js';
import type { WireError, WorkerMessage, WorkerRequest } from './protocol.js';

declare const self: DedicatedWorkerGlobalScope;

let peer: Peer | null = null;
let ledger = '';

const post = (m: WorkerMessage) => self.postMessage(m);

function wireError(e: unknown): WireError {
  if (isLedgraphError(e)) return { message: e.message, status: e.status, type: e.type };
  return { message: e instanceof Error ? e.message : String(e) };
}

async function open(m: Extract<WorkerRequest, { op: 'open' }>): Promise<unknown> {
  const records = createStore(`${m.database}-peer-ns`, 'records');
  const seed = await values<NsRecord>(records);
  ledger = m.ledger;
  peer = openPeer({
    api: m.api, cache: new IdbContentStore(m.database), storageToken: m.token, eventsToken: m.token,
    ledgers: [m.ledger], subscribeAll: false,
    openDirectStore: m.directReads ? (c) => new FetchS3Reader(c) : null,
    records: { seed, save: (r) => { void set(r.ledger_id, r, records); } },
  });
  peer.follower.onChange((id, t) => post({ id: 0, kind: 'change', ledger: id, t }));
  const l = await peer.conn.ledger(m.ledger);
  return { ledger: l.id, t: l.t };
}

async function query(m: Extract<WorkerRequest, { op: 'query' }>): Promise<void> {
  if (!peer) throw new Error('the peer is not open');
  const at = m.t === undefined ? undefined : { kind: 't' as const, t: m.t };
  if (typeof m.query === 'string') {
    const r = await runSparql(peer.conn, m.query, { ledger, ...(at ? { at } : {}) });
    // Solutions and booleans as SPARQL JSON; CONSTRUCT / DESCRIBE graphs as N-Quads.
    const graph = r.result.type === 'quads';
    for await (const text of graph ? writeNQuads(r.result) : writeSparqlJson(r.result)) post({ id: m.id, kind: 'chunk', text });
    post({ id: m.id, kind: 'done', result: { format: graph ? 'application/n-quads' : 'application/sparql-results+json' } });
    return;
  }
  const r = await runJsonLdQuery(peer.conn, m.query, { ledger, ...(at ? { at } : {}) });
  post({ id: m.id, kind: 'done', result: r.result });
}

self.onmessage = (ev: MessageEvent<WorkerRequest>) => {
  const m = ev.data;
  void (async () => {
    try {
      switch (m.op) {
        case 'open': post({ id: m.id, kind: 'done', result: await open(m) }); break;
        case 'query': await query(m); break;
        case 'close':
          await peer?.close();
          peer = null;
          post({ id: m.id, kind: 'done' });
          break;
      }
    } catch (e) {
      post({ id: m.id, kind: 'error', error: wireError(e) });
    }
  })();
};
