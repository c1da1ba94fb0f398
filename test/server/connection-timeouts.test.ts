/**
 * Connection timeouts over raw loopback sockets (issue 20): the server closes a connection that
 * sends its headers too slowly (slowloris) and an idle keep-alive connection, while a connection
 * in use within its keep-alive window stays open.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ config: { keepAliveTimeoutMs: 400, headersTimeoutMs: 600, requestTimeoutMs: 5_000 } });
});
afterAll(() => srv.close());

/** A raw socket to the server, collecting what it receives and when it was closed. */
async function open(): Promise<{ sock: Socket; data: () => string; closed: Promise<number> }> {
  const sock = connect(srv.server.port, '127.0.0.1');
  await new Promise<void>((ok, fail) => { sock.once('connect', ok); sock.once('error', fail); });
  let buf = '';
  sock.setEncoding('utf8');
  sock.on('data', (d: string) => { buf += d; });
  sock.on('error', () => {});
  const closed = new Promise<number>((ok) => sock.once('close', () => ok(Date.now())));
  return { sock, data: () => buf, closed };
}

const HEALTH = (keepAlive: boolean) => `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: ${keepAlive ? 'keep-alive' : 'close'}\r\n\r\n`;

describe('connection timeouts', () => {
  it('closes a connection whose headers arrive too slowly, answering 408', async () => {
    const c = await open();
    const t0 = Date.now();
    c.sock.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One header byte every 50 ms: the connection is never idle, but the headers never complete.
    const drip = setInterval(() => { if (!c.sock.destroyed) c.sock.write('X'); }, 50);
    const closedAt = await Promise.race([c.closed, new Promise<number>((ok) => setTimeout(() => ok(-1), 5_000))]);
    clearInterval(drip);
    expect(closedAt).toBeGreaterThan(0);
    expect(closedAt - t0).toBeGreaterThanOrEqual(550);
    expect(c.data()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const c = await open();
    c.sock.write(HEALTH(true));
    await new Promise<void>((ok) => { const t = setInterval(() => { if (c.data().includes('\r\n\r\n')) { clearInterval(t); ok(); } }, 5); });
    const answeredAt = Date.now();
    expect(c.data()).toMatch(/^HTTP\/1\.1 200 /);
    expect(c.data().toLowerCase()).toContain('keep-alive: timeout=');
    const closedAt = await Promise.race([c.closed, new Promise<number>((ok) => setTimeout(() => ok(-1), 5_000))]);
    expect(closedAt).toBeGreaterThan(0);
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(300);
  });

  it('keeps a keep-alive connection that is reused within the timeout', async () => {
    const c = await open();
    for (let i = 0; i < 4; i++) {
      c.sock.write(HEALTH(true));
      await new Promise((ok) => setTimeout(ok, 200)); // under the 400 ms keep-alive timeout
    }
    expect(c.sock.destroyed).toBe(false);
    expect(c.data().match(/HTTP\/1\.1 200 /g)).toHaveLength(4);
    c.sock.end(HEALTH(false));
    await c.closed;
  });
});
