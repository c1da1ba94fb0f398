/**
 * Requests answered before their body was read, over raw loopback sockets (issue 20, the fuzz
 * run's dropped requests): the answer must either keep the connection usable (the rest of the
 * body discarded, the next request on the socket answered) or say `Connection: close` and close
 * it. Before the fix a large Turtle-family body refused by the streaming parser after its first
 * chunk was answered keep-alive while the body stream stayed paused, so @hono/node-server's
 * 500 ms drain destroyed the socket under the client's next request.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ config: { dataAuthMode: 'none' } });
  const r = await fetch(`${srv.api}/create`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ledger: 'ub' }) });
  expect(r.status).toBe(201);
});
afterAll(() => srv.close());

interface Answer { status: number; headers: Record<string, string>; body: string }

/** A raw keep-alive connection that reads responses one by one (Content-Length or chunked). */
async function open(): Promise<{ sock: Socket; next: (ms?: number) => Promise<Answer | 'closed' | 'timeout'>; closed: Promise<void> }> {
  const sock = connect(srv.server.port, '127.0.0.1');
  await new Promise<void>((ok, fail) => { sock.once('connect', ok); sock.once('error', fail); });
  let buf = Buffer.alloc(0);
  let isClosed = false;
  const waiters: (() => void)[] = [];
  const wake = () => { for (const w of waiters.splice(0)) w(); };
  sock.on('data', (d: Buffer) => { buf = Buffer.concat([buf, d]); wake(); });
  sock.on('error', () => {});
  const closed = new Promise<void>((ok) => sock.once('close', () => { isClosed = true; wake(); ok(); }));
  const parse = (): Answer | null => {
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1)) { const i = l.indexOf(':'); headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim(); }
    let at = end + 4;
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const eol = buf.indexOf('\r\n', at);
        if (eol < 0) return null;
        const n = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
        if (buf.length < eol + 2 + n + 2) return null;
        body += buf.subarray(eol + 2, eol + 2 + n).toString('utf8');
        at = eol + 2 + n + 2;
        if (n === 0) break;
      }
    } else {
      const n = Number(headers['content-length'] ?? 0);
      if (buf.length < at + n) return null;
      body = buf.subarray(at, at + n).toString('utf8');
      at += n;
    }
    buf = buf.subarray(at);
    return { status, headers, body };
  };
  const next = async (ms = 3000): Promise<Answer | 'closed' | 'timeout'> => {
    const until = Date.now() + ms;
    for (;;) {
      const a = parse();
      if (a) return a;
      if (isClosed) return 'closed';
      if (Date.now() > until) return 'timeout';
      await new Promise<void>((ok) => { waiters.push(ok); setTimeout(ok, 50); });
    }
  };
  return { sock, next, closed };
}

const HEALTH = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;

/**
 * Send `request` on a keep-alive socket, read its answer, then send GET /health on the same socket
 * unless the answer said `Connection: close`. The contract: a keep-alive answer leaves the socket
 * usable; a `Connection: close` answer is followed by the server closing it.
 */
async function sendThenReuse(request: Buffer, status: number, firstPart = request.length): Promise<Answer> {
  const c = await open();
  // The client may send part of the body, read the early answer, then send the rest.
  c.sock.write(request.subarray(0, firstPart));
  const first = await c.next();
  expect(first, 'no answer to the first request').not.toBeTypeOf('string');
  const a = first as Answer;
  expect(a.status, a.body).toBe(status);
  if (firstPart < request.length) c.sock.write(request.subarray(firstPart));
  if (a.headers.connection?.toLowerCase() === 'close') {
    const t = await Promise.race([c.closed.then(() => 'closed'), new Promise((ok) => setTimeout(() => ok('open'), 3000))]);
    expect(t).toBe('closed');
  } else {
    c.sock.write(HEALTH);
    const second = await c.next();
    expect(second, 'the keep-alive socket was closed under the next request').not.toBeTypeOf('string');
    expect((second as Answer).status).toBe(200);
    c.sock.destroy();
  }
  return a;
}

/** A TriG body with bytes that are not UTF-8 near its start, padded to `size` bytes: refused at the first chunk read. */
function brokenTrig(size: number): Buffer {
  const start = Buffer.concat([Buffer.from('@prefix ex: <http://example.org/> .\nex:a ex:p "'), Buffer.from([0xc0, 0x80]), Buffer.from('" .\n#')]);
  return Buffer.concat([start, Buffer.alloc(size - start.length, 0x23)]);
}

describe('answers sent before the request body was read', () => {
  it('a 400 from the streaming parser on a 347,801-byte TriG body, answered while the body is still arriving, says Connection: close and closes (the fuzz run\'s drop)', async () => {
    const body = brokenTrig(347_801);
    const req = Buffer.concat([Buffer.from(head('POST', '/v1/ledgraph/insert/ub', { 'Content-Type': 'application/trig', 'Content-Length': body.length, Connection: 'keep-alive' })), body]);
    const a = await sendThenReuse(req, 400, 16 * 1024);
    expect(a.headers.connection).toBe('close');
    expect(JSON.parse(a.body)).toEqual({ status: 400, '@type': 'err:db/BadRequest', error: 'the request body is not valid UTF-8' });
  });

  it('the same body sent whole keeps the contract', async () => {
    const body = brokenTrig(347_801);
    await sendThenReuse(Buffer.concat([Buffer.from(head('POST', '/v1/ledgraph/insert/ub', { 'Content-Type': 'application/trig', 'Content-Length': body.length })), body]), 400);
  });

  it('the same with a chunked body: Connection: close, or the socket stays usable', async () => {
    const body = brokenTrig(300_000);
    const chunked = Buffer.concat([Buffer.from(body.length.toString(16) + '\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]);
    await sendThenReuse(Buffer.concat([Buffer.from(head('POST', '/v1/ledgraph/insert/ub', { 'Content-Type': 'application/n-triples', 'Transfer-Encoding': 'chunked' })), chunked]), 400);
  });

  it('a 405 with a 619,895-byte body keeps the contract', async () => {
    const body = Buffer.alloc(619_895, 0x61);
    await sendThenReuse(Buffer.concat([Buffer.from(head('PATCH', '/v1/ledgraph/stream/query/fz', { 'Ledgraph-Ledger': 'x', Range: '', 'Content-Length': body.length })), body]), 405);
  });

  it('a 413 over the body limit says Connection: close', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 0x61);
    const small = await startTestServer({ config: { dataAuthMode: 'none', bodyLimit: 1024 * 1024 } });
    try {
      const sock = connect(small.server.port, '127.0.0.1');
      await new Promise<void>((ok) => sock.once('connect', ok));
      let got = '';
      sock.on('data', (d: Buffer) => { got += d.toString('latin1'); });
      sock.on('error', () => {});
      sock.write(head('POST', '/v1/ledgraph/insert/ub', { 'Content-Type': 'application/n-triples', 'Content-Length': body.length }));
      sock.write(body);
      await new Promise<void>((ok) => sock.once('close', () => ok()));
      expect(got).toMatch(/^HTTP\/1\.1 413 /);
      expect(got.toLowerCase()).toContain('\r\nconnection: close\r\n');
    } finally {
      await small.close();
    }
  });

  it('a Connection: close answer lingers: a client still writing a 4 MiB body after the answer is not reset and finishes its write', async () => {
    const body = Buffer.alloc(4 * 1024 * 1024, 0x7b);
    // Half-open allowed: the client goes on writing after the server's FIN, as an HTTP client may.
    const sock = connect({ port: srv.server.port, host: '127.0.0.1', allowHalfOpen: true });
    await new Promise<void>((ok) => sock.once('connect', ok));
    let got = '';
    let failed: Error | null = null;
    let isClosed = false;
    sock.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    sock.on('error', (e) => { failed = e; });
    const closed = new Promise<void>((ok) => sock.once('close', () => { isClosed = true; ok(); }));
    sock.write(head('PUT', '/v1/ledgraph/info/fz', { 'Ledgraph-Policy-Class': '[', 'Content-Length': body.length }));
    // The body in 64 KiB writes, each after the last was taken: the answer comes long before the end.
    for (let at = 0; at < body.length && !isClosed; at += 65536) {
      if (!sock.write(body.subarray(at, at + 65536))) await new Promise((ok) => { sock.once('drain', ok); void closed.then(ok); });
    }
    sock.end();
    await closed;
    expect(failed).toBeNull();
    expect(sock.bytesWritten).toBeGreaterThanOrEqual(body.length);
    expect(got).toMatch(/^HTTP\/1\.1 405 /);
    expect(got.toLowerCase()).toContain('\r\nconnection: close\r\n');
  });

  it('a small body refused early keeps the connection alive and the next request is answered', async () => {
    const body = Buffer.from('{"@context": {"ex": "http://example.org/"}, "@id": "ex:a", "ex:p": 1}');
    // Unsupported media type: answered from the headers, the body is discarded.
    await sendThenReuse(Buffer.concat([Buffer.from(head('POST', '/v1/ledgraph/insert/ub', { 'Content-Type': 'application/x-nope', 'Content-Length': body.length })), body]), 415).then((a) => {
      expect(a.headers.connection).toBe('keep-alive');
    });
  });
});
