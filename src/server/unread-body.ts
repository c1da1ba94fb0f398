/**
 * Answers sent before the request body was read to its end (issue 20's dropped requests): an early
 * 4xx from the headers (413 over the body limit, 415, 405, 401), or a parser that stopped at the
 * first error of a streamed body. HTTP/1.1 lets the server answer early, but the connection must
 * stay usable for the client's next request or be announced as closing:
 *
 *  - the rest of the body is discarded once the answer is out. Whatever was reading it (a web
 *    stream over the socket that nobody pulls any more) is detached first: such a stream pauses
 *    the request at every chunk, and @hono/node-server, whose drain then never reaches the body's
 *    end, destroys the socket after 500 ms — under the next request the client had already sent
 *    on the keep-alive connection (the fuzz run's `socket hang up` after ≈ 500 ms);
 *  - when the unread rest may be large (a declared length over DISCARD_MAX_BYTES, or a chunked
 *    body), discarding it could outlast that drain, so the answer carries `Connection: close` and
 *    the client opens a new connection. The close lingers (as nginx's lingering_close): after the
 *    answer the server half-closes and keeps reading and discarding until the client has stopped
 *    sending, for up to LINGER_MS. Closing at once would reset a connection the client is still
 *    writing its body into, and the reset can reach it before the answer does (`write EPIPE`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { SMALL_BODY_BYTES } from './http-util.js';

/**
 * Largest declared body whose unread rest is discarded on a kept-alive connection: a body this
 * small is in the socket buffers once the client has sent it, so discarding it is immediate.
 */
export const DISCARD_MAX_BYTES = SMALL_BODY_BYTES;

/** How long a `Connection: close` answer's connection keeps discarding what the client still sends. */
export const LINGER_MS = 5_000;

/** Whether the request's body has not been read to its end (bytes left in the request or on the socket). */
export function bodyUnread(incoming: IncomingMessage): boolean {
  return !incoming.readableEnded && !(incoming.complete && incoming.readableLength === 0);
}

/** Whether the unread rest of the body is bounded by DISCARD_MAX_BYTES (all received, or a small declared length). */
export function unreadRestIsSmall(incoming: IncomingMessage): boolean {
  if (incoming.complete) return true;
  const declared = incoming.headers['content-length'];
  return incoming.headers['transfer-encoding'] === undefined && declared !== undefined && /^\d+$/.test(declared) && Number(declared) <= DISCARD_MAX_BYTES;
}

/** Let the rest of a request body flow to nowhere (what node:http does for a body nobody reads). */
export function discardBody(incoming: IncomingMessage): void {
  incoming.removeAllListeners('data');
  incoming.resume();
}

/**
 * Make node:http's close of this connection after its answer (`socket.destroySoon()`, called once
 * a `Connection: close` response is finished; @hono/node-server's drain calls it too) a lingering
 * close: half-close now, destroy when the client ends its side or after LINGER_MS.
 */
export function lingerOnClose(socket: Socket): void {
  let lingering = false;
  (socket as Socket & { destroySoon(): void }).destroySoon = function lingeringClose(this: Socket): void {
    if (lingering) return;
    lingering = true;
    const stop = () => { clearTimeout(timer); this.destroy(); };
    const timer = setTimeout(stop, LINGER_MS);
    timer.unref();
    this.once('end', stop);
    this.once('close', () => clearTimeout(timer));
    this.end();
    // The request's parser still reads the socket; the body it parses is discarded (discardBody).
    this.resume();
  };
}

/**
 * The middleware (outermost, so it sees the final response, error answers included): under
 * @hono/node-server, an answer leaving the body unread gets `Connection: close` when the rest may be
 * large, and the rest is discarded once the answer is out. Elsewhere (app.request()) it does nothing.
 */
export function unreadBodyMiddleware(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
    const incoming = env?.incoming, outgoing = env?.outgoing;
    if (!incoming || !outgoing || typeof outgoing.once !== 'function' || !bodyUnread(incoming)) return;
    if (!unreadRestIsSmall(incoming)) {
      try {
        c.res.headers.set('Connection', 'close');
      } catch {
        c.res = new Response(c.res.body, c.res);
        c.res.headers.set('Connection', 'close');
      }
      if (incoming.socket) lingerOnClose(incoming.socket);
    }
    // Not before the answer is out: a streamed answer could still be reading the body.
    outgoing.once('finish', () => { if (!incoming.readableEnded) discardBody(incoming); });
  };
}
