/**
 * The browser peer's Web Worker: the engine and the follower of src/peer run here, over an
 * IndexedDB cache of verified objects and the nameservice records last seen, so queries never
 * block the page and the peer reopens offline. SPARQL, JSON-LD, GraphQL and Cypher run here
 * (languages.ts); SPARQL results go back as text chunks as they are written, then a `done`
 * message naming the format. Streams (stream-records.ts) send NDJSON chunks, at most WINDOW ahead
 * of the page's acks, and `cancel` stops a query or stream in the engine.
 */
/// <reference lib="webworker" />
import { createStore, set, values } from 'idb-keyval';
import { isLedgraphError } from '../core/errors.js';
import { ledgerInfo } from '../core/ledger/info.js';
import type { NsRecord } from '../core/store.js';
import { openPeer, type Peer } from '../peer/open-peer.js';
import { IdbContentStore } from '../storage/indexeddb-store.js';
import { languageOf, ledgerAt, loadGraphLanguages, loadRdfWriters, peerSchemaSdl, runPeerQuery, type QueryAnswer } from './languages.js';
import type { WireError, WorkerMessage, WorkerRequest } from './protocol.js';
import { replicateLedger } from './replicate.js';
import { streamRecords } from './stream-records.js';

declare const self: DedicatedWorkerGlobalScope;

/** Stream chunks sent and not yet acknowledged by the page, at most. */
const WINDOW = 4;

/** A running request: its abort, and (streams) the chunks the page has not acknowledged. */
interface Run { ac: AbortController; unacked: number; wake: (() => void) | null }

let peer: Peer | null = null;
let ledger = '';
/** Queries and streams running, by request id. */
const running = new Map<number, Run>();

const post = (m: WorkerMessage) => self.postMessage(m);

function wireError(e: unknown): WireError {
  if (isLedgraphError(e)) return { message: e.message, status: e.status, type: e.type };
  return { message: e instanceof Error ? e.message : String(e) };
}

function open(m: Extract<WorkerRequest, { op: 'open' }>): Promise<{ ledger: string; t: number }> {
  const records = createStore(`${m.database}-peer-ns`, 'records');
  return values<NsRecord>(records).then(async (seed) => {
    ledger = m.ledger;
    const p = openPeer({
      api: m.api, cache: new IdbContentStore(m.database), storageToken: m.token, eventsToken: m.token,
      ledgers: [m.ledger], subscribeAll: false,
      // The S3 signer is loaded only when the server vends credentials.
      openDirectStore: m.directReads ? async (c) => new (await import('../peer/s3-fetch-reader.js')).FetchS3Reader(c) : null,
      records: { seed, save: (r) => { void set(r.ledger_id, r, records); } },
    });
    peer = p;
    // Kept ahead of queries (replicate.ts), one walk at a time; a change during a walk walks again.
    const held = new Set<string>();
    let walking: Promise<unknown> | null = null;
    let again = false;
    const keep = () => {
      if (walking) { again = true; return; }
      walking = replicateLedger(p.conn, m.ledger, m.replicate, held).catch(() => {}).finally(() => {
        walking = null;
        if (again && peer === p) { again = false; keep(); }
      });
    };
    p.follower.onChange((id, t) => { post({ id: 0, kind: 'change', ledger: id, t }); keep(); });
    const l = await p.conn.ledger(m.ledger);
    // A second later, so the walk's reads do not compete with the page's first query. The parts
    // loaded on first use (GraphQL, Cypher, the N-Quads writer) are fetched then too, so the page's
    // cache (HTTP cache, service worker) holds them before the network goes away.
    setTimeout(() => {
      if (peer !== p) return;
      keep();
      void loadGraphLanguages().catch(() => {});
      void loadRdfWriters().catch(() => {});
    }, 1000);
    return { ledger: l.id, t: l.t };
  });
}

function need(): Peer {
  if (!peer) throw new Error('the peer is not open');
  return peer;
}

function query(m: Extract<WorkerRequest, { op: 'query' }>, ac: AbortController): Promise<QueryAnswer> {
  return runPeerQuery(need().conn, ledgerAt(ledger, m.at), languageOf(m.query), ac.signal, (text) => post({ id: m.id, kind: 'chunk', text }));
}

async function stream(m: Extract<WorkerRequest, { op: 'stream' }>, run: Run): Promise<void> {
  for await (const text of streamRecords(need().conn, ledgerAt(ledger, m.at), languageOf(m.query), run.ac.signal)) {
    post({ id: m.id, kind: 'chunk', text });
    run.unacked++;
    // Pull-paced, as the server's stream is paced by its socket: the engine waits for the page.
    while (run.unacked >= WINDOW && !run.ac.signal.aborted) await new Promise<void>((ok) => { run.wake = ok; });
    if (run.ac.signal.aborted) return;
  }
}

/** Run a request that answers with `done` (or `error`), cancellable by its id. */
async function answer(m: WorkerRequest, work: (run: Run) => Promise<unknown>, answered = false): Promise<void> {
  const run: Run = { ac: new AbortController(), unacked: 0, wake: null };
  running.set(m.id, run);
  try {
    const out = await work(run);
    // A query's answer is already {result?, format?}; other requests answer a plain result.
    const done = answered ? out as QueryAnswer : out === undefined ? {} : { result: out };
    if (!run.ac.signal.aborted) post({ id: m.id, kind: 'done', ...done });
  } catch (e) {
    if (!run.ac.signal.aborted) post({ id: m.id, kind: 'error', error: wireError(e) });
  } finally {
    running.delete(m.id);
  }
}

self.onmessage = (ev: MessageEvent<WorkerRequest>) => {
  const m = ev.data;
  switch (m.op) {
    case 'ack': {
      const run = running.get(m.id);
      if (run) { run.unacked = Math.max(0, run.unacked - 1); run.wake?.(); run.wake = null; }
      return;
    }
    case 'cancel': {
      const run = running.get(m.id);
      if (run) { run.ac.abort(new Error('cancelled')); run.wake?.(); run.wake = null; }
      return;
    }
    case 'open': void answer(m, () => open(m)); return;
    case 'query': void answer(m, (run) => query(m, run.ac), true); return;
    case 'stream': void answer(m, (run) => stream(m, run)); return;
    case 'schema': void answer(m, () => peerSchemaSdl(need().conn, ledgerAt(ledger, m.at))); return;
    case 'info': void answer(m, async () => ledgerInfo(await need().conn.ledger(ledger))); return;
    case 'close':
      void answer(m, async () => {
        for (const [id, run] of running) if (id !== m.id) { run.ac.abort(new Error('closed')); run.wake?.(); }
        await peer?.close();
        peer = null;
      });
  }
};
