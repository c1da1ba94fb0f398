/**
 * Starting and stopping the HTTP server: check the storage path, open the engine over it, bind the
 * configured address with @hono/node-server, log one structured start line, and shut down
 * gracefully on SIGTERM/SIGINT (stop accepting, let in-flight requests and admitted writes finish,
 * close the Connection).
 */
import { setBodyThreadEnabled } from './body-thread.js';
import { getRequestListener } from '@hono/node-server';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { getHeapStatistics } from 'node:v8';
import { resolve, join } from 'node:path';
import { LedgraphError } from '../core/errors.js';
import { DEFAULT_EXPLORER_DIR, loadExplorer } from './explorer.js';
import { createApp, type DiscoveryFeatures, type RouteGroup } from './app.js';
import type { ServerConfig } from './config.js';
import type { Logger } from './log.js';
import { ledgerRouteGroups } from './routes/index.js';
import { closeServerState, createServerState, type ServerContext, type ServerState } from './server-context.js';
import { fastQueryListener } from './fast-query.js';
import { memoryWarnings } from './memory-plan.js';
import { memoryGuard } from './memory-guard.js';
import { createPeerState, peerRouteGroups } from './peer-role.js';

/** Collaborators of a running server. */
export interface ServerDeps {
  version: string;
  log: Logger;
  /** Endpoint groups mounted under api_base_url (see app.ts); built over the engine's Connection. */
  routes?: readonly RouteGroup[];
  /** Called once after the listener has closed (close the Connection, flush storage, ...). */
  onClose?: () => Promise<void>;
  /** Feature blocks added to the discovery document (see app.ts AppDeps). */
  discovery?: DiscoveryFeatures;
  /** Where the web explorer build lives (default web/dist of this checkout). */
  explorerDir?: string;
  /**
   * The engine behind the ledger routes, for the plain-query fast path (fast-query.ts); absent, or
   * `fastQueryPath: false`, every request goes through the app.
   */
  fastQuery?: Pick<ServerContext, 'config' | 'conn' | 'queryGate'>;
  /** Answer plain SPARQL queries on the raw request (default true; false: through the app, for comparisons). */
  fastQueryPath?: boolean;
}

/** A listening server. */
export interface RunningServer {
  /** Bound host and port (the real port when 0 was asked for). */
  host: string;
  port: number;
  /** Base URL, e.g. http://127.0.0.1:8090. */
  url: string;
  /** Stop accepting connections, let in-flight requests finish (up to `graceMs`; 0 drops them now), then run onClose. */
  close(graceMs?: number): Promise<void>;
}

const startupError = (msg: string) => new LedgraphError(400, 'err:db/BadRequest', msg);

/** Create the storage directory if needed and prove it is writable; throws a one-line error otherwise. */
export async function ensureWritableDir(path: string): Promise<string> {
  const abs = resolve(path);
  const probe = join(abs, `.ledgraph-write-probe-${process.pid}`);
  try {
    await mkdir(abs, { recursive: true });
    await writeFile(probe, 'ok');
    await unlink(probe);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
    throw startupError(`storage path ${path} is not writable (${code})`);
  }
  return abs;
}

function listenError(e: NodeJS.ErrnoException, host: string, port: number): LedgraphError {
  switch (e.code) {
    case 'EADDRINUSE': return startupError(`port ${port} is already in use`);
    case 'EACCES': return startupError(`permission denied to listen on port ${port}`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return startupError(`cannot listen on ${host}: address not available`);
    default: return startupError(`cannot listen on ${host}:${port}: ${e.code ?? e.message}`);
  }
}

function hostForUrl(host: string): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return h.includes(':') ? `[${h}]` : h;
}

/**
 * node:http timeouts from the config: idle keep-alive connections close after keepAliveTimeoutMs;
 * a connection that has not sent complete headers within headersTimeoutMs (a slowloris client) or
 * a whole request within requestTimeoutMs gets 408 and is closed. Node checks the last two on a
 * timer, so its interval follows the headers timeout (at most 1 s) instead of the default 30 s.
 */
export function connectionTimeouts(config: Pick<ServerConfig, 'keepAliveTimeoutMs' | 'headersTimeoutMs' | 'requestTimeoutMs'>) {
  return {
    keepAliveTimeout: config.keepAliveTimeoutMs,
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(config.headersTimeoutMs / 4))),
  };
}

/** Check storage, build the app and listen on the configured address. */
export async function startServer(config: ServerConfig, deps: ServerDeps): Promise<RunningServer> {
  const storagePath = config.memory ? null : await ensureWritableDir(config.storagePath);
  memoryGuard.start((used, limit) => deps.log.warn('memory pressure: stopping running queries, refusing new ones with 503', { heap_used: used, heap_size_limit: limit }));
  const explorer = config.explorerEnabled ? await loadExplorer(deps.explorerDir) : null;
  setBodyThreadEnabled(config.bodyThreadEnabled);
  const app = createApp(config, { version: deps.version, log: deps.log, routes: deps.routes, discovery: deps.discovery, explorer });
  // Hono compiles its route table on the first match; do it now rather than in the first request
  // (several ms, far more on a loaded box: it was part of a cold peer's first query).
  app.router.match('GET', '/');
  const timeouts = connectionTimeouts(config);
  const listener = getRequestListener(app.fetch);
  const fast = deps.fastQuery && deps.fastQueryPath !== false ? fastQueryListener(deps.fastQuery, deps.log, listener) : listener;
  const server = createServer(timeouts, fast);
  // Also as properties: not every Node 20 release reads keepAliveTimeout from the options.
  server.keepAliveTimeout = timeouts.keepAliveTimeout;
  server.headersTimeout = timeouts.headersTimeout;
  server.requestTimeout = timeouts.requestTimeout;

  await new Promise<void>((ok, fail) => {
    const onError = (e: NodeJS.ErrnoException) => fail(listenError(e, config.host, config.port));
    server.once('error', onError);
    server.listen(config.port, config.host, () => {
      server.off('error', onError);
      ok();
    });
  });
  server.on('error', (e) => deps.log.error('server error', { error: e.message }));

  const addr = server.address() as AddressInfo;
  const url = `http://${hostForUrl(addr.address)}:${addr.port}`;
  deps.log.info('ledgraph listening', {
    version: deps.version,
    url,
    listen_addr: `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`,
    api_base_url: config.apiBaseUrl,
    role: config.role,
    storage: config.memory ? 'memory' : 'file',
    storage_path: storagePath,
    nameservice: config.nameservice ? 'postgresql' : 'storage',
    content: config.storage ? 's3' : config.memory ? 'memory' : 'file',
    indexing_enabled: config.role !== 'peer' && config.indexingEnabled, // a peer never indexes
    cors_enabled: config.corsEnabled,
    explorer: !config.explorerEnabled ? 'disabled' : explorer ? `${url}/` : `not built (${deps.explorerDir ?? DEFAULT_EXPLORER_DIR} missing; run npm run build:web)`,
    pid: process.pid,
    memory_limit: config.memoryLimitBytes,
    heap_size_limit: getHeapStatistics().heap_size_limit,
  });

  let closing: Promise<void> | null = null;
  const close = (graceMs = 10_000): Promise<void> => {
    if (closing && graceMs <= 0) server.closeAllConnections();
    closing ??= (async () => {
      await new Promise<void>((ok) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        // Keep-alive connections that finish their in-flight request go idle after close() was
        // called; sweep them so shutdown does not wait for the client's keep-alive timeout.
        const sweep = setInterval(() => server.closeIdleConnections(), 25);
        sweep.unref();
        server.close(() => { clearTimeout(force); clearInterval(sweep); ok(); });
        server.closeIdleConnections();
      });
      if (deps.onClose) await deps.onClose();
    })();
    return closing;
  };
  return { host: addr.address, port: addr.port, url, close };
}

/** A running server with the ledger endpoints, and the engine state behind them. */
export interface LedgraphServer extends RunningServer {
  state: ServerState;
}

/**
 * Start the server: for the transaction role open the configured storage and Connection and mount
 * every endpoint group of routes/index.ts; for the peer role the follower's Connection, the read
 * groups and the forwarder (peer-role.ts). Plus `deps.routes`; the engine closes after the listener.
 */
export async function startLedgraphServer(config: ServerConfig, deps: ServerDeps): Promise<LedgraphServer> {
  if (!config.memory) await ensureWritableDir(config.storagePath);
  const peer = config.role === 'peer';
  const state = peer ? await createPeerState(config, deps.log) : await createServerState(config);
  const routes = [...(peer ? peerRouteGroups(state) : ledgerRouteGroups(state)), ...(deps.routes ?? [])];
  const onClose = async () => {
    await closeServerState(state);
    if (deps.onClose) await deps.onClose();
  };
  try {
    // The ledger routes include /push-merges (http-api.md §9.4).
    const discovery = peer ? deps.discovery : { push: { merged_commits: true }, ...deps.discovery };
    const running = await startServer(config, { ...deps, routes, onClose, ...(discovery ? { discovery } : {}), ...(peer ? {} : { fastQuery: { config, conn: state.conn, queryGate: state.queryGate } }) });
    // Event streams never finish by themselves: end them when shutdown starts, not after the grace period.
    const close = (graceMs?: number) => { state.events.close(); return running.close(graceMs); };
    return { ...running, close, state };
  } catch (e) {
    await closeServerState(state);
    throw e;
  }
}

/**
 * Start the server for the CLI: as startLedgraphServer, plus SIGTERM/SIGINT handling (first signal
 * closes gracefully and exits 0; a second one drops open connections at once).
 */
export async function runServer(config: ServerConfig, deps: ServerDeps): Promise<RunningServer> {
  // The handlers go in before the server listens: a signal sent as soon as the start line is out
  // (a supervisor, the launcher forwarding one) must stop it gracefully, not by default action.
  let running: RunningServer | null = null;
  let pending: NodeJS.Signals | null = null;
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!running) { pending ??= signal; return; }
    if (signalled) {
      deps.log.warn('second signal, dropping open connections', { signal });
      void running.close(0);
      return;
    }
    signalled = true;
    deps.log.info('shutting down', { signal });
    running.close().then(
      () => { deps.log.info('stopped'); process.exit(0); },
      (e: unknown) => { deps.log.error('shutdown failed', { error: e instanceof Error ? e.message : String(e) }); process.exit(1); },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    running = await startLedgraphServer(config, deps);
  } catch (e) {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    throw e;
  }
  for (const w of memoryWarnings(config, getHeapStatistics().heap_size_limit)) deps.log.warn(w);
  if (pending) onSignal(pending);
  // A rejected promise nobody awaited (a bug, e.g. work abandoned at a timeout) must not take the
  // whole server down: every write is already atomic through the nameservice compare-and-set, so
  // log it loudly and keep serving.
  process.on('unhandledRejection', (e: unknown) => {
    deps.log.error('unhandled rejection', { error: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined });
  });
  return running;
}
