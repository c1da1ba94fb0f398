/**
 * Sending fuzz requests and judging the answers. The property every request must keep:
 *  - no 5xx, except documented back-pressure (503 with `Retry-After`);
 *  - an answer within the per-request timeout (else "hang");
 *  - the connection is not dropped without an answer (a kept-alive socket reused after sitting idle
 *    about as long as the server's `Keep-Alive: timeout=` is the ordinary race, not a drop; a
 *    socket whose answer said `Connection: close` is never reused);
 *  - no error body exposes a stack trace or the server's storage path ("leak").
 * After a run (and every so often during one) the server must be healthy: `GET /health` is 200
 * and the canary query answers exactly its known result.
 */
import http from 'node:http';
import { CANARY_ANSWER, CANARY_QUERY, CTX, FIXTURE_TTL, FZ } from './seeds.js';
import type { FuzzRequest, TargetContext } from './http-targets.js';
import { mintToken, signCompact, ed25519FromSeed, hexBytes } from '../../src/server/auth/jws.js';

/** The fuzz server's trusted issuer (the seed of test/auth/helpers.ts's signer A). */
export const FUZZ_SEED = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
export const FUZZ_DID = 'did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd';

/** Server configuration the fuzzer expects (as ServerConfig overrides). */
export const FUZZ_SERVER_CONFIG = {
  dataAuthMode: 'optional' as const,
  dataAuthTrustedIssuers: [FUZZ_DID],
  storageProxyEnabled: true,
  storageProxyTrustedIssuers: [FUZZ_DID],
  queryTimeoutMs: 3000,
};
/** The same as CLI flags (for a child-process server). */
export const FUZZ_SERVER_FLAGS = ['--data-auth-mode', 'optional', '--data-auth-trusted-issuer', FUZZ_DID, '--storage-proxy-enabled',
  '--storage-proxy-trusted-issuer', FUZZ_DID, '--query-timeout-ms', '3000', '--log-level', 'error'];

export type Outcome = 'ok' | 'backpressure' | 'header-overflow' | 'keepalive-race' | 'cut-by-restart' | '5xx' | 'hang' | 'dropped' | 'leak';

/**
 * Node's HTTP parser refuses a header block over 16 KiB (--max-http-header-size) with 431 and
 * closes the socket; the client may see the reset before the 431. Such a drop is not a finding.
 */
const MAX_HEADER_BYTES = 16 * 1024;
const headerBytes = (r: FuzzRequest) => r.path.length + Object.entries(r.headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);

export interface Sent { outcome: Outcome; status: number; ms: number; excerpt: string }

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
/** Sockets given a no-op 'error' listener (see `send`). */
const guarded = new WeakSet<object>();
/**
 * When each kept-alive socket's last answer ended and the idle time its `Keep-Alive: timeout=`
 * allowed. The agent reuses only sockets whose answer did not say `Connection: close`; a reused
 * socket closed under a request is the server's fault unless it sat idle about as long as the
 * server said it would wait (the ordinary keep-alive race, which clients retry).
 */
const idleSince = new WeakMap<object, { at: number; allowMs: number }>();
const KEEPALIVE_MARGIN_MS = 1000;

/** Send one request; never throws. `secrets` are strings no response may contain (the storage dir). */
export function send(origin: string, r: FuzzRequest, timeoutMs: number, secrets: string[] = []): Promise<Sent> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (s: Omit<Sent, 'ms'>) => { if (!done) { done = true; clearTimeout(timer); resolve({ ...s, ms: Math.round(performance.now() - t0) }); } };
    let req: http.ClientRequest;
    try {
      const url = new URL(origin);
      const headers: Record<string, string | number> = { ...r.headers };
      if (r.body) headers['Content-Length'] = r.body.length;
      req = http.request({ host: url.hostname, port: url.port, method: r.method, path: r.path.startsWith('/') ? r.path : '/' + r.path, headers, agent });
    } catch (e) {
      // The client refused to send it (an invalid header character): not a server outcome.
      resolve({ outcome: 'ok', status: 0, ms: 0, excerpt: `not sent: ${(e as Error).message}` });
      return;
    }
    const timer = setTimeout(() => { req.destroy(); finish({ outcome: 'hang', status: 0, excerpt: `no answer in ${timeoutMs} ms` }); }, timeoutMs);
    let idleRace = false;
    req.on('error', (e) => finish({ outcome: headerBytes(r) > MAX_HEADER_BYTES - 512 ? 'header-overflow' : idleRace ? 'keepalive-race' : 'dropped', status: 0, excerpt: e.message }));
    // A socket the server closed may still fail a write (EPIPE) after its request was detached
    // from it; the request's own 'error' reports the drop, so the runner must not die of it.
    req.on('socket', (sock) => {
      if (!guarded.has(sock)) { guarded.add(sock); sock.on('error', () => {}); }
      const idle = req.reusedSocket ? idleSince.get(sock) : undefined;
      idleRace = idle !== undefined && performance.now() - idle.at >= idle.allowMs - KEEPALIVE_MARGIN_MS;
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => { if (size < 8192) chunks.push(c); size += c.length; });
      res.on('error', (e) => finish({ outcome: 'dropped', status: res.statusCode ?? 0, excerpt: e.message }));
      res.on('end', () => {
        const hint = /timeout=(\d+)/.exec(String(res.headers['keep-alive'] ?? ''));
        if (res.socket) idleSince.set(res.socket, { at: performance.now(), allowMs: hint ? Number(hint[1]) * 1000 : 5000 });
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8').slice(0, 8192);
        const excerpt = text.slice(0, 400);
        if (status >= 500) {
          const bp = status === 503 && res.headers['retry-after'] !== undefined;
          finish({ outcome: bp ? 'backpressure' : '5xx', status, excerpt });
        } else if (status >= 400 && (/\n\s+at .+:\d+:\d+/.test(text) || secrets.some((s) => s && text.includes(s)))) {
          finish({ outcome: 'leak', status, excerpt });
        } else finish({ outcome: 'ok', status, excerpt: '' });
      });
    });
    if (r.body) req.end(Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength));
    else req.end();
  });
}

async function call(origin: string, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const r = await fetch(origin + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  return { status: r.status, text: await r.text() };
}

/** Undefined when the server is healthy, else what is wrong. */
export async function health(origin: string, apiBase: string, timeoutMs = 10_000): Promise<string | undefined> {
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const h = await fetch(`${origin}/health`, { signal });
    if (h.status !== 200) return `GET /health answered ${h.status}`;
    await h.text();
    const q = await fetch(`${origin}${apiBase}/query/canary`, { method: 'POST', signal, headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: CANARY_QUERY });
    const text = await q.text();
    if (q.status !== 200) return `canary query answered ${q.status}: ${text.slice(0, 200)}`;
    const names = (JSON.parse(text) as { results: { bindings: { n: { value: string } }[] } }).results.bindings.map((b) => b.n.value);
    if (names.length !== 1 || names[0] !== CANARY_ANSWER) return `canary query answered ${JSON.stringify(names)}`;
    return undefined;
  } catch (e) {
    return `health probe failed: ${(e as Error).message}`;
  }
}

/** Create the fixture ledgers and gather what the targets need (a token, a signed request, commits, a pack). */
export async function prepare(origin: string, apiBase: string): Promise<TargetContext> {
  const api = origin + apiBase;
  for (const ledger of ['fz', 'fzw', 'canary']) {
    const r = await call(api, 'POST', '/create', JSON.stringify({ ledger }), { 'Content-Type': 'application/json' });
    if (r.status !== 201 && r.status !== 409) throw new Error(`create ${ledger}: ${r.status} ${r.text}`);
  }
  for (const ledger of ['fz', 'canary']) {
    const r = await call(api, 'POST', `/insert/${ledger}`, FIXTURE_TTL, { 'Content-Type': 'text/turtle' });
    if (r.status !== 200) throw new Error(`seed ${ledger}: ${r.status} ${r.text}`);
  }
  await call(api, 'POST', '/insert/fz', JSON.stringify({ '@context': CTX, '@id': 'ex:dave', 'ex:name': 'Dave' }), { 'Content-Type': 'application/json' });
  const signer = await ed25519FromSeed(hexBytes(FUZZ_SEED)!);
  const now = Math.floor(Date.now() / 1000);
  // Long-lived: a 30-minute run must not see its seed expire.
  const token = await mintToken(signer, { iss: signer.did, iat: now, exp: now + 48 * 3600, 'ledgraph.ledger.read.all': true, 'ledgraph.ledger.write.all': true, 'ledgraph.storage.all': true });
  const signedQuery = await signCompact(signer, new TextEncoder().encode(`SELECT ?n WHERE { ?s <${FZ}name> ?n }`));
  const commits = await fetch(`${api}/commits/fz?limit=5`, { headers: { Authorization: `Bearer ${token}` } });
  const commitsJson = commits.status === 200 ? await commits.text() : '';
  const info = JSON.parse((await call(api, 'GET', '/info/fz')).text) as { commitId?: string };
  const pack = await fetch(`${api}/pack/fz`, {
    method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/x-ledgraph-pack' },
    body: JSON.stringify({ protocol: 'ledgraph-pack-v1', want: [info.commitId], have: [], include_indexes: false }),
  });
  const packBytes = pack.status === 200 ? new Uint8Array(await pack.arrayBuffer()) : new Uint8Array(0);
  const bad = await health(origin, apiBase);
  if (bad) throw new Error(`fuzz server unhealthy after setup: ${bad}`);
  return { apiBase, token, signedQuery, commitsJson, pack: packBytes };
}

/** Counts of a run: requests by target, by status and by outcome, and the failures seen. */
export class Tally {
  requests = 0;
  byStatus: Record<string, number> = {};
  byOutcome: Record<string, number> = {};
  byTarget: Record<string, number> = {};
  slowest = { ms: 0, target: '' };
  failures: { request: FuzzRequest; sent: Sent }[] = [];

  /** Count one request. */
  add(r: FuzzRequest, s: Sent): void {
    this.requests++;
    this.byStatus[s.status] = (this.byStatus[s.status] ?? 0) + 1;
    this.byOutcome[s.outcome] = (this.byOutcome[s.outcome] ?? 0) + 1;
    this.byTarget[r.target] = (this.byTarget[r.target] ?? 0) + 1;
    if (s.ms > this.slowest.ms) this.slowest = { ms: s.ms, target: r.target };
    if (isFailure(s)) this.failures.push({ request: r, sent: s });
  }
}

/** Whether an answer breaks the property. */
export function isFailure(s: Sent): boolean {
  return s.outcome !== 'ok' && s.outcome !== 'backpressure' && s.outcome !== 'header-overflow' && s.outcome !== 'keepalive-race' && s.outcome !== 'cut-by-restart';
}

/** A request in a printable form (bodies as text, cut to `max` characters, with their full length). */
export function describeRequest(r: FuzzRequest, max = 2000): Record<string, unknown> {
  const text = r.body ? Buffer.from(r.body).toString('utf8') : undefined;
  return {
    target: r.target, method: r.method, path: r.path.length > max ? r.path.slice(0, max) + '…' : r.path, headers: r.headers,
    ...(text !== undefined ? { bodyBytes: r.body!.length, body: text.length > max ? text.slice(0, max) + `… (${text.length} chars)` : text } : {}),
  };
}
