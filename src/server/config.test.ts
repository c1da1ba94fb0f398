import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SERVER_FLAGS, defaultServerConfig, parseByteSize, parseListenAddr, parseServerArgs, serverHelp, type ServerConfig,
} from './config.js';

function run(argv: string[], env: Record<string, string> = {}): ServerConfig {
  const r = parseServerArgs(argv, env);
  if (r.kind !== 'run') throw new Error('expected a config');
  return r.config;
}

function failure(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseServerArgs(argv, env);
  } catch (e) {
    expect((e as { status?: number }).status).toBe(400);
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

describe('--memory-limit and the budgets it derives', () => {
  const MiB = 1024 * 1024;
  it('sizes every cache budget from the default total of 512 MiB', () => {
    const c = run([]);
    expect(c.memoryLimitBytes).toBe(512 * MiB);
    expect([c.leafCacheBytes, c.termCacheBytes, c.commitCacheBytes, c.parseCacheBytes, c.idempotencyCacheBytes, c.maxLoadedLedgers])
      .toEqual([128 * MiB, 12 * MiB, 16 * MiB, 24 * MiB, 8 * MiB, 64]);
  });

  it('derives the budgets not given from --memory-limit (flag or environment)', () => {
    for (const c of [run(['--memory-limit', '2GiB']), run([], { LEDGRAPH_MEMORY_LIMIT: '2GiB' })]) {
      expect(c.memoryLimitBytes).toBe(2048 * MiB);
      expect([c.leafCacheBytes, c.termCacheBytes, c.commitCacheBytes, c.parseCacheBytes, c.idempotencyCacheBytes, c.maxLoadedLedgers])
        .toEqual([512 * MiB, 48 * MiB, 64 * MiB, 96 * MiB, 32 * MiB, 256]);
    }
  });

  it('keeps a budget given itself (flag or environment) and derives the rest', () => {
    const c = run(['--memory-limit=1GiB', '--leaf-cache-bytes', '100MiB', '--max-loaded-ledgers', '3'], { LEDGRAPH_PARSE_CACHE_BYTES: '1MiB' });
    expect(c.maxLoadedLedgers).toBe(3);
    expect(c.leafCacheBytes).toBe(100 * MiB);
    expect(c.parseCacheBytes).toBe(1 * MiB);
    expect(c.commitCacheBytes).toBe(32 * MiB);
    expect(c.termCacheBytes).toBe(24 * MiB);
    expect(c.idempotencyCacheBytes).toBe(16 * MiB);
  });

  it('refuses a total below 256 MiB or not a size', () => {
    expect(failure(['--memory-limit', '128MiB'])).toMatch(/--memory-limit: "128MiB" \(at least 256MiB\)/);
    expect(failure([], { LEDGRAPH_MEMORY_LIMIT: 'big' })).toMatch(/LEDGRAPH_MEMORY_LIMIT: "big"/);
  });
});

describe('parseServerArgs', () => {
  it('gives the documented defaults with no flags and no environment', () => {
    const c = run([]);
    expect(c).toEqual(defaultServerConfig());
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(8090);
    expect(c.storagePath).toBe('./data');
    expect(c.apiBaseUrl).toBe('/v1/ledgraph');
    expect(c.reindexMinBytes).toBe(100_000);
    expect(c.reindexMaxBytes).toBe(1_000_000);
    expect(c.indexingEnabled).toBe(true);
    expect(c.streamHeartbeatMs).toBe(15_000);
    expect(c.logLevel).toBe('info');
    expect(c.role).toBe('transaction');
  });

  it('parses every kind of flag', () => {
    const c = run([
      '--listen-addr', '0.0.0.0:9000', '--storage-path=/var/lib/ledgraph', '--memory', '--api-base-url', '/api/v1/',
      '--body-limit', '10MiB', '--query-timeout-ms', '5000', '--reindex-min-bytes', '1kb', '--reindex-max-bytes', '2KB',
      '--no-indexing-enabled', '--stream-heartbeat-ms', '0', '--cors-enabled', '--log-level', 'DEBUG', '--max-in-flight', '4',
      '--data-auth-mode', 'required', '--data-auth-trusted-issuer', 'did:key:z6MkA', '--data-auth-trusted-issuer', 'did:key:z6MkB',
      '--admin-auth-mode', 'optional', '--admin-auth-trusted-issuer', 'did:key:z6MkC',
      '--events-auth-mode', 'required', '--events-auth-trusted-issuer', 'did:key:z6MkD', '--events-auth-audience', 'peers',
      '--storage-proxy-trusted-issuer', 'did:key:z6MkE', '--events-keep-alive-ms', '500',
      '--storage-proxy-enabled', '--storage-proxy-default-identity', 'https://ex.org/peer',
      '--storage-proxy-default-policy-class', 'https://ex.org/PeerPolicy', '--storage-proxy-debug-headers',
      '--jwks-issuer', 'https://idp.example=https://idp.example/jwks.json', '--jwks-issuer', 'other=http://localhost:1/k',
      '--role', 'peer', '--tx-server-url', 'http://tx.example:8090/', '--default-policy-class', 'https://ex.org/Policy',
      '--federation-allow', 'http://127.0.0.1:3030/', '--federation-allow', 'https://dbpedia.org/sparql',
      '--max-nesting-depth', '64', '--max-query-bytes', '64KiB', '--max-triple-patterns', '200', '--max-query-operators', '500', '--max-json-depth', '32',
      '--max-literal-bytes', '1MB', '--max-ledger-name-length', '50',
      '--peer-subscribe-all', '--peer-ledger', 'hr', '--peer-ledger', 'ops:dev', '--peer-graph-source', 'search:main',
      '--peer-events-url', 'http://tx.example:8090/v1/ledgraph/events', '--peer-events-token', 'ev.tok',
      '--storage-proxy-token', 'st.tok',
      '--max-concurrent-queries', '8', '--query-queue-size', '0', '--query-queue-wait-ms', '250', '--write-queue-wait-ms', '4000',
      '--keep-alive-timeout-ms', '1000', '--headers-timeout-ms', '2000', '--request-timeout-ms', '3000',
      '--leaf-cache-bytes', '64MiB', '--term-cache-bytes', '1MB', '--idempotency-cache-bytes', '100KiB', '--events-queue-bytes', '2MiB', '--parse-cache-bytes', '3MB', '--commit-cache-bytes', '2MiB', '--memory-limit', '1GiB',
      '--no-explorer-enabled', '--no-body-thread-enabled', '--storage-compress', 'none',
      '--nameservice', 'postgres://ledgraph@db.internal:5432/ledgraph', '--nameservice-schema', 'prod_ns',
      '--storage', 's3://ledgraph-prod/eu', '--s3-endpoint', 'http://127.0.0.1:9000', '--s3-region', 'eu-west-1', '--s3-force-path-style',
      '--storage-vend-enabled', '--storage-vend-role-arn', 'arn:aws:iam::123456789012:role/peer-read', '--storage-vend-ttl-secs', '1800',
      '--storage-vend-sts-endpoint', 'http://127.0.0.1:9000/', '--s3-ledger-prefixes',
    ]);
    expect(c).toEqual({
      host: '0.0.0.0', port: 9000, storagePath: '/var/lib/ledgraph', memory: true, apiBaseUrl: '/api/v1',
      bodyLimit: 10 * 1024 * 1024, queryTimeoutMs: 5000, reindexMinBytes: 1000, reindexMaxBytes: 2000,
      indexingEnabled: false, streamHeartbeatMs: 0, corsEnabled: true, logLevel: 'debug', maxInFlight: 4,
      dataAuthMode: 'required', dataAuthTrustedIssuers: ['did:key:z6MkA', 'did:key:z6MkB'],
      adminAuthMode: 'optional', adminAuthTrustedIssuers: ['did:key:z6MkC'],
      eventsAuthMode: 'required', eventsAuthTrustedIssuers: ['did:key:z6MkD'], eventsAuthAudience: 'peers',
      storageProxyTrustedIssuers: ['did:key:z6MkE'], eventsKeepAliveMs: 500,
      storageProxyEnabled: true, storageProxyDefaultIdentity: 'https://ex.org/peer',
      storageProxyDefaultPolicyClass: 'https://ex.org/PeerPolicy', storageProxyDebugHeaders: true,
      jwksIssuers: [
        { issuer: 'https://idp.example', url: 'https://idp.example/jwks.json' },
        { issuer: 'other', url: 'http://localhost:1/k' },
      ],
      role: 'peer', txServerUrl: 'http://tx.example:8090', defaultPolicyClass: 'https://ex.org/Policy',
      federationAllow: ['http://127.0.0.1:3030', 'https://dbpedia.org/sparql'],
      maxNestingDepth: 64, maxQueryBytes: 65536, maxTriplePatterns: 200, maxQueryOperators: 500, maxJsonDepth: 32, maxLiteralBytes: 1_000_000, maxLedgerNameLength: 50,
      peerSubscribeAll: true, peerLedgers: ['hr', 'ops:dev'], peerGraphSources: ['search:main'],
      peerEventsUrl: 'http://tx.example:8090/v1/ledgraph/events', peerEventsToken: 'ev.tok', storageProxyToken: 'st.tok',
      maxConcurrentQueries: 8, queryQueueSize: 0, queryQueueWaitMs: 250, writeQueueWaitMs: 4000,
      keepAliveTimeoutMs: 1000, headersTimeoutMs: 2000, requestTimeoutMs: 3000,
      leafCacheBytes: 64 * 1024 * 1024, termCacheBytes: 1_000_000, idempotencyCacheBytes: 100 * 1024, eventsQueueBytes: 2 * 1024 * 1024, parseCacheBytes: 3_000_000, commitCacheBytes: 2 * 1024 * 1024,
      memoryLimitBytes: 1024 * 1024 * 1024, maxLoadedLedgers: 128,
      explorerEnabled: false,
      bodyThreadEnabled: false,
      storageCompress: 'none',
      nameservice: 'postgres://ledgraph@db.internal:5432/ledgraph', nameserviceSchema: 'prod_ns',
      storage: 's3://ledgraph-prod/eu', s3Endpoint: 'http://127.0.0.1:9000', s3Region: 'eu-west-1', s3ForcePathStyle: true,
      storageVendEnabled: true, storageVendRoleArn: 'arn:aws:iam::123456789012:role/peer-read', storageVendTtlSecs: 1800,
      storageVendStsEndpoint: 'http://127.0.0.1:9000', s3LedgerPrefixes: true,
    } satisfies ServerConfig);
  });

  it('checks the nameservice connection string and schema name', () => {
    expect(() => run(['--nameservice', 'mysql://x/y'])).toThrow('invalid value for --nameservice: expected a postgres:// or postgresql:// connection string');
    expect(run(['--nameservice', 'postgresql://h/db']).nameservice).toBe('postgresql://h/db');
    expect(run([]).nameservice).toBeNull();
    expect(() => run(['--storage', '/var/data'])).toThrow('invalid value for --storage: expected s3://bucket/prefix');
    expect(() => run(['--s3-endpoint', 'minio:9000'])).toThrow('invalid value for --s3-endpoint: "minio:9000"');
    expect(() => run(['--nameservice-schema', 'a-b'])).toThrow('invalid value for --nameservice-schema: "a-b"');
  });

  it('checks credential vending: object storage, a role, the proxy, and a TTL STS accepts', () => {
    const s3 = ['--storage', 's3://bkt/p', '--storage-proxy-enabled'];
    expect(run([]).storageVendTtlSecs).toBe(900);
    expect(() => run(['--storage-vend-enabled', '--storage-vend-role-arn', 'arn:r'])).toThrow('--storage-vend-enabled needs object storage');
    expect(() => run(['--s3-ledger-prefixes'])).toThrow('--s3-ledger-prefixes needs object storage (--storage s3://bucket/prefix)');
    expect(() => run([...s3, '--storage-vend-enabled'])).toThrow('--storage-vend-enabled needs --storage-vend-role-arn');
    expect(() => run(['--storage', 's3://bkt/p', '--storage-vend-enabled', '--storage-vend-role-arn', 'arn:r'])).toThrow('needs --storage-proxy-enabled');
    expect(() => run(['--storage-vend-ttl-secs', '899'])).toThrow('--storage-vend-ttl-secs');
    expect(() => run(['--storage-vend-ttl-secs', '43201'])).toThrow('--storage-vend-ttl-secs');
    expect(run([...s3, '--storage-vend-enabled', '--storage-vend-role-arn', 'arn:r'], { LEDGRAPH_STORAGE_VEND_TTL_SECS: '3600' }))
      .toMatchObject({ storageVendEnabled: true, storageVendRoleArn: 'arn:r', storageVendTtlSecs: 3600 });
  });

  it('reads LEDGRAPH_* variables, comma-separated for lists', () => {
    const c = run([], {
      LEDGRAPH_LISTEN_ADDR: '[::1]:7000', LEDGRAPH_MEMORY: 'true', LEDGRAPH_INDEXING_ENABLED: 'off',
      LEDGRAPH_DATA_AUTH_TRUSTED_ISSUERS: 'did:key:a, did:key:b', LEDGRAPH_JWKS_ISSUERS: 'i1=https://a/j,i2=https://b/j',
      LEDGRAPH_BODY_LIMIT: '1048576',
    });
    expect(c.host).toBe('::1');
    expect(c.port).toBe(7000);
    expect(c.memory).toBe(true);
    expect(c.indexingEnabled).toBe(false);
    expect(c.dataAuthTrustedIssuers).toEqual(['did:key:a', 'did:key:b']);
    expect(c.jwksIssuers).toEqual([{ issuer: 'i1', url: 'https://a/j' }, { issuer: 'i2', url: 'https://b/j' }]);
    expect(c.bodyLimit).toBe(1048576);
  });

  it('lets a flag win over its environment variable', () => {
    expect(run(['--port', '1234'], { LEDGRAPH_PORT: '4321' }).port).toBe(1234);
    expect(run(['--log-level', 'warn'], { LEDGRAPH_LOG_LEVEL: 'error' }).logLevel).toBe('warn');
    expect(run(['--indexing-enabled'], { LEDGRAPH_INDEXING_ENABLED: 'false' }).indexingEnabled).toBe(true);
    expect(run(['--cors-enabled=false'], { LEDGRAPH_CORS_ENABLED: '1' }).corsEnabled).toBe(false);
    expect(run(['--data-auth-trusted-issuer', 'x'], { LEDGRAPH_DATA_AUTH_TRUSTED_ISSUERS: 'a,b' }).dataAuthTrustedIssuers).toEqual(['x']);
    // A --listen-addr flag beats LEDGRAPH_PORT; --port refines --listen-addr.
    expect(run(['--listen-addr', '0.0.0.0:1000'], { LEDGRAPH_PORT: '2000' })).toMatchObject({ host: '0.0.0.0', port: 1000 });
    expect(run(['--port', '3000'], { LEDGRAPH_LISTEN_ADDR: '10.0.0.1:1000' })).toMatchObject({ host: '10.0.0.1', port: 3000 });
    expect(run(['--port', '3000', '--listen-addr', '0.0.0.0:1000'])).toMatchObject({ host: '0.0.0.0', port: 3000 });
  });

  it('bounds the input-limit flags to what the parsers are proven to handle', () => {
    expect(run([]).maxNestingDepth).toBe(128);
    expect(run([], { LEDGRAPH_MAX_JSON_DEPTH: '500' }).maxJsonDepth).toBe(500);
    expect(failure(['--max-nesting-depth', '501'])).toBe('invalid value for --max-nesting-depth: "501" (expected an integer from 1 to 500)');
    expect(failure(['--max-ledger-name-length', '0'])).toBe('invalid value for --max-ledger-name-length: "0" (expected an integer from 1 to 200)');
  });

  it('reads peer tokens from @file and --storage-proxy-token-file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledgraph-cfg-'));
    writeFileSync(join(dir, 'ev'), 'events.token\n');
    writeFileSync(join(dir, 'st'), ' storage.token \n');
    const c = run(['--peer-events-token', '@' + join(dir, 'ev'), '--storage-proxy-token-file', join(dir, 'st')]);
    expect(c.peerEventsToken).toBe('events.token');
    expect(c.storageProxyToken).toBe('storage.token');
    expect(failure(['--peer-events-token', '@' + join(dir, 'missing')])).toMatch(/^invalid value for --peer-events-token: cannot read token file .*missing \(ENOENT\)$/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('ignores empty environment variables', () => {
    expect(run([], { LEDGRAPH_PORT: '' }).port).toBe(8090);
  });

  it('answers --help and -h', () => {
    expect(parseServerArgs(['--help']).kind).toBe('help');
    expect(parseServerArgs(['--port', '1', '-h']).kind).toBe('help');
  });

  it('rejects unknown flags, missing values and stray arguments with one-line messages', () => {
    expect(failure(['--bogus'])).toBe('unknown flag --bogus (see ledgraph server --help)');
    expect(failure(['-x'])).toBe('unknown flag -x (see ledgraph server --help)');
    expect(failure(['--no-port'])).toBe('unknown flag --no-port (see ledgraph server --help)');
    expect(failure(['--port'])).toBe('flag --port needs a value <n>');
    expect(failure(['--port', '--memory'])).toBe('flag --port needs a value <n>');
    expect(failure(['extra'])).toBe('unexpected argument "extra" (see ledgraph server --help)');
    expect(failure(['--no-memory=true'])).toBe('flag --no-memory takes no value');
  });

  it('rejects bad values, naming the flag or variable', () => {
    expect(failure(['--port', 'abc'])).toBe('invalid value for --port: "abc" (expected an integer)');
    expect(failure(['--port', '70000'])).toBe('invalid value for --port: "70000" (expected an integer from 0 to 65535)');
    expect(failure([], { LEDGRAPH_PORT: '-1' })).toBe('invalid value for LEDGRAPH_PORT: "-1" (expected an integer)');
    expect(failure(['--listen-addr', 'localhost'])).toMatch(/^invalid value for --listen-addr: "localhost"/);
    expect(failure(['--body-limit', '10 parsecs'])).toMatch(/^invalid value for --body-limit/);
    expect(failure(['--memory=maybe'])).toBe('invalid value for --memory: "maybe" (expected true or false)');
    expect(failure(['--log-level', 'loud'])).toBe('invalid value for --log-level: "loud" (expected one of debug, info, warn, error)');
    expect(failure(['--data-auth-mode', 'sometimes'])).toMatch(/expected one of none, optional, required/);
    expect(failure(['--role', 'leader'])).toMatch(/expected one of transaction, peer/);
    expect(failure(['--api-base-url', 'v1'])).toMatch(/^invalid value for --api-base-url/);
    expect(failure(['--jwks-issuer', 'no-url'])).toMatch(/expected issuer=jwks-url/);
    expect(failure(['--jwks-issuer', 'iss=ftp://x'])).toMatch(/expected an http\(s\) URL/);
    expect(failure(['--tx-server-url', 'nope'])).toMatch(/expected an http\(s\) URL/);
    expect(failure(['--max-in-flight', '0'])).toMatch(/from 1 to/);
  });

  it('checks settings against each other', () => {
    expect(failure(['--reindex-min-bytes', '2000000'])).toBe('--reindex-min-bytes (2000000) must not exceed --reindex-max-bytes (1000000)');
    expect(failure(['--headers-timeout-ms', '5000', '--request-timeout-ms', '4000'])).toBe('--headers-timeout-ms (5000) must not exceed --request-timeout-ms (4000)');
    expect(run(['--headers-timeout-ms', '5000', '--request-timeout-ms', '0']).requestTimeoutMs).toBe(0);
    expect(failure(['--role', 'peer'])).toBe('--role peer requires --tx-server-url');
  });
});

describe('value parsers', () => {
  it('parses byte sizes with decimal and binary units', () => {
    expect(parseByteSize('123', 'x')).toBe(123);
    expect(parseByteSize('100KB', 'x')).toBe(100_000);
    expect(parseByteSize('1.5 MiB', 'x')).toBe(1.5 * 1024 * 1024);
    expect(parseByteSize('2gb', 'x')).toBe(2e9);
    expect(parseByteSize('1_000_000', 'x')).toBe(1_000_000);
  });

  it('parses listen addresses', () => {
    expect(parseListenAddr('127.0.0.1:8090', 'x')).toEqual({ host: '127.0.0.1', port: 8090 });
    expect(parseListenAddr(':80', 'x')).toEqual({ host: '0.0.0.0', port: 80 });
    expect(parseListenAddr('[::]:0', 'x')).toEqual({ host: '::', port: 0 });
    expect(parseListenAddr('localhost:1', 'x')).toEqual({ host: 'localhost', port: 1 });
  });
});

describe('the flag table and --help', () => {
  it('has unique flag names and LEDGRAPH_* variables', () => {
    const names = SERVER_FLAGS.map((f) => f.name);
    const envs = SERVER_FLAGS.map((f) => f.env);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(envs).size).toBe(envs.length);
    for (const e of envs) expect(e).toMatch(/^LEDGRAPH_[A-Z][A-Z0-9_]*$/);
  });

  it('documents every flag with its default and variable', () => {
    const help = serverHelp();
    for (const f of SERVER_FLAGS) {
      expect(help).toContain(`--${f.name}`);
      expect(help).toContain(`default: ${f.default}; env: ${f.env}`);
    }
  });

  it('shows defaults that parse to the real defaults', () => {
    const d = defaultServerConfig();
    for (const f of SERVER_FLAGS) {
      if (f.default === '(none)') continue;
      const c = defaultServerConfig();
      f.apply(c, f.default, f.name);
      expect(c, f.name).toEqual(d);
    }
  });
});
