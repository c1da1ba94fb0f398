#!/usr/bin/env node
// The `ledgraph` command: runs the compiled CLI in dist/ (built by `npm run build`, or by `prepare` on `npm ci`).
import { existsSync } from 'node:fs';

// Started by bin/ledgraph.cjs with V8's heap sized: when the launcher goes away without passing a
// signal on (kill -9), its IPC channel closes, and the server shuts down as on SIGTERM.
if (process.env.LEDGRAPH_LAUNCHED === '1' && process.channel) {
  delete process.env.LEDGRAPH_LAUNCHED;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

const cli = new URL('../dist/server/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('ledgraph: dist/server/cli.js is missing; run `npm run build` first\n');
  process.exit(1);
}
const { main } = await import(cli.href);
const code = await main(process.argv.slice(2));
if (code !== null) process.exitCode = code;
