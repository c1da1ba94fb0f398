/**
 * What the ledger endpoints run over: the engine's Connection built from the ServerConfig (file
 * storage at --storage-path, or memory; the reindex thresholds; the indexing flag), the admission
 * control of write operations (--max-in-flight), and the context every route registrar receives.
 */
import type { Hono } from 'hono';
import { LedgraphError, retryAfterSeconds } from '../core/errors.js';
import { Connection } from '../core/ledger/connection.js';
import { openFileStorage, openMemoryStorage } from '../storage/index.js';
import type { AppEnv, RouteContext } from './app.js';
import type { ServerConfig } from './config.js';
import { EventsHub } from './events/hub.js';

/**
 * Caps concurrently running write operations. Past the cap, or once shutdown began, a write is
 * refused with 503 err:system/InternalError and a jittered Retry-After instead of queueing, so an
 * overloaded server sheds load rather than piling up requests (http-api.md §7).
 */
export class Admission {
  private running = 0;
  private closing = false;
  private drained: (() => void) | null = null;

  constructor(readonly max: number) {}

  /** Operations admitted and not yet finished. */
  get inFlight(): number { return this.running; }

  /** Run `fn` as one admitted operation, or throw 503 when the cap is reached or the server is stopping. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closing) throw busy('the server is shutting down; retry against another instance or later');
    if (this.running >= this.max) throw busy(`too many write operations in flight (limit ${this.max}); retry later`);
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      if (this.running === 0 && this.drained) this.drained();
    }
  }

  /** Stop admitting; resolves when every admitted operation has finished. */
  close(): Promise<void> {
    this.closing = true;
    if (this.running === 0) return Promise.resolve();
    return new Promise((ok) => { this.drained = ok; });
  }
}

function busy(msg: string): LedgraphError {
  return new LedgraphError(503, 'err:system/InternalError', msg, { headers: { 'Retry-After': retryAfterSeconds() } });
}

/** The server-wide state the ledger endpoints share. */
export interface ServerState {
  conn: Connection;
  /** `storage_type` of `/stats`. */
  storageType: 'file' | 'memory';
  /** Process start of this server (ms since the epoch), for `uptime_secs`. */
  startedAt: number;
  admission: Admission;
  /** The `/events` fan-out of the nameservice change feed. */
  events: EventsHub;
  /** On a peer: the follower of the transaction server, stopped before the Connection closes. */
  peer?: { close(): Promise<void> };
}

/** What a registrar receives: the app's route context plus the server state. */
export type ServerContext = RouteContext & ServerState;

/** Registers one endpoint group under api_base_url (see routes/index.ts). */
export type Registrar = (api: Hono<AppEnv>, ctx: ServerContext) => void;

/** Open the configured storage and build the Connection and admission control over it. */
export async function createServerState(config: ServerConfig): Promise<ServerState> {
  const storage = config.memory ? openMemoryStorage() : await openFileStorage(config.storagePath);
  const conn = new Connection(storage, {
    reindexMinBytes: config.reindexMinBytes,
    reindexMaxBytes: config.reindexMaxBytes,
    indexingEnabled: config.indexingEnabled,
    federation: { allow: config.federationAllow },
  });
  const events = new EventsHub(storage.ns, { keepAliveMs: config.eventsKeepAliveMs });
  return { conn, storageType: config.memory ? 'memory' : 'file', startedAt: Date.now(), admission: new Admission(config.maxInFlight), events };
}

/** Finish admitted writes, then close the Connection (waits for index jobs, closes storage). */
export async function closeServerState(state: ServerState): Promise<void> {
  state.events.close();
  await state.admission.close();
  if (state.peer) await state.peer.close(); // closes the Connection too
  else await state.conn.close();
}
