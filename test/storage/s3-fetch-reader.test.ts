/**
 * The browser peer's object-store reader (src/peer/s3-fetch-reader.ts: presigned SigV4 GETs over
 * fetch) against a real S3-protocol server (s3rver on loopback) behind a gate that recomputes
 * each presigned signature (s3rver itself does not check V4 signatures): verified reads under a
 * prefix, a missing object (404), a corrupted object (rejected), a wrong secret or session token
 * (403), a large multipart-uploaded object, and the URL shapes.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Codec, cidOf } from '../../src/core/commit/cid.js';
import { FetchS3Reader, objectUrl } from '../../src/peer/s3-fetch-reader.js';
import type { VendedCredentials } from '../../src/peer/proxy-client.js';
import { S3ContentStore } from '../../src/storage/s3-store.js';
import { rejection } from './contract.js';
import { startS3, type TestS3 } from './s3-server.js';
import { startSigV4Gate, type SigV4Gate } from './sigv4-gate.js';

const BUCKET = 'fetch-reader';
let s3: TestS3;
let gate: SigV4Gate;
let store: S3ContentStore;
let creds: VendedCredentials;

beforeAll(async () => {
  s3 = await startS3([BUCKET]);
  gate = await startSigV4Gate(s3.port, { ...s3.credentials, sessionToken: 'session-token-1' });
  store = new S3ContentStore({ bucket: BUCKET, prefix: 'prod/ledgers', endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials, multipartThreshold: 5 * 1024 * 1024, partSize: 5 * 1024 * 1024 });
  // What GET /storage/credentials answers (s3rver accepts only its own key; the token is signed along).
  creds = {
    access_key_id: s3.credentials.accessKeyId, secret_access_key: s3.credentials.secretAccessKey, session_token: 'session-token-1',
    expiration: new Date(Date.now() + 900_000).toISOString(), bucket: BUCKET, prefix: 'prod/ledgers/', region: 'us-east-1',
    endpoint: gate.endpoint, force_path_style: true,
  };
});
afterAll(async () => {
  store?.client.destroy();
  await gate?.close();
  await s3?.stop();
});

const bytes = (text: string) => new TextEncoder().encode(text);

describe('FetchS3Reader (presigned GETs over fetch)', () => {
  it('reads a stored object under the prefix, verified; the URL is a simple presigned GET', async () => {
    const cid = await store.put(Codec.commit, bytes('{"hello":"bucket"}'));
    const reader = new FetchS3Reader(creds);
    expect(new TextDecoder().decode(await reader.get(cid))).toBe('{"hello":"bucket"}');
    const url = new URL(await reader.presignedUrl(cid));
    expect(url.pathname).toBe(`/${BUCKET}/prod/ledgers/${cid.toString()}`);
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('session-token-1');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^S3RVER\/\d{8}\/us-east-1\/s3\/aws4_request$/);
  });

  it('a missing object is a 404 (the peer falls back to the proxy without renewing credentials)', async () => {
    const cid = await cidOf(Codec.commit, bytes('never stored'));
    const err = await rejection(new FetchS3Reader(creds).get(cid));
    expect(err.status).toBe(404);
  });

  it('an object that does not match its CID is rejected, never returned', async () => {
    const cid = await cidOf(Codec.commit, bytes('the real bytes'));
    await store.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: store.keyOf(cid), Body: bytes('tampered bytes') }));
    const err = await rejection(new FetchS3Reader(creds).get(cid));
    expect(err.status).toBe(502);
    expect(err.message).toContain('does not match its CID');
  });

  it('a wrong secret or session token is refused (403); the right ones verify', async () => {
    const cid = await store.put(Codec.commit, bytes('{"secret":"kept"}'));
    const refused = gate.refused.length;
    expect((await rejection(new FetchS3Reader({ ...creds, secret_access_key: 'not-the-secret' }).get(cid))).status).toBe(403);
    expect((await rejection(new FetchS3Reader({ ...creds, session_token: 'another-token' }).get(cid))).status).toBe(403);
    expect(gate.refused.slice(refused)).toEqual(['signature does not match', 'wrong or missing session token']);
    const passed = gate.passed;
    expect(new TextDecoder().decode(await new FetchS3Reader(creds).get(cid))).toBe('{"secret":"kept"}');
    expect(gate.passed).toBe(passed + 1);
  });

  it('a network or CORS failure is an error naming the object, not a hang', async () => {
    const cid = await store.put(Codec.commit, bytes('{"cors":"blocked"}'));
    const failing = (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch;
    const err = await rejection(new FetchS3Reader(creds, { fetch: failing }).get(cid));
    expect(err.status).toBe(502);
    expect(err.message).toContain(cid.toString());
  });

  it('reads a large object uploaded in parts in one GET', async () => {
    const big = new Uint8Array(11 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
    const cid = await store.put(Codec.indexLeaf, big);
    const got = await new FetchS3Reader(creds).get(cid);
    expect(got.length).toBe(big.length);
    expect(Buffer.from(got).equals(Buffer.from(big))).toBe(true);
  }, 60_000);

  it('builds path-style and virtual-hosted URLs, escaping keys as SigV4 does', () => {
    const c = { bucket: 'b1', region: 'eu-west-1' };
    expect(objectUrl(c, 'p/x').href).toBe('https://b1.s3.eu-west-1.amazonaws.com/p/x');
    expect(objectUrl({ ...c, endpoint: 'http://127.0.0.1:9000', force_path_style: true }, "a b/it's").href).toBe('http://127.0.0.1:9000/b1/a%20b/it%27s');
    expect(objectUrl({ ...c, endpoint: 'https://minio.internal' }, 'k').href).toBe('https://b1.minio.internal/k');
  });
});
