/**
 * Branches of a ledger (docs/branches.md, spec/branches.md): the list with head t and source,
 * create a branch at a commit, drop one, merge with a strategy after a preview (ahead / behind,
 * fast-forward, the conflict keys of `/merge-preview`), rebase onto the source, and revert commits
 * after `/revert-preview`. Every answer or error is shown as the server gave it.
 */
import { describe, json, ledgerPath } from './api.js';
import { h, mount } from './dom.js';
import { href, type Shell } from './main.js';

interface BranchEntry { branch: string; ledger_id: string; t: number; source?: string }
interface Summary { t: number; commit_id: string; message: string | null }
interface Conflicts { count: number; keys: { s: string; p: string; g: string | null }[]; truncated: boolean; strategy?: string }
interface MergePreview {
  source: string; target: string; ancestor: { commit_id: string; t: number };
  ahead: { count: number; commits: Summary[] }; behind: { count: number; commits: Summary[] };
  fast_forward: boolean; conflicts: Conflicts; mergeable: boolean;
}
interface RevertPreview { branch: string; reverted_count: number; reverted_commits: Summary[]; conflicts: Conflicts; revertable: boolean }

const STRATEGIES = ['take-both', 'take-source', 'take-branch', 'abort'];
const REBASE_STRATEGIES = [...STRATEGIES, 'skip'];
const REVERT_STRATEGIES = ['abort', 'take-source', 'take-branch'];

/** The bare ledger name of an id `name:branch`. */
export function ledgerName(id: string): string {
  const i = id.lastIndexOf(':');
  return i < 0 ? id : id.slice(0, i);
}

const select = (id: string, options: string[], value?: string) =>
  h('select', { id }, options.map((o) => h('option', { value: o, selected: o === value }, o)));

function conflictTable(c: Conflicts): HTMLElement {
  if (!c.count) return h('p', { className: 'muted' }, 'No conflicting keys.');
  return h('table', { className: 'data conflicts' },
    h('caption', {}, `${c.count} conflicting key${c.count === 1 ? '' : 's'}${c.truncated ? ' (first shown)' : ''}`),
    h('thead', {}, h('tr', {}, ['Subject', 'Predicate', 'Graph'].map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, c.keys.map((k) => h('tr', {}, h('td', {}, k.s), h('td', {}, k.p), h('td', {}, k.g ?? 'default')))));
}

function errorBox(e: unknown): HTMLElement {
  const d = describe(e);
  return h('div', { className: 'error', role: 'alert' }, h('strong', {}, d.type), ' ', d.message);
}

/** Render the branches screen of `ledger` (any of its branches); returns the teardown. */
export function renderBranches(ctx: { shell: Shell; main: HTMLElement }, ledger: string): () => void {
  const { shell, main } = ctx;
  const name = ledgerName(ledger);
  let alive = true;
  let branches: BranchEntry[] = [];
  const list = h('div', {});
  const out = h('div', { className: 'receipt', role: 'status', 'aria-live': 'polite' });

  const newName = h('input', { id: 'br-name', required: true, autocomplete: 'off', placeholder: 'e.g. dev' });
  const fromSel = h('select', { id: 'br-source' });
  const atInput = h('input', { id: 'br-at', autocomplete: 'off', placeholder: 'head, or t:N / commit' });
  const mSource = h('select', { id: 'mg-source' });
  const mTarget = h('select', { id: 'mg-target' });
  const mStrategy = select('mg-strategy', STRATEGIES, 'take-both');
  const rbBranch = h('select', { id: 'rb-branch' });
  const rbStrategy = select('rb-strategy', REBASE_STRATEGIES, 'take-both');
  const rvBranch = h('select', { id: 'rv-branch' });
  const rvCommit = h('input', { id: 'rv-commit', autocomplete: 'off', placeholder: 't:N, or t:2,t:3' });
  const rvStrategy = select('rv-strategy', REVERT_STRATEGIES, 'abort');

  async function draw(): Promise<void> {
    try {
      branches = await json<BranchEntry[]>(`/branch/${ledgerPath(name)}`);
    } catch (e) {
      mount(list, errorBox(e));
      return;
    }
    if (!alive) return;
    const names = branches.map((b) => b.branch);
    // A root branch (no source) can be neither a merge source nor rebased (spec/branches.md §6, §7).
    const forked = branches.filter((b) => b.source).map((b) => b.branch);
    const keep = (sel: HTMLSelectElement, list: string[], fallback?: string) => {
      const v = list.includes(sel.value) ? sel.value : fallback;
      mount(sel, list.length ? list.map((n) => h('option', { value: n, selected: n === v }, n)) : h('option', { value: '' }, '(no forked branch)'));
    };
    keep(fromSel, names, 'main');
    keep(mSource, forked, forked[0]);
    mount(mTarget, h('option', { value: '' }, '(its source)'), names.map((n) => h('option', { value: n, selected: n === mTarget.value }, n)));
    keep(rbBranch, forked, forked[0]);
    keep(rvBranch, names, 'main');
    mount(list, h('table', { className: 'data branches' },
      h('caption', {}, `${branches.length} branch${branches.length === 1 ? '' : 'es'} of ${name}`),
      h('thead', {}, h('tr', {}, ['Branch', 't', 'Source', ''].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, branches.map((b) => h('tr', {},
        h('th', { scope: 'row' }, h('a', { href: href(b.ledger_id) }, b.ledger_id)),
        h('td', { className: 'num' }, String(b.t)),
        h('td', {}, b.source ?? h('span', { className: 'muted' }, 'root')),
        h('td', { className: 'actions' }, h('a', { href: href(b.ledger_id, 'log') }, 'Log'), ' ',
          b.source ? h('button', { type: 'button', className: 'quiet', 'aria-label': `Drop branch ${b.branch}`, onclick: () => void dropBranch(b.branch) }, 'Drop') : null))))));
  }

  async function act(what: string, fn: () => Promise<HTMLElement | HTMLElement[]>): Promise<void> {
    mount(out, h('p', { className: 'muted' }, `${what}…`));
    try {
      mount(out, await fn());
      await shell.refreshLedgers();
      await draw();
    } catch (e) {
      mount(out, errorBox(e));
    }
  }

  const dl = (pairs: [string, string | number | boolean][]) => h('dl', { className: 'commit-meta' }, pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))]));

  function dropBranch(branch: string): Promise<void> {
    return act(`Dropping ${branch}`, async () => {
      const r = await json<{ status: string }>('/drop-branch', { ledger: name, branch });
      return h('p', {}, `Drop ${name}:${branch}: ${r.status}.`);
    });
  }

  const createForm = h('form', {
    className: 'inline-form', 'aria-label': 'Create a branch',
    onsubmit: (e: Event) => {
      e.preventDefault();
      void act('Creating the branch', async () => {
        const body: Record<string, string> = { ledger: name, branch: newName.value.trim(), source: fromSel.value };
        if (atInput.value.trim()) body.at = atInput.value.trim();
        const r = await json<{ ledger_id: string; t: number; source: string }>('/branch', body);
        newName.value = ''; atInput.value = '';
        return h('p', {}, `Created ${r.ledger_id} from ${r.source} at t ${r.t}.`);
      });
    },
  }, h('label', { for: 'br-name' }, 'New branch'), newName, h('label', { for: 'br-source' }, 'from'), fromSel,
  h('label', { for: 'br-at' }, 'at'), atInput, h('button', { type: 'submit' }, 'Create branch'));

  const mergeQuery = () => {
    const q = new URLSearchParams({ source: mSource.value, strategy: mStrategy.value });
    if (mTarget.value) q.set('target', mTarget.value);
    return q;
  };
  const previewMerge = () => act('Previewing the merge', async () => {
    const p = await json<MergePreview>(`/merge-preview/${ledgerPath(name)}?${mergeQuery()}`);
    return [
      h('h2', {}, `Merge ${p.source} into ${p.target}: preview`),
      dl([['Common ancestor', `t ${p.ancestor.t}`], ['Ahead (only on source)', p.ahead.count], ['Behind (only on target)', p.behind.count],
        ['Fast-forward', p.fast_forward ? 'yes' : 'no'], ['Strategy', p.conflicts.strategy ?? mStrategy.value], ['Mergeable', p.mergeable ? 'yes' : 'no']]),
      conflictTable(p.conflicts),
    ];
  });
  const doMerge = () => act('Merging', async () => {
    const body: Record<string, string> = { ledger: name, source: mSource.value, strategy: mStrategy.value };
    if (mTarget.value) body.target = mTarget.value;
    const r = await json<{ ledger_id: string; target: string; source: string; fast_forward: boolean; new_head_t: number; commits_copied: number; conflict_count: number; strategy?: string }>('/merge', body);
    return [h('h2', {}, `Merged ${r.source} into ${r.target}`),
      dl([['Fast-forward', r.fast_forward ? 'yes' : 'no'], ['New head t', r.new_head_t], ['Commits copied', r.commits_copied], ['Conflicts', r.conflict_count], ['Strategy', r.strategy ?? '–']]),
      h('a', { href: href(r.ledger_id, 'log') }, `Open the log of ${r.ledger_id}`)];
  });

  const doRebase = () => act('Rebasing', async () => {
    const r = await json<{ ledger_id: string; fast_forward: boolean; replayed: number; skipped: number; conflicts: number; total_commits: number; source_head_t: number }>(
      '/rebase', { ledger: name, branch: rbBranch.value, strategy: rbStrategy.value });
    return [h('h2', {}, `Rebased ${r.ledger_id}`), dl([['Fast-forward', r.fast_forward ? 'yes' : 'no'], ['Replayed', r.replayed], ['Skipped', r.skipped],
      ['Commits with conflicts', r.conflicts], ['Own commits', r.total_commits], ['Source head t', r.source_head_t], ['New head t', r.source_head_t + r.replayed]])];
  });

  const revertSelection = (): Record<string, string | string[]> => {
    const refs = rvCommit.value.split(',').map((s) => s.trim()).filter(Boolean);
    return refs.length === 1 ? { commit: refs[0]! } : { commits: refs };
  };
  const previewRevert = () => act('Previewing the revert', async () => {
    const sel = revertSelection();
    const q = new URLSearchParams({ branch: rvBranch.value, strategy: rvStrategy.value });
    if (typeof sel.commit === 'string') q.set('commit', sel.commit); else q.set('commits', (sel.commits as string[]).join(','));
    const p = await json<RevertPreview>(`/revert-preview/${ledgerPath(name)}?${q}`);
    return [h('h2', {}, `Revert on ${p.branch}: preview`),
      dl([['Commits to undo', p.reverted_count], ['At t', p.reverted_commits.map((c) => c.t).join(', ')], ['Revertable', p.revertable ? 'yes' : 'no']]),
      conflictTable(p.conflicts)];
  });
  const doRevert = () => act('Reverting', async () => {
    const r = await json<{ ledger_id: string; reverted_commits: string[]; conflict_count: number; strategy: string; new_head_t: number }>(
      '/revert', { ledger: name, branch: rvBranch.value, strategy: rvStrategy.value, ...revertSelection() });
    return [h('h2', {}, `Reverted on ${r.ledger_id}`), dl([['Commits undone', r.reverted_commits.length], ['Conflicts', r.conflict_count], ['Strategy', r.strategy], ['New head t', r.new_head_t]])];
  });

  const btn = (label: string, fn: () => unknown, primary = false) => h('button', { type: 'button', className: primary ? 'primary' : undefined, onclick: () => void fn() }, label);
  const off = shell.onChange((id) => { if (alive && ledgerName(id) === name) void draw(); });
  mount(main,
    h('h1', {}, `${name} · branches`),
    list,
    h('h2', {}, 'Create a branch'), createForm,
    h('h2', {}, 'Merge'),
    h('div', { className: 'inline-form', role: 'group', 'aria-label': 'Merge' },
      h('label', { for: 'mg-source' }, 'Merge'), mSource, h('label', { for: 'mg-target' }, 'into'), mTarget,
      h('label', { for: 'mg-strategy' }, 'strategy'), mStrategy, btn('Preview merge', previewMerge), btn('Merge', doMerge, true)),
    h('h2', {}, 'Rebase'),
    h('div', { className: 'inline-form', role: 'group', 'aria-label': 'Rebase' },
      h('label', { for: 'rb-branch' }, 'Rebase'), rbBranch, h('span', {}, 'onto its source'),
      h('label', { for: 'rb-strategy' }, 'strategy'), rbStrategy, btn('Rebase', doRebase)),
    h('h2', {}, 'Revert'),
    h('div', { className: 'inline-form', role: 'group', 'aria-label': 'Revert' },
      h('label', { for: 'rv-commit' }, 'Undo'), rvCommit, h('label', { for: 'rv-branch' }, 'on'), rvBranch,
      h('label', { for: 'rv-strategy' }, 'strategy'), rvStrategy, btn('Preview revert', previewRevert), btn('Revert', doRevert)),
    out,
  );
  void draw();
  return () => { alive = false; off(); };
}
