#!/usr/bin/env node
/**
 * End-to-end tests in Debian's Chromium (`npm run test:e2e`): builds the browser bundle with Vite
 * (vite.config.ts -> e2e/dist), serves it on a loopback port, launches Chromium through
 * playwright-core with a fresh profile, and runs every registered case. The last line printed is
 * always `N passed, M failed`; the exit code is non-zero when anything failed.
 *
 * Usage: node e2e/run.js [substring]   (only cases whose name contains the substring)
 * Env:   LEDGRAPH_CHROMIUM=/path/to/chromium (default /usr/bin/chromium)
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserPeerCase, buildPeerLibrary } from './browser-peer-case.js';
import { w3cCase } from './w3c-case.js';
import { serveStatic } from './static-server.js';
import { closeExplorerServer, explorerCases } from './explorer-cases.js';
import { explorerMoreCases } from './explorer-more-cases.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'e2e', 'dist');
const CHROMIUM = process.env.LEDGRAPH_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The registered cases, run in order. Each gets a context:
 *   { baseUrl, newPage(), browser (the persistent BrowserContext), root, log(line) }
 * and fails by throwing. `newPage()` opens a tab whose console errors and uncaught exceptions are
 * collected and printed when the case fails. Add a case with `cases.push({ name, run, timeoutMs? })`.
 */
const cases = [];

cases.push({
  name: 'core self-test in Chromium (terms, CIDs, errors, IndexedDB storage)',
  async run({ baseUrl, newPage, log }) {
    const page = await newPage();
    await page.goto(`${baseUrl}/index.html`);
    await page.waitForFunction(() => typeof window.ledgraphSelfTest === 'function', null, { timeout: 15_000 });
    const report = await page.evaluate(() => window.ledgraphSelfTest());
    for (const c of report.checks) log(`${c.ok ? 'ok' : 'FAILED'}  ${c.name}${c.ok ? '' : `: ${c.error}`}`);
    if (report.checks.length < 5) throw new Error(`expected at least 5 self-test checks, got ${report.checks.length}`);
    if (!report.ok) throw new Error(`${report.failed} of ${report.checks.length} self-test checks failed`);
  },
});

cases.push({
  name: "the ledgraph package imported by name in a Vite app (browser condition, IndexedDB)",
  timeoutMs: 180_000,
  async run({ newPage, root, log }) {
    // A user's app: node_modules/ledgraph links to this checkout, whose dist/ is what `exports` names
    // (current after `npm ci` or `npm run build`).
    const app = await mkdtemp(join(tmpdir(), 'ledgraph-e2e-app-'));
    try {
      await mkdir(join(app, 'node_modules'));
      await symlink(root, join(app, 'node_modules', 'ledgraph'), 'dir');
      await cp(join(root, 'e2e', 'package-demo.js'), join(app, 'demo.js'));
      await writeFile(join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>\n');
      await writeFile(join(app, 'main.js'), [
        "import * as lib from 'ledgraph';",
        "import { demo, EXPECTED } from './demo.js';",
        "window.ledgraphPackageDemo = async () => ({ expected: EXPECTED, hasFile: 'openFileStorage' in lib,",
        "  mem: await demo(lib, lib.openMemoryStorage()), idb: await demo(lib, lib.openIndexedDbStorage('e2e-package')) });",
      ].join('\n'));
      const { build } = await import('vite');
      await build({ root: app, configFile: false, base: './', logLevel: 'error', build: { outDir: join(app, 'dist'), target: 'es2022', minify: false } });
      let code = '';
      for (const f of await readdir(join(app, 'dist', 'assets'))) if (f.endsWith('.js')) code += await readFile(join(app, 'dist', 'assets', f), 'utf8');
      if (/from\s*["']node:|import\(\s*["']node:/.test(code)) throw new Error('the browser bundle imports node:*');
      log(`bundle: ${Math.round(code.length / 1024)} KiB, no node:* imports`);
      const site = await serveStatic(join(app, 'dist'));
      try {
        const page = await newPage();
        await page.goto(`${site.url}/index.html`);
        await page.waitForFunction(() => typeof window.ledgraphPackageDemo === 'function', null, { timeout: 15_000 });
        const out = await page.evaluate(() => window.ledgraphPackageDemo());
        const want = JSON.stringify(out.expected);
        for (const k of ['mem', 'idb']) {
          if (JSON.stringify(out[k]) !== want) throw new Error(`${k}: expected ${want}, got ${JSON.stringify(out[k])}`);
          log(`ok  ${k}: ${JSON.stringify(out[k])}`);
        }
        if (out.hasFile !== false) throw new Error('the browser entry exposes file storage');
      } finally {
        await site.close();
      }
    } finally {
      await rm(app, { recursive: true, force: true });
    }
  },
});

cases.push(browserPeerCase);
cases.push(w3cCase);
// The web explorer against a real server (e2e/explorer-cases.js).
cases.push(...explorerCases, ...explorerMoreCases);

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, fail) => { timer = setTimeout(() => fail(new Error(`${what} timed out after ${ms} ms`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function describeError(e) {
  return e instanceof Error ? e.message.split('\n')[0] : String(e);
}

/** Build, serve, launch, run the selected cases; returns { passed, failed }. */
async function runAll(selected) {
  const cleanups = [];
  let passed = 0, failed = 0;
  try {
    const { build } = await import('vite');
    await build({ configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
    await buildPeerLibrary(ROOT, DIST);
    const site = await serveStatic(DIST);
    cleanups.push(site.close);

    const { chromium } = await import('playwright-core');
    const userDataDir = await mkdtemp(join(tmpdir(), 'ledgraph-e2e-'));
    cleanups.push(() => rm(userDataDir, { recursive: true, force: true }));
    const browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60_000,
    });
    cleanups.push(() => browser.close());

    for (const [i, c] of selected.entries()) {
      const diagnostics = [];
      const pages = [];
      const newPage = async () => {
        const page = await browser.newPage();
        pages.push(page);
        page.on('pageerror', (e) => diagnostics.push(`page error: ${describeError(e)}`));
        page.on('console', (m) => { if (m.type() === 'error') diagnostics.push(`console error: ${m.text()}`); });
        return page;
      };
      const lines = [];
      const ctx = { baseUrl: site.url, newPage, browser, root: ROOT, log: (line) => lines.push(line) };
      const start = Date.now();
      try {
        await withTimeout(Promise.resolve().then(() => c.run(ctx)), c.timeoutMs ?? DEFAULT_TIMEOUT_MS, c.name);
        passed++;
        console.log(`ok ${i + 1} - ${c.name} (${Date.now() - start} ms)`);
        for (const l of lines) console.log(`    ${l}`);
      } catch (e) {
        failed++;
        console.log(`not ok ${i + 1} - ${c.name} (${Date.now() - start} ms): ${describeError(e)}`);
        for (const l of [...lines, ...diagnostics]) console.log(`    ${l}`);
      } finally {
        await Promise.allSettled(pages.map((p) => p.close()));
      }
    }
  } catch (e) {
    const notRun = selected.length - passed - failed;
    console.log(`e2e setup failed: ${describeError(e)}`);
    if (String(e).includes(CHROMIUM)) console.log(`    is Chromium installed at ${CHROMIUM}? (apt-get install -y chromium)`);
    failed += notRun;
  } finally {
    for (const close of cleanups.reverse()) await Promise.resolve().then(close).catch(() => {});
    await closeExplorerServer().catch(() => {});
  }
  return { passed, failed };
}

const filter = process.argv[2];
const selected = filter ? cases.filter((c) => c.name.includes(filter)) : cases;
if (selected.length === 0) console.log(`no e2e case matches "${filter}"`);
const { passed, failed } = await runAll(selected);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || selected.length === 0 ? 1 : 0;
