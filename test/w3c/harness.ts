/**
 * Registers W3C tests with Vitest and keeps the score: each test passes, fails, is skipped (with a
 * reason; never counted as passed) or is a known failure listed in known-failures.txt (a failure
 * that is expected: reported, not fatal; a known failure that passes is reported too). At the end
 * each suite prints `<suite>: N passed, M failed, ...` and writes a JSON report to the OS temp dir.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import type { W3cTest } from './manifest.js';

/** What running one test produced. */
export type Outcome = { status: 'pass' } | { status: 'fail'; message: string } | { status: 'skip'; reason: string };

const KNOWN_FAILURES_FILE = resolve(dirname(fileURLToPath(import.meta.url)), 'known-failures.txt');

/** Parse known-failures text: one `<test IRI>  # reason` per line; `#` lines and blanks ignored. */
export function parseKnownFailures(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^<?([^>\s]+)>?\s*(?:#\s*(.*))?$/.exec(line);
    if (!m) throw new Error(`known-failures.txt: cannot read line ${JSON.stringify(raw)}`);
    out.set(m[1]!, (m[2] ?? '').trim());
  }
  return out;
}

/** The known failures of every suite. */
export function loadKnownFailures(): Map<string, string> {
  return existsSync(KNOWN_FAILURES_FILE) ? parseKnownFailures(readFileSync(KNOWN_FAILURES_FILE, 'utf8')) : new Map();
}

interface TestRecord { id: string; folder: string; name: string; status: 'pass' | 'fail' | 'skip' | 'known-failure' | 'known-failure-passed'; message?: string }

/** Per-test timeout of the harness (the query is abandoned, the test fails). */
export const TEST_TIMEOUT_MS = Number(process.env.LEDGRAPH_W3C_TIMEOUT_MS ?? 20_000);

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const t = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms); });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Summary line of a suite. */
export function summaryLine(suite: string, records: TestRecord[]): string {
  const n = (s: TestRecord['status']) => records.filter((r) => r.status === s).length;
  let line = `${suite}: ${n('pass')} passed, ${n('fail')} failed, ${n('skip')} skipped`;
  const known = n('known-failure');
  const fixed = n('known-failure-passed');
  if (known || fixed) line += `, ${known} known failures`;
  if (fixed) line += ` (${fixed} known failures now PASS: remove them from known-failures.txt)`;
  return line;
}

/**
 * Register one describe block per folder, one test per entry, and the end-of-suite report.
 * `known` defaults to known-failures.txt (the JSON-LD suites pass their own list).
 */
export function defineSuite<T extends Pick<W3cTest, 'id' | 'name' | 'folder'>>(suite: string, tests: T[], run: (t: T) => Promise<Outcome>,
  known: Map<string, string> = loadKnownFailures()): void {
  const records: TestRecord[] = [];
  const folders = new Map<string, T[]>();
  for (const t of tests) {
    const l = folders.get(t.folder);
    if (l) l.push(t); else folders.set(t.folder, [t]);
  }
  describe(suite, () => {
    for (const [folder, list] of folders) {
      describe(folder, () => {
        for (const t of list) {
          const title = `${t.id.replace(/^.*[#/]/, '')}: ${t.name}`;
          it(title, async (ctx) => {
            let outcome: Outcome;
            try {
              outcome = await withTimeout(run(t), TEST_TIMEOUT_MS);
            } catch (e) {
              outcome = { status: 'fail', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
            }
            const base = { id: t.id, folder, name: t.name };
            if (outcome.status === 'skip') {
              records.push({ ...base, status: 'skip', message: outcome.reason });
              ctx.skip(outcome.reason);
            }
            const reason = known.get(t.id);
            if (reason !== undefined) {
              if (outcome.status === 'pass') {
                records.push({ ...base, status: 'known-failure-passed', message: reason });
                console.warn(`${suite}: known failure ${t.id} now passes (${reason})`);
              } else {
                records.push({ ...base, status: 'known-failure', message: outcome.message });
              }
              return;
            }
            if (outcome.status === 'fail') {
              records.push({ ...base, status: 'fail', message: outcome.message });
              throw new Error(`${t.id}\n${outcome.message}`);
            }
            records.push({ ...base, status: 'pass' });
          }, TEST_TIMEOUT_MS + 5_000);
        }
      });
    }
  });
  afterAll(() => {
    const byFolder = new Map<string, { pass: number; fail: number; skip: number; known: number }>();
    for (const r of records) {
      let f = byFolder.get(r.folder);
      if (!f) byFolder.set(r.folder, (f = { pass: 0, fail: 0, skip: 0, known: 0 }));
      if (r.status === 'pass' || r.status === 'known-failure-passed') f.pass++;
      else if (r.status === 'fail') f.fail++;
      else if (r.status === 'skip') f.skip++;
      else f.known++;
    }
    const folderLines = [...byFolder].map(([k, f]) => `  ${k}: ${f.pass} passed, ${f.fail} failed${f.skip ? `, ${f.skip} skipped` : ''}${f.known ? `, ${f.known} known failures` : ''}`);
    const dir = join(tmpdir(), 'ledgraph-w3c');
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${suite}.json`), JSON.stringify({ suite, summary: summaryLine(suite, records), records }, null, 1));
    } catch { /* the report file is a convenience */ }
    console.log(`${folderLines.join('\n')}\n${summaryLine(suite, records)}`);
  });
}
