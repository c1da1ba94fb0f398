/** Child-process entry for server.test.ts: runs the real `ledgraph` CLI (bundled from source). */
import { main } from '../../src/server/cli.js';

const code = await main(process.argv.slice(2));
if (code !== null) process.exitCode = code;
