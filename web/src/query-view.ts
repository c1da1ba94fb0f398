/**
 * The query screen: a SPARQL / JSON-LD editor (Ctrl-Enter runs), examples from the ledger's own
 * classes and properties, history, and time travel — a slider over t that re-runs the query at
 * `@t:N`, and a date picker for `@time:` — with results below.
 */
import { call, describe, json, ledgerPath, type LedgerInfo } from './api.js';
import { h, mount } from './dom.js';
import { createEditor, setCompletionWords } from './editor.js';
import { examplesFor, vocabulary } from './examples.js';
import { loadHistory, remember } from './history.js';
import type { Shell } from './main.js';
import { fromJsonLd, fromSparqlJson, fromTurtle, showResults } from './results.js';

type Lang = 'sparql' | 'jsonld';
type At = { kind: 'latest' } | { kind: 't'; t: number } | { kind: 'time'; iso: string };

const DRAFT_KEY = 'ledgraph.draft';

function atSuffix(at: At): string {
  return at.kind === 't' ? `@t:${at.t}` : at.kind === 'time' ? `@time:${at.iso}` : '';
}

/** Render the query screen for `ledger`; returns the teardown. */
export function renderQuery(ctx: { shell: Shell; main: HTMLElement }, ledger: string): () => void {
  const { shell, main } = ctx;
  let lang: Lang = 'sparql';
  let at: At = { kind: 'latest' };
  let headT = shell.ledgers.find((l) => l.ledger === ledger)?.t ?? 0;
  let running: AbortController | null = null;
  let alive = true;

  const draft = (() => { try { return JSON.parse(sessionStorage.getItem(`${DRAFT_KEY}:${ledger}`) ?? 'null') as { lang: Lang; text: string } | null; } catch { return null; } })();
  if (draft) lang = draft.lang;

  const results = h('section', { className: 'results', 'aria-label': 'Results', 'aria-live': 'polite' });
  const editorHost = h('div', { className: 'editor' });
  const langSel = h('select', { id: 'q-lang', onchange: () => { lang = langSel.value as Lang; editor.setLang(lang === 'sparql' ? 'sparql' : 'json'); } },
    h('option', { value: 'sparql', selected: lang === 'sparql' }, 'SPARQL'), h('option', { value: 'jsonld', selected: lang === 'jsonld' }, 'JSON-LD'));
  const exampleSel = h('select', { id: 'q-example' });
  const historySel = h('select', { id: 'q-history' });
  const runBtn = h('button', { type: 'button', className: 'primary', onclick: () => void run() }, 'Run');
  const cancelBtn = h('button', { type: 'button', hidden: true, onclick: () => running?.abort() }, 'Cancel');

  const slider = h('input', { type: 'range', id: 'tt-slider', min: '0', max: String(headT), value: String(headT), step: '1' });
  const sliderOut = h('output', { id: 'tt-value', for: 'tt-slider' });
  const dateInput = h('input', { type: 'datetime-local', id: 'tt-date', step: '1' });
  const latestBtn = h('button', { type: 'button', onclick: () => { at = { kind: 'latest' }; syncTime(); void run(); } }, 'Latest');

  const editor = createEditor(editorHost, {
    doc: draft?.text ?? 'SELECT ?s ?p ?o\nWHERE { ?s ?p ?o }\nLIMIT 1000',
    lang: lang === 'sparql' ? 'sparql' : 'json', label: 'Query editor', onRun: () => void run(),
  });

  function syncTime(): void {
    slider.max = String(headT);
    slider.value = String(at.kind === 't' ? at.t : headT);
    slider.setAttribute('aria-valuetext', at.kind === 't' ? `t ${at.t}` : `latest, t ${headT}`);
    sliderOut.textContent = at.kind === 't' ? `t ${at.t} of ${headT}` : at.kind === 'time' ? `at ${new Date(at.iso).toLocaleString()}` : `latest (t ${headT})`;
    if (at.kind !== 'time') dateInput.value = '';
  }

  slider.addEventListener('input', () => { const t = Number(slider.value); at = t >= headT ? { kind: 'latest' } : { kind: 't', t }; syncTime(); });
  slider.addEventListener('change', () => void run());
  dateInput.addEventListener('change', () => {
    if (!dateInput.value) return;
    at = { kind: 'time', iso: new Date(dateInput.value).toISOString() };
    syncTime();
    void run();
  });

  function fillHistory(): void {
    const list = loadHistory();
    mount(historySel, h('option', { value: '' }, list.length ? `History (${list.length})` : 'History (empty)'),
      list.map((e, i) => h('option', { value: String(i) }, `${e.lang === 'sparql' ? 'SPARQL' : 'JSON-LD'} · ${e.text.replace(/\s+/g, ' ').slice(0, 70)}`)));
  }
  historySel.addEventListener('change', () => {
    const e = loadHistory()[Number(historySel.value)];
    if (!historySel.value || !e) return;
    lang = e.lang; langSel.value = lang; editor.setLang(lang === 'sparql' ? 'sparql' : 'json'); editor.text = e.text;
    historySel.value = '';
    editor.focus();
  });

  async function loadExamples(): Promise<void> {
    const info = await json<LedgerInfo>(`/info/${ledgerPath(ledger)}`).catch(() => null);
    if (!alive) return;
    setCompletionWords(vocabulary(info));
    const ex = examplesFor(info);
    mount(exampleSel, h('option', { value: '' }, 'Examples'), ex.map((e, i) => h('option', { value: String(i) }, e.label)));
    exampleSel.onchange = () => {
      const e = ex[Number(exampleSel.value)];
      if (!exampleSel.value || !e) return;
      lang = e.lang; langSel.value = lang; editor.setLang(lang === 'sparql' ? 'sparql' : 'json'); editor.text = e.text;
      exampleSel.value = '';
      editor.focus();
    };
  }

  async function run(): Promise<void> {
    running?.abort();
    const ac = new AbortController();
    running = ac;
    const text = editor.text;
    sessionStorage.setItem(`${DRAFT_KEY}:${ledger}`, JSON.stringify({ lang, text }));
    const target = `${ledger}${atSuffix(at)}`;
    runBtn.disabled = true; cancelBtn.hidden = false;
    mount(results, h('p', { className: 'muted', role: 'status' }, `Running at ${target}…`));
    const started = performance.now();
    try {
      const r = await call(`/query/${ledgerPath(target)}`, {
        method: 'POST', body: text, signal: ac.signal,
        headers: lang === 'sparql'
          ? { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json, text/turtle;q=0.9' }
          : { 'Content-Type': 'application/json', Accept: 'application/json' },
      });
      const body = await r.text();
      const type = r.headers.get('Content-Type') ?? '';
      const set = type.includes('turtle') ? await fromTurtle(body) : lang === 'sparql' ? fromSparqlJson(body) : fromJsonLd(body);
      const ms = Math.round(performance.now() - started);
      remember({ lang, text, ledger, at: new Date().toISOString() });
      fillHistory();
      if (running !== ac) return;
      showResults(results, set, `${set.boolean !== undefined ? 'ASK' : `${set.rows.length} row${set.rows.length === 1 ? '' : 's'}`} at ${target} · ${ms} ms`);
    } catch (e) {
      if (ac.signal.aborted) { mount(results, h('p', { className: 'muted' }, 'Cancelled.')); return; }
      const d = describe(e);
      mount(results, h('div', { className: 'error', role: 'alert' }, h('strong', {}, d.type), ' ', d.message));
    } finally {
      if (running === ac) { running = null; runBtn.disabled = false; cancelBtn.hidden = true; }
    }
  }

  const off = shell.onChange((id) => {
    if (id !== ledger) return;
    const t = shell.ledgers.find((l) => l.ledger === ledger)?.t;
    if (t !== undefined && t !== headT) { headT = t; syncTime(); void loadExamples(); }
  });

  mount(main,
    h('h1', { className: 'visually-hidden' }, `Query ${ledger}`),
    h('div', { className: 'toolbar' },
      h('label', { for: 'q-lang' }, 'Language'), langSel,
      h('label', { for: 'q-example', className: 'visually-hidden' }, 'Examples'), exampleSel,
      h('label', { for: 'q-history', className: 'visually-hidden' }, 'History'), historySel,
      runBtn, cancelBtn, h('span', { className: 'muted hint' }, 'Ctrl-Enter runs')),
    editorHost,
    h('fieldset', { className: 'time-travel' },
      h('legend', {}, 'Time travel'),
      h('label', { for: 'tt-slider' }, 'Transaction t'), slider, sliderOut,
      h('label', { for: 'tt-date' }, 'or at time'), dateInput, latestBtn),
    results,
  );
  syncTime();
  fillHistory();
  void loadExamples();
  return () => { alive = false; off(); running?.abort(); editor.view.destroy(); };
}
