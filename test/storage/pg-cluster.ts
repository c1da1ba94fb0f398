/**
 * A throwaway PostgreSQL cluster for tests: Debian's initdb/pg_ctl, a temp data directory, a free
 * loopback port, trust auth, run as the unprivileged `postgres` user when the tests run as root
 * (PostgreSQL refuses to run as root). `.ci/run` installs the `postgresql` package when missing.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Directory of Debian's PostgreSQL server binaries (newest version), or null when not installed. */
export function pgBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, 'bin') : null;
}

/** Why PostgreSQL tests cannot run here, or null when they can. */
export function pgUnavailable(): string | null {
  if (!pgBinDir()) return 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): apt-get install -y postgresql';
  if (process.getuid?.() === 0 && !existsSync('/usr/sbin/runuser')) return 'running as root without runuser to drop to the postgres user';
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A running throwaway cluster. */
export interface PgCluster {
  /** Connection string of the `postgres` database. */
  url: string;
  port: number;
  /** Restart the server (connections drop; data stays). */
  restart(): Promise<void>;
  /** Stop the server and delete its data directory. */
  stop(): Promise<void>;
}

/** initdb + pg_ctl start in a fresh temp directory on a free loopback port. */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error(pgUnavailable()!);
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'ledgraph-pg-'));
  const data = join(dir, 'data');
  const uid = asRoot ? Number((await run('id', ['-u', 'postgres'])).stdout.trim()) : -1;
  const gid = asRoot ? Number((await run('id', ['-g', 'postgres'])).stdout.trim()) : -1;
  if (asRoot) await chown(dir, uid, gid);
  const exec = (cmd: string, args: string[]) => asRoot
    ? run('/usr/sbin/runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { cwd: dir })
    : run(join(bin, cmd), args, { cwd: dir });
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  // Loopback TCP only; the Unix socket goes into the temp dir, not /var/run.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const ctl = (action: string) => exec('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', opts, '-w', '-t', '60', action]);
  await ctl('start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: async () => { await ctl('restart'); },
    stop: async () => {
      await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
