/**
 * End to end over HTTP: a transaction server with content in S3 (s3rver) and the nameservice in
 * PostgreSQL (a throwaway cluster). Writes, queries, time travel and /log work; nothing lands in the
 * storage directory; a second server started on a fresh directory with the same flags sees it all;
 * two Node peers read the bucket; `ledgraph clone` copies a ledger out of it and into it
 * byte-identically (same commit CIDs, /log and answers at every t, as the replication suite checks
 * between file servers). Peers on vended credentials: s3-vend-server.test.ts.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/server/cli.js';
import { json } from '../server/helpers.js';
import { answers, insert, log, startReplServer, storageToken, update } from '../replication/helpers.js';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, startTestServer, type TestServer } from '../support/server.js';
import { DID_A } from '../auth/helpers.js';
import { pgUnavailable, startPgCluster, type PgCluster } from './pg-cluster.js';
import { startS3, type TestS3 } from './s3-server.js';

const why = pgUnavailable();
if (why) console.warn(`\n!!! SKIPPING S3 + PostgreSQL server tests: ${why}\n`);

const CTX = { ex: 'http://example.org/' };

describe.skipIf(why !== null)('a server on S3 + PostgreSQL', () => {
  let cluster: PgCluster;
  let s3: TestS3;
  const env = { ...process.env };
  beforeAll(async () => {
    [cluster, s3] = await Promise.all([startPgCluster(), startS3(['content'])]);
    // The SDK's default credential chain reads these, as it would on a real deployment.
    process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
  }, 120_000);
  afterAll(async () => {
    process.env = env;
    await s3?.stop();
    await cluster?.stop();
  });

  const flags = () => ({
    storage: 's3://content/prod/ledgers', s3Endpoint: s3.endpoint, s3ForcePathStyle: true, s3Region: 'us-east-1',
    nameservice: cluster.url, nameserviceSchema: 'e2e',
  });
  const names = async (srv: TestServer, from: string) => {
    const r = await postJson(`${srv.api}/query`, { '@context': CTX, select: '?n', where: { '@id': '?s', 'ex:name': '?n' }, from });
    expect(r.status, await r.clone().text()).toBe(200);
    return ((await r.json()) as string[]).sort();
  };

  it('writes, queries, time-travels and lists the log; a fresh server on the same S3 + PostgreSQL sees it all', async () => {
    const a = await startTestServer({ config: flags() });
    try {
      await createLedger(a, 'e2e');
      for (const n of ['ana', 'bo']) {
        const r = await postJson(`${a.api}/insert/e2e`, { '@context': CTX, '@id': `ex:${n}`, 'ex:name': n });
        expect(r.status, await r.clone().text()).toBe(200);
      }
      expect(await names(a, 'e2e')).toEqual(['ana', 'bo']);
      expect(await names(a, 'e2e@t:1')).toEqual(['ana']);
      const log = await (await fetch(`${a.api}/log/e2e`)).json() as unknown[];
      expect(Array.isArray(log) ? log.length : (log as { commits: unknown[] }).commits.length).toBeGreaterThanOrEqual(2);
      expect(await readdir(a.dir)).toEqual([]); // content in S3, heads in PostgreSQL
      const client = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: s3.credentials });
      const listed = await client.send(new ListObjectsV2Command({ Bucket: 'content', Prefix: 'prod/ledgers/' }));
      client.destroy();
      expect(listed.KeyCount).toBeGreaterThanOrEqual(3);
      expect(listed.Contents!.every((o) => /^prod\/ledgers\/bag[a-z2-7]+$/.test(o.Key!))).toBe(true);
    } finally {
      await a.close();
    }
    const b = await startTestServer({ config: flags() });
    try {
      expect(await names(b, 'e2e')).toEqual(['ana', 'bo']);
      expect(await names(b, 'e2e@t:1')).toEqual(['ana']);
      const r = await postJson(`${b.api}/insert/e2e`, { '@context': CTX, '@id': 'ex:cy', 'ex:name': 'cy' });
      expect(((await r.json()) as { t: number }).t).toBe(3);
    } finally {
      await b.close();
    }
  }, 60_000);

  it('two Node peers read the bucket and PostgreSQL directly and follow writes made on the server', async () => {
    const tx = await startTestServer({ config: { ...flags(), nameserviceSchema: 'e2e_peers' } });
    const peerConfig = { ...flags(), nameserviceSchema: 'e2e_peers', role: 'peer' as const, txServerUrl: tx.url, peerSubscribeAll: true };
    const peers = [await startTestServer({ config: peerConfig }), await startTestServer({ config: peerConfig })];
    try {
      await createLedger(tx, 'seen');
      const r = await postJson(`${tx.api}/insert/seen`, { '@context': CTX, '@id': 'ex:dee', 'ex:name': 'dee' });
      const { t } = (await r.json()) as { t: number };
      for (const peer of peers) {
        const q = await postJson(`${peer.api}/query`, { '@context': CTX, select: '?n', where: { '@id': '?s', 'ex:name': '?n' }, from: 'seen' },
          { 'Ledgraph-Min-T': String(t) });
        expect(q.status, await q.clone().text()).toBe(200);
        expect(await q.json()).toEqual(['dee']);
        expect(await readdir(peer.dir)).toEqual([]); // nothing copied locally: the peer read the bucket
      }
      // A write sent to a peer is forwarded to the transaction server.
      const w = await postJson(`${peers[0]!.api}/insert/seen`, { '@context': CTX, '@id': 'ex:eve', 'ex:name': 'eve' });
      expect(w.status, await w.clone().text()).toBe(200);
      expect(await names(tx, 'seen')).toEqual(['dee', 'eve']);
    } finally {
      for (const p of peers) await p.close();
      await tx.close();
    }
  }, 60_000);

  it('clone copies a ledger out of S3 + PostgreSQL and back in, byte-identical', async () => {
    const work = await mkdtemp(join(tmpdir(), 'ledgraph-s3-clone-'));
    const config = join(work, 'remotes.json');
    const cli = async (...argv: string[]) => {
      let err = '';
      const code = await main([...argv, '--config', config], { LEDGRAPH_CLI_CONFIG: config }, { out: () => {}, err: (t) => { err += t; } });
      expect(code, err).toBe(0);
    };
    const cloud = await startTestServer({ config: { ...flags(), nameserviceSchema: 'e2e_clone', storageProxyEnabled: true, storageProxyTrustedIssuers: [DID_A] } });
    const [file, file2] = await Promise.all([startReplServer(), startReplServer()]);
    const same = async (x: TestServer, y: TestServer, l: string) => {
      const ix = await json<{ t: number; commitId: string }>(await fetch(`${x.api}/info/${l}`));
      const iy = await json<{ t: number; commitId: string }>(await fetch(`${y.api}/info/${l}`));
      expect(iy.commitId).toBe(ix.commitId);
      expect(await log(y, l)).toEqual(await log(x, l));
      const ts = Array.from({ length: ix.t + 1 }, (_, i) => i);
      expect(await answers(y, l, ts)).toEqual(await answers(x, l, ts));
    };
    try {
      await json(await postJson(`${cloud.api}/create`, { ledger: 'hr' }), 201);
      await insert(cloud, 'hr', { '@id': 'ex:alice', 'ex:name': 'Alice' });
      await insert(cloud, 'hr', { '@id': 'ex:bob', 'ex:name': 'Bob', 'ex:knows': { '@id': 'ex:alice' } });
      await json(await postJson(`${cloud.api}/reindex`, { ledger: 'hr' }));
      await update(cloud, 'hr', 'PREFIX ex: <http://example.org/> DELETE DATA { ex:alice ex:name "Alice" } ; INSERT DATA { ex:alice ex:name "Alicia" }');
      const tok = await storageToken();
      for (const [name, srv] of [['cloud', cloud], ['file', file], ['file2', file2]] as const) await cli('remote', 'add', name, srv.url, '--token', tok);
      await cli('clone', 'cloud', 'hr', '--to', 'file'); // out of S3 + PostgreSQL
      await same(cloud, file, 'hr');
      await json(await postJson(`${file2.api}/create`, { ledger: 'ops' }), 201);
      await insert(file2, 'ops', { '@id': 'ex:carol', 'ex:name': 'Carol' });
      await cli('clone', 'file2', 'ops', '--to', 'cloud'); // into S3 + PostgreSQL
      await same(file2, cloud, 'ops');
    } finally {
      await Promise.all([cloud.close(), file.close(), file2.close()]);
      await rm(work, { recursive: true, force: true });
    }
  }, 90_000);
});
