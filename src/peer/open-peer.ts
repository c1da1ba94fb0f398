/**
 * Assemble a peer: a read-only Connection over either the transaction server's own storage
 * (shared mode) or a local cache read through the storage proxy (proxy mode), and the follower that
 * keeps it current from `/events`. The Node server role and the browser peer both start here.
 */
import { Connection, type ConnectionOptions } from '../core/ledger/connection.js';
import type { ContentStore, NameService, NsRecord } from '../core/store.js';
import { DirectReader, type DirectStore } from './direct-reader.js';
import { PeerFollower, type PeerLog, type ProxyParts } from './follower.js';
import { PeerNameService } from './peer-ns.js';
import { ProxyClient, type VendedCredentials } from './proxy-client.js';
import { ProxyContentStore } from './proxy-store.js';

export interface PeerOptions {
  /** API base of the transaction server, e.g. http://tx:8090/v1/ledgraph. */
  api: string;
  /**
   * Shared mode: the transaction server's own storage (same directory or object store). Proxy
   * mode: `cache` only, and objects come through the storage proxy with `storageToken`.
   */
  shared?: { content: ContentStore; ns: NameService } | null;
  cache?: ContentStore | null;
  storageToken?: string | null;
  /**
   * Proxy mode: opens an object-store reader for credentials the transaction server vends
   * (`GET /storage/credentials`); objects are then read from the bucket first, through the proxy
   * when that fails. Without it (or when the server vends none) everything comes through the proxy.
   */
  openDirectStore?: ((creds: VendedCredentials) => DirectStore | Promise<DirectStore>) | null;
  /** Proxy mode: records persisted by an earlier run (offline reopen) and where to persist new ones. */
  records?: { seed: readonly NsRecord[]; save(rec: NsRecord): void } | null;
  /** Follow every ledger (`all=true`) or these ledgers (loaded at connect). */
  subscribeAll?: boolean;
  ledgers?: readonly string[];
  graphSources?: readonly string[];
  /** Events URL (default `<api>/events`) and token; `false` to follow nothing. */
  eventsUrl?: string | null | false;
  eventsToken?: string | null;
  connection?: ConnectionOptions;
  fetch?: typeof fetch;
  log?: PeerLog;
}

/** A running peer. */
export interface Peer {
  conn: Connection;
  follower: PeerFollower;
  /** The storage-proxy client (proxy mode), whose `stats` count what crossed the network. */
  client: ProxyClient | null;
  /** Direct object-store reads (proxy mode with `openDirectStore`), whose `stats` count them and the fallbacks. */
  direct: DirectReader | null;
  mode: 'shared' | 'proxy';
  close(): Promise<void>;
}

/** Build and start a peer. */
export function openPeer(opts: PeerOptions): Peer {
  const connOpts: ConnectionOptions = { ...opts.connection, indexingEnabled: false };
  let conn: Connection;
  let proxy: ProxyParts | null = null;
  if (opts.shared) {
    conn = new Connection(opts.shared, connOpts);
  } else {
    if (!opts.cache) throw new Error('openPeer: proxy mode needs a local cache store');
    const client = new ProxyClient({ api: opts.api, token: opts.storageToken ?? null, fetch: opts.fetch });
    const ns = new PeerNameService((id) => client.record(id), opts.records ? (r) => opts.records!.save(r) : undefined);
    if (opts.records) ns.seed(opts.records.seed);
    const followed = () => [...(opts.ledgers ?? []), ...[...nsIds].sort()];
    const nsIds = new Set<string>();
    ns.subscribe((c) => { nsIds.add(c.ledger_id); });
    const direct = opts.openDirectStore ? new DirectReader(client, opts.openDirectStore) : null;
    const store = new ProxyContentStore(opts.cache, client, followed, direct);
    proxy = { ns, store, client };
    conn = new Connection({ content: store, ns }, connOpts);
  }
  const all = opts.subscribeAll ?? !(opts.ledgers?.length || opts.graphSources?.length);
  const events = opts.eventsUrl === false ? null
    : { url: opts.eventsUrl || `${opts.api}/events`, token: opts.eventsToken ?? null, all, graphSources: opts.graphSources ?? [] };
  const follower = new PeerFollower({
    conn, proxy, events,
    ledgers: opts.ledgers ?? [], fetch: opts.fetch, log: opts.log,
  });
  if (proxy) proxy.ns.onMiss = (id) => follower.follow(id);
  follower.start();
  return {
    conn, follower, client: proxy?.client ?? null, direct: proxy?.store.direct ?? null, mode: proxy ? 'proxy' : 'shared',
    async close() {
      follower.close();
      await conn.close();
    },
  };
}
