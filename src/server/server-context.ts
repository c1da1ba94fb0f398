/**
 * What the ledger endpoints run over: the engine's Connection built from the ServerConfig (file
 * storage at --storage-path, or memory, with the nameservice optionally in PostgreSQL; the reindex thresholds; the indexing flag), the admission
 * control of writes (--max-in-flight) and of queries (--max-concurrent-queries), and the context
 * every route registrar receives.
 */
import type { Hono } from 'hono';
import { Connection } from '../core/ledger/connection.js';
import { setParseCacheBytes } from '../core/query/jsonld/service.js';
import type { AppEnv, RouteContext } from './app.js';
import type { ServerConfig } from './config.js';
import { EventsHub } from './events/hub.js';
import { openServerStorage } from './storage-open.js';
import { Admission, QueryGate } from './admission.js';
import { setTextBodyLimit } from './http-util.js';

export { Admission, QueryGate } from './admission.js';

/** The server-wide state the ledger endpoints share. */
export interface ServerState {
  conn: Connection;
  /** `storage_type` of `/stats`. */
  storageType: 'file' | 'memory';
  /** Process start of this server (ms since the epoch), for `uptime_secs`. */
  startedAt: number;
  admission: Admission;
  /** The cap on concurrently executing queries (--max-concurrent-queries). */
  queryGate: QueryGate;
  /** The `/events` fan-out of the nameservice change feed. */
  events: EventsHub;
  /** On a peer: the follower of the transaction server, stopped before the Connection closes. */
  peer?: { close(): Promise<void> };
}

/** What a registrar receives: the app's route context plus the server state. */
export type ServerContext = RouteContext & ServerState;

/** Registers one endpoint group under api_base_url (see routes/index.ts). */
export type Registrar = (api: Hono<AppEnv>, ctx: ServerContext) => void;

/** The Connection options a configuration sets (novelty thresholds, federation, cache budgets). */
export function connectionOptions(config: ServerConfig) {
  return {
    reindexMinBytes: config.reindexMinBytes,
    reindexMaxBytes: config.reindexMaxBytes,
    federation: { allow: config.federationAllow },
    leafCacheBytes: config.leafCacheBytes,
    termCacheBytes: config.termCacheBytes,
    commitCacheBytes: config.commitCacheBytes,
    maxLoadedLedgers: config.maxLoadedLedgers,
  };
}

/**
 * The server state over a Connection, for either role: write admission, the query gate, the
 * `/events` fan-out of its nameservice, and the parse-cache budget.
 */
export function serverStateOver(conn: Connection, config: ServerConfig): ServerState {
  setParseCacheBytes(config.parseCacheBytes);
  setTextBodyLimit(Math.floor(config.memoryLimitBytes / 32));
  return {
    conn, storageType: config.memory ? 'memory' : 'file', startedAt: Date.now(),
    admission: new Admission(config.maxInFlight),
    events: new EventsHub(conn.ns, { keepAliveMs: config.eventsKeepAliveMs, maxQueueBytes: config.eventsQueueBytes }),
    queryGate: new QueryGate(config.maxConcurrentQueries, config.queryQueueSize, config.queryQueueWaitMs),
  };
}

/** Open the configured storage and build the Connection and admission control over it. */
export async function createServerState(config: ServerConfig): Promise<ServerState> {
  const storage = await openServerStorage(config);
  const conn = new Connection(storage, { ...connectionOptions(config), indexingEnabled: config.indexingEnabled });
  return serverStateOver(conn, config);
}

/** Finish admitted writes, then close the Connection (waits for index jobs, closes storage). */
export async function closeServerState(state: ServerState): Promise<void> {
  state.events.close();
  await state.admission.close();
  if (state.peer) await state.peer.close(); // closes the Connection too
  else await state.conn.close();
}
