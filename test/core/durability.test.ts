import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/core/ledger/connection.js';
import { openFileStorage } from '../../src/storage/index.js';
import { bundleForNode } from '../support/bundle.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'lg-durability-'));
  await bundleForNode(join(import.meta.dirname, 'durability-child.ts'), join(work, 'child.mjs'));
});
afterAll(async () => { await rm(work, { recursive: true, force: true }); });

/** Run the child until it acknowledged `acks` commits, kill it with SIGKILL after `delayMs`; returns the last acknowledged t. */
function runAndKill(dir: string, acks: number, delayMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(work, 'child.mjs'), dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let last = -1, seen = 0, buf = '', killed = false, stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('ack ')) { last = Number(line.slice(4)); seen++; }
        if (seen >= acks && !killed) {
          killed = true;
          setTimeout(() => child.kill('SIGKILL'), delayMs);
        }
      }
    });
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(last);
      else reject(new Error(`child exited without being killed: ${stderr}`));
    });
  });
}

describe('durability under SIGKILL', () => {
  it('keeps every acknowledged commit, shows no partial commit, and accepts new writes', async () => {
    const dir = join(work, 'data');
    const setup = new Connection(await openFileStorage(dir));
    await setup.create('dur');
    await setup.close();
    let acknowledged = 0;
    // Kill points vary: right after an ack, and a few milliseconds into later commits and index jobs.
    const plan: [number, number][] = [[3, 0], [10, 1], [25, 3], [7, 7], [40, 2], [15, 11]];
    for (const [acks, delay] of plan) {
      const last = await runAndKill(dir, acks, delay);
      expect(last).toBeGreaterThan(acknowledged);
      acknowledged = last;
      const conn = new Connection(await openFileStorage(dir));
      const ledger = await conn.ledger('dur');
      expect(ledger.t).toBeGreaterThanOrEqual(acknowledged);
      // Every t holds exactly the facts of commits 1..t: one per commit, none partial.
      for (const t of [1, Math.max(1, acknowledged >> 1), acknowledged, ledger.t]) {
        const db = await conn.db(`dur@t:${t}`);
        const subjects: string[] = [];
        for await (const b of db.scan({ g: 0 })) for (let i = 0; i < b.n; i++) subjects.push(db.dict.key(b.s[i]!));
        expect(subjects.sort()).toEqual(Array.from({ length: t }, (_, i) => `http://ex.org/s${i + 1}`).sort());
      }
      await conn.close();
    }
    const conn = new Connection(await openFileStorage(dir));
    const before = (await conn.ledger('dur')).t;
    const r = await conn.transact('dur', { kind: 'insert', quads: [], meta: [], opts: {} }).catch((e) => e);
    expect(r).toMatchObject({ t: before }); // an empty write is not a commit
    await conn.close();
  }, 120_000);
});
