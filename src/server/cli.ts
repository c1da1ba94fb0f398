/**
 * The `ledgraph` command line: `ledgraph server [flags]`, `ledgraph --help`, `ledgraph --version`.
 * Bad input and startup failures print one line to stderr and exit with code 2.
 */
import { readFileSync } from 'node:fs';
import { isLedgraphError } from '../core/errors.js';
import { parseServerArgs, serverHelp } from './config.js';
import { createLogger } from './log.js';

import type { CliIo } from './cli/io.js';

export type { CliIo } from './cli/io.js';

const processIo: CliIo = {
  out: (t) => { process.stdout.write(t); },
  err: (t) => { process.stderr.write(t); },
  errIsTty: process.stderr.isTTY === true,
};

/** The package version, read from package.json next to dist/ (or src/). */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const USAGE = `Usage: ledgraph <command> [flags]

Commands:
  server    Start the Ledgraph HTTP server (ledgraph server --help lists its flags)
  token     Make Ed25519 keys and bearer tokens (ledgraph token --help)
  remote    Named remotes: add, list, remove (ledgraph remote --help)
  clone, fetch, pull, push, export, import
            Replicate ledgers between servers, storage directories and .flpack files
            (ledgraph clone --help)
  load      Bulk-load RDF files into a ledger (ledgraph load --help)
  branch, merge, rebase, revert
            Create, list and drop branches; merge, rebase and revert on a server
            (ledgraph branch --help)

Flags:
  -h, --help       Show this help
  -v, --version    Print the version
`;

/**
 * Run the CLI. Resolves to an exit code, or to null when a server was started and keeps the
 * process alive (it exits on SIGTERM/SIGINT).
 */
export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  io: CliIo = processIo,
): Promise<number | null> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        io.err(USAGE);
        return 2;
      case '-h':
      case '--help':
      case 'help':
        io.out(USAGE);
        return 0;
      case '-v':
      case '--version':
      case 'version':
        io.out(packageVersion() + '\n');
        return 0;
      case 'token': return await (await import('./token-cli.js')).tokenMain(rest, io);
      case 'remote': {
        const { remoteMain, remotesPath } = await import('./cli/remotes.js');
        const ci = rest.indexOf('--config');
        const path = remotesPath(ci >= 0 ? rest[ci + 1] : undefined, env);
        return remoteMain(ci >= 0 ? [...rest.slice(0, ci), ...rest.slice(ci + 2)] : rest, path, io);
      }
      case 'clone': case 'fetch': case 'pull': case 'push': case 'export': case 'import': {
        const { replicateMain, REPLICATE_USAGE } = await import('./cli/replicate.js');
        if (rest.includes('--help') || rest.includes('-h')) { io.out(REPLICATE_USAGE); return 0; }
        const { remotesPath } = await import('./cli/remotes.js');
        return await replicateMain(command, rest, (flag) => remotesPath(flag, env), io);
      }
      case 'load': {
        const { loadMain, LOAD_USAGE } = await import('./cli/load.js');
        if (rest.includes('--help') || rest.includes('-h')) { io.out(LOAD_USAGE); return 0; }
        const { remotesPath } = await import('./cli/remotes.js');
        return await loadMain(rest, (flag) => remotesPath(flag, env), io);
      }
      case 'branch': case 'merge': case 'rebase': case 'revert': {
        const { branchMain, BRANCH_USAGE } = await import('./cli/branches.js');
        if (rest.includes('--help') || rest.includes('-h')) { io.out(BRANCH_USAGE); return 0; }
        const { remotesPath } = await import('./cli/remotes.js');
        return await branchMain(command, rest, (flag) => remotesPath(flag, env), io);
      }
      case 'server': {
        const parsed = parseServerArgs(rest, env);
        if (parsed.kind === 'help') {
          io.out(serverHelp());
          return 0;
        }
        const log = createLogger(parsed.config.logLevel);
        // Loaded only here: the server (and the engine behind it) costs the client commands start-up time.
        const { runServer } = await import('./main.js');
        await runServer(parsed.config, { version: packageVersion(), log });
        return null;
      }
      default:
        io.err(`ledgraph: unknown command "${command}" (see ledgraph --help)\n`);
        return 2;
    }
  } catch (e) {
    if (isLedgraphError(e)) {
      io.err(`ledgraph: ${e.message}\n`);
      return 2;
    }
    // Network failures (fetch) keep their reason in `cause`.
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
    io.err(`ledgraph: ${e instanceof Error ? e.message : String(e)}${cause}\n`);
    return 1;
  }
}
