/**
 * A real Ledgraph server for integration tests: the app factory on @hono/node-server, listening on
 * 127.0.0.1 with a free port, file storage in a fresh temp directory (removed on close).
 *
 *   const srv = await startTestServer();
 *   const r = await fetch(`${srv.api}/ledgers`);
 *   await srv.close();
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from '../../src/core/ledger/connection.js';
import type { RouteGroup } from '../../src/server/app.js';
import { defaultServerConfig, type ServerConfig } from '../../src/server/config.js';
import { createLogger, silentLogger, type Logger } from '../../src/server/log.js';
import { startLedgraphServer, type LedgraphServer } from '../../src/server/main.js';

export interface TestServer {
  /** Origin, e.g. http://127.0.0.1:41234. */
  url: string;
  /** `url` + api_base_url, e.g. http://127.0.0.1:41234/v1/ledgraph. */
  api: string;
  /** The engine behind the server (inspect or seed state directly). */
  conn: Connection;
  /** The storage directory. */
  dir: string;
  config: ServerConfig;
  server: LedgraphServer;
  /** Parsed log lines, when started with `captureLogs`. */
  logs: Record<string, unknown>[];
  /** Stop the server (graceful), close the engine and delete the storage directory. */
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Config overrides (host, port and storage path are set by the helper unless given here). */
  config?: Partial<ServerConfig>;
  /** Extra route groups mounted after the built-in ones. */
  routes?: RouteGroup[];
  /** Record log lines (at debug level) into `logs`. */
  captureLogs?: boolean;
  /** Answer plain SPARQL queries on the raw request (default true; see src/server/fast-query.ts). */
  fastQueryPath?: boolean;
}

/** Start a server on 127.0.0.1:0 over file storage in a new temp directory. */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ledgraph-http-'));
  const config: ServerConfig = { ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: dir, memory: false, ...opts.config };
  const logs: Record<string, unknown>[] = [];
  const log: Logger = opts.captureLogs
    ? createLogger('debug', (line) => { logs.push(JSON.parse(line) as Record<string, unknown>); })
    : silentLogger;
  let server: LedgraphServer;
  try {
    server = await startLedgraphServer(config, { version: 'test', log, routes: opts.routes, ...(opts.fastQueryPath === false ? { fastQueryPath: false } : {}) });
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    url: server.url,
    api: server.url + config.apiBaseUrl,
    conn: server.state.conn,
    dir,
    config,
    server,
    logs,
    async close() {
      try {
        await server.close(2000);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** POST a JSON body; returns the response. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** POST a text body with a content type; returns the response. */
export function postText(url: string, contentType: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'Content-Type': contentType, ...headers }, body });
}

/** Create a ledger through the API; throws unless 201. */
export async function createLedger(srv: TestServer, ledger: string): Promise<void> {
  const r = await postJson(`${srv.api}/create`, { ledger });
  if (r.status !== 201) throw new Error(`create ${ledger}: ${r.status} ${await r.text()}`);
}
