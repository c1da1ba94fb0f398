/**
 * End to end over HTTP: a transaction server with content in S3 (s3rver) and the nameservice in
 * PostgreSQL (a throwaway cluster). Writes, queries, time travel and /log work; nothing lands in the
 * storage directory; a second server started on a fresh directory with the same flags sees it all.
 */
import { readdir } from 'node:fs/promises';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, startTestServer, type TestServer } from '../support/server.js';
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
});
