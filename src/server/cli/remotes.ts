/**
 * `ledgraph remote add|list|remove`: named remotes (name → server URL + optional bearer token) in a
 * JSON config file: `--config <file>`, else $LEDGRAPH_CLI_CONFIG, else
 * $XDG_CONFIG_HOME/ledgraph/remotes.json (~/.config/ledgraph/remotes.json). Written with mode 600
 * because tokens live there.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { badRequest } from '../../core/errors.js';
import type { CliIo } from './io.js';

export interface RemoteEntry { url: string; token?: string }
export interface RemotesFile { remotes: Record<string, RemoteEntry> }

/** The config file path for these settings. */
export function remotesPath(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (flag) return flag;
  if (env['LEDGRAPH_CLI_CONFIG']) return env['LEDGRAPH_CLI_CONFIG'];
  const base = env['XDG_CONFIG_HOME'] || join(env['HOME'] || homedir(), '.config');
  return join(base, 'ledgraph', 'remotes.json');
}

/** The remotes file (empty when missing). */
export function loadRemotes(path: string): RemotesFile {
  let text: string;
  try { text = readFileSync(path, 'utf8'); } catch { return { remotes: {} }; }
  try {
    const v = JSON.parse(text) as RemotesFile;
    if (v && typeof v.remotes === 'object' && v.remotes !== null) return v;
  } catch { /* fall through */ }
  throw badRequest(`${path} is not a ledgraph remotes file`);
}

function saveRemotes(path: string, f: RemotesFile): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(f, null, 2) + '\n', { mode: 0o600 });
}

/** A token value or `@file`. */
export function readSecret(v: string): string {
  return v.startsWith('@') ? readFileSync(v.slice(1), 'utf8').trim() : v;
}

export const REMOTE_USAGE = `Usage: ledgraph remote <command>
  add <name> <url> [--token <token|@file>]   Add or replace a remote (url = the server origin)
  list                                      Name and URL of every remote (tokens are not shown)
  remove <name>                             Forget a remote
`;

/** `ledgraph remote ...` with the file at `path`. */
export function remoteMain(args: string[], path: string, io: CliIo): number {
  const [cmd, ...rest] = args;
  const f = loadRemotes(path);
  switch (cmd) {
    case 'add': {
      const pos = rest.filter((_, i) => rest[i - 1] !== '--token' && rest[i] !== '--token');
      const ti = rest.indexOf('--token');
      const [name, url] = pos;
      if (!name || !url) throw badRequest('usage: ledgraph remote add <name> <url> [--token <token|@file>]');
      if (!/^https?:\/\//.test(url)) throw badRequest(`remote URL ${url} must start with http:// or https://`);
      const entry: RemoteEntry = { url: url.replace(/\/+$/, '') };
      if (ti >= 0) {
        const t = rest[ti + 1];
        if (!t) throw badRequest('--token needs a value');
        entry.token = readSecret(t);
      }
      f.remotes[name] = entry;
      saveRemotes(path, f);
      io.out(`remote ${name} → ${entry.url}\n`);
      return 0;
    }
    case 'list':
      for (const [name, r] of Object.entries(f.remotes)) io.out(`${name}\t${r.url}${r.token ? '\t(token)' : ''}\n`);
      return 0;
    case 'remove': {
      const name = rest[0];
      if (!name || !f.remotes[name]) throw badRequest(`no remote named ${name ?? '(none)'}`);
      delete f.remotes[name];
      saveRemotes(path, f);
      io.out(`removed remote ${name}\n`);
      return 0;
    }
    default:
      io.err(REMOTE_USAGE);
      return 2;
  }
}
