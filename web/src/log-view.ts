/**
 * The commit log (`GET /log`, newest first, live through /events) and one commit as a diff
 * (`GET /show`): added and removed flakes with the compacted IRIs the server returns, its message and
 * author (txn-meta flakes), time, size and previous commit.
 */
import { describe, json, ledgerPath, type CommitSummary, type ShownCommit } from './api.js';
import { h, mount, when, bytes } from './dom.js';
import { href, type Shell } from './main.js';
import { diffTable } from './flakes.js';

const F = 'https://ns.ledgraph.dev/';

/** Render the log (or, with `commit`, that commit's diff); returns the teardown. */
export function renderLog(ctx: { shell: Shell; main: HTMLElement }, ledger: string, commit?: string): () => void {
  const { shell, main } = ctx;
  let alive = true;
  const body = h('div', {});

  async function drawLog(): Promise<void> {
    try {
      const log = await json<{ commits: CommitSummary[]; count: number; truncated: boolean }>(`/log/${ledgerPath(ledger)}?limit=500`);
      if (!alive) return;
      mount(body, h('table', { className: 'data log' },
        h('caption', {}, `${log.count} commit${log.count === 1 ? '' : 's'}${log.truncated ? ` (newest ${log.commits.length} shown)` : ''}`),
        h('thead', {}, h('tr', {}, ['t', 'Time', 'Message', 'Added', 'Removed', 'Commit'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, log.commits.map((c) => h('tr', {},
          h('td', { className: 'num' }, String(c.t)),
          h('td', {}, when(c.time)),
          h('td', {}, c.message ?? h('span', { className: 'muted' }, '—')),
          h('td', { className: 'num added' }, `+${c.asserts}`),
          h('td', { className: 'num removed' }, `−${c.retracts}`),
          h('td', {}, h('a', { href: href(ledger, 'log', `t:${c.t}`), 'aria-label': `Open commit at t ${c.t}` }, h('code', {}, c.commit_id.slice(0, 16) + '…'))),
        )))));
    } catch (e) {
      const d = describe(e);
      mount(body, h('p', { className: 'error', role: 'alert' }, h('strong', {}, d.type), ' ', d.message));
    }
  }

  async function drawCommit(ref: string): Promise<void> {
    try {
      const c = await json<ShownCommit>(`/show/${ledgerPath(ledger)}?commit=${encodeURIComponent(ref)}`);
      if (!alive) return;
      const data = c.flakes.filter((f) => !f[5]?.g);
      const metaFlakes = c.flakes.filter((f) => f[5]?.g);
      const metaOf = (name: string) => metaFlakes.find((f) => f[1] === `f:${name}` || f[1] === F + name)?.[2];
      const added = data.filter((f) => f[4]);
      const removed = data.filter((f) => !f[4]);
      const message = metaOf('message');
      const author = metaOf('author');
      mount(body,
        h('p', {}, h('a', { href: href(ledger, 'log') }, '← All commits'),
          c.t > 1 ? [' · ', h('a', { href: href(ledger, 'log', `t:${c.t - 1}`) }, `t ${c.t - 1}`)] : null,
          shell.ledgers.find((l) => l.ledger === ledger)?.t !== c.t ? [' · ', h('a', { href: href(ledger, 'log', `t:${c.t + 1}`) }, `t ${c.t + 1}`)] : null),
        h('h2', {}, `Commit at t ${c.t}`),
        h('dl', { className: 'commit-meta' },
          h('dt', {}, 'Message'), h('dd', {}, message !== undefined ? String(message) : h('span', { className: 'muted' }, 'none')),
          h('dt', {}, 'Author'), h('dd', {}, author !== undefined ? String(author) : h('span', { className: 'muted' }, 'none')),
          h('dt', {}, 'Time'), h('dd', {}, when(c.time)),
          h('dt', {}, 'Changes'), h('dd', {}, h('span', { className: 'added' }, `+${c.asserts} added`), ' ', h('span', { className: 'removed' }, `−${c.retracts} removed`)),
          h('dt', {}, 'Size'), h('dd', {}, bytes(c.size)),
          h('dt', {}, 'Commit'), h('dd', {}, h('code', {}, c.id)),
          h('dt', {}, 'Previous'), h('dd', {}, c.previous ? h('code', {}, c.previous) : 'none (first commit)'),
        ),
        diffTable(ledger, removed, added, c['@context']),
        Object.keys(c['@context']).length
          ? h('details', {}, h('summary', {}, 'Prefixes'), h('pre', {}, Object.entries(c['@context']).map(([k, v]) => `${k}: ${v}`).join('\n')))
          : null,
      );
    } catch (e) {
      const d = describe(e);
      mount(body, h('p', { className: 'error', role: 'alert' }, h('strong', {}, d.type), ' ', d.message));
    }
  }

  const off = shell.onChange((id) => { if (id === ledger && !commit && alive) void drawLog(); });
  mount(main, h('h1', {}, commit ? `${ledger} · commit` : `${ledger} · log`), body);
  void (commit ? drawCommit(commit) : drawLog());
  return () => { alive = false; off(); };
}
