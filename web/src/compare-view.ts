/**
 * Compare two commits of a ledger's first-parent chain: the net change from the state at t A to
 * the state at t B, folded from the commits between them (`GET /show?commit=t:N` for A+1…B). A fact
 * asserted first and still asserted last was added; one retracted first and last was removed;
 * anything that came and went cancels out. A reversed pair (A > B) shows the change backwards.
 */
import { describe, json, ledgerPath, type ShownCommit } from './api.js';
import { h, mount, when } from './dom.js';
import { diffTable, type Flake } from './flakes.js';
import { href, type Shell } from './main.js';

/** Most commits folded into one comparison. */
export const COMPARE_LIMIT = 500;

/** The net flakes from the state after `commits[0] - 1` to after the last (commits oldest first). */
export function netChange(commits: ShownCommit[]): { added: Flake[]; removed: Flake[] } {
  const first = new Map<string, Flake>();
  const last = new Map<string, Flake>();
  for (const c of commits) {
    for (const f of c.flakes) {
      if (f[5]?.g) continue; // txn-meta flakes describe the commit, not the data
      const key = JSON.stringify([f[0], f[1], f[2], f[3], f[5]?.lang ?? null]);
      if (!first.has(key)) first.set(key, f);
      last.set(key, f);
    }
  }
  const added: Flake[] = [], removed: Flake[] = [];
  for (const [key, f] of first) {
    const l = last.get(key)!;
    if (f[4] && l[4]) added.push(l);
    else if (!f[4] && !l[4]) removed.push(l);
  }
  return { added, removed };
}

/** Parse `A..B` (each `N` or `t:N`). */
export function parseRange(arg: string | undefined): [number, number] | null {
  const m = /^(?:t:)?(\d+)\.\.(?:t:)?(\d+)$/.exec(arg ?? '');
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** Render the comparison of `arg` (`A..B`) with a form to pick two t; returns the teardown. */
export function renderCompare(ctx: { shell: Shell; main: HTMLElement }, ledger: string, arg?: string): () => void {
  const { shell, main } = ctx;
  let alive = true;
  const range = parseRange(arg);
  const head = shell.ledgers.find((l) => l.ledger === ledger)?.t ?? 0;
  const aIn = h('input', { id: 'cmp-a', type: 'number', min: '0', value: String(range?.[0] ?? Math.max(0, head - 1)) });
  const bIn = h('input', { id: 'cmp-b', type: 'number', min: '0', value: String(range?.[1] ?? head) });
  const body = h('div', {});
  const form = h('form', {
    className: 'inline-form', 'aria-label': 'Compare two commits',
    onsubmit: (e: Event) => { e.preventDefault(); location.hash = href(ledger, 'compare', `${aIn.value}..${bIn.value}`); },
  }, h('label', { for: 'cmp-a' }, 'Compare t'), aIn, h('label', { for: 'cmp-b' }, 'with t'), bIn, h('button', { type: 'submit' }, 'Compare'));

  async function draw([a, b]: [number, number]): Promise<void> {
    const lo = Math.min(a, b), hi = Math.max(a, b);
    mount(body, h('p', { className: 'muted', role: 'status' }, `Reading commits ${lo + 1} to ${hi}…`));
    try {
      if (hi - lo > COMPARE_LIMIT) throw new Error(`at most ${COMPARE_LIMIT} commits apart (asked ${hi - lo})`);
      const ts = Array.from({ length: hi - lo }, (_, i) => lo + 1 + i);
      const [ends, ...commits] = await Promise.all([
        Promise.all([lo, hi].map((t) => json<ShownCommit>(`/show/${ledgerPath(ledger)}?commit=t:${t}`))),
        ...ts.map((t) => json<ShownCommit>(`/show/${ledgerPath(ledger)}?commit=t:${t}`)),
      ]) as [ShownCommit[], ...ShownCommit[]];
      if (!alive) return;
      const net = netChange(commits);
      // Backwards (A newer than B): what was added is what going back removes.
      const [added, removed] = a <= b ? [net.added, net.removed] : [net.removed, net.added];
      const ctxs = Object.assign({}, ...commits.map((c) => c['@context'])) as Record<string, string>;
      mount(body,
        h('dl', { className: 'commit-meta' },
          h('dt', {}, `t ${a}`), h('dd', {}, h('code', {}, ends[a <= b ? 0 : 1]!.id), ' · ', when(ends[a <= b ? 0 : 1]!.time)),
          h('dt', {}, `t ${b}`), h('dd', {}, h('code', {}, ends[a <= b ? 1 : 0]!.id), ' · ', when(ends[a <= b ? 1 : 0]!.time)),
          h('dt', {}, 'Commits between'), h('dd', {}, String(hi - lo))),
        diffTable(ledger, removed, added, ctxs, `From t ${a} to t ${b}: ${added.length} added, ${removed.length} removed`));
    } catch (e) {
      const d = describe(e);
      mount(body, h('p', { className: 'error', role: 'alert' }, h('strong', {}, d.type), ' ', d.message));
    }
  }

  mount(main, h('h1', {}, `${ledger} · compare`), h('p', {}, h('a', { href: href(ledger, 'log') }, '← All commits')), form, body);
  if (range) void draw(range);
  return () => { alive = false; };
}
