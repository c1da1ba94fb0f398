/**
 * The Chromium part of the peer bench (bench/peer.js): the browser peer library build
 * (vite.peer.config.ts) in Debian's Chromium, on IndexedDB, following the bench's transaction
 * server. Measures the cold open + first query, the BSBM explore queries (median of timed runs;
 * compared with the same queries on a Node peer's Connection over file storage, in the bench
 * process), and the first query after a reload reopens the cached ledger (median of `reopenReps`
 * reloads, with each total).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_DIR, median } from './measure.js';
import { serveStatic } from '../e2e/static-server.js';

const CHROMIUM = process.env.LEDGRAPH_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const round = (x) => Math.round(x * 100) / 100;

/** Time `queries` (name, text) `reps` times each after one warm-up; returns name -> median ms. */
async function timed(queries, reps, run) {
  const out = {};
  for (const q of queries) {
    await run(q.text);
    const ts = [];
    for (let i = 0; i < reps; i++) { const t0 = performance.now(); await run(q.text); ts.push(performance.now() - t0); }
    out[q.name] = round(median(ts));
  }
  return out;
}

/** Figures of the browser peer against `txUrl` (ledger `bsbm`), compared with `nodeRun(text)`. */
export async function browserFigures({ txUrl, token, queries, reps = 3, reopenReps = 3, nodeRun }) {
  const { build } = await import('vite');
  const { chromium } = await import('playwright-core');
  const dir = await mkdtemp(join(tmpdir(), 'lg-peer-bench-web-'));
  const profile = await mkdtemp(join(tmpdir(), 'lg-peer-bench-profile-'));
  process.env.LEDGRAPH_PEER_OUT_DIR = dir;
  try {
    await build({ configFile: join(ROOT_DIR, 'vite.peer.config.ts'), logLevel: 'error' });
  } finally {
    delete process.env.LEDGRAPH_PEER_OUT_DIR;
  }
  await writeFile(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module">import { openLedgerPeer } from "./ledgraph-peer.js"; window.openLedgerPeer = openLedgerPeer;</script>');
  const site = await serveStatic(dir);
  const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
  try {
    const page = await browser.newPage();
    const open = async () => {
      await page.goto(`${site.url}/index.html`);
      await page.waitForFunction(() => typeof window.openLedgerPeer === 'function');
      return page.evaluate(async ({ url, token, text }) => {
        const t0 = performance.now();
        window.peer = await window.openLedgerPeer({ url, token, ledger: 'bsbm', database: 'bench' });
        const opened = performance.now();
        await window.peer.query(text);
        return { openMs: opened - t0, firstQueryMs: performance.now() - opened, totalMs: performance.now() - t0 };
      }, { url: txUrl, token, text: queries[0].text });
    };
    const cold = await open();
    // Timed inside the page (peer.query: page → worker → engine → page), not across the DevTools link.
    const browserMs = {};
    for (const q of queries) {
      browserMs[q.name] = round(await page.evaluate(async ({ text, reps }) => {
        await window.peer.query(text);
        const ts = [];
        for (let i = 0; i < reps; i++) { const t0 = performance.now(); await window.peer.query(text); ts.push(performance.now() - t0); }
        ts.sort((a, b) => a - b);
        return ts[Math.floor(ts.length / 2)];
      }, { text: q.text, reps }));
    }
    // The fixed cost of one call through the worker (page → worker → engine → page) on the
    // smallest query: sub-millisecond explore queries are mostly this, which the in-process Node
    // figure does not pay.
    const roundTripMs = round(await page.evaluate(async ({ reps }) => {
      await window.peer.query('ASK {}');
      const ts = [];
      for (let i = 0; i < reps; i++) { const t0 = performance.now(); await window.peer.query('ASK {}'); ts.push(performance.now() - t0); }
      ts.sort((a, b) => a - b);
      return ts[Math.floor(ts.length / 2)];
    }, { reps }));
    const nodeMs = await timed(queries, reps, nodeRun);
    // Reopen after a reload, several times (one sample on a loaded box is mostly noise): median.
    const reopens = [];
    for (let i = 0; i < reopenReps; i++) {
      await page.evaluate(() => window.peer.close());
      await page.reload();
      reopens.push(await open());
    }
    const mid = (k) => round(median(reopens.map((r) => r[k])));
    const reopened = { openMs: mid('openMs'), firstQueryMs: mid('firstQueryMs'), totalMs: mid('totalMs') };
    const ratios = Object.fromEntries(queries.map((q) => [q.name, round(browserMs[q.name] / Math.max(0.01, nodeMs[q.name]))]));
    return {
      chromium: browser.browser()?.version() ?? null,
      cold: { openMs: round(cold.openMs), firstQueryMs: round(cold.firstQueryMs), totalMs: round(cold.totalMs) },
      reopened: { ...reopened, samplesTotalMs: reopens.map((r) => round(r.totalMs)) },
      exploreBrowserMs: browserMs, exploreNodeMs: nodeMs, ratioBrowserToNode: ratios,
      medianRatio: round(median(Object.values(ratios))),
      // The mix as a whole (sum of the medians), and the worker round trip of `ASK {}`.
      mixRatio: round(Object.values(browserMs).reduce((a, b) => a + b, 0) / Math.max(0.01, Object.values(nodeMs).reduce((a, b) => a + b, 0))),
      roundTripMs,
    };
  } finally {
    await browser.close();
    await site.close();
    await rm(dir, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  }
}
