/**
 * A loopback HTTP proxy in front of a test server that can lose a response (the request reaches
 * the server, the client sees the connection drop), cut a response body after some bytes, or flip
 * a byte of it: the failures a replication client must survive. Not a test file itself.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Match = (method: string, path: string) => boolean;

export interface FlakyOptions {
  /** The first request matching this reaches the server, whose answer is then lost (socket destroyed). */
  loseAnswerOf?: Match;
  /** Responses matching this are cut after `afterBytes` body bytes (socket destroyed). */
  cut?: { match: Match; afterBytes: number };
  /** Responses matching this have the body byte at `at` flipped (tampering on the way). */
  flip?: { match: Match; at: number };
}

export interface FlakyProxy {
  url: string;
  /** "METHOD /path" of every request seen, in order. */
  seen: string[];
  close(): Promise<void>;
}

/** Start a proxy to `target` (an origin like http://127.0.0.1:1234). */
export async function startFlakyProxy(target: string, opts: FlakyOptions): Promise<FlakyProxy> {
  const up = new URL(target);
  const seen: string[] = [];
  let lost = false;
  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    seen.push(`${method} ${path.split('?')[0]}`);
    const fwd = request({ host: up.hostname, port: up.port, method, path, headers: { ...req.headers, host: up.host } }, (ures: IncomingMessage) => {
      if (!lost && opts.loseAnswerOf?.(method, path)) {
        lost = true;
        ures.resume();
        ures.on('end', () => req.socket.destroy());
        return;
      }
      const cut = opts.cut?.match(method, path) ? opts.cut.afterBytes : null;
      res.writeHead(ures.statusCode ?? 502, ures.headers);
      if (opts.flip?.match(method, path)) {
        const at = opts.flip.at;
        let seenBytes = 0;
        ures.on('data', (chunk: Buffer) => {
          if (at >= seenBytes && at < seenBytes + chunk.length) { chunk = Buffer.from(chunk); chunk[at - seenBytes] ^= 0x01; }
          seenBytes += chunk.length;
          res.write(chunk);
        });
        ures.on('end', () => res.end());
        return;
      }
      if (cut === null) { ures.pipe(res); return; }
      let sent = 0;
      ures.on('data', (chunk: Buffer) => {
        if (sent >= cut) return;
        const part = chunk.subarray(0, cut - sent);
        sent += part.length;
        res.write(part);
        if (sent >= cut) { ures.destroy(); res.socket?.destroy(); }
      });
      ures.on('end', () => res.end());
    });
    fwd.on('error', () => res.socket?.destroy());
    req.pipe(fwd);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };
}
