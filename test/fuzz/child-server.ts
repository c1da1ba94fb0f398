/**
 * A Ledgraph server in a child process, for the long runners (fuzz, crash soak): the real CLI
 * bundled from source (test/server/cli-child.ts), on a free loopback port, file storage in `dir`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A free loopback port (bound and released; the child binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface ChildServer {
  url: string;
  proc: ChildProcess;
  /** Everything the child wrote to stderr (last 64 KiB). */
  stderr(): string;
  /** Resolves with the exit code or signal once the child is gone. */
  exited: Promise<string>;
  /** SIGKILL now. */
  kill(): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<string>;
}

/** Start `node <bundle> server --port P --storage-path dir ...flags` and wait until /health answers. */
export async function startChildServer(bundle: string, dir: string, flags: string[] = [], readyMs = 30_000): Promise<ChildServer> {
  const port = await freePort();
  const proc = spawn(process.execPath, [bundle, 'server', '--port', String(port), '--storage-path', dir, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  // The child never outlives the runner (fuzz/run.js turns SIGINT/SIGTERM into an exit).
  const reap = () => { proc.kill('SIGKILL'); };
  process.once('exit', reap);
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-65536); });
  const exited = new Promise<string>((resolve) => proc.on('exit', (code, signal) => { process.removeListener('exit', reap); resolve(signal ?? `exit ${code}`); }));
  let gone: string | undefined;
  void exited.then((s) => { gone = s; });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + readyMs;
  for (;;) {
    if (gone) throw new Error(`server child ended before it was ready (${gone}): ${err.slice(-2000)}`);
    try {
      const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (r.status === 200) { await r.text(); break; }
    } catch { /* not listening yet */ }
    if (Date.now() > until) { proc.kill('SIGKILL'); throw new Error(`server child not ready in ${readyMs} ms: ${err.slice(-2000)}`); }
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return {
    url, proc, exited, stderr: () => err,
    kill: () => { if (!gone) proc.kill('SIGKILL'); return exited; },
    stop: (graceMs = 5000) => {
      if (!gone) {
        proc.kill('SIGTERM');
        const t = setTimeout(() => { if (!gone) proc.kill('SIGKILL'); }, graceMs);
        void exited.then(() => clearTimeout(t));
      }
      return exited;
    },
  };
}
