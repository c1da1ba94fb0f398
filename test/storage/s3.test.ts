/**
 * The S3 ContentStore against a real S3-protocol server (s3rver, in-process on a loopback port),
 * reached through a small forwarding proxy that records requests and can inject 503 throttling:
 * the storage contract, multipart upload and ranged reads of a large object, a corrupted object
 * rejected, throttling retried.
 */
import { createServer, request, type Server } from 'node:http';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Codec } from '../../src/core/commit/cid.js';
import { MemoryNameService } from '../../src/storage/memory-store.js';
import { parseS3Url, S3ContentStore, type S3StoreOptions } from '../../src/storage/s3-store.js';
import { rejection, storageContract } from './contract.js';
import { startS3, type TestS3 } from './s3-server.js';

const BUCKET = 'ledgraph-test';
let s3: TestS3;
let proxy: Server;
let endpoint: string;
/** Requests seen by the proxy: method, path and query. */
const seen: string[] = [];
let throttle = 0;

beforeAll(async () => {
  s3 = await startS3([BUCKET]);
  const port = s3.port;
  proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.range ?? ''}`.trim());
    if (throttle > 0) {
      throttle--;
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
      return;
    }
    const up = request({ agent: false, host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.on('close', () => { if (!r.complete) res.destroy(); }); // pass an upstream abort on
      r.pipe(res);
    });
    up.on('error', () => { res.writeHead(502); res.end(); });
    req.pipe(up);
  });
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((ok) => proxy?.close(() => ok()));
  await s3?.stop();
});

let prefixes = 0;
const open = (over: Partial<S3StoreOptions> = {}) =>
  new S3ContentStore({ bucket: BUCKET, prefix: `p${++prefixes}/ledgers`, endpoint, forcePathStyle: true, credentials: s3.credentials, ...over });

storageContract('s3', async () => {
  const content = open();
  return {
    content,
    ns: new MemoryNameService(),
    tamper: async (cid, bytes) => {
      await content.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: content.keyOf(cid), Body: bytes }));
    },
    cleanup: async () => {},
  };
});

describe('S3 specifics', () => {
  it('parses s3:// URLs', () => {
    expect(parseS3Url('s3://my-bucket/a/b')).toEqual({ bucket: 'my-bucket', prefix: 'a/b' });
    expect(parseS3Url('s3://my-bucket')).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(() => parseS3Url('http://x/y')).toThrow('expected s3://bucket/prefix');
  });

  it('keys objects by CID under the prefix', async () => {
    const store = open({ prefix: 'tenant-a/main' });
    const cid = await store.put(Codec.commit, new TextEncoder().encode('keyed'));
    expect(store.keyOf(cid)).toBe(`tenant-a/main/${cid.toString()}`);
    expect(seen.some((l) => l.startsWith(`PUT /${BUCKET}/tenant-a/main/${cid.toString()}`))).toBe(true);
    await store.close();
  });

  it('uploads a large object in parts and reads it back with parallel ranged GETs, verified', async () => {
    const store = open({ partSize: 5 * 1024 * 1024, multipartThreshold: 5 * 1024 * 1024 });
    const big = new Uint8Array(12 * 1024 * 1024 + 123).map((_, i) => (i * 7 + (i >> 13)) & 0xff);
    seen.length = 0;
    const cid = await store.put(Codec.indexLeaf, big);
    const key = `/${BUCKET}/${store.keyOf(cid)}`;
    expect(seen.filter((l) => l.startsWith(`POST ${key}?uploads`)).length).toBe(1);
    expect(seen.filter((l) => l.startsWith(`PUT ${key}?`) && l.includes('partNumber=')).length).toBe(3);
    expect(seen.filter((l) => l.startsWith(`POST ${key}?uploadId=`)).length).toBe(1);

    seen.length = 0;
    const back = await store.get(cid);
    expect(back.length).toBe(big.length);
    expect(Buffer.from(back).equals(Buffer.from(big))).toBe(true);
    // One GET learns the size (its body is dropped), then three ranged GETs fetch the parts.
    const gets = seen.filter((l) => l.startsWith(`GET ${key}`)).map((l) => l.split(' ').slice(2).join(' '));
    expect(gets.sort()).toEqual(['', 'bytes=0-5242879', 'bytes=10485760-12583034', 'bytes=5242880-10485759'].sort());

    // A corrupted large object is refused too, whichever range carries the damage.
    const bad = big.slice();
    bad[11 * 1024 * 1024] ^= 1;
    await store.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: store.keyOf(cid), Body: bad }));
    const err = await rejection(store.get(cid));
    expect(err.status).toBe(502);
    expect(err.message).toContain('does not match its CID');
    await store.close();
  }, 60_000);

  it('retries 503 SlowDown with backoff and succeeds; gives up with a 502 when it persists', async () => {
    const store = open({ maxAttempts: 4 });
    const cid = await store.put(Codec.txn, new TextEncoder().encode('throttled'));
    seen.length = 0;
    throttle = 2;
    expect(new TextDecoder().decode(await store.get(cid))).toBe('throttled');
    expect(seen.filter((l) => l.startsWith('GET ')).length).toBe(3);

    throttle = 2;
    await store.put(Codec.txn, new TextEncoder().encode('throttled write'));
    expect(throttle).toBe(0);

    throttle = 10;
    const err = await rejection(store.get(cid));
    expect(err.status).toBe(502);
    expect(err.message).toContain('SlowDown');
    throttle = 0;
    await store.close();
  }, 60_000);

  it('an unknown bucket is a 502 naming it', async () => {
    const store = open({ bucket: 'no-such-bucket', maxAttempts: 1 });
    const err = await rejection(store.put(Codec.txn, new TextEncoder().encode('x')));
    expect(err.status).toBe(502);
    expect(err.message).toContain('s3://no-such-bucket/');
    await store.close();
  });
});
