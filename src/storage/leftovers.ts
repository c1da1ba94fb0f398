/**
 * Crash leftovers of the file storage: temp files of atomic writes (`<target>.<pid>.<hex>.tmp`),
 * lock files moved aside while being broken (`<name>.lock.<pid>.<hex>.stale`) and the start-up
 * write probe (`.ledgraph-write-probe-<pid>`). A writer removes its own on success or failure, so
 * one that stays behind belongs to a process killed mid-write. They are swept when storage opens.
 *
 * A file is only removed when no live writer can still own it: its writer's pid is not a running
 * process on this host and it has not been touched for `graceMs`, or it is older than `maxAgeMs`
 * whatever its pid says (a pid may have been reused; no write takes that long).
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { errCode } from './fd-io.js';

/** When a leftover may be removed. */
export interface LeftoverPolicy {
  /** Untouched this long and its pid is dead: removed (default 10 s, the nameservice lock staleness). */
  graceMs: number;
  /** Untouched this long: removed whatever its pid (default 1 h). */
  maxAgeMs: number;
}

export const DEFAULT_LEFTOVER_POLICY: LeftoverPolicy = { graceMs: 10_000, maxAgeMs: 60 * 60 * 1000 };

/** The writer pid of a leftover's name, or null when the name is not a leftover's. */
export function leftoverPid(name: string): number | null {
  const m = /\.(\d+)\.[0-9a-f]{12}\.(?:tmp|stale)$/.exec(name) ?? /^\.ledgraph-write-probe-(\d+)$/.exec(name);
  return m ? Number(m[1]) : null;
}

/** True when `pid` names a running process on this host. */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errCode(e) === 'EPERM'; // exists, owned by someone else
  }
}

/** Remove the leftovers directly in `dir` that `policy` allows; returns the names removed. */
export async function sweepLeftovers(dir: string, policy: LeftoverPolicy = DEFAULT_LEFTOVER_POLICY, now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (e) {
    if (errCode(e) === 'ENOENT' || errCode(e) === 'ENOTDIR') return [];
    throw e;
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = leftoverPid(name);
    if (pid === null) continue;
    const path = join(dir, name);
    const st = await fsp.stat(path).catch(() => null);
    if (!st?.isFile()) continue;
    const idle = now - st.mtimeMs;
    if (idle < policy.maxAgeMs && (idle < policy.graceMs || pidAlive(pid))) continue;
    await fsp.rm(path, { force: true });
    removed.push(name);
  }
  return removed;
}
