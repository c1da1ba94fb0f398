#!/usr/bin/env node
/**
 * The floor of the HTTP bench (bench/http.js forks this file): a bare `node:http` server in its own
 * process that reads each request body whole and answers with response bytes recorded from the
 * Ledgraph server (same status, headers and body), so the difference to Ledgraph is everything
 * Ledgraph does beyond HTTP on this runtime. In `fsync` mode it first appends the request body to a
 * file and fdatasyncs it: the floor of a durable write (one fsync per request).
 *
 * IPC: → {type: 'ready', url} once listening;
 *      ← {type: 'set', status, headers, body, fsync} → {type: 'set'} (the response to replay from now on);
 *      ← {type: 'cpu'} → {type: 'cpu', user, system};
 *      ← {type: 'stop'} → close and exit.
 */
import { closeSync, fdatasync, openSync, write } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'lg-http-floor-'));
const fd = openSync(join(dir, 'log'), 'a');
let reply = { status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from('ok'), fsync: false };

/** Append `chunk` to the log and fdatasync it (the durable-write floor). */
const durable = (chunk) => new Promise((ok, fail) => {
  write(fd, chunk, (e) => (e ? fail(e) : fdatasync(fd, (e2) => (e2 ? fail(e2) : ok()))));
});

const server = createServer((req, res) => {
  const parts = [];
  req.on('data', (d) => parts.push(d));
  req.on('end', () => {
    const send = () => {
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body);
    };
    if (!reply.fsync) return send();
    durable(Buffer.concat(parts)).then(send, (e) => { res.writeHead(500); res.end(String(e)); });
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  process.send({ type: 'ready', url: `http://127.0.0.1:${server.address().port}` });
});

const stop = () => {
  server.close();
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};

process.on('message', (msg) => {
  if (msg.type === 'set') {
    // Headers a server writes per response (framing, date, connection) are node:http's to add.
    const headers = {};
    for (const [k, v] of Object.entries(msg.headers)) if (!['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) headers[k] = v;
    reply = { status: msg.status, headers, body: Buffer.from(msg.body, 'base64'), fsync: Boolean(msg.fsync) };
    process.send({ type: 'set' });
  } else if (msg.type === 'cpu') process.send({ type: 'cpu', ...process.cpuUsage() });
  else if (msg.type === 'stop') stop();
});
process.on('disconnect', stop);
