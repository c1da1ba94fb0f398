/**
 * e2e case of the browser peer (issue 12): a live transaction server (from dist/, CORS on, storage
 * proxy on), a page that loads the library build (dist of vite.peer.config.ts) and opens a peer of
 * one ledger in its Web Worker over IndexedDB; it answers
 * SPARQL and JSON-LD at the head and at earlier t, sees a new commit within 1 s, reopens after a
 * reload with the server gone and answers the same, and refuses a leaf tampered by a proxy in
 * front of the server (and caches nothing of it).
 */
import { createServer } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SELECT = 'SELECT ?s ?name WHERE { ?s <http://example.org/name> ?name } ORDER BY ?s';
const JSONLD = { '@context': { ex: 'http://example.org/' }, select: ['?name'], where: [{ '@id': '?s', 'ex:name': '?name' }], orderBy: ['?name'] };
const SEED = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

const names = (r) => r.results.bindings.map((b) => b.name.value);
function eq(actual, expected, what) {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/**
 * Build the browser peer library (vite.peer.config.ts, Vite library mode) into `<dist>/peer` and a
 * page there that exposes `window.ledgraphBrowserPeer` = its `openLedgerPeer`: the case tests the
 * library build itself.
 */
export async function buildPeerLibrary(root, dist) {
  const { build } = await import('vite');
  process.env.LEDGRAPH_PEER_OUT_DIR = join(dist, 'peer');
  try {
    await build({ configFile: join(root, 'vite.peer.config.ts'), logLevel: 'error' });
  } finally {
    delete process.env.LEDGRAPH_PEER_OUT_DIR;
  }
  await writeFile(join(dist, 'peer', 'index.html'), [
    '<!doctype html><meta charset="utf-8"><title>ledgraph browser peer</title>',
    '<script type="module">import { openLedgerPeer } from "./ledgraph-peer.js"; window.ledgraphBrowserPeer = openLedgerPeer;</script>',
  ].join('\n'));
}

/** A pass-through proxy to `target` that flips the first byte of every index leaf it serves. */
async function tamperProxy(target, isLeaf) {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = { ...req.headers };
    delete headers.host;
    const up = await fetch(target + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    let body = Buffer.from(await up.arrayBuffer());
    const m = /\/storage\/objects\/([a-z2-7]+)/.exec(req.url);
    if (m && up.status === 200 && isLeaf(m[1])) { body = Buffer.from(body); body[0] ^= 0xff; }
    const out = {};
    up.headers.forEach((v, k) => { if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v; });
    res.writeHead(up.status, out).end(body);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => { server.close(() => ok()); server.closeAllConnections(); }) };
}

export const browserPeerCase = {
  name: 'browser peer: follows a live server, time travel, new commit within 1 s, offline reopen, tampered leaf refused',
  timeoutMs: 180_000,
  async run({ baseUrl, newPage, log, root }) {
    const dist = (p) => import(join(root, 'dist', p));
    const { startLedgraphServer } = await dist('server/main.js');
    const { defaultServerConfig } = await dist('server/config.js');
    const { silentLogger } = await dist('server/log.js');
    const { ed25519FromSeed, mintToken, hexBytes } = await dist('server/auth/jws.js');
    const { parseCid, Codec } = await dist('core/commit/cid.js');
    const signer = await ed25519FromSeed(hexBytes(SEED));
    const now = Math.floor(Date.now() / 1000);
    const token = await mintToken(signer, { iss: signer.did, iat: now, exp: now + 3600, 'ledgraph.storage.all': true, 'ledgraph.events.all': true });
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-e2e-peer-'));
    const config = (port = 0) => ({ ...defaultServerConfig(), host: '127.0.0.1', port, storagePath: dir, corsEnabled: true,
      storageProxyEnabled: true, storageProxyTrustedIssuers: [signer.did], eventsKeepAliveMs: 2000 });
    let tx = await startLedgraphServer(config(), { version: 'e2e', log: silentLogger });
    const cleanups = [() => rm(dir, { recursive: true, force: true })];
    try {
      const api = () => tx.url + '/v1/ledgraph';
      const post = async (path, body, type = 'application/json') => {
        const r = await fetch(api() + path, { method: 'POST', headers: { 'Content-Type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });
        if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
        return r.json();
      };
      const insert = (name) => post('/insert/web', { '@context': { ex: 'http://example.org/' }, '@id': `ex:${name.toLowerCase()}`, 'ex:name': name });
      await post('/create', { ledger: 'web' });
      await insert('Alice');
      await insert('Bob');
      await post('/reindex', { ledger: 'web' }); // so queries read index leaves through the proxy
      await insert('Carol');

      const page = await newPage();
      await page.goto(`${baseUrl}/peer/index.html`);
      await page.waitForFunction(() => typeof window.ledgraphBrowserPeer === 'function', null, { timeout: 15_000 });
      const online = await page.evaluate(async ({ url, token, SELECT, JSONLD }) => {
        const p = await window.ledgraphBrowserPeer({ url, token, ledger: 'web', database: 'e2e-peer' });
        window.__peer = p;
        const graph = await p.query('CONSTRUCT { ?s <http://example.org/label> ?name } WHERE { ?s <http://example.org/name> ?name }', { t: 1 });
        return { opened: p.opened, head: await p.query(SELECT), t1: await p.query(SELECT, { t: 1 }), t2: await p.query(SELECT, { t: 2 }), jsonld: await p.query(JSONLD), graph };
      }, { url: tx.url, token, SELECT, JSONLD });
      eq(online.graph, '<http://example.org/alice> <http://example.org/label> "Alice" .\n', 'CONSTRUCT at t 1 (N-Quads)');
      eq(online.opened, { ledger: 'web:main', t: 3 }, 'opened');
      eq(names(online.head), ['Alice', 'Bob', 'Carol'], 'head');
      eq(names(online.t1), ['Alice'], 't 1');
      eq(names(online.t2), ['Alice', 'Bob'], 't 2');
      eq(online.jsonld, ['Alice', 'Bob', 'Carol'], 'JSON-LD query');
      log('ok  SPARQL at the head, at t 1 and t 2, and JSON-LD, answered in the worker');

      await page.evaluate(() => { window.__changes = []; window.__peer.subscribe((c) => window.__changes.push({ ...c, at: Date.now() })); });
      await insert('Dave');
      const acked = Date.now();
      await page.waitForFunction(() => window.__changes.some((c) => c.t === 4), null, { timeout: 5000 });
      const seen = await page.evaluate(() => window.__changes.find((c) => c.t === 4).at);
      if (seen - acked > 1000) throw new Error(`the new commit reached the page ${seen - acked} ms after the server acknowledged it`);
      const head4 = await page.evaluate(async (q) => window.__peer.query(q), SELECT);
      eq(names(head4), ['Alice', 'Bob', 'Carol', 'Dave'], 'head after the live commit');
      log(`ok  new commit seen by the page ${Math.max(0, seen - acked)} ms after the server acknowledged it`);

      // Offline: the server is gone; the page reloads and the peer reopens from IndexedDB.
      await page.evaluate(() => window.__peer.close());
      const port = tx.port;
      await tx.close(1000);
      await page.reload();
      await page.waitForFunction(() => typeof window.ledgraphBrowserPeer === 'function', null, { timeout: 15_000 });
      const offline = await page.evaluate(async ({ url, token, SELECT, JSONLD }) => {
        const p = await window.ledgraphBrowserPeer({ url, token, ledger: 'web', database: 'e2e-peer' });
        const out = { opened: p.opened, head: await p.query(SELECT), t1: await p.query(SELECT, { t: 1 }), t2: await p.query(SELECT, { t: 2 }), jsonld: await p.query(JSONLD) };
        await p.close();
        return out;
      }, { url: `http://127.0.0.1:${port}`, token, SELECT, JSONLD });
      eq(offline.opened, { ledger: 'web:main', t: 4 }, 'opened offline');
      eq(offline.head, head4, 'head offline');
      eq(offline.t1, online.t1, 't 1 offline');
      eq(offline.t2, online.t2, 't 2 offline');
      eq(offline.jsonld, ['Alice', 'Bob', 'Carol', 'Dave'], 'JSON-LD offline');
      log('ok  reopened offline from IndexedDB: same answers at the head, t 1 and t 2');

      // A tampered leaf: a cold peer (new database) reading through a proxy that corrupts leaves.
      tx = await startLedgraphServer(config(), { version: 'e2e', log: silentLogger });
      const proxy = await tamperProxy(tx.url, (cid) => parseCid(cid).code === Codec.indexLeaf);
      cleanups.push(proxy.close);
      const tampered = await page.evaluate(async ({ bad, good, token, SELECT }) => {
        const p = await window.ledgraphBrowserPeer({ url: bad, token, ledger: 'web', database: 'e2e-tamper' });
        let error = null;
        try { await p.query(SELECT); } catch (e) { error = { message: e.message, status: e.status, type: e.type }; }
        await p.close();
        const q = await window.ledgraphBrowserPeer({ url: good, token, ledger: 'web', database: 'e2e-tamper' });
        const after = await q.query(SELECT);
        await q.close();
        return { error, after };
      }, { bad: proxy.url, good: tx.url, token, SELECT });
      if (!tampered.error) throw new Error('a tampered leaf was accepted');
      eq([tampered.error.status, tampered.error.type], [502, 'err:db/BadGateway'], 'tamper error');
      if (!/does not match its CID: tampered or corrupted; it was not used or cached/.test(tampered.error.message)) throw new Error(`unexpected tamper error: ${tampered.error.message}`);
      eq(names(tampered.after), ['Alice', 'Bob', 'Carol', 'Dave'], 'the same database through the honest server');
      log(`ok  tampered leaf refused: ${tampered.error.message.slice(0, 90)}…; nothing of it was cached`);
    } finally {
      await tx.close(1000).catch(() => {});
      for (const c of cleanups.reverse()) await c().catch(() => {});
    }
  },
};
