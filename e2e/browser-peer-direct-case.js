/**
 * e2e case of the browser peer reading the object store directly (issue 16): a transaction server
 * with its content in s3rver (loopback, CORS rule for the page's origin) vends credentials
 * (`GET /storage/credentials`, from a loopback STS stand-in that answers AssumeRole with s3rver's
 * key: the signing of that call is tested in test/storage); the page's peer reads every object from
 * the bucket with presigned GETs and none through the server's storage proxy (counted by a proxy
 * in front of the server). With the bucket's CORS rule removed the browser refuses those reads,
 * and a cold peer answers the same through the proxy.
 */
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SELECT = 'SELECT ?name WHERE { ?s <http://example.org/name> ?name } ORDER BY ?name';
const SEED = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const BUCKET = 'e2e-direct';

const names = (r) => r.results.bindings.map((b) => b.name.value);
function eq(actual, expected, what) {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/** Answers every AssumeRole with `key` and a session token (no signature check: see the file comment). */
async function stsStandIn(key) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const exp = new Date(Date.now() + 900_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      res.writeHead(200, { 'content-type': 'text/xml' }).end(
        `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>${key}</AccessKeyId>`
        + `<SecretAccessKey>${key}</SecretAccessKey><SessionToken>e2e-session</SessionToken><Expiration>${exp}</Expiration></Credentials>`
        + '</AssumeRoleResult><ResponseMetadata><RequestId>e2e</RequestId></ResponseMetadata></AssumeRoleResponse>');
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => { server.closeAllConnections(); server.close(() => ok()); }) };
}

/** A pass-through proxy to `target` counting storage-proxy object reads. */
async function countingProxy(target) {
  const counts = { objects: 0 };
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    if (/\/storage\/objects\//.test(req.url)) counts.objects++;
    const headers = { ...req.headers };
    delete headers.host;
    const up = await fetch(target + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const out = {};
    up.headers.forEach((v, k) => { if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v; });
    if (!up.body) { res.writeHead(up.status, out).end(); return; }
    res.writeHead(up.status, out);
    // Streamed: /events stays open.
    for await (const c of up.body) res.write(c);
    res.end();
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}`, counts, close: () => new Promise((ok) => { server.closeAllConnections(); server.close(() => ok()); }) };
}

export const browserPeerDirectCase = {
  name: 'browser peer reads the object store directly with vended credentials; proxy when CORS refuses',
  timeoutMs: 180_000,
  async run({ baseUrl, newPage, log, root }) {
    const dist = (p) => import(join(root, 'dist', p));
    const { startLedgraphServer } = await dist('server/main.js');
    const { defaultServerConfig } = await dist('server/config.js');
    const { silentLogger } = await dist('server/log.js');
    const { ed25519FromSeed, mintToken, hexBytes } = await dist('server/auth/jws.js');
    const { default: S3rver } = await import('s3rver');
    const { S3Client, DeleteBucketCorsCommand } = await import('@aws-sdk/client-s3');
    const signer = await ed25519FromSeed(hexBytes(SEED));
    const now = Math.floor(Date.now() / 1000);
    const token = await mintToken(signer, { iss: signer.did, iat: now, exp: now + 3600, 'ledgraph.storage.all': true, 'ledgraph.events.all': true });
    const origin = new URL(baseUrl).origin;
    const cors = `<CORSConfiguration><CORSRule><AllowedOrigin>${origin}</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedHeader>*</AllowedHeader></CORSRule></CORSConfiguration>`;
    const s3dir = await mkdtemp(join(tmpdir(), 'ledgraph-e2e-s3-'));
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-e2e-direct-'));
    const cleanups = [() => rm(dir, { recursive: true, force: true }), () => rm(s3dir, { recursive: true, force: true })];
    const env = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    let tx = null;
    try {
      const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET, configs: [cors] }] });
      const { port } = await s3.run();
      cleanups.push(() => s3.close());
      const s3Endpoint = `http://127.0.0.1:${port}`;
      const sts = await stsStandIn('S3RVER');
      cleanups.push(sts.close);
      // The server's own S3 and STS calls sign with the default chain's keys: s3rver's.
      process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
      process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
      tx = await startLedgraphServer({
        ...defaultServerConfig(), host: '127.0.0.1', port: 0, storagePath: dir, corsEnabled: true,
        storage: `s3://${BUCKET}/prod`, s3Endpoint, s3ForcePathStyle: true, s3Region: 'us-east-1',
        storageProxyEnabled: true, storageProxyTrustedIssuers: [signer.did], eventsKeepAliveMs: 2000,
        storageVendEnabled: true, storageVendRoleArn: 'arn:aws:iam::123456789012:role/e2e-read', storageVendTtlSecs: 900, storageVendStsEndpoint: sts.url,
      }, { version: 'e2e', log: silentLogger });
      const api = tx.url + '/v1/ledgraph';
      const post = async (path, body) => {
        const r = await fetch(api + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
        return r.json();
      };
      await post('/create', { ledger: 'web' });
      for (const n of ['Alice', 'Bob']) await post('/insert/web', { '@context': { ex: 'http://example.org/' }, '@id': `ex:${n.toLowerCase()}`, 'ex:name': n });
      await post('/reindex', { ledger: 'web' }); // index leaves in the bucket too
      await post('/insert/web', { '@context': { ex: 'http://example.org/' }, '@id': 'ex:carol', 'ex:name': 'Carol' });
      const proxy = await countingProxy(tx.url);
      cleanups.push(proxy.close);

      const page = await newPage();
      await page.goto(`${baseUrl}/peer/index.html`);
      await page.waitForFunction(() => typeof window.ledgraphBrowserPeer === 'function', null, { timeout: 15_000 });
      const open = (database) => page.evaluate(async ({ url, token, SELECT, database }) => {
        const p = await window.ledgraphBrowserPeer({ url, token, ledger: 'web', database });
        const out = { head: await p.query(SELECT), t1: await p.query(SELECT, { t: 1 }) };
        await p.close();
        return out;
      }, { url: proxy.url, token, SELECT, database });

      const direct = await open('e2e-direct-1');
      eq(names(direct.head), ['Alice', 'Bob', 'Carol'], 'head (direct reads)');
      eq(names(direct.t1), ['Alice'], 't 1 (direct reads)');
      eq(proxy.counts.objects, 0, 'objects read through the storage proxy');
      log('ok  a cold peer answered at the head and at t 1 with every object read from the bucket (0 through the proxy)');

      const s3client = new S3Client({ endpoint: s3Endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      await s3client.send(new DeleteBucketCorsCommand({ Bucket: BUCKET }));
      s3client.destroy();
      const refused = await open('e2e-direct-2');
      eq(names(refused.head), ['Alice', 'Bob', 'Carol'], 'head (CORS refused)');
      eq(names(refused.t1), ['Alice'], 't 1 (CORS refused)');
      if (proxy.counts.objects === 0) throw new Error('with CORS refused, nothing was read through the proxy');
      log(`ok  bucket CORS removed: a cold peer answered the same with ${proxy.counts.objects} objects through the proxy`);
    } finally {
      await tx?.close(1000).catch(() => {});
      if (env.id === undefined) delete process.env.AWS_ACCESS_KEY_ID; else process.env.AWS_ACCESS_KEY_ID = env.id;
      if (env.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY; else process.env.AWS_SECRET_ACCESS_KEY = env.secret;
      for (const c of cleanups.reverse()) await c().catch(() => {});
    }
  },
};
