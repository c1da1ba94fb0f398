/**
 * Crash leftovers of the file storage are swept when storage opens (issue 20): temp files of
 * atomic writes, moved-aside lock files and the write probe of a killed process go; a fresh temp
 * file of a live writer, and every record and object, stay.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileStorage } from '../../src/storage/index.js';
import { leftoverPid, sweepLeftovers } from '../../src/storage/leftovers.js';

const dirs: string[] = [];
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

/** The pid of a process that has exited (so no live process owns it). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((ok) => child.on('exit', ok));
  return child.pid!;
}

/** Write a file and set its mtime `ageMs` in the past. */
async function touch(path: string, ageMs: number, text = 'partial'): Promise<void> {
  await writeFile(path, text);
  const at = new Date(Date.now() - ageMs);
  await utimes(path, at, at);
}

const HEX = 'a1b2c3d4e5f6';
const MINUTE = 60_000;

describe('crash leftovers of file storage', () => {
  it('knows the names of leftovers and nothing else', () => {
    expect(leftoverPid(`abc.json.123.${HEX}.tmp`)).toBe(123);
    expect(leftoverPid(`abc.lock.77.${HEX}.stale`)).toBe(77);
    expect(leftoverPid('.ledgraph-write-probe-9')).toBe(9);
    expect(leftoverPid('abc.json')).toBeNull();
    expect(leftoverPid('abc.lock')).toBeNull();
    expect(leftoverPid(`abc.json.123.${HEX}.tmp.keep`)).toBeNull();
    expect(leftoverPid('notes.tmp')).toBeNull();
  });

  it('removes leftovers of a killed process when storage opens, keeping a live writer\'s fresh temp file', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ledgraph-leftovers-'));
    dirs.push(root);
    const dead = await deadPid();
    await mkdir(join(root, 'ns'), { recursive: true });
    await mkdir(join(root, 'objects', 'xy'), { recursive: true });
    const record = JSON.stringify({ ledger_id: 'a:main' });
    await touch(join(root, 'ns', 'a%3Amain.json'), 5 * MINUTE, record);
    await touch(join(root, 'objects', 'xy', 'bagabcxy'), 5 * MINUTE, 'object');
    // Killed writers: dead pid, untouched for a minute.
    await touch(join(root, 'ns', `a%3Amain.json.${dead}.${HEX}.tmp`), MINUTE);
    await touch(join(root, 'ns', `a%3Amain.lock.${dead}.${HEX}.stale`), MINUTE);
    await touch(join(root, 'objects', 'xy', `bagabcxy.${dead}.${HEX}.tmp`), MINUTE);
    await touch(join(root, `.ledgraph-write-probe-${dead}`), MINUTE);
    // Older than the one-hour ceiling: removed even though the pid (ours) is alive.
    await touch(join(root, 'ns', `b%3Amain.json.${process.pid}.${HEX}.tmp`), 2 * 60 * MINUTE);
    // A live writer's fresh temp file, and a fresh one of a dead pid (still within the grace period).
    await touch(join(root, 'ns', `a%3Amain.json.${process.pid}.b1b2c3d4e5f6.tmp`), 0);
    await touch(join(root, 'ns', `c%3Amain.json.${dead}.c1b2c3d4e5f6.tmp`), 0);
    // An unrelated file that merely ends in .tmp.
    await touch(join(root, 'ns', 'notes.tmp'), 2 * 60 * MINUTE);

    const storage = await openFileStorage(root);
    const removedObjects = await storage.content.swept;
    expect(removedObjects.sort()).toEqual([`.ledgraph-write-probe-${dead}`, join('xy', `bagabcxy.${dead}.${HEX}.tmp`)].sort());
    expect((await readdir(join(root, 'ns'))).sort()).toEqual([
      'a%3Amain.json',
      `a%3Amain.json.${process.pid}.b1b2c3d4e5f6.tmp`,
      `c%3Amain.json.${dead}.c1b2c3d4e5f6.tmp`,
      'notes.tmp',
    ].sort());
    expect((await readdir(join(root, 'objects', 'xy')))).toEqual(['bagabcxy']);
    expect((await readdir(root)).sort()).toEqual(['ns', 'objects']);
    expect(await storage.ns.get('a:main')).toEqual({ ledger_id: 'a:main' });
    await storage.content.close();
    await storage.ns.close();
  });

  it('removes a dead writer\'s temp file once the grace period has passed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgraph-leftovers-'));
    dirs.push(dir);
    const dead = await deadPid();
    const name = `r.json.${dead}.${HEX}.tmp`;
    await touch(join(dir, name), 0);
    expect(await sweepLeftovers(dir, { graceMs: 10_000, maxAgeMs: 3_600_000 })).toEqual([]);
    expect(await sweepLeftovers(dir, { graceMs: 10_000, maxAgeMs: 3_600_000 }, Date.now() + 11_000)).toEqual([name]);
    expect(await readdir(dir)).toEqual([]);
  });
});
