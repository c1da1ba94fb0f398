/**
 * The servers the storage bench runs against, on loopback: s3rver in a child process of its own (so
 * the S3 server's CPU is not charged to Ledgraph's event loop) and a throwaway PostgreSQL cluster
 * from Debian's initdb/pg_ctl (as test/storage/pg-cluster.ts, but with fsync on: commits/s are
 * measured against a durable PostgreSQL). Also runnable as the s3rver child itself:
 *   node bench/storage-services.js s3rver <dir> <bucket>   → prints {"port":N}, stops on stdin close
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

if (process.argv[2] === 's3rver') {
  const { default: S3rver } = await import('s3rver');
  const [dir, bucket] = process.argv.slice(3);
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const { port } = await s3.run();
  process.stdout.write(JSON.stringify({ port }) + '\n');
  process.stdin.resume();
  process.stdin.on('close', () => { s3.close().finally(() => process.exit(0)); });
}

/** s3rver with one bucket in a child process; `stop()` ends it and deletes its data. */
export async function startS3Process(bucket) {
  const dir = await mkdtemp(join(tmpdir(), 'ledgraph-bench-s3-'));
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, 's3rver', dir, bucket], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line).port);
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before it listened`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
  });
}

/** initdb + pg_ctl start in a temp directory on a free loopback port (as the postgres user when root). */
export async function startPg() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)');
  const bin = join(root, versions[0], 'bin');
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'ledgraph-bench-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const id = async (f) => Number((await run('id', [f, 'postgres'])).stdout.trim());
    await chown(dir, await id('-u'), await id('-g'));
  }
  const exec = (cmd, a) => asRoot ? run('/usr/sbin/runuser', ['-u', 'postgres', '--', join(bin, cmd), ...a], { cwd: dir }) : run(join(bin, cmd), a, { cwd: dir });
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=100`;
  await exec('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', opts, '-w', '-t', '60', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await exec('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
