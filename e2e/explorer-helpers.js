/**
 * Shared parts of the explorer e2e cases (explorer-cases.js, explorer-more-cases.js): the one
 * server they share, a page that fails on console errors, and helpers that type, wait and read
 * the page as a person would.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export const LEDGER = 'people:main';
export const EX = 'http://example.org/';

/** One server for all explorer cases, started on first use. */
let serverPromise = null;

export async function explorerServer(root) {
  serverPromise ??= (async () => {
    const { build } = await import('vite');
    await build({ configFile: join(root, 'web', 'vite.config.ts'), logLevel: 'warn' });
    const { defaultServerConfig } = await import(join(root, 'dist', 'server', 'config.js'));
    const { startLedgraphServer } = await import(join(root, 'dist', 'server', 'main.js'));
    const { silentLogger } = await import(join(root, 'dist', 'server', 'log.js'));
    // Room for the 100,000-triple insert of the paging case in one transaction.
    const config = { ...defaultServerConfig(), memory: true, port: 0, eventsKeepAliveMs: 1000, reindexMaxBytes: 64 * 1024 * 1024 };
    const server = await startLedgraphServer(config, { version: 'e2e', log: silentLogger });
    return server;
  })();
  return serverPromise;
}

/** Close the shared server (run.js calls this after the last case). */
export async function closeExplorerServer() {
  if (serverPromise) await (await serverPromise).close(0);
}

export async function api(base, path, body, type = 'application/json') {
  const r = await fetch(`${base}/v1/ledgraph${path}`, body === undefined ? {} : { method: 'POST', body, headers: { 'Content-Type': type } });
  const text = await r.text();
  if (!r.ok) throw new Error(`${path}: ${r.status} ${text}`);
  return JSON.parse(text);
}

/** A page whose console errors and page errors fail the case at `done()`. */
export async function explorerPage(ctx) {
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // Chromium logs every non-2xx fetch as a console error; a case lists the statuses it provokes.
  const expectedStatus = new Set();
  const allowed = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (allowed.some((re) => re.test(m.text()))) return;
    const status = /^Failed to load resource: the server responded with a status of (\d+)/.exec(m.text())?.[1];
    if (status && expectedStatus.has(Number(status))) return;
    problems.push(`console error: ${m.text()}`);
  });
  await page.setViewportSize({ width: 1280, height: 800 });
  return {
    page,
    /** Allow the browser's log line of an HTTP error the case provokes on purpose. */
    expectStatus(status) { expectedStatus.add(status); },
    /** Allow console errors matching `re` (e.g. refused connections while the server is down on purpose). */
    allowConsole(re) { allowed.push(re); },
    async shot(name) {
      const dir = join(ctx.root, 'e2e', 'screenshots');
      await mkdir(dir, { recursive: true });
      await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
      ctx.log(`screenshot e2e/screenshots/${name}.png`);
    },
    done() { if (problems.length) throw new Error(problems.join('; ')); },
  };
}

/** Replace an editor's text by typing, as a person would (select all, then insert). */
export async function typeInto(page, selector, text) {
  await page.click(`${selector} .cm-content`);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

export async function expectText(locator, pattern, what) {
  await locator.first().waitFor({ timeout: 15_000 });
  const deadline = Date.now() + 15_000;
  let text = '';
  while (Date.now() < deadline) {
    text = await locator.first().innerText();
    if (pattern.test(text)) return text;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`${what}: expected ${pattern}, got ${JSON.stringify(text.slice(0, 300))}`);
}

/** The result grid's visible cell texts, row by row (waits for the grid to draw). */
export async function gridRows(page) {
  await page.waitForSelector('.grid-sizer > .grid-row', { timeout: 10_000 });
  return page.$$eval('.grid-sizer > .grid-row', (rows) => rows
    .sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
    .map((r) => [...r.children].map((c) => c.textContent)));
}

