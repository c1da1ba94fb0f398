/**
 * Per-ledger vended credentials end to end: a transaction server on S3 (s3rver behind the SigV4
 * gate) with --s3-ledger-prefixes vends, through the loopback STS (which verifies each AssumeRole's
 * signature and records its session policy), credentials whose policy names one ledger's prefix,
 * to tokens scoped to that ledger; Node and browser-style peers read that ledger from the bucket
 * with them; a hard drop deletes one prefix; a restarted server reads everything; a bucket written
 * with the shared layout keeps working after the switch.
 *
 * Not enforced here: IAM. Neither s3rver nor the gate evaluates the session policy, so "another
 * ledger's objects are outside the credentials" is shown on the policy's exact text (matched
 * against every key in the bucket) and on the keys the peers actually read with the vended
 * session token (recorded by the gate), not by a denied read.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { CID } from 'multiformats/cid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Codec } from '../../src/core/commit/cid.js';
import { encodeCommit } from '../../src/core/commit/commit-codec.js';
import type { Connection } from '../../src/core/ledger/connection.js';
import { runSparql } from '../../src/core/query/sparql-service.js';
import { literal, namedNode } from '../../src/core/rdf/terms.js';
import { openPeer, type Peer } from '../../src/peer/open-peer.js';
import { FetchS3Reader } from '../../src/peer/s3-fetch-reader.js';
import type { ServerConfig } from '../../src/server/config.js';
import { MemoryContentStore } from '../../src/storage/memory-store.js';
import { DID_A, signerA, token } from '../auth/helpers.js';
import { CTX, names, startNode, storageToken, tempDir, type Node } from '../peer/helpers.js';
import { startS3, type TestS3 } from './s3-server.js';
import { startSigV4Gate, type SigV4Gate } from './sigv4-gate.js';
import { startSts, type TestSts } from './sts-server.js';

const ROLE = 'arn:aws:iam::123456789012:role/ledgraph-peer-read';
const policy = (prefix: string) =>
  `{"Version":"2012-10-17","Statement":[{"Sid":"LedgraphReadContent","Effect":"Allow","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::content/${prefix}*"]}]}`;
const peerOf = (n: Node) => (n.server.state as unknown as { peer: Peer }).peer;
const connOf = (n: Node) => (n.server.state as unknown as { conn: Connection }).conn;

async function post(api: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(`${api}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status, await r.clone().text()).toBeLessThan(300);
  return (await r.json()) as Record<string, unknown>;
}
const insert = async (api: string, ledger: string, name: string) =>
  (await post(api, `/insert/${ledger}`, { '@context': CTX, '@id': `ex:${name}`, 'ex:name': name }))['t'] as number;

/** IAM's resource match (`*` any run of characters, `?` one), for the keys a policy covers. */
function covers(resource: string, arn: string): boolean {
  const re = new RegExp('^' + resource.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/]/g, '\\$&'))).join('') + '$');
  return re.test(arn);
}

describe('per-ledger prefixes: vended credentials read one ledger', () => {
  let s3: TestS3;
  let sts: TestSts;
  let gate: SigV4Gate;
  let client: S3Client;
  let tx: Node;
  let txDir: string;
  const dirs: { remove(): Promise<void> }[] = [];
  const nodes: Node[] = [];
  const env = { ...process.env };
  let txConfig: Partial<ServerConfig>;

  /** Every key under `prefix`. */
  async function keys(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const r = await client.send(new ListObjectsV2Command({ Bucket: 'content', Prefix: prefix, ContinuationToken: token }));
      for (const o of r.Contents ?? []) out.push(o.Key!);
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }

  beforeAll(async () => {
    s3 = await startS3(['content']);
    process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
    sts = await startSts({ caller: s3.credentials, issue: s3.credentials });
    gate = await startSigV4Gate(s3.port, s3.credentials);
    client = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: s3.credentials });
    const d = await tempDir();
    dirs.push(d);
    txDir = d.dir;
    txConfig = {
      storage: 's3://content/prod', s3Endpoint: gate.endpoint, s3ForcePathStyle: true, s3Region: 'us-east-1', s3LedgerPrefixes: true,
      storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A], eventsKeepAliveMs: 1000,
      storageVendEnabled: true, storageVendRoleArn: ROLE, storageVendTtlSecs: 900, storageVendStsEndpoint: sts.endpoint,
    };
    tx = await startNode(txDir, txConfig);
    nodes.push(tx);
    for (const l of ['hr', 'ops']) await post(tx.api, '/create', { ledger: l });
    await insert(tx.api, 'hr', 'ana');
    await insert(tx.api, 'ops', 'olga');
    await post(tx.api, '/branch', { ledger: 'hr', branch: 'dev' });
    await insert(tx.api, 'hr:dev', 'bo');
  }, 120_000);
  afterAll(async () => {
    for (const n of nodes.reverse()) await n.close().catch(() => {});
    client?.destroy();
    await sts?.close();
    await gate?.close();
    process.env = env;
    await s3?.stop();
    for (const d of dirs) await d.remove();
  });

  const hrToken = async () => token(await signerA(), { 'ledgraph.storage.ledgers': ['hr:main', 'hr:dev'] });

  it('objects are laid out per ledger; a branch shares its ledger\'s prefix', async () => {
    const all = await keys('prod/');
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((k) => !k.startsWith('prod/hr/') && !k.startsWith('prod/ops/'))).toEqual([]);
  });

  it('GET /storage/credentials: the policy names the ledger\'s prefix only, for tokens covering every branch of it', async () => {
    const get = async (ledger: string, tok: string) => fetch(`${tx.api}/storage/credentials?ledger=${ledger}`, { headers: { Authorization: `Bearer ${tok}` } });
    const r = await get('hr', await hrToken());
    expect(r.status, await r.clone().text()).toBe(200);
    const body = (await r.json()) as Record<string, string>;
    expect(body).toEqual({
      access_key_id: 'S3RVER', secret_access_key: 'S3RVER', session_token: 'session-token-1', expiration: body['expiration'],
      bucket: 'content', prefix: 'prod/hr/', region: 'us-east-1', endpoint: gate.endpoint, force_path_style: true,
    });
    expect(sts.rejected).toEqual([]);
    expect(sts.calls).toEqual([{ RoleArn: ROLE, RoleSessionName: 'ledgraph-hr-main', DurationSeconds: 900, accessKeyId: 'S3RVER', Policy: policy('prod/hr/') }]);
    // The branch and an all-ledger token get the same set (one prefix, one set per half lifetime).
    for (const [ledger, tok] of [['hr:dev', await hrToken()], ['hr', await storageToken()]] as const) {
      const x = await get(ledger, tok);
      expect(x.status).toBe(200);
      expect(((await x.json()) as Record<string, string>)['session_token']).toBe('session-token-1');
    }
    // Another ledger: its own prefix and policy.
    const ops = await get('ops', await token(await signerA(), { 'ledgraph.storage.ledgers': ['ops'] }));
    expect(ops.status).toBe(200);
    expect(((await ops.json()) as Record<string, string>)['prefix']).toBe('prod/ops/');
    expect(sts.calls.map((c) => c.Policy)).toEqual([policy('prod/hr/'), policy('prod/ops/')]);
    // Not vended: a token missing a branch of hr (the credentials read every branch), a token for another ledger.
    for (const [ledger, tok] of [
      ['hr', await token(await signerA(), { 'ledgraph.storage.ledgers': ['hr:main'] })],
      ['hr', await token(await signerA(), { 'ledgraph.storage.ledgers': ['ops'] })],
    ] as const) {
      const x = await get(ledger, tok);
      expect(x.status).toBe(404);
      expect(((await x.json()) as Record<string, unknown>)['@type']).toBe('err:db/LedgerNotFound');
    }
    expect(sts.calls).toHaveLength(2);
    // What each policy covers, over every key in the bucket: hr's objects, none of ops', and the reverse.
    const resource = (p: string) => (JSON.parse(p) as { Statement: { Resource: string[] }[] }).Statement[0]!.Resource[0]!;
    const [hrRes, opsRes] = sts.calls.map((c) => resource(c.Policy!));
    const all = await keys('prod/');
    const arn = (k: string) => `arn:aws:s3:::content/${k}`;
    expect(all.filter((k) => covers(hrRes!, arn(k)))).toEqual(all.filter((k) => k.startsWith('prod/hr/')));
    expect(all.filter((k) => covers(opsRes!, arn(k)))).toEqual(all.filter((k) => k.startsWith('prod/ops/')));
    expect(all.filter((k) => k.startsWith('prod/ops/')).length).toBeGreaterThan(0);
  }, 60_000);

  it('f:serveBlocks false: no credentials for that ledger', async () => {
    await post(tx.api, '/create', { ledger: 'closed' });
    await insert(tx.api, 'closed', 'x');
    const conn = connOf(tx);
    const ledger = await conn.ledger('closed:main');
    const rec = (await conn.ns.get('closed:main'))!;
    const { bytes } = encodeCommit({
      t: rec.commit_t + 1, parents: [CID.parse(rec.commit_head_id!)], time: new Date().toISOString(), txn: null, author: '', nsDelta: [], graphDelta: [], meta: [],
      flakes: [{ g: 2, s: namedNode('urn:ledgraph:ledger'), p: namedNode('https://ns.ledgraph.dev/serveBlocks'), o: literal('false', namedNode('http://www.w3.org/2001/XMLSchema#boolean')), op: true }],
    }, ledger.ns);
    const cid = await conn.contentFor('closed').put(Codec.commit, bytes);
    expect(await conn.ns.compareAndSet('closed:main', rec, { ...rec, commit_head_id: cid.toString(), commit_t: rec.commit_t + 1 })).toBe(true);
    const x = await fetch(`${tx.api}/storage/credentials?ledger=closed`, { headers: { Authorization: `Bearer ${await storageToken()}` } });
    expect(x.status).toBe(404);
    await post(tx.api, '/drop', { ledger: 'closed', hard: true });
  }, 60_000);

  it('a Node peer with a token for one ledger reads it (every branch) from the bucket, only under its prefix', async () => {
    const d = await tempDir();
    dirs.push(d);
    const p = await startNode(d.dir, { role: 'peer', txServerUrl: tx.url, peerLedgers: ['hr', 'hr:dev'], peerSubscribeAll: false, storageProxyToken: await hrToken() });
    nodes.push(p);
    const t = await insert(tx.api, 'hr', 'cy');
    expect(await names(p.api, 'hr', t)).toEqual(['ana', 'cy']);
    expect(await names(p.api, 'hr@t:1')).toEqual(['ana']);
    expect(await names(p.api, 'hr:dev')).toEqual(['ana', 'bo']);
    const { client: proxy, direct } = peerOf(p);
    expect(direct!.stats.objects).toBeGreaterThan(0);
    expect(direct!.stats.fallbacks).toBe(0);
    expect(proxy!.stats.objects).toBe(0);
    const mine = gate.vendedReads.filter((r) => r.startsWith('session-token-1 '));
    expect(mine.length).toBe(direct!.stats.objects);
    expect(mine.filter((r) => !r.startsWith('session-token-1 /content/prod/hr/'))).toEqual([]);
  }, 60_000);

  it("the browser peer's presigned reads use the ledger's prefix, signatures verified", async () => {
    const tok = await hrToken();
    const p = await openPeer({
      api: tx.api, cache: new MemoryContentStore(), storageToken: tok, eventsToken: await storageToken(), ledgers: ['hr'], subscribeAll: false,
      openDirectStore: (c) => new FetchS3Reader(c),
    });
    try {
      const before = gate.vendedReads.length;
      const { result } = await runSparql(p.conn, 'SELECT ?n WHERE { ?s <http://example.org/name> ?n }', { ledger: 'hr' });
      const out: string[] = [];
      if (result.type === 'bindings') for await (const row of result.rows) out.push(row['n']!.value);
      expect(out.sort()).toEqual(['ana', 'cy']);
      expect(p.direct!.stats.objects).toBeGreaterThan(0);
      expect(p.direct!.stats.fallbacks).toBe(0);
      expect(p.client!.stats.objects).toBe(0);
      expect(gate.refused).toEqual([]);
      const reads = gate.vendedReads.slice(before);
      expect(reads.length).toBe(p.direct!.stats.objects);
      expect(reads.filter((r) => !r.startsWith('session-token-1 /content/prod/hr/'))).toEqual([]);
    } finally {
      await p.close();
    }
  }, 60_000);

  it('a hard drop deletes its ledger\'s prefix only; a server restarted on the bucket reads everything', async () => {
    const hrKeys = await keys('prod/hr/');
    const dropped = await post(tx.api, '/drop', { ledger: 'ops', hard: true });
    expect(dropped['files_deleted']).toBeGreaterThan(0);
    expect(await keys('prod/ops/')).toEqual([]);
    expect(await keys('prod/hr/')).toEqual(hrKeys);
    await tx.close();
    tx = await startNode(txDir, txConfig);
    nodes.push(tx);
    expect(await names(tx.api, 'hr')).toEqual(['ana', 'cy']);
    expect(await names(tx.api, 'hr@t:1')).toEqual(['ana']);
    expect(await names(tx.api, 'hr:dev')).toEqual(['ana', 'bo']);
    const m = await post(tx.api, '/merge', { ledger: 'hr', source: 'dev' });
    expect(m['fast_forward']).toBe(false);
    expect(await names(tx.api, 'hr')).toEqual(['ana', 'bo', 'cy']);
    expect((await keys('prod/')).filter((k) => !k.startsWith('prod/hr/'))).toEqual([]);
  }, 60_000);

  it('a bucket written with the shared layout keeps working after the switch; peers read old objects through the proxy', async () => {
    const d = await tempDir();
    dirs.push(d);
    const shared = { ...txConfig, storage: 's3://content/old', s3LedgerPrefixes: false };
    let old = await startNode(d.dir, shared);
    await post(old.api, '/create', { ledger: 'legacy' });
    await insert(old.api, 'legacy', 'ana');
    await old.close();
    const flat = await keys('old/');
    expect(flat.length).toBeGreaterThan(0);
    expect(flat.filter((k) => k.slice(4).includes('/'))).toEqual([]);
    old = await startNode(d.dir, { ...shared, s3LedgerPrefixes: true });
    nodes.push(old);
    expect(await names(old.api, 'legacy')).toEqual(['ana']);
    const t = await insert(old.api, 'legacy', 'bo');
    expect(await names(old.api, 'legacy')).toEqual(['ana', 'bo']);
    expect((await keys('old/legacy/')).length).toBeGreaterThan(0);
    expect((await keys('old/')).filter((k) => !k.startsWith('old/legacy/'))).toEqual(flat);
    // A peer with the ledger's credentials: new objects from the bucket, old ones through the proxy.
    const pd = await tempDir();
    dirs.push(pd);
    const p = await startNode(pd.dir, { role: 'peer', txServerUrl: old.url, peerLedgers: ['legacy'], peerSubscribeAll: false,
      storageProxyToken: await token(await signerA(), { 'ledgraph.storage.ledgers': ['legacy'] }) });
    nodes.push(p);
    expect(await names(p.api, 'legacy', t)).toEqual(['ana', 'bo']);
    const { client: proxy, direct } = peerOf(p);
    expect(direct!.stats.objects).toBeGreaterThan(0);
    expect(direct!.stats.fallbacks).toBeGreaterThan(0);
    expect(proxy!.stats.objects).toBe(direct!.stats.fallbacks);
    expect(sts.calls.at(-1)!.Policy).toBe(policy('old/legacy/'));
  }, 90_000);
});
