/**
 * The server overview: version, the ledgers (one row per branch) with t, their ledger's branch
 * count (linking to the branches screen), size and last commit time (live through
 * /events), and forms to create and drop a ledger.
 */
import { describe, json, ledgerPath, type CommitSummary, type LedgerInfo } from './api.js';
import { bytes, h, mount, when } from './dom.js';
import { href, type Shell } from './main.js';

/** Details fetched per ledger for the table (t from the list is authoritative). */
const details = new Map<string, { t: number; size?: number; time?: string }>();
/** Rows get size and time for at most this many ledgers, so a huge nameservice stays quick. */
const DETAIL_LIMIT = 200;

async function detail(id: string, t: number): Promise<void> {
  const have = details.get(id);
  if (have && have.t === t) return;
  const [info, log] = await Promise.all([
    json<LedgerInfo>(`/info/${ledgerPath(id)}`).catch(() => null),
    json<{ commits: CommitSummary[] }>(`/log/${ledgerPath(id)}?limit=1`).catch(() => null),
  ]);
  details.set(id, { t, size: info?.stats?.size, time: log?.commits[0]?.time });
}

/** Render the overview into ctx.main; returns the teardown. */
export function renderOverview(ctx: { shell: Shell; main: HTMLElement }): () => void {
  const { shell, main } = ctx;
  const list = h('div', { className: 'ledger-list' });
  const createMsg = h('p', { className: 'form-msg', role: 'status', 'aria-live': 'polite' });
  const nameInput = h('input', { id: 'create-name', name: 'ledger', required: true, placeholder: 'e.g. movies or acme/people', autocomplete: 'off' });
  const createForm = h('form', {
    className: 'inline-form', 'aria-label': 'Create a ledger',
    onsubmit: async (e: Event) => {
      e.preventDefault();
      const name = nameInput.value.trim();
      createMsg.className = 'form-msg';
      createMsg.textContent = 'Creating…';
      try {
        const r = await json<{ ledger: string }>('/create', { ledger: name });
        createMsg.textContent = `Created ${r.ledger}.`;
        nameInput.value = '';
        await shell.refreshLedgers();
        void draw();
      } catch (err) {
        const d = describe(err);
        createMsg.className = 'form-msg error';
        createMsg.textContent = `${d.type}: ${d.message}`;
      }
    },
  }, h('label', { for: 'create-name' }, 'New ledger'), nameInput, h('button', { type: 'submit' }, 'Create'));

  let alive = true;
  let armed: string | null = null;
  async function drop(name: string): Promise<void> {
    try {
      const r = await json<{ status: string }>('/drop', { ledger: name });
      createMsg.className = 'form-msg';
      createMsg.textContent = `Drop ${name}: ${r.status}.`;
    } catch (err) {
      const d = describe(err);
      createMsg.className = 'form-msg error';
      createMsg.textContent = `${d.type}: ${d.message}`;
    }
    armed = null;
    await shell.refreshLedgers();
    void draw();
  }

  async function draw(): Promise<void> {
    const ledgers = shell.ledgers;
    const branchCount = new Map<string, number>();
    for (const l of ledgers) branchCount.set(l.name, (branchCount.get(l.name) ?? 0) + 1);
    const rows = ledgers.map((l) => {
      const d = details.get(l.ledger);
      const dropBtn = h('button', {
        type: 'button', className: armed === l.ledger ? 'danger' : 'quiet',
        'aria-label': armed === l.ledger ? `Confirm drop of ${l.name}` : `Drop ${l.name}`,
        onclick: () => { if (armed === l.ledger) void drop(l.name); else { armed = l.ledger; void draw(); } },
      }, armed === l.ledger ? 'Confirm drop' : 'Drop');
      return h('tr', {},
        h('th', { scope: 'row' }, h('a', { href: href(l.ledger) }, l.ledger)),
        h('td', { className: 'num' }, String(l.t)),
        h('td', {}, h('a', { href: href(l.ledger, 'branches'), 'aria-label': `Branches of ${l.name}` }, `${branchCount.get(l.name)} branch${branchCount.get(l.name) === 1 ? '' : 'es'}`)),
        h('td', { className: 'num' }, d ? bytes(d.size) : '…'),
        h('td', {}, d ? when(d.time) : '…'),
        h('td', { className: 'actions' }, h('a', { href: href(l.ledger, 'log') }, 'Log'), ' ', h('a', { href: href(l.ledger, 'write') }, 'Write'), ' ',
          l.branch === 'main' ? dropBtn : null),
      );
    });
    if (shell.ledgersError) {
      mount(list, h('p', { className: 'error', role: 'alert' }, h('strong', {}, shell.ledgersError.type), ' ', shell.ledgersError.message,
        shell.ledgersError.type.includes('Unauthorized') || /token/i.test(shell.ledgersError.message) ? ' — paste a token above.' : ''));
      return;
    }
    mount(list, ledgers.length
      ? h('table', { className: 'data' },
        h('caption', {}, `${ledgers.length} ledger${ledgers.length === 1 ? '' : 's'}`),
        h('thead', {}, h('tr', {}, ['Ledger', 't', 'Branches', 'Size', 'Last commit', ''].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, rows))
      : h('p', { className: 'muted' }, 'No ledgers yet. Create one below.'));
    const missing = ledgers.slice(0, DETAIL_LIMIT).filter((l) => details.get(l.ledger)?.t !== l.t);
    if (missing.length) {
      await Promise.all(missing.map((l) => detail(l.ledger, l.t)));
      if (alive) void draw();
    }
  }

  const off = shell.onChange(() => { if (alive) void draw(); });
  mount(main,
    h('h1', {}, 'Server'),
    h('p', {}, `Ledgraph ${shell.version}`, h('span', { className: 'live-dot', title: 'live updates' }), h('span', { className: 'muted live-label' })),
    h('h2', {}, 'Ledgers'), list,
    h('h2', {}, 'Create a ledger'), createForm, createMsg,
  );
  void draw();
  return () => { alive = false; off(); };
}
