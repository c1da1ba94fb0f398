/**
 * A subject's timeline: every assert and retract of its facts across t, from one JSON-LD history
 * query (`from` @t:1 `to` @t:latest, `@t` and `@op` bound per value), grouped by commit with the
 * commit's time from `/log`.
 */
import { describe, json, ledgerPath, type CommitSummary } from './api.js';
import { h, mount, when } from './dom.js';
import { href, type Shell } from './main.js';

/** One event of the timeline. */
export interface SubjectEvent { p: string; o: unknown; t: number; op: 'assert' | 'retract' }

/** The history query of `subject` on `ledger` (JSON-LD, full IRIs). */
export function historyQuery(ledger: string, subject: string): Record<string, unknown> {
  return {
    from: `${ledger}@t:1`, to: `${ledger}@t:latest`,
    select: ['?p', '?o', '?t', '?op'],
    where: [{ '@id': subject, '?p': { '@value': '?o', '@t': '?t', '@op': '?op' } }],
    orderBy: ['?t'],
  };
}

function show(v: unknown): string {
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o['@id'] === 'string') return o['@id'];
    if ('@value' in o) return JSON.stringify(o['@value']);
    return JSON.stringify(v);
  }
  return typeof v === 'string' && !/^[a-z][\w+.-]*:/i.test(v) ? JSON.stringify(v) : String(v);
}

/** Render the timeline of `subject` (an IRI) with a field to pick another; returns the teardown. */
export function renderSubject(ctx: { shell: Shell; main: HTMLElement }, ledger: string, subject?: string): () => void {
  const { main } = ctx;
  let alive = true;
  const input = h('input', { id: 'subj-iri', value: subject ?? '', placeholder: 'http://example.org/alice', autocomplete: 'off', size: 40 });
  const body = h('div', {});
  const form = h('form', {
    className: 'inline-form', 'aria-label': 'Subject history',
    onsubmit: (e: Event) => { e.preventDefault(); if (input.value.trim()) location.hash = href(ledger, 'subject', input.value.trim()); },
  }, h('label', { for: 'subj-iri' }, 'Subject IRI'), input, h('button', { type: 'submit' }, 'Show history'));

  async function draw(s: string): Promise<void> {
    mount(body, h('p', { className: 'muted', role: 'status' }, 'Reading the history…'));
    try {
      const [rows, log] = await Promise.all([
        json<[string, unknown, number, 'assert' | 'retract'][]>(`/query/${ledgerPath(ledger)}`, historyQuery(ledger, s)),
        json<{ commits: CommitSummary[] }>(`/log/${ledgerPath(ledger)}?limit=5000`).catch(() => ({ commits: [] as CommitSummary[] })),
      ]);
      if (!alive) return;
      // On equal t /log lists the first-parent commit first; a merged-in commit shares its t.
      const times = new Map<number, string>();
      for (const c of log.commits) if (!times.has(c.t)) times.set(c.t, c.time);
      const byT = new Map<number, SubjectEvent[]>();
      for (const [p, o, t, op] of rows) (byT.get(t) ?? byT.set(t, []).get(t)!).push({ p, o, t, op });
      if (!byT.size) { mount(body, h('p', { className: 'muted' }, `No facts about ${s} in any commit.`)); return; }
      const events = [...byT.entries()].sort((a, b) => b[0] - a[0]);
      mount(body,
        h('p', { className: 'timeline-meta', role: 'status' }, `${rows.length} change${rows.length === 1 ? '' : 's'} in ${byT.size} commit${byT.size === 1 ? '' : 's'}, newest first`),
        h('ol', { className: 'timeline', 'aria-label': `History of ${s}` }, events.map(([t, evs]) => h('li', {},
          h('h3', {}, h('a', { href: href(ledger, 'log', `t:${t}`) }, `t ${t}`), ' ', h('span', { className: 'muted' }, when(times.get(t)))),
          h('ul', {}, evs.sort((a, b) => (a.op === b.op ? 0 : a.op === 'retract' ? -1 : 1)).map((e) => h('li', { className: e.op === 'assert' ? 'added' : 'removed' },
            h('span', { className: 'sign', 'aria-label': e.op === 'assert' ? 'asserted' : 'retracted' }, e.op === 'assert' ? '+ ' : '− '),
            h('code', {}, e.p), ' ', show(e.o))))))));
    } catch (e) {
      const d = describe(e);
      mount(body, h('p', { className: 'error', role: 'alert' }, h('strong', {}, d.type), ' ', d.message));
    }
  }

  mount(main, h('h1', {}, `${ledger} · subject history`), form, body);
  if (subject) void draw(subject);
  return () => { alive = false; };
}
