#!/usr/bin/env node
// The `ledgraph` command: runs the compiled CLI in dist/ (built by `npm run build`, or by `prepare` on `npm ci`).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/server/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('ledgraph: dist/server/cli.js is missing; run `npm run build` first\n');
  process.exit(1);
}
const { main } = await import(cli.href);
const code = await main(process.argv.slice(2));
if (code !== null) process.exitCode = code;
