/**
 * Run a Python client script (test/clients/*.py) against a live server and parse the one JSON
 * line it prints. Debian's interpreter (/usr/bin/python3) is preferred: python3-rdflib and
 * python3-sparqlwrapper install there (`.ci/run` installs them when missing); LEDGRAPH_PYTHON overrides.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The interpreter the client tests use. */
export const PYTHON = process.env.LEDGRAPH_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

/** Run `script` (a file beside this one) with `args`; resolves to its printed JSON. */
export function runPython(script: string, args: string[], timeoutMs = 60_000): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, [join(import.meta.dirname, script), ...args], { timeout: timeoutMs, env: { ...process.env, PYTHONWARNINGS: 'ignore' } }, (err, stdout, stderr) => {
      if (err) { reject(new Error(`${script} failed: ${err.message}\n${stderr}`)); return; }
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>);
      } catch {
        reject(new Error(`${script} printed no JSON:\n${stdout}\n${stderr}`));
      }
    });
  });
}
