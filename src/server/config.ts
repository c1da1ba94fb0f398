/**
 * The `ledgraph server` configuration: one table of flags (each with its LEDGRAPH_* environment
 * equivalent, default and help text), the typed ServerConfig it produces, and the parser.
 * Precedence: command-line flag > environment variable > default.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LedgraphError } from '../core/errors.js';
import { DEFAULT_INPUT_LIMITS, MAX_SAFE_DEPTH, type InputLimits } from '../core/limits.js';
import { COMPRESS_MODES, type CompressMode } from '../storage/disk-codec.js';
import { DEFAULT_MEMORY_LIMIT, memoryPlan, parseByteSize, parseMemoryLimit } from './memory-plan.js';

export { parseByteSize };

export type AuthMode = 'none' | 'optional' | 'required';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type ServerRole = 'transaction' | 'peer';

/** An OIDC issuer whose RS256 tokens are verified against its JWKS endpoint. */
export interface JwksIssuer { issuer: string; url: string }

/** Everything `ledgraph server` is configured with; the input limits are docs/limits.md's. */
export interface ServerConfig extends InputLimits {
  /** Interface to bind (from --listen-addr). */
  host: string;
  /** TCP port (from --listen-addr or --port); 0 picks a free port. */
  port: number;
  /** Directory of the file storage (ignored with `memory`). */
  storagePath: string;
  /** Keep everything in memory; nothing is written to disk. */
  memory: boolean;
  /** Path prefix the API is mounted at (no trailing slash). */
  apiBaseUrl: string;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Default query timeout in milliseconds; 0 disables it. */
  queryTimeoutMs: number;
  /** Novelty size that triggers background indexing. */
  reindexMinBytes: number;
  /** Novelty size at which writes are refused until indexing catches up. */
  reindexMaxBytes: number;
  /** Whether the background indexer runs. */
  indexingEnabled: boolean;
  /** Heartbeat interval of streaming responses; 0 disables it. */
  streamHeartbeatMs: number;
  /** Built-in CORS (any origin) on or off. */
  corsEnabled: boolean;
  logLevel: LogLevel;
  /** Cap on concurrently admitted write operations (503 beyond it). */
  maxInFlight: number;
  dataAuthMode: AuthMode;
  dataAuthTrustedIssuers: string[];
  adminAuthMode: AuthMode;
  adminAuthTrustedIssuers: string[];
  eventsAuthMode: AuthMode;
  eventsAuthTrustedIssuers: string[];
  eventsAuthAudience: string | null;
  /** Storage proxy (/storage/*), /commits and /pack answer (else 404). */
  storageProxyEnabled: boolean;
  storageProxyTrustedIssuers: string[];
  /** Interval of `: keep-alive` comments on `/events` streams (ms). */
  eventsKeepAliveMs: number;
  /** Identity for leaf filtering when the storage token carries no `ledgraph.identity`. */
  storageProxyDefaultIdentity: string | null;
  /** Policy class for leaf filtering on `/storage/block`. */
  storageProxyDefaultPolicyClass: string | null;
  /** Add `Ledgraph-Block-Type` / `Ledgraph-Policy-Applied` to `/storage/block` answers. */
  storageProxyDebugHeaders: boolean;
  jwksIssuers: JwksIssuer[];
  role: ServerRole;
  /** The transaction server a peer follows (required for role `peer`). */
  txServerUrl: string | null;
  /** Policy class applied when a request names none. */
  defaultPolicyClass: string | null;
  /** URL prefixes SPARQL SERVICE and LOAD may reach (empty: federation and LOAD <url> are off). */
  federationAllow: string[];
  /** Peer: follow every ledger of the transaction server (the default when no --peer-ledger is given). */
  peerSubscribeAll: boolean;
  /** Peer: ledgers to follow and preload. */
  peerLedgers: string[];
  /** Peer: graph sources to subscribe to. */
  peerGraphSources: string[];
  /** Peer: the /events URL (default: the transaction server's api base + /events). */
  peerEventsUrl: string | null;
  /** Peer: bearer token for /events (a value, or read from @file). */
  peerEventsToken: string | null;
  /** Peer: bearer token for the storage proxy; set means proxy storage mode. */
  storageProxyToken: string | null;
  /** Cap on concurrently executing queries (503 beyond it and a full queue). */
  maxConcurrentQueries: number;
  /** Queries that may wait for a permit past the cap (0: refuse at once). */
  queryQueueSize: number;
  /** Longest wait of a queued query before 503 (ms). */
  queryQueueWaitMs: number;
  /** Longest wait of a write in its ledger's queue before it starts staging; past it 503 (ms; 0: no bound). */
  writeQueueWaitMs: number;
  /** Idle keep-alive connections are closed after this long (ms). */
  keepAliveTimeoutMs: number;
  /** A connection must send complete request headers within this long (ms). */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must arrive within this long (ms; 0 disables). */
  requestTimeoutMs: number;
  /** The total memory the server is sized for (--memory-limit): cache budgets and V8's heap follow from it (memory-plan.ts). */
  memoryLimitBytes: number;
  /** Bytes of decoded index leaves cached (shared by every ledger). */
  leafCacheBytes: number;
  /** Ledgers kept loaded; past it the least recently used idle ones are unloaded. */
  maxLoadedLedgers: number;
  /** Bytes of decoded dictionary terms cached per ledger. */
  termCacheBytes: number;
  /** Bytes of commit envelopes cached for commit-graph walks (--commit-cache-bytes). */
  commitCacheBytes: number;
  /** Bytes of remembered push responses (Idempotency-Key). */
  idempotencyCacheBytes: number;
  /** Queued, unsent bytes per /events subscriber before it is cut off. */
  eventsQueueBytes: number;
  /** Bytes of parsed JSON-LD queries and processed contexts cached. */
  parseCacheBytes: number;
  /** Serve the web explorer (web/dist) at `/`. */
  explorerEnabled: boolean;
  /** Read large N-Triples request bodies on reading threads (server/body-thread.ts). */
  bodyThreadEnabled: boolean;
  /** Which object files of a file store are deflated (src/storage/disk-codec.ts). */
  storageCompress: CompressMode;
  /** PostgreSQL connection string of the nameservice; null keeps it with the storage (file or memory). */
  nameservice: string | null;
  /** PostgreSQL schema of the nameservice tables. */
  nameserviceSchema: string;
  /** `s3://bucket/prefix` of the content store; null keeps content at --storage-path (or memory). */
  storage: string | null;
  /** S3 endpoint URL (S3-compatible stores); null = AWS for the region. */
  s3Endpoint: string | null;
  s3Region: string;
  /** Address buckets by path (`endpoint/bucket/key`), as most S3-compatible stores need. */
  s3ForcePathStyle: boolean;
  /** Serve `GET /storage/credentials` (STS AssumeRole scoped to the content prefix); needs --storage s3://. */
  storageVendEnabled: boolean;
  /** The IAM role vended credentials assume. */
  storageVendRoleArn: string | null;
  /** Lifetime of vended credentials in seconds (900–43200). */
  storageVendTtlSecs: number;
  /** STS endpoint for vending (an S3-compatible store's); null = AWS STS of --s3-region. */
  storageVendStsEndpoint: string | null;
  /** Lay S3 content out per ledger (`<prefix><ledger>/<CID>`), so vended credentials cover one ledger. */
  s3LedgerPrefixes: boolean;
}

/** The defaults of every setting. */
export function defaultServerConfig(): ServerConfig {
  return {
    host: '127.0.0.1',
    port: 8090,
    storagePath: './data',
    memory: false,
    apiBaseUrl: '/v1/ledgraph',
    bodyLimit: 100 * 1024 * 1024,
    queryTimeoutMs: 60_000,
    reindexMinBytes: 100_000,
    reindexMaxBytes: 1_000_000,
    indexingEnabled: true,
    streamHeartbeatMs: 15_000,
    corsEnabled: false,
    logLevel: 'info',
    maxInFlight: 128,
    dataAuthMode: 'none',
    dataAuthTrustedIssuers: [],
    adminAuthMode: 'none',
    adminAuthTrustedIssuers: [],
    eventsAuthMode: 'none',
    eventsAuthTrustedIssuers: [],
    eventsAuthAudience: null,
    storageProxyEnabled: false,
    storageProxyTrustedIssuers: [],
    eventsKeepAliveMs: 30_000,
    storageProxyDefaultIdentity: null,
    storageProxyDefaultPolicyClass: null,
    storageProxyDebugHeaders: false,
    jwksIssuers: [],
    role: 'transaction',
    txServerUrl: null,
    defaultPolicyClass: null,
    federationAllow: [],
    peerSubscribeAll: false,
    peerLedgers: [],
    peerGraphSources: [],
    peerEventsUrl: null,
    peerEventsToken: null,
    storageProxyToken: null,
    maxConcurrentQueries: 32,
    queryQueueSize: 64,
    queryQueueWaitMs: 2_000,
    writeQueueWaitMs: 10_000,
    keepAliveTimeoutMs: 5_000,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 300_000,
    memoryLimitBytes: DEFAULT_MEMORY_LIMIT,
    ...cacheBudgets(DEFAULT_MEMORY_LIMIT),
    eventsQueueBytes: 1024 * 1024,
    explorerEnabled: true,
    bodyThreadEnabled: true,
    storageCompress: 'fast',
    nameservice: null,
    nameserviceSchema: 'ledgraph',
    storage: null,
    s3Endpoint: null,
    s3Region: 'us-east-1',
    s3ForcePathStyle: false,
    storageVendEnabled: false,
    storageVendRoleArn: null,
    storageVendTtlSecs: 900,
    storageVendStsEndpoint: null,
    s3LedgerPrefixes: false,
    ...DEFAULT_INPUT_LIMITS,
  };
}

/** The flags whose budget --memory-limit derives unless given themselves. */
const DERIVED_BUDGETS = ['leafCacheBytes', 'termCacheBytes', 'commitCacheBytes', 'parseCacheBytes', 'idempotencyCacheBytes', 'maxLoadedLedgers'] as const;
type BudgetKey = (typeof DERIVED_BUDGETS)[number];

/** The cache budgets a total memory limit gives (memory-plan.ts). */
export function cacheBudgets(total: number): Pick<ServerConfig, BudgetKey> {
  const p = memoryPlan(total);
  return {
    leafCacheBytes: p.leafCacheBytes, termCacheBytes: p.termCacheBytes, commitCacheBytes: p.commitCacheBytes,
    parseCacheBytes: p.parseCacheBytes, idempotencyCacheBytes: p.idempotencyCacheBytes, maxLoadedLedgers: p.maxLoadedLedgers,
  };
}

/** The input limits (src/core/limits.ts) a configuration sets. */
export function inputLimitsOf(cfg: ServerConfig): InputLimits {
  return {
    maxNestingDepth: cfg.maxNestingDepth, maxQueryBytes: cfg.maxQueryBytes, maxTriplePatterns: cfg.maxTriplePatterns, maxQueryOperators: cfg.maxQueryOperators,
    maxJsonDepth: cfg.maxJsonDepth, maxLiteralBytes: cfg.maxLiteralBytes, maxLedgerNameLength: cfg.maxLedgerNameLength,
  };
}

/** One row of the flag table. */
export interface FlagDef {
  /** Long flag name without the leading `--`. */
  name: string;
  /** Environment variable equivalent (list flags take a comma-separated list). */
  env: string;
  /** `boolean` flags take no value (`--x`, `--no-x`, `--x=false`); others take one. */
  type: 'boolean' | 'string';
  /** Repeatable flag; its values replace (not extend) the environment's list. */
  multiple: boolean;
  /** Placeholder of the value in --help. */
  arg: string;
  /** Default as shown in --help and the README. */
  default: string;
  help: string;
  /** Parse one raw value (`where` names its source for error messages) and store it. */
  apply(cfg: ServerConfig, raw: string | string[], where: string): void;
}

const bad = (msg: string) => new LedgraphError(400, 'err:db/BadRequest', msg);

/** A non-negative decimal integer within [min, max]. */
export function parseIntValue(raw: string, where: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const s = raw.trim().replace(/_/g, '');
  if (!/^\d+$/.test(s)) throw bad(`invalid value for ${where}: "${raw}" (expected an integer)`);
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw bad(`invalid value for ${where}: "${raw}" (expected an integer from ${min} to ${max})`);
  }
  return n;
}

/** A boolean written as true/false, 1/0, yes/no or on/off. */
export function parseBool(raw: string, where: string): boolean {
  const s = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off'].includes(s)) return false;
  throw bad(`invalid value for ${where}: "${raw}" (expected true or false)`);
}

function parseEnum<T extends string>(choices: readonly T[]) {
  return (raw: string, where: string): T => {
    const s = raw.trim().toLowerCase();
    const hit = choices.find((c) => c === s);
    if (!hit) throw bad(`invalid value for ${where}: "${raw}" (expected one of ${choices.join(', ')})`);
    return hit;
  };
}

function parseHttpUrl(raw: string, where: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw bad(`invalid value for ${where}: "${raw}" (expected an http(s) URL)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw bad(`invalid value for ${where}: "${raw}" (expected an http(s) URL)`);
  }
  return u.href.replace(/\/+$/, '');
}

function parseNonEmpty(raw: string, where: string): string {
  const s = raw.trim();
  if (!s) throw bad(`invalid value for ${where}: value is empty`);
  return s;
}

/** A token given inline, or `@file` to read it (trimmed) from a file. */
export function tokenValue(raw: string, where: string): string {
  const s = raw.trim();
  if (!s.startsWith('@')) return parseNonEmpty(s, where);
  let text: string;
  try {
    text = readFileSync(s.slice(1), 'utf8');
  } catch (e) {
    throw bad(`invalid value for ${where}: cannot read token file ${s.slice(1)} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  return parseNonEmpty(text, `${where} (file ${s.slice(1)})`);
}

/** `host:port`, `[ipv6]:port`, or `:port` (all interfaces). */
export function parseListenAddr(raw: string, where: string): { host: string; port: number } {
  const s = raw.trim();
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]*)):(\d+)$/.exec(s);
  if (!m) throw bad(`invalid value for ${where}: "${raw}" (expected host:port, e.g. 127.0.0.1:8090)`);
  const host = m[1] ?? (m[2] || '0.0.0.0');
  return { host, port: parseIntValue(m[3]!, where, 0, 65535) };
}

/** An absolute URL path such as `/v1/ledgraph` (a trailing slash is dropped). */
export function parseApiBaseUrl(raw: string, where: string): string {
  const s = raw.trim().replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)+$/.test(s)) {
    throw bad(`invalid value for ${where}: "${raw}" (expected a path such as /v1/ledgraph)`);
  }
  return s;
}

/** `issuer=https://issuer.example/.well-known/jwks.json`. */
export function parseJwksIssuer(raw: string, where: string): JwksIssuer {
  const i = raw.indexOf('=');
  const issuer = i > 0 ? raw.slice(0, i).trim() : '';
  if (!issuer) throw bad(`invalid value for ${where}: "${raw}" (expected issuer=jwks-url)`);
  return { issuer, url: parseHttpUrl(raw.slice(i + 1), where) };
}

type Key = keyof ServerConfig;

function single(raw: string | string[]): string {
  return Array.isArray(raw) ? raw[raw.length - 1]! : raw;
}
function many(raw: string | string[]): string[] {
  const parts = Array.isArray(raw) ? raw : raw.split(',');
  return parts.map((s) => s.trim()).filter((s) => s !== '');
}

function valueFlag<K extends Key>(
  name: string, env: string, arg: string, key: K, parse: (raw: string, where: string) => ServerConfig[K],
  dflt: string, help: string,
): FlagDef {
  return {
    name, env, type: 'string', multiple: false, arg, default: dflt, help,
    apply(cfg, raw, where) { cfg[key] = parse(single(raw), where); },
  };
}

type BoolKey = { [P in Key]: ServerConfig[P] extends boolean ? P : never }[Key];

function boolFlag(name: string, env: string, key: BoolKey, dflt: boolean, help: string): FlagDef {
  return {
    name, env, type: 'boolean', multiple: false, arg: '', default: String(dflt), help,
    apply(cfg, raw, where) { cfg[key] = parseBool(single(raw), where); },
  };
}

function listFlag<K extends Key>(
  name: string, env: string, arg: string, key: K, parse: (raw: string, where: string) => ServerConfig[K] extends (infer E)[] ? E : never,
  help: string,
): FlagDef {
  return {
    name, env, type: 'string', multiple: true, arg, default: '(none)', help: help + ' (repeatable)',
    apply(cfg, raw, where) { (cfg[key] as unknown[]) = many(raw).map((v) => parse(v, where)); },
  };
}

const authModes = parseEnum(['none', 'optional', 'required'] as const);
const compressModes = parseEnum(COMPRESS_MODES);
const nullable = (p: (raw: string, where: string) => string) => (raw: string, where: string): string | null => p(raw, where);

/** The flag table of `ledgraph server`, in --help order. */
export const SERVER_FLAGS: readonly FlagDef[] = [
  {
    name: 'listen-addr', env: 'LEDGRAPH_LISTEN_ADDR', type: 'string', multiple: false, arg: '<host:port>',
    default: '127.0.0.1:8090', help: 'Address and port to listen on',
    apply(cfg, raw, where) { Object.assign(cfg, parseListenAddr(single(raw), where)); },
  },
  valueFlag('port', 'LEDGRAPH_PORT', '<n>', 'port', (r, w) => parseIntValue(r, w, 0, 65535), '8090',
    'Port to listen on (overrides the port of --listen-addr; 0 picks a free port)'),
  valueFlag('storage-path', 'LEDGRAPH_STORAGE_PATH', '<dir>', 'storagePath', parseNonEmpty, './data',
    'Directory of the file storage (created when missing)'),
  boolFlag('memory', 'LEDGRAPH_MEMORY', 'memory', false, 'Keep all data in memory instead of --storage-path'),
  valueFlag('api-base-url', 'LEDGRAPH_API_BASE_URL', '<path>', 'apiBaseUrl', parseApiBaseUrl, '/v1/ledgraph',
    'Path prefix the API is mounted at'),
  valueFlag('body-limit', 'LEDGRAPH_BODY_LIMIT', '<bytes>', 'bodyLimit', parseByteSize, '100MiB',
    'Largest accepted request body (bytes, or with a unit: KB, MB, GB, KiB, MiB, GiB)'),
  valueFlag('query-timeout-ms', 'LEDGRAPH_QUERY_TIMEOUT_MS', '<ms>', 'queryTimeoutMs', (r, w) => parseIntValue(r, w), '60000',
    'Default query timeout in milliseconds (0 disables it)'),
  valueFlag('reindex-min-bytes', 'LEDGRAPH_REINDEX_MIN_BYTES', '<bytes>', 'reindexMinBytes', parseByteSize, '100000',
    'Novelty size that triggers background indexing'),
  valueFlag('reindex-max-bytes', 'LEDGRAPH_REINDEX_MAX_BYTES', '<bytes>', 'reindexMaxBytes', parseByteSize, '1000000',
    'Novelty size at which writes are refused (503) until indexing catches up'),
  boolFlag('indexing-enabled', 'LEDGRAPH_INDEXING_ENABLED', 'indexingEnabled', true,
    'Run the background indexer (--no-indexing-enabled to turn it off)'),
  valueFlag('stream-heartbeat-ms', 'LEDGRAPH_STREAM_HEARTBEAT_MS', '<ms>', 'streamHeartbeatMs', (r, w) => parseIntValue(r, w), '15000',
    'Heartbeat interval of streaming responses (0 disables it)'),
  boolFlag('cors-enabled', 'LEDGRAPH_CORS_ENABLED', 'corsEnabled', false, 'Answer CORS requests from any origin'),
  valueFlag('log-level', 'LEDGRAPH_LOG_LEVEL', '<level>', 'logLevel', parseEnum(['debug', 'info', 'warn', 'error'] as const), 'info',
    'Log level: debug, info, warn or error'),
  valueFlag('max-in-flight', 'LEDGRAPH_MAX_IN_FLIGHT', '<n>', 'maxInFlight', (r, w) => parseIntValue(r, w, 1), '128',
    'Cap on concurrently admitted write operations (503 beyond it)'),
  valueFlag('data-auth-mode', 'LEDGRAPH_DATA_AUTH_MODE', '<mode>', 'dataAuthMode', authModes, 'none',
    'Auth of data endpoints: none, optional or required'),
  listFlag('data-auth-trusted-issuer', 'LEDGRAPH_DATA_AUTH_TRUSTED_ISSUERS', '<did:key>', 'dataAuthTrustedIssuers', parseNonEmpty,
    'Issuer trusted for data endpoint tokens'),
  valueFlag('admin-auth-mode', 'LEDGRAPH_ADMIN_AUTH_MODE', '<mode>', 'adminAuthMode', authModes, 'none',
    'Auth of admin endpoints (create, drop, ...): none, optional or required'),
  listFlag('admin-auth-trusted-issuer', 'LEDGRAPH_ADMIN_AUTH_TRUSTED_ISSUERS', '<did:key>', 'adminAuthTrustedIssuers', parseNonEmpty,
    'Issuer trusted for admin tokens'),
  valueFlag('events-auth-mode', 'LEDGRAPH_EVENTS_AUTH_MODE', '<mode>', 'eventsAuthMode', authModes, 'none',
    'Auth of the /events stream: none, optional or required'),
  listFlag('events-auth-trusted-issuer', 'LEDGRAPH_EVENTS_AUTH_TRUSTED_ISSUERS', '<did:key>', 'eventsAuthTrustedIssuers', parseNonEmpty,
    'Issuer trusted for /events tokens'),
  valueFlag('events-auth-audience', 'LEDGRAPH_EVENTS_AUTH_AUDIENCE', '<aud>', 'eventsAuthAudience', nullable(parseNonEmpty), '(none)',
    'Audience required in /events tokens'),
  boolFlag('storage-proxy-enabled', 'LEDGRAPH_STORAGE_PROXY_ENABLED', 'storageProxyEnabled', false,
    'Serve the storage proxy (/storage/*), GET /commits and POST /pack (storage-claim tokens required)'),
  listFlag('storage-proxy-trusted-issuer', 'LEDGRAPH_STORAGE_PROXY_TRUSTED_ISSUERS', '<did:key>', 'storageProxyTrustedIssuers', parseNonEmpty,
    'Issuer trusted for storage proxy tokens'),
  valueFlag('events-keep-alive-ms', 'LEDGRAPH_EVENTS_KEEP_ALIVE_MS', '<ms>', 'eventsKeepAliveMs', (r, w) => parseIntValue(r, w, 1), '30000',
    'Interval of keep-alive comments on /events streams'),
  valueFlag('storage-proxy-default-identity', 'LEDGRAPH_STORAGE_PROXY_DEFAULT_IDENTITY', '<iri>', 'storageProxyDefaultIdentity', nullable(parseNonEmpty), '(none)',
    'Identity for /storage/block leaf filtering when the token carries none'),
  valueFlag('storage-proxy-default-policy-class', 'LEDGRAPH_STORAGE_PROXY_DEFAULT_POLICY_CLASS', '<iri>', 'storageProxyDefaultPolicyClass', nullable(parseNonEmpty), '(none)',
    'Policy class for /storage/block leaf filtering'),
  boolFlag('storage-proxy-debug-headers', 'LEDGRAPH_STORAGE_PROXY_DEBUG_HEADERS', 'storageProxyDebugHeaders', false,
    'Debug only: add Ledgraph-Block-Type and Ledgraph-Policy-Applied to /storage/block answers'),
  listFlag('jwks-issuer', 'LEDGRAPH_JWKS_ISSUERS', '<issuer=url>', 'jwksIssuers', parseJwksIssuer,
    'OIDC issuer and its JWKS URL, for RS256 tokens'),
  valueFlag('role', 'LEDGRAPH_ROLE', '<role>', 'role', parseEnum(['transaction', 'peer'] as const), 'transaction',
    'Server role: transaction (read-write) or peer (read-only follower)'),
  valueFlag('tx-server-url', 'LEDGRAPH_TX_SERVER_URL', '<url>', 'txServerUrl', nullable(parseHttpUrl), '(none)',
    'Transaction server a peer follows (required with --role peer)'),
  valueFlag('default-policy-class', 'LEDGRAPH_DEFAULT_POLICY_CLASS', '<iri>', 'defaultPolicyClass', nullable(parseNonEmpty), '(none)',
    'Policy class applied when a request names none'),
  listFlag('federation-allow', 'LEDGRAPH_FEDERATION_ALLOW', '<url-prefix>', 'federationAllow', parseHttpUrl,
    'URL prefix SPARQL SERVICE and LOAD <url> may reach; without any, both are off'),
  valueFlag('max-nesting-depth', 'LEDGRAPH_MAX_NESTING_DEPTH', '<n>', 'maxNestingDepth', (r, w) => parseIntValue(r, w, 1, MAX_SAFE_DEPTH),
    String(DEFAULT_INPUT_LIMITS.maxNestingDepth), `Deepest nesting of { } ( ) [ ] in SPARQL text and of RDF/XML elements (400 beyond it; at most ${MAX_SAFE_DEPTH})`),
  valueFlag('max-query-bytes', 'LEDGRAPH_MAX_QUERY_BYTES', '<bytes>', 'maxQueryBytes', parseByteSize, '1MiB',
    'Longest query text (SPARQL or JSON-LD query; 413 beyond it)'),
  valueFlag('max-triple-patterns', 'LEDGRAPH_MAX_TRIPLE_PATTERNS', '<n>', 'maxTriplePatterns', (r, w) => parseIntValue(r, w, 1),
    String(DEFAULT_INPUT_LIMITS.maxTriplePatterns), 'Most triple patterns in one query or update WHERE (400 beyond it)'),
  valueFlag('max-query-operators', 'LEDGRAPH_MAX_QUERY_OPERATORS', '<n>', 'maxQueryOperators', (r, w) => parseIntValue(r, w, 1),
    String(DEFAULT_INPUT_LIMITS.maxQueryOperators), 'Most operators (joins, UNION branches, BINDs, filters…) in one query or update WHERE (400 beyond it)'),
  valueFlag('max-json-depth', 'LEDGRAPH_MAX_JSON_DEPTH', '<n>', 'maxJsonDepth', (r, w) => parseIntValue(r, w, 1, MAX_SAFE_DEPTH),
    String(DEFAULT_INPUT_LIMITS.maxJsonDepth), `Deepest array/object nesting of a JSON body (400 beyond it; at most ${MAX_SAFE_DEPTH})`),
  valueFlag('max-literal-bytes', 'LEDGRAPH_MAX_LITERAL_BYTES', '<bytes>', 'maxLiteralBytes', parseByteSize, '1MiB',
    'Largest literal a write may assert (413 beyond it)'),
  valueFlag('max-ledger-name-length', 'LEDGRAPH_MAX_LEDGER_NAME_LENGTH', '<n>', 'maxLedgerNameLength', (r, w) => parseIntValue(r, w, 1, 200),
    String(DEFAULT_INPUT_LIMITS.maxLedgerNameLength), 'Longest ledger name and branch name in characters (400 beyond it; at most 200)'),
  boolFlag('peer-subscribe-all', 'LEDGRAPH_PEER_SUBSCRIBE_ALL', 'peerSubscribeAll', false,
    'Peer: follow every ledger of the transaction server (the default without --peer-ledger)'),
  listFlag('peer-ledger', 'LEDGRAPH_PEER_LEDGERS', '<ledger>', 'peerLedgers', parseNonEmpty,
    'Peer: a ledger to follow and preload'),
  listFlag('peer-graph-source', 'LEDGRAPH_PEER_GRAPH_SOURCES', '<id>', 'peerGraphSources', parseNonEmpty,
    'Peer: a graph source to subscribe to'),
  valueFlag('peer-events-url', 'LEDGRAPH_PEER_EVENTS_URL', '<url>', 'peerEventsUrl', nullable(parseHttpUrl), '(none)',
    'Peer: the /events stream to follow (default: the transaction server\'s API base + /events)'),
  valueFlag('peer-events-token', 'LEDGRAPH_PEER_EVENTS_TOKEN', '<token|@file>', 'peerEventsToken', nullable(tokenValue), '(none)',
    'Peer: bearer token for /events, or @file to read it from a file'),
  valueFlag('storage-proxy-token', 'LEDGRAPH_STORAGE_PROXY_TOKEN', '<token>', 'storageProxyToken', nullable(tokenValue), '(none)',
    'Peer: storage-proxy bearer token; with it the peer reads through the storage proxy into its own --storage-path'),
  valueFlag('storage-proxy-token-file', 'LEDGRAPH_STORAGE_PROXY_TOKEN_FILE', '<file>', 'storageProxyToken', nullable((r, w) => tokenValue('@' + r.trim(), w)), '(none)',
    'Peer: file holding the storage-proxy token (as --storage-proxy-token)'),
  valueFlag('max-concurrent-queries', 'LEDGRAPH_MAX_CONCURRENT_QUERIES', '<n>', 'maxConcurrentQueries', (r, w) => parseIntValue(r, w, 1), '32',
    'Cap on concurrently executing queries; past it queries queue, then get 503'),
  valueFlag('query-queue-size', 'LEDGRAPH_QUERY_QUEUE_SIZE', '<n>', 'queryQueueSize', (r, w) => parseIntValue(r, w), '64',
    'Queries that may wait for a slot past --max-concurrent-queries (0: refuse at once)'),
  valueFlag('query-queue-wait-ms', 'LEDGRAPH_QUERY_QUEUE_WAIT_MS', '<ms>', 'queryQueueWaitMs', (r, w) => parseIntValue(r, w), '2000',
    'Longest wait of a queued query before it is refused with 503'),
  valueFlag('write-queue-wait-ms', 'LEDGRAPH_WRITE_QUEUE_WAIT_MS', '<ms>', 'writeQueueWaitMs', (r, w) => parseIntValue(r, w), '10000',
    'Longest wait of a write behind other writes to its ledger before it is refused with 503 (0: no bound)'),
  valueFlag('keep-alive-timeout-ms', 'LEDGRAPH_KEEP_ALIVE_TIMEOUT_MS', '<ms>', 'keepAliveTimeoutMs', (r, w) => parseIntValue(r, w, 1), '5000',
    'Close an idle keep-alive connection after this long'),
  valueFlag('headers-timeout-ms', 'LEDGRAPH_HEADERS_TIMEOUT_MS', '<ms>', 'headersTimeoutMs', (r, w) => parseIntValue(r, w, 1), '10000',
    'Close a connection that has not sent complete request headers within this long (408)'),
  valueFlag('request-timeout-ms', 'LEDGRAPH_REQUEST_TIMEOUT_MS', '<ms>', 'requestTimeoutMs', (r, w) => parseIntValue(r, w), '300000',
    'Close a connection whose request (headers and body) has not arrived within this long (0 disables)'),
  valueFlag('leaf-cache-bytes', 'LEDGRAPH_LEAF_CACHE_BYTES', '<bytes>', 'leafCacheBytes', parseByteSize, '128MiB',
    'Memory for decoded index leaves, shared by all ledgers (least recently used go first); default --memory-limit ÷ 4'),
  valueFlag('term-cache-bytes', 'LEDGRAPH_TERM_CACHE_BYTES', '<bytes>', 'termCacheBytes', parseByteSize, '12MiB',
    'Memory for decoded dictionary terms and their SPARQL JSON text, per loaded ledger; default --memory-limit × 3/128'),
  valueFlag('idempotency-cache-bytes', 'LEDGRAPH_IDEMPOTENCY_CACHE_BYTES', '<bytes>', 'idempotencyCacheBytes', parseByteSize, '8MiB',
    'Memory for responses remembered under an Idempotency-Key (oldest go first); default --memory-limit ÷ 64'),
  valueFlag('events-queue-bytes', 'LEDGRAPH_EVENTS_QUEUE_BYTES', '<bytes>', 'eventsQueueBytes', parseByteSize, '1MiB',
    'Unsent bytes queued per /events subscriber before it is cut off'),
  valueFlag('parse-cache-bytes', 'LEDGRAPH_PARSE_CACHE_BYTES', '<bytes>', 'parseCacheBytes', parseByteSize, '24MiB',
    'Memory for parsed JSON-LD queries and processed @contexts (least recently used go first); default --memory-limit × 3/64'),
  valueFlag('commit-cache-bytes', 'LEDGRAPH_COMMIT_CACHE_BYTES', '<bytes>', 'commitCacheBytes', parseByteSize, '16MiB',
    'Memory for commit envelopes cached for history and branch walks, shared by all ledgers; default --memory-limit ÷ 32'),
  boolFlag('explorer-enabled', 'LEDGRAPH_EXPLORER_ENABLED', 'explorerEnabled', true,
    'Serve the web explorer at / (--no-explorer-enabled to turn it off)'),
  boolFlag('body-thread-enabled', 'LEDGRAPH_BODY_THREAD_ENABLED', 'bodyThreadEnabled', true,
    'Read N-Triples request bodies of 1 MiB or more on reading threads (--no-body-thread-enabled: on the main thread)'),
  valueFlag('storage-compress', 'LEDGRAPH_STORAGE_COMPRESS', '<mode>', 'storageCompress', compressModes, 'fast',
    'Deflate object files under --storage-path: fast (index nodes and transaction blobs, which shrink most for their CPU), all (commits and dictionary pages too), none; reads take every form'),
  valueFlag('nameservice', 'LEDGRAPH_NAMESERVICE', '<postgres://...>', 'nameservice', parseNameservice, '(none)',
    'Keep the nameservice (ledger heads) in PostgreSQL instead of beside the storage; servers and peers sharing it coordinate through it'),
  valueFlag('nameservice-schema', 'LEDGRAPH_NAMESERVICE_SCHEMA', '<name>', 'nameserviceSchema', parseSchemaName, 'ledgraph',
    'PostgreSQL schema of the nameservice tables (created and migrated on start)'),
  valueFlag('storage', 'LEDGRAPH_STORAGE', '<s3://bucket/prefix>', 'storage', parseStorageUrl, '(none)',
    'Keep content (commits, index nodes) in this S3 bucket and prefix instead of --storage-path'),
  valueFlag('s3-endpoint', 'LEDGRAPH_S3_ENDPOINT', '<url>', 's3Endpoint', (r, w) => parseHttpUrl(r, w).replace(/\/+$/, ''), '(none)',
    'Endpoint of an S3-compatible store (default: AWS S3 of --s3-region)'),
  valueFlag('s3-region', 'LEDGRAPH_S3_REGION', '<region>', 's3Region', parseNonEmpty, 'us-east-1', 'Region of the S3 bucket'),
  boolFlag('s3-force-path-style', 'LEDGRAPH_S3_FORCE_PATH_STYLE', 's3ForcePathStyle', false,
    'Address the bucket by path (endpoint/bucket/key), as most S3-compatible stores need'),
  boolFlag('storage-vend-enabled', 'LEDGRAPH_STORAGE_VEND_ENABLED', 'storageVendEnabled', false,
    'Serve GET /storage/credentials: short-lived read-only credentials for the --storage bucket prefix (STS AssumeRole; needs --storage s3://, --storage-vend-role-arn and --storage-proxy-enabled)'),
  valueFlag('storage-vend-role-arn', 'LEDGRAPH_STORAGE_VEND_ROLE_ARN', '<arn>', 'storageVendRoleArn', nullable(parseNonEmpty), '(none)',
    'IAM role that vended credentials assume (narrowed by a session policy to reading the content prefix)'),
  valueFlag('storage-vend-ttl-secs', 'LEDGRAPH_STORAGE_VEND_TTL_SECS', '<secs>', 'storageVendTtlSecs', (r, w) => parseIntValue(r, w, 900, 43200), '900',
    'Lifetime of vended credentials (STS accepts 900 to 43200 seconds)'),
  valueFlag('storage-vend-sts-endpoint', 'LEDGRAPH_STORAGE_VEND_STS_ENDPOINT', '<url>', 'storageVendStsEndpoint', (r, w) => parseHttpUrl(r, w).replace(/\/+$/, ''), '(none)',
    'STS endpoint for credential vending (an S3-compatible store\'s; default: AWS STS of --s3-region)'),
  boolFlag('s3-ledger-prefixes', 'LEDGRAPH_S3_LEDGER_PREFIXES', 's3LedgerPrefixes', false,
    'Write each ledger\'s objects under its own key prefix (<prefix><ledger>/<CID>, shared by its branches), so vended credentials read one ledger; every server and shared-storage peer of the bucket needs it'),
  valueFlag('max-loaded-ledgers', 'LEDGRAPH_MAX_LOADED_LEDGERS', '<n>', 'maxLoadedLedgers', (r, w) => parseIntValue(r, w, 1), '64',
    'Ledgers kept loaded in memory; past it the least recently used idle ones are unloaded (read from storage again on their next use); default one per 8 MiB of --memory-limit'),
  valueFlag('memory-limit', 'LEDGRAPH_MEMORY_LIMIT', '<bytes>', 'memoryLimitBytes', parseMemoryLimit, '512MiB',
    'Total memory the server is sized for (at least 256MiB): the cache budgets above that are not given themselves, and V8\'s heap limits (set by the ledgraph launcher unless NODE_OPTIONS or node flags size the heap), follow from it (docs/memory.md)'),
];

/** An s3://bucket/prefix URL. */
function parseStorageUrl(raw: string, where: string): string | null {
  const v = raw.trim();
  if (!/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(v)) throw bad(`invalid value for ${where}: expected s3://bucket/prefix`);
  return v;
}


/** A postgres:// or postgresql:// connection string. */
function parseNameservice(raw: string, where: string): string | null {
  const v = raw.trim();
  if (!/^postgres(ql)?:\/\/./.test(v)) throw bad(`invalid value for ${where}: expected a postgres:// or postgresql:// connection string`);
  return v;
}

/** A plain SQL identifier (letters, digits, underscore; at most 40 characters so channel names fit). */
function parseSchemaName(raw: string, where: string): string {
  const v = raw.trim();
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(v)) throw bad(`invalid value for ${where}: "${raw}" (expected letters, digits and _, at most 40)`);
  return v;
}

/** What the command line asked for. */
export type ServerArgs =
  | { kind: 'run'; config: ServerConfig }
  | { kind: 'help' };

const FLAG_BY_NAME = new Map(SERVER_FLAGS.map((f) => [f.name, f]));
const BUDGET_FLAG: Record<BudgetKey, string> = {
  leafCacheBytes: 'leaf-cache-bytes', termCacheBytes: 'term-cache-bytes', commitCacheBytes: 'commit-cache-bytes',
  parseCacheBytes: 'parse-cache-bytes', idempotencyCacheBytes: 'idempotency-cache-bytes', maxLoadedLedgers: 'max-loaded-ledgers',
};

/**
 * Parse `ledgraph server` arguments (without the `server` word) and the environment into a
 * ServerConfig. Throws a 400 LedgraphError with a one-line message on any bad input.
 */
export function parseServerArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): ServerArgs {
  const options: Record<string, { type: 'boolean' | 'string'; multiple?: boolean; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const f of SERVER_FLAGS) options[f.name] = { type: f.type, multiple: f.multiple };
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, allowNegative: true, tokens: true });

  const fromFlags = new Map<FlagDef, string | string[]>();
  for (const t of tokens) {
    if (t.kind === 'option-terminator') continue;
    if (t.kind === 'positional') throw bad(`unexpected argument "${t.value}" (see ledgraph server --help)`);
    if (t.name === 'help') return { kind: 'help' };
    const negated = t.rawName.startsWith('--no-');
    if (negated && t.value !== undefined && FLAG_BY_NAME.get(t.name.slice(3))?.type === 'boolean') {
      throw bad(`flag ${t.rawName} takes no value`);
    }
    const f = FLAG_BY_NAME.get(t.name);
    if (!f || !t.rawName.startsWith('--') || (negated && f.type !== 'boolean')) {
      throw bad(`unknown flag ${t.rawName} (see ledgraph server --help)`);
    }
    if (f.type === 'boolean') {
      fromFlags.set(f, negated ? 'false' : (t.value ?? 'true'));
      continue;
    }
    if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--'))) throw bad(`flag --${f.name} needs a value ${f.arg}`);
    if (f.multiple) {
      const prev = fromFlags.get(f);
      fromFlags.set(f, [...(Array.isArray(prev) ? prev : []), t.value]);
    } else {
      fromFlags.set(f, t.value);
    }
  }

  const cfg = defaultServerConfig();
  const given = new Set<FlagDef>();
  // Environment first, then flags, each in table order, so a flag always wins over the environment
  // and --port refines --listen-addr at the same level.
  for (const f of SERVER_FLAGS) {
    const v = env[f.env];
    if (v !== undefined && v !== '') { f.apply(cfg, v, f.env); given.add(f); }
  }
  for (const f of SERVER_FLAGS) {
    const v = fromFlags.get(f);
    if (v !== undefined) { f.apply(cfg, v, '--' + f.name); given.add(f); }
  }
  // The budgets not given themselves follow the total (--memory-limit or its default).
  const derived = cacheBudgets(cfg.memoryLimitBytes);
  for (const key of DERIVED_BUDGETS) {
    if (![...given].some((f) => BUDGET_FLAG[key] === f.name)) cfg[key] = derived[key];
  }
  validate(cfg);
  return { kind: 'run', config: cfg };
}

function validate(cfg: ServerConfig): void {
  if (cfg.reindexMinBytes > cfg.reindexMaxBytes) {
    throw bad(`--reindex-min-bytes (${cfg.reindexMinBytes}) must not exceed --reindex-max-bytes (${cfg.reindexMaxBytes})`);
  }
  if (cfg.role === 'peer' && !cfg.txServerUrl) throw bad('--role peer requires --tx-server-url');
  if (cfg.role === 'peer' && cfg.memory && !cfg.storageProxyToken) {
    throw bad('--role peer with --memory needs --storage-proxy-token (a shared-storage peer reads the transaction server\'s --storage-path)');
  }
  if (cfg.storageVendEnabled) {
    if (!cfg.storage) throw bad('--storage-vend-enabled needs object storage (--storage s3://bucket/prefix): file storage vends no credentials');
    if (!cfg.storageVendRoleArn) throw bad('--storage-vend-enabled needs --storage-vend-role-arn');
    if (!cfg.storageProxyEnabled) throw bad('--storage-vend-enabled needs --storage-proxy-enabled (credentials are vended to storage-proxy tokens)');
  }
  if (cfg.s3LedgerPrefixes && !cfg.storage) throw bad('--s3-ledger-prefixes needs object storage (--storage s3://bucket/prefix)');
  if (cfg.requestTimeoutMs > 0 && cfg.headersTimeoutMs > cfg.requestTimeoutMs) {
    throw bad(`--headers-timeout-ms (${cfg.headersTimeoutMs}) must not exceed --request-timeout-ms (${cfg.requestTimeoutMs})`);
  }
}

/** The text of `ledgraph server --help`: every flag with its default and environment variable. */
export function serverHelp(): string {
  const rows = SERVER_FLAGS.map((f) => {
    const left = `  --${f.name}${f.arg ? ' ' + f.arg : ''}`;
    return { left, right: `${f.help}\n      default: ${f.default}; env: ${f.env}${f.multiple ? ' (comma-separated)' : ''}` };
  });
  const lines = [
    'Usage: ledgraph server [flags]',
    '',
    'Starts the Ledgraph HTTP server. Every flag has a LEDGRAPH_* environment equivalent; a flag',
    'wins over its environment variable. Boolean flags accept --flag, --no-flag and --flag=true|false.',
    '',
    'Flags:',
    ...rows.map((r) => `${r.left}\n      ${r.right}`),
    '  -h, --help',
    '      Show this help',
  ];
  return lines.join('\n') + '\n';
}
