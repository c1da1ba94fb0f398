/**
 * The other combinations of `--storage s3://…` over HTTP: content in the bucket (s3rver) with the
 * nameservice in files under --storage-path (a restarted server on the same directory and bucket
 * has it all, and the directory holds only the nameservice), and with the nameservice in memory.
 */
import { readdir, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, startTestServer } from '../support/server.js';
import { startS3, type TestS3 } from './s3-server.js';

const CTX = { ex: 'http://example.org/' };

describe('S3 content with a file or memory nameservice', () => {
  let s3: TestS3;
  beforeAll(async () => { s3 = await startS3(['mixed']); });
  afterAll(async () => { await s3?.stop(); });

  const flags = (prefix: string) => ({
    storage: `s3://mixed/${prefix}`, s3Endpoint: s3.endpoint, s3ForcePathStyle: true,
  });
  const names = async (api: string) => {
    const r = await postJson(`${api}/query`, { '@context': CTX, select: '?n', where: { '@id': '?s', 'ex:name': '?n' }, from: 'mix' });
    expect(r.status, await r.clone().text()).toBe(200);
    return ((await r.json()) as string[]).sort();
  };

  it('file nameservice: heads under --storage-path, content in the bucket, a restart on both sees everything; memory nameservice too', async () => {
    const env = { ...process.env };
    process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
    try {
      const a = await startTestServer({ config: flags('file-ns') });
      let dir: string;
      try {
        dir = a.dir;
        await createLedger(a, 'mix');
        const r = await postJson(`${a.api}/insert/mix`, { '@context': CTX, '@id': 'ex:ana', 'ex:name': 'ana' });
        expect(r.status, await r.clone().text()).toBe(200);
        expect(await readdir(dir)).toEqual(['ns']); // no objects/ directory: content went to the bucket
      } finally {
        await a.server.close(2000); // the directory stays for the restart
      }
      const b = await startTestServer({ config: { ...flags('file-ns'), storagePath: dir } });
      try {
        expect(await names(b.api)).toEqual(['ana']);
      } finally {
        await b.close();
        await rm(dir, { recursive: true, force: true });
      }
      const c = await startTestServer({ config: { ...flags('memory-ns'), memory: true } });
      try {
        await createLedger(c, 'mix');
        const r = await postJson(`${c.api}/insert/mix`, { '@context': CTX, '@id': 'ex:bo', 'ex:name': 'bo' });
        expect(((await r.json()) as { t: number }).t).toBe(1);
        expect(await names(c.api)).toEqual(['bo']);
        expect(await readdir(c.dir)).toEqual([]);
      } finally {
        await c.close();
      }
    } finally {
      process.env = env;
    }
  }, 60_000);
});
