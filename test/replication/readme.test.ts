/**
 * README "Replication": the walkthrough runs as written in bash — two `ledgraph server` processes
 * (the CLI bundled from source), clone, write, pull, push, export and import — on free loopback
 * ports instead of 8091/8092, in a temporary directory with its own remotes file. Its output must
 * show what the README's comments say.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForNode } from '../support/bundle.js';

const ROOT = join(import.meta.dirname, '..', '..');
let work: string;

/** Every top-level JSON object in a text (curl prints without newlines, so objects may touch). */
function jsonValues(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let depth = 0, start = -1, inString = false, escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (escaped) escaped = false; else if (ch === '\\') escaped = true; else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') { if (depth++ === 0) start = i; }
    else if (ch === '}' && depth > 0 && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
  }
  return out;
}

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => ok(p)); });
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ledgraph-readme-repl-'));
  await bundleForNode(join(ROOT, 'test/server/cli-child.ts'), join(work, 'cli.mjs'));
});
afterAll(async () => { await rm(work, { recursive: true, force: true }); });

describe('README replication walkthrough', () => {
  it('runs as written and shows what its comments say', async () => {
    const m = /<!-- replication-walkthrough -->\n```sh\n([\s\S]*?)\n```/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(m).not.toBeNull();
    const [p1, p2] = [await freePort(), await freePort()];
    const script = m![1]!
      .replace('LG="node bin/ledgraph.js"', `LG="node ${join(work, 'cli.mjs')}"`)
      .replaceAll('8091', String(p1)).replaceAll('8092', String(p2));
    const child = spawn('bash', ['-c', `set -e\n${script}`], {
      cwd: work, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: work, XDG_CONFIG_HOME: join(work, 'config'), LEDGRAPH_CLI_CONFIG: '' },
    });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((ok) => child.on('close', ok));
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* the group is gone */ }
    expect(code, `${out}\n${err}`).toBe(0);
    const json = jsonValues(out);
    const clone = json.find((j) => j.ledger === 'hr:main' && j.index_id === null && j.objects === 3);
    expect(clone).toMatchObject({ t: 1, bytes: expect.any(Number) });
    expect(err).toMatch(/^clone hr from a: 3\/3 objects, \d+ B, /m);
    expect(json.filter((j) => j.accepted === 1).map((j) => (j.head as { t: number }).t)).toEqual([2, 3]);
    const logs = json.filter((j) => Array.isArray(j.commits));
    expect(logs).toHaveLength(2);
    expect(logs[0]!.commits).toEqual(logs[1]!.commits);
    expect(json.find((j) => j.file === 'hr.flpack')).toMatchObject({ ledger: 'hr:main', bytes: expect.any(Number) });
    expect(json.find((j) => j.ledger === 'hr-copy:main')).toMatchObject({ t: 3, index_id: null, objects: 7 });
  }, 120_000);
});
