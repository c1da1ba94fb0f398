#!/usr/bin/env node
/**
 * `npm run fuzz -- ...` and `npm run soak -- ...`: bundle the TypeScript runners (test/fuzz/) and
 * the server CLI from source with rolldown (Node 20 cannot load .ts; npm packages stay external
 * and resolve from node_modules), then run them. See docs/RELIABILITY.md.
 *
 *   npm run fuzz -- [http] --minutes N [--seed S] [--concurrency C] [--timeout-ms T] [--out FILE]
 *   npm run fuzz -- differential --queries N [--seed S] [--per-graph K] [--out FILE]
 *   npm run soak -- crash --iterations N [--seed S] [--writers W] [--out FILE]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'rolldown';

const ROOT = join(import.meta.dirname, '..');
// One directory per run: a run going on in the background keeps its own bundles.
const OUT = join(ROOT, 'node_modules', '.cache', 'ledgraph-fuzz', String(process.pid));
mkdirSync(OUT, { recursive: true });
process.on('exit', () => rmSync(OUT, { recursive: true, force: true }));
// Interrupted: exit normally so the exit hooks stop server children and remove the bundles.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

async function bundle(entry, file) {
  await build({
    input: join(ROOT, entry),
    platform: 'node',
    logLevel: 'silent',
    external: [/^[^./]/],
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    output: { file: join(OUT, file), format: 'esm', codeSplitting: false },
  });
  return join(OUT, file);
}

const [what, ...rest] = process.argv.slice(2);
const server = await bundle('test/server/cli-child.ts', 'server.mjs');
const entry = what === 'soak' ? await bundle('test/soak/cli.ts', 'soak.mjs') : await bundle('test/fuzz/cli.ts', 'fuzz.mjs');
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(rest, server);
// Keep-alive sockets and timers must not hold the process once the run is over.
setTimeout(() => process.exit(process.exitCode ?? 0), 500).unref();
