/**
 * README "Clients": every snippet marked `<!-- client-test: NAME -->` runs as written (with the
 * server address replaced by a live test server's) against the `demo` ledger of README
 * "Querying", and must print exactly its `->` lines. Python snippets use Debian's python3 with
 * python3-sparqlwrapper / python3-rdflib; JavaScript runs as an ES module from the repository root.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger, postJson, startTestServer, type TestServer } from '../support/server.js';
import { PYTHON } from './python.js';

const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The snippets: name, language and code of the fenced block after each marker. */
function snippets(): { name: string; lang: string; code: string }[] {
  const out: { name: string; lang: string; code: string }[] = [];
  for (const m of README.matchAll(/<!-- client-test: (\w+) -->\n```(\w+)\n([\s\S]*?)\n```/g)) out.push({ name: m[1]!, lang: m[2]!, code: m[3]! });
  return out;
}

function run(lang: string, code: string): Promise<string> {
  const [cmd, args] = lang === 'python' ? [PYTHON, ['-c', code]] : lang === 'js' ? [process.execPath, ['--input-type=module', '-e', code]] : ['bash', ['-c', code]];
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: ROOT, timeout: 60_000, env: { ...process.env, PYTHONWARNINGS: 'ignore' } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${lang} snippet failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
  await createLedger(srv, 'demo');
  const ctx = { ex: 'http://example.org/', schema: 'http://schema.org/' };
  expect((await postJson(`${srv.api}/insert/demo`, { '@context': ctx, '@graph': [
    { '@id': 'ex:ana', '@type': 'ex:Person', 'schema:name': 'Ana', 'schema:age': 34, 'ex:knows': { '@id': 'ex:ben' } },
    { '@id': 'ex:ben', '@type': 'ex:Person', 'schema:name': 'Ben', 'schema:age': 27 }] })).status).toBe(200);
  expect((await postJson(`${srv.api}/upsert/demo`, { '@context': ctx, '@id': 'ex:ben', 'schema:age': 28 })).status).toBe(200);
});
afterAll(async () => { await srv?.close(); });

describe('README Clients snippets', () => {
  it('has the four clients', () => {
    expect(snippets().map((s) => s.name)).toEqual(['sparqlwrapper', 'rdflib', 'comunica', 'curl']);
  });

  for (const { name, lang, code } of snippets()) {
    it(`${name} prints what the README says`, async () => {
      const expected = [...code.matchAll(/^(?:#|\/\/) -> (.*)$/gm)].map((m) => m[1]!);
      expect(expected.length).toBeGreaterThan(0);
      const out = await run(lang, code.replaceAll('http://127.0.0.1:8090', srv.url));
      expect(out.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l !== '')).toEqual(expected);
    }, 60_000);
  }
});
