/**
 * Credential vending end to end: a transaction server on S3 (s3rver) + PostgreSQL (a throwaway
 * cluster) vends credentials through a loopback STS (test/storage/sts-server.ts, which verifies
 * each AssumeRole's signature and records its session policy); two Node peers in proxy mode read
 * the objects straight from the bucket with them, and a peer whose token covers one ledger only is
 * refused credentials (404) and reads everything through the proxy.
 *
 * What is real here: s3rver (S3 protocol), PostgreSQL, the HTTP servers; s3rver does not check V4
 * signatures, so the server's S3 endpoint is a gate (sigv4-gate.ts) that recomputes the signature
 * of every presigned read (the browser peer's fetch reader) before forwarding it. What is not:
 * s3rver enforces no IAM policy, so the session policy's scope is asserted on its exact text, not
 * by a denied read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { openPeer, type Peer } from '../../src/peer/open-peer.js';
import { FetchS3Reader } from '../../src/peer/s3-fetch-reader.js';
import { MemoryContentStore } from '../../src/storage/memory-store.js';
import { DID_A, signerA, token } from '../auth/helpers.js';
import { CTX, names, startNode, storageToken, tempDir, type Node } from '../peer/helpers.js';
import { pgUnavailable, startPgCluster, type PgCluster } from './pg-cluster.js';
import { startS3, type TestS3 } from './s3-server.js';
import { startSigV4Gate, type SigV4Gate } from './sigv4-gate.js';
import { startSts, type TestSts } from './sts-server.js';

const why = pgUnavailable();
if (why) console.warn(`\n!!! SKIPPING credential-vending server tests: ${why}\n`);

const ROLE = 'arn:aws:iam::123456789012:role/ledgraph-peer-read';
const peerOf = (n: Node) => (n.server.state as unknown as { peer: Peer }).peer;

async function insert(api: string, ledger: string, id: string, name: string): Promise<number> {
  const r = await fetch(`${api}/insert/${ledger}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ '@context': CTX, '@id': `ex:${id}`, 'ex:name': name }) });
  expect(r.status, await r.clone().text()).toBe(200);
  return ((await r.json()) as { t: number }).t;
}

describe.skipIf(why !== null)('vended credentials: peers read the bucket directly', () => {
  let cluster: PgCluster;
  let s3: TestS3;
  let sts: TestSts;
  let gate: SigV4Gate;
  let tx: Node;
  const dirs: { remove(): Promise<void> }[] = [];
  const nodes: Node[] = [];
  const env = { ...process.env };

  beforeAll(async () => {
    [cluster, s3] = await Promise.all([startPgCluster(), startS3(['content'])]);
    // The transaction server's own keys (the SDK's default chain reads them) are what STS checks;
    // s3rver accepts only its own key, so that is also what STS hands out (with a session token).
    process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
    sts = await startSts({ caller: s3.credentials, issue: s3.credentials });
    gate = await startSigV4Gate(s3.port, s3.credentials);
    const d = await tempDir();
    dirs.push(d);
    tx = await startNode(d.dir, {
      storage: 's3://content/prod/ledgers', s3Endpoint: gate.endpoint, s3ForcePathStyle: true, s3Region: 'us-east-1',
      nameservice: cluster.url, nameserviceSchema: 'vend',
      storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A], eventsKeepAliveMs: 1000,
      storageVendEnabled: true, storageVendRoleArn: ROLE, storageVendTtlSecs: 900, storageVendStsEndpoint: sts.endpoint,
    });
    nodes.push(tx);
  }, 120_000);
  afterAll(async () => {
    for (const n of nodes.reverse()) await n.close().catch(() => {});
    await sts?.close();
    await gate?.close();
    process.env = env;
    await s3?.stop();
    await cluster?.stop();
    for (const d of dirs) await d.remove();
  });

  const peer = async (storageTokenValue: string, ledgers: string[] = []) => {
    const d = await tempDir();
    dirs.push(d);
    const n = await startNode(d.dir, { role: 'peer', txServerUrl: tx.url, peerLedgers: ledgers, peerSubscribeAll: ledgers.length === 0, storageProxyToken: storageTokenValue });
    nodes.push(n);
    return n;
  };

  it('GET /storage/credentials: scoped, short-lived credentials for all-ledger storage tokens only; 404 otherwise', async () => {
    const r0 = await fetch(`${tx.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'vend' }) });
    expect(r0.status, await r0.clone().text()).toBeLessThan(300);
    await insert(tx.api, 'vend', 'ana', 'ana');
    const all = { Authorization: `Bearer ${await storageToken()}` };
    const before = Date.now();
    const r = await fetch(`${tx.api}/storage/credentials?ledger=vend`, { headers: all });
    expect(r.status, await r.clone().text()).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const body = (await r.json()) as Record<string, string>;
    expect(body).toEqual({
      access_key_id: 'S3RVER', secret_access_key: 'S3RVER', session_token: 'session-token-1', expiration: body['expiration'],
      bucket: 'content', prefix: 'prod/ledgers/', region: 'us-east-1', endpoint: gate.endpoint, force_path_style: true,
    });
    expect(Date.parse(body['expiration']!) - before).toBeGreaterThan(890_000);
    expect(sts.rejected).toEqual([]);
    expect(sts.calls).toEqual([{
      RoleArn: ROLE, RoleSessionName: 'ledgraph-vend-main', DurationSeconds: 900, accessKeyId: 'S3RVER',
      Policy: '{"Version":"2012-10-17","Statement":[{"Sid":"LedgraphReadContent","Effect":"Allow","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::content/prod/ledgers/*"]}]}',
    }]);
    // Not vended: no token, a token for this ledger only (the credentials would read every ledger), an unknown ledger.
    const one = { Authorization: `Bearer ${await token(await signerA(), { 'ledgraph.storage.ledgers': ['vend'] })}` };
    for (const [headers, q] of [[{}, 'vend'], [one, 'vend'], [all, 'nope']] as const) {
      const x = await fetch(`${tx.api}/storage/credentials?ledger=${q}`, { headers });
      expect(x.status).toBe(404);
      expect(((await x.json()) as Record<string, unknown>)['@type']).toBe('err:db/LedgerNotFound');
    }
    expect(sts.calls).toHaveLength(1); // and nothing was minted for them
  }, 60_000);

  it('two proxy-mode peers read objects from the bucket, not through the proxy, and follow writes', async () => {
    const tok = await storageToken();
    const peers = [await peer(tok), await peer(tok)];
    const t = await insert(tx.api, 'vend', 'bo', 'bo');
    for (const p of peers) {
      expect(await names(p.api, 'vend', t)).toEqual(['ana', 'bo']);
      expect(await names(p.api, 'vend@t:1')).toEqual(['ana']);
      const { client, direct } = peerOf(p);
      expect(direct!.stats.objects).toBeGreaterThan(0);
      expect(direct!.stats.credentials).toBe(1);
      expect(direct!.stats.fallbacks).toBe(0);
      expect(client!.stats.objects).toBe(0); // every object came from the bucket; heads from the server's /events
    }
    // Writes sent to a peer are forwarded; the other peer sees them.
    const t2 = await insert(peers[0]!.api, 'vend', 'cy', 'cy');
    expect(await names(peers[1]!.api, 'vend', t2)).toEqual(['ana', 'bo', 'cy']);
    expect(sts.calls).toHaveLength(1); // one set serves every caller for half its lifetime
  }, 60_000);

  it('a peer that is refused credentials (404) reads everything through the proxy', async () => {
    const scoped = await token(await signerA(), { 'ledgraph.storage.ledgers': ['vend'] });
    const p = await peer(scoped, ['vend']);
    const t = await insert(tx.api, 'vend', 'dee', 'dee');
    expect(await names(p.api, 'vend', t)).toEqual(['ana', 'bo', 'cy', 'dee']);
    const { client, direct } = peerOf(p);
    expect(direct!.stats.objects).toBe(0);
    expect(direct!.stats.credentials).toBe(0);
    expect(direct!.stats.fallbacks).toBeGreaterThan(0);
    expect(client!.stats.objects).toBeGreaterThan(0);
  }, 60_000);
  /** A proxy-mode peer as the browser peer's worker opens it (fetch reader), over a memory cache. */
  const fetchPeer = async (fetchImpl?: typeof fetch) => {
    const tok = await storageToken();
    return openPeer({
      api: tx.api, cache: new MemoryContentStore(), storageToken: tok, eventsToken: tok, ledgers: ['vend'], subscribeAll: false,
      openDirectStore: (c) => new FetchS3Reader(c, { fetch: fetchImpl }),
    });
  };
  const peerNames = async (p: Peer) => {
    const { result } = await runSparql(p.conn, 'SELECT ?n WHERE { ?s <http://example.org/name> ?n }', { ledger: 'vend' });
    const out: string[] = [];
    if (result.type === 'bindings') for await (const row of result.rows) out.push(row['n']!.value);
    return out.sort();
  };

  it("the browser peer's reader (presigned GETs over fetch) reads the bucket directly; signatures verified", async () => {
    const p = await fetchPeer();
    try {
      const passed = gate.passed;
      expect(await peerNames(p)).toEqual(['ana', 'bo', 'cy', 'dee']);
      expect(p.direct!.stats.objects).toBeGreaterThan(0);
      expect(p.direct!.stats.fallbacks).toBe(0);
      expect(p.client!.stats.objects).toBe(0);
      expect(gate.passed - passed).toBe(p.direct!.stats.objects);
      expect(gate.refused).toEqual([]);
    } finally {
      await p.close();
    }
  }, 60_000);

  it('when the bucket cannot be reached from the page (CORS refused, network), the proxy serves every object', async () => {
    const corsRefused = (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch;
    const p = await fetchPeer(corsRefused);
    try {
      expect(await peerNames(p)).toEqual(['ana', 'bo', 'cy', 'dee']);
      expect(p.direct!.stats.objects).toBe(0);
      expect(p.direct!.stats.fallbacks).toBeGreaterThan(0);
      expect(p.client!.stats.objects).toBeGreaterThan(0);
    } finally {
      await p.close();
    }
  }, 60_000);
});
