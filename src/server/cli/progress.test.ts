import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Progress } from './progress.js';

function io(tty: boolean) {
  const lines: string[] = [];
  return { lines, io: { out: () => {}, err: (t: string) => { lines.push(t); }, errIsTty: tty } };
}

beforeEach(() => { vi.useFakeTimers(); vi.setSystemTime(new Date('2026-01-01T00:00:00Z')); });
afterEach(() => { vi.useRealTimers(); });

describe('Progress', () => {
  it('prints a plain line every interval when stderr is not a terminal', () => {
    const { lines, io: x } = io(false);
    const p = new Progress(x, 'clone hr from a', 2000);
    p.expectPack({ commit_count: 3, index_artifact_count: 5 });
    vi.advanceTimersByTime(1000);
    p.tick(1024); // the first tick draws at once
    for (let i = 0; i < 3; i++) { vi.advanceTimersByTime(500); p.tick(1024); } // within 2 s: silent
    vi.advanceTimersByTime(1000);
    p.tick(2048);
    p.done();
    expect(lines).toEqual([
      'clone hr from a: 1/10 objects, 1.0 KiB, 1.0 KiB/s, ETA 9 s\n',
      'clone hr from a: 5/10 objects, 6.0 KiB, 1.7 KiB/s, ETA 4 s\n',
      'clone hr from a: 5/10 objects, 6.0 KiB, 1.7 KiB/s, ETA 4 s\n',
    ]);
    expect(lines.join('')).not.toContain('\r');
  });

  it('redraws a bar in place (objects, bytes, rate, ETA) when stderr is a terminal', () => {
    const { lines, io: x } = io(true);
    const p = new Progress(x, 'import hr');
    p.expect(4);
    vi.advanceTimersByTime(1000);
    p.tick(2048);
    vi.advanceTimersByTime(1000);
    p.tick(2048);
    p.done();
    expect(lines[0]).toBe('\r[########......................] import hr: 1/4 objects, 2.0 KiB, 2.0 KiB/s, ETA 3 s\x1b[K');
    expect(lines[1]).toBe('\r[###############...............] import hr: 2/4 objects, 4.0 KiB, 2.0 KiB/s, ETA 2 s\x1b[K');
    expect(lines[2]!.endsWith('\x1b[K\n')).toBe(true);
    expect(lines.every((l) => l.startsWith('\r'))).toBe(true);
  });
});
