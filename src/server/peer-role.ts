/**
 * The `--role peer` server (replication.md §14): a read-only Connection kept current by the
 * follower of src/peer, the read endpoints over it, and the forwarder in front of everything else.
 * Storage mode: with a storage-proxy token the peer reads through the transaction server's storage
 * proxy into its own --storage-path (proxy mode; objects straight from the object store when the
 * transaction server vends credentials, GET /storage/credentials); without one it opens --storage-path as the
 * transaction server's own storage (shared mode).
 */
import { openPeer, type Peer } from '../peer/open-peer.js';
import { FileContentStore, MemoryContentStore } from '../storage/index.js';
import { storeWithVendedCredentials } from '../storage/s3-vend.js';
import { openServerStorage } from './storage-open.js';
import type { RouteGroup } from './app.js';
import type { ServerConfig } from './config.js';
import type { Logger } from './log.js';
import { ledgerRouteGroups } from './routes/index.js';
import { authRoutes } from './auth/index.js';
import { dataRoutes } from './routes/data.js';
import { diagnosticsRoutes } from './routes/diagnostics.js';
import { forwardRoutes } from './routes/forward.js';
import { multiQueryRoutes } from './routes/multi-query.js';
import { queryRoutes } from './routes/query.js';
import { queryAdmissionRoutes } from './routes/query-admission.js';
import { sparqlEndpointRoutes } from './routes/sparql-endpoint.js';
import { streamRoutes } from './routes/stream.js';
import { connectionOptions, serverStateOver, type Registrar, type ServerState } from './server-context.js';

/** The endpoint groups of a peer: the forwarder first, then the reads it answers itself. */
export const PEER_REGISTRARS: readonly Registrar[] = [
  forwardRoutes, authRoutes(), queryAdmissionRoutes, diagnosticsRoutes, dataRoutes, queryRoutes, sparqlEndpointRoutes, streamRoutes, multiQueryRoutes,
];

/**
 * The API base of the transaction server from its discovery document, else this server's own
 * api_base_url (the default of both is /v1/ledgraph).
 */
export async function txApiBase(txServerUrl: string, fallback: string): Promise<string> {
  try {
    const res = await fetch(`${txServerUrl}/.well-known/ledgraph.json`, { signal: AbortSignal.timeout(5000) });
    if (res.ok) {
      const doc = (await res.json()) as { api_base_url?: unknown };
      if (typeof doc.api_base_url === 'string' && doc.api_base_url.startsWith('/')) return txServerUrl + doc.api_base_url.replace(/\/+$/, '');
    }
  } catch { /* the transaction server is not up yet: assume its base is ours */ }
  return txServerUrl + fallback;
}

/** Open the peer's storage and follower, and the server state over its Connection. */
export async function createPeerState(config: ServerConfig, log: Logger): Promise<ServerState & { peer: Peer }> {
  const tx = config.txServerUrl!;
  const api = await txApiBase(tx, config.apiBaseUrl);
  const common = {
    api, subscribeAll: config.peerSubscribeAll || config.peerLedgers.length === 0,
    ledgers: config.peerLedgers, graphSources: config.peerGraphSources,
    eventsUrl: config.peerEventsUrl, eventsToken: config.peerEventsToken, log,
    connection: connectionOptions(config),
  };
  let peer: Peer;
  if (config.storageProxyToken) {
    // The cache can always be fetched again, so it is not fsynced.
    const cache = config.memory ? new MemoryContentStore() : await FileContentStore.open(config.storagePath, { durable: 'none' });
    // Objects come straight from the object store when the transaction server vends credentials, else through the proxy.
    peer = openPeer({ ...common, cache, storageToken: config.storageProxyToken, openDirectStore: storeWithVendedCredentials });
  } else {
    // Shared-storage mode: the transaction server's content directory and its nameservice (PostgreSQL when configured).
    peer = openPeer({ ...common, shared: await openServerStorage({ ...config, memory: false }) });
  }
  log.info('peer following', { tx_server_url: tx, api, mode: peer.mode, subscribe_all: common.subscribeAll, ledgers: config.peerLedgers });
  return { ...serverStateOver(peer.conn, config), peer };
}

/** The peer's route groups bound to its state. */
export function peerRouteGroups(state: ServerState): RouteGroup[] {
  return ledgerRouteGroups(state, PEER_REGISTRARS);
}
