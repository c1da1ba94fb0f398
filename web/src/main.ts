/**
 * The explorer shell: discovers the API, keeps the token and the ledger list (live from /events),
 * and routes `#/` (server overview) and `#/l/<ledger>/<query|log|write|branches|compare|subject>[/<arg>]`
 * to their views.
 */
import './style.css';
import { call, describe, discover, getToken, json, needsToken, setToken, type LedgerEntry } from './api.js';
import { h, mount } from './dom.js';
import { followEvents } from './events.js';
import { renderOverview } from './overview.js';
import { renderQuery, replicaWanted } from './query-view.js';
import { renderLog } from './log-view.js';
import { renderWrite } from './write-view.js';
import { renderBranches } from './branch-view.js';
import { renderCompare } from './compare-view.js';
import { renderSubject } from './subject-view.js';

/** What every view can reach. */
export interface Shell {
  ledgers: LedgerEntry[];
  /** Why the ledger list could not be read (e.g. a token is required), else null. */
  ledgersError: { type: string; message: string } | null;
  version: string;
  live: boolean;
  /** The server could not be reached at start (the page came from the offline cache). */
  offline: boolean;
  /** Re-read the ledger list (and re-render the ledger nav). */
  refreshLedgers(): Promise<void>;
  /** Subscribe to ledger changes; returns an unsubscribe function. */
  onChange(fn: (ledger: string) => void): () => void;
}

const main = document.getElementById('main')!;
const listeners = new Set<(ledger: string) => void>();
const shell: Shell = {
  ledgers: [], ledgersError: null, version: '', live: false, offline: false,
  async refreshLedgers() {
    try {
      shell.ledgers = await json<LedgerEntry[]>('/ledgers');
      shell.ledgersError = null;
    } catch (e) {
      shell.ledgers = [];
      shell.ledgersError = describe(e);
    }
  },
  onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); },
};

/** The hash route, decoded. */
export function route(): { ledger?: string; tab: string; arg?: string } {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] !== 'l' || !parts[1]) return { tab: 'overview' };
  return { ledger: parts[1], tab: parts[2] ?? 'query', arg: parts[3] };
}

/** The hash of a ledger view. */
export function href(ledger: string, tab = 'query', arg?: string): string {
  return `#/l/${encodeURIComponent(ledger)}/${tab}${arg ? '/' + encodeURIComponent(arg) : ''}`;
}

let teardown: (() => void) | null = null;
let lastLedger: string | undefined;

function nav(ledger: string | undefined, tab: string): void {
  const el = document.getElementById('ledger-nav')!;
  if (!ledger) { mount(el); return; }
  const link = (t: string, label: string) => h('a', { href: href(ledger, t), 'aria-current': tab === t ? 'page' : undefined }, label);
  mount(el, h('span', { className: 'ledger-name' }, ledger), link('query', 'Query'), link('log', 'Log'), link('write', 'Write'),
    link('branches', 'Branches'), link('compare', 'Compare'), link('subject', 'Subject'));
}

function render(): void {
  teardown?.();
  teardown = null;
  const r = route();
  nav(r.ledger, r.tab);
  document.title = r.ledger ? `${r.ledger} · Ledgraph` : 'Ledgraph explorer';
  const ctx = { shell, main };
  if (shell.offline && (!r.ledger || r.tab !== 'query')) {
    mount(main, h('p', { className: 'error', role: 'alert' }, 'Cannot reach the server. Ledgers opened locally still answer on their query screen.'));
    return;
  }
  if (!r.ledger) teardown = renderOverview(ctx);
  else if (r.tab === 'log') teardown = renderLog(ctx, r.ledger, r.arg);
  else if (r.tab === 'write') teardown = renderWrite(ctx, r.ledger);
  else if (r.tab === 'branches') teardown = renderBranches(ctx, r.ledger);
  else if (r.tab === 'compare') teardown = renderCompare(ctx, r.ledger, r.arg);
  else if (r.tab === 'subject') teardown = renderSubject(ctx, r.ledger, r.arg);
  else teardown = renderQuery(ctx, r.ledger);
  if (r.ledger !== lastLedger) main.focus({ preventScroll: true });
  lastLedger = r.ledger;
}

async function showWhoami(): Promise<void> {
  const out = document.getElementById('whoami')!;
  if (!getToken()) { out.textContent = 'no token'; return; }
  if (shell.offline) { out.textContent = 'offline: the token is kept for when the server is back'; return; }
  try {
    const w = await (await call('/whoami')).json() as {
      verified?: boolean; identity?: string | null; subject?: string | null; error?: string;
      scopes?: { ledger_read_all?: boolean; ledger_write_all?: boolean; ledger_read_ledgers?: string[]; ledger_write_ledgers?: string[] };
    };
    if (!w.verified) { out.textContent = `token not accepted: ${w.error ?? 'unverified'}`; return; }
    const sc = w.scopes ?? {};
    const read = sc.ledger_read_all ? 'all' : (sc.ledger_read_ledgers ?? []).join(', ') || 'none';
    const write = sc.ledger_write_all ? 'all' : (sc.ledger_write_ledgers ?? []).join(', ') || 'none';
    out.textContent = `signed in as ${w.identity ?? w.subject ?? '(no identity)'} · read: ${read} · write: ${write}`;
  } catch (e) {
    out.textContent = describe(e).message;
  }
}

let events: AbortController | null = null;

/** (Re)subscribe to /events, e.g. after the token changed. */
function startEvents(): void {
  events?.abort();
  events = new AbortController();
  let pending: ReturnType<typeof setTimeout> | null = null;
  const changed = new Set<string>();
  followEvents((c) => {
    changed.add(c.ledger);
    // Coalesce a burst (the connect snapshot, a batch of commits) into one refresh.
    pending ??= setTimeout(async () => {
      pending = null;
      await shell.refreshLedgers();
      const ids = [...changed];
      changed.clear();
      for (const fn of listeners) for (const id of ids) fn(id);
    }, 150);
  }, (live) => { shell.live = live; document.body.dataset.live = String(live); }, events.signal);
}

async function start(): Promise<void> {
  // The page shell (index.html, assets) is cached by a service worker so a local replica still
  // answers after a reload with the server gone.
  if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/sw.js').catch(() => {});
  try {
    await discover();
    const health = await (await fetch('/health')).json() as { version?: string };
    shell.version = health.version ?? '';
    document.getElementById('server-version')!.textContent = shell.version ? `server ${shell.version}` : '';
  } catch (e) {
    const r = route();
    if (!(r.ledger && replicaWanted(r.ledger))) {
      mount(main, h('p', { className: 'error', role: 'alert' }, `Cannot reach the server: ${describe(e).message}`));
      return;
    }
    shell.offline = true;
    document.getElementById('server-version')!.textContent = 'server unreachable · offline';
  }
  const form = document.getElementById('token-form') as HTMLFormElement;
  const input = document.getElementById('token-input') as HTMLInputElement;
  if (needsToken() || getToken()) {
    form.hidden = false;
    input.value = getToken();
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      setToken(input.value.trim());
      void showWhoami();
      startEvents();
      void shell.refreshLedgers().then(render);
    });
    void showWhoami();
  }
  await shell.refreshLedgers();
  startEvents();
  window.addEventListener('hashchange', render);
  render();
}

void start();
