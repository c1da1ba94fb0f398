/**
 * The query screen: a SPARQL / JSON-LD / GraphQL / Cypher editor (Ctrl-Enter runs), examples from
 * the ledger's own classes and properties, history, time travel — a slider over t that re-runs the
 * query at `@t:N`, and a date picker for `@time:` — streaming (NDJSON) with cancel, fuel and time,
 * and a switch between the server and a local replica (peer mode), with results below.
 */
import { apiBase, describe, getToken, json, ledgerPath, type LedgerInfo } from './api.js';
import { bytes, h, mount } from './dom.js';
import { examplesFor, graphqlExamples, sdlNames, vocabulary } from './examples.js';
import { loadHistory, remember } from './history.js';
import { editorModule, lazyEditor } from './lazy-editor.js';
import type { Shell } from './main.js';
import { LANGS, runOnServer, type QueryLang } from './query-langs.js';
import { fromJsonLd, fromSparqlJson, fromTurtle, showResults, type ResultSet } from './results.js';
import type { Replica, ReplicaState } from './peer-mode.js';
import { keepForOffline } from './offline.js';

type At = { kind: 'latest' } | { kind: 't'; t: number } | { kind: 'time'; iso: string };

const DRAFT_KEY = 'ledgraph.draft';
const REPLICA_KEY = 'ledgraph.replica';
/** The replica's token (storage claims), kept for the tab apart from the API token. */
const PEER_TOKEN_KEY = 'ledgraph.peerToken';

function atSuffix(at: At): string {
  return at.kind === 't' ? `@t:${at.t}` : at.kind === 'time' ? `@time:${at.iso}` : '';
}

/** Whether `ledger` is set to run on its local replica (remembered across reloads). */
export function replicaWanted(ledger: string): boolean {
  return localStorage.getItem(`${REPLICA_KEY}:${ledger}`) === 'on';
}

/** Render the query screen for `ledger`; returns the teardown. */
export function renderQuery(ctx: { shell: Shell; main: HTMLElement }, ledger: string): () => void {
  const { shell, main } = ctx;
  let lang: QueryLang = 'sparql';
  let at: At = { kind: 'latest' };
  let headT = shell.ledgers.find((l) => l.ledger === ledger)?.t ?? 0;
  let running: AbortController | null = null;
  let alive = true;
  let vocab: string[] = [];
  let replica: Replica | null = null;
  let replicaState: ReplicaState | null = null;
  let replicaError = '';

  const draft = (() => { try { return JSON.parse(sessionStorage.getItem(`${DRAFT_KEY}:${ledger}`) ?? 'null') as { lang: QueryLang; text: string } | null; } catch { return null; } })();
  if (draft && draft.lang in LANGS) lang = draft.lang;

  const results = h('section', { className: 'results', 'aria-label': 'Results', 'aria-live': 'polite' });
  const editorHost = h('div', { className: 'editor' });
  const langSel = h('select', { id: 'q-lang', onchange: () => setLang(langSel.value as QueryLang) },
    (Object.keys(LANGS) as QueryLang[]).map((k) => h('option', { value: k, selected: lang === k }, LANGS[k].label)));
  const exampleSel = h('select', { id: 'q-example' });
  const historySel = h('select', { id: 'q-history' });
  const streamBox = h('input', { type: 'checkbox', id: 'q-stream' });
  const streamLabel = h('label', { for: 'q-stream', className: 'check', title: 'SELECT results as NDJSON, shown as they arrive' }, streamBox, ' Stream');
  const runBtn = h('button', { type: 'button', className: 'primary', onclick: () => void run() }, 'Run');
  const cancelBtn = h('button', { type: 'button', hidden: true, onclick: () => running?.abort() }, 'Cancel');

  const slider = h('input', { type: 'range', id: 'tt-slider', min: '0', max: String(headT), value: String(headT), step: '1' });
  const sliderOut = h('output', { id: 'tt-value', for: 'tt-slider' });
  const dateInput = h('input', { type: 'datetime-local', id: 'tt-date', step: '1' });
  const latestBtn = h('button', { type: 'button', onclick: () => { at = { kind: 'latest' }; syncTime(); void run(); } }, 'Latest');

  const sourceSel = h('select', { id: 'q-source', onchange: () => void setSource(sourceSel.value === 'local') },
    h('option', { value: 'server' }, 'Server'), h('option', { value: 'local' }, 'Local replica (in this browser)'));
  const replicaOut = h('p', { id: 'replica-state', className: 'muted', role: 'status' });
  // The storage proxy wants a token with storage claims even when the data API is open.
  const peerToken = h('input', { id: 'replica-token', type: 'password', autocomplete: 'off', placeholder: 'token with storage claims' });
  const peerTokenLabel = h('label', { for: 'replica-token' }, 'Storage token');
  const openBtn = h('button', { type: 'button', onclick: () => void setSource(true) }, 'Open locally');
  const askToken = (show: boolean) => { peerToken.hidden = peerTokenLabel.hidden = openBtn.hidden = !show; };

  const editor = lazyEditor(editorHost, {
    doc: draft?.text ?? 'SELECT ?s ?p ?o\nWHERE { ?s ?p ?o }\nLIMIT 1000',
    lang: LANGS[lang].editor, label: 'Query editor', onRun: () => void run(),
  });

  function setLang(l: QueryLang): void {
    lang = l;
    langSel.value = l;
    editor.setLang(LANGS[l].editor);
    streamLabel.hidden = l === 'graphql' || l === 'cypher';
  }

  function syncTime(): void {
    slider.max = String(headT);
    slider.value = String(at.kind === 't' ? at.t : headT);
    slider.setAttribute('aria-valuetext', at.kind === 't' ? `t ${at.t}` : `latest, t ${headT}`);
    sliderOut.textContent = at.kind === 't' ? `t ${at.t} of ${headT}` : at.kind === 'time' ? `at ${new Date(at.iso).toLocaleString()}` : `latest (t ${headT})`;
    if (at.kind !== 'time') dateInput.value = '';
  }

  function showReplica(): void {
    if (!replica && !replicaError) { if (openBtn.hidden) replicaOut.textContent = 'Queries run on the server.'; return; }
    if (replicaError) { replicaOut.className = 'error'; replicaOut.textContent = replicaError; return; }
    replicaOut.className = 'muted';
    const s = replicaState!;
    const serverT = shell.ledgers.find((l) => l.ledger === ledger)?.t;
    const online = navigator.onLine && shell.live;
    const lag = serverT === undefined ? '' : serverT > s.localT ? ` (${serverT - s.localT} behind)` : ' (up to date)';
    replicaOut.textContent = `Local replica · local t ${s.localT} · server t ${serverT ?? 'unknown'}${online ? lag : ''} · ${bytes(s.bytes)} fetched · ${online ? 'online' : 'offline'}`;
  }

  async function setSource(local: boolean): Promise<void> {
    sourceSel.value = local ? 'local' : 'server';
    replicaError = '';
    askToken(false);
    if (!local) {
      localStorage.removeItem(`${REPLICA_KEY}:${ledger}`);
      const r = replica;
      replica = null; replicaState = null;
      await r?.close().catch(() => {});
      showReplica();
      return;
    }
    if (peerToken.value.trim()) { sessionStorage.setItem(PEER_TOKEN_KEY, peerToken.value.trim()); peerToken.value = ''; }
    const token = sessionStorage.getItem(PEER_TOKEN_KEY) || getToken();
    if (!token) {
      // The storage proxy always wants a token with storage claims, even when the data API is open.
      sourceSel.value = 'server';
      askToken(true);
      replicaOut.className = 'muted';
      replicaOut.textContent = 'The replica reads through the storage proxy: paste a token with ledgraph.storage claims, then Open locally.';
      peerToken.focus();
      return;
    }
    localStorage.setItem(`${REPLICA_KEY}:${ledger}`, 'on');
    replicaOut.className = 'muted';
    replicaOut.textContent = 'Opening the local replica (replicating into IndexedDB)…';
    try {
      const { openReplica } = await import('./peer-mode.js');
      const r = await openReplica({
        origin: location.origin, apiBase: apiBase(), token, ledger,
        onState: (s) => {
          replicaState = s;
          if (!alive) return;
          // Offline the server's t is unknown: the slider runs over what the replica holds.
          if (s.localT > headT) { headT = s.localT; syncTime(); }
          showReplica();
        },
      });
      if (!alive) { await r.close(); return; }
      replica = r;
      replicaState = { ...r.state };
      if (r.state.localT > headT) { headT = r.state.localT; syncTime(); }
      void keepForOffline();
    } catch (e) {
      const d = describe(e as Error);
      const status = (e as { status?: number }).status;
      // The storage proxy answers 404 to every refusal (off, no or bad token, no scope).
      const hint = status === 404 || status === 401 || status === 403
        ? ' — is the server started with --storage-proxy-enabled, and does the token carry ledgraph.storage claims for this ledger?' : '';
      replicaError = `Cannot open the local replica: ${(e as { type?: string }).type ?? d.type} ${d.message}${hint}`;
      localStorage.removeItem(`${REPLICA_KEY}:${ledger}`);
      if (hint) { sessionStorage.removeItem(PEER_TOKEN_KEY); askToken(true); }
      sourceSel.value = 'server';
    }
    showReplica();
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
      list.map((e, i) => h('option', { value: String(i) }, `${LANGS[e.lang]?.label ?? e.lang} · ${e.text.replace(/\s+/g, ' ').slice(0, 70)}`)));
  }
  historySel.addEventListener('change', () => {
    const e = loadHistory()[Number(historySel.value)];
    if (!historySel.value || !e) return;
    setLang(e.lang); editor.text = e.text;
    historySel.value = '';
    editor.focus();
  });

  let sdl = '';
  async function loadSchema(): Promise<void> {
    try {
      const r = await fetch(`${apiBase()}/graphql-schema/${ledgerPath(ledger)}`, { headers: getToken() ? { Authorization: `Bearer ${getToken()}` } : {} });
      sdl = r.ok ? await r.text() : '';
    } catch { sdl = ''; }
    (await editorModule()).setSchemaWords(sdlNames(sdl));
  }

  async function loadExamples(): Promise<void> {
    const [info] = await Promise.all([json<LedgerInfo>(`/info/${ledgerPath(ledger)}`).catch(() => null), loadSchema()]);
    if (!alive) return;
    vocab = vocabulary(info);
    void editorModule().then((m) => m.setCompletionWords(vocab));
    const ex = [...examplesFor(info), ...graphqlExamples(sdl)];
    mount(exampleSel, h('option', { value: '' }, 'Examples'), ex.map((e, i) => h('option', { value: String(i) }, e.label)));
    exampleSel.onchange = () => {
      const e = ex[Number(exampleSel.value)];
      if (!exampleSel.value || !e) return;
      setLang(e.lang); editor.text = e.text;
      exampleSel.value = '';
      editor.focus();
    };
  }

  async function runLocal(text: string): Promise<ResultSet> {
    if (lang === 'graphql' || lang === 'cypher') throw new Error(`${LANGS[lang].label} runs on the server only; the local replica answers SPARQL and JSON-LD.`);
    if (at.kind === 'time') throw new Error('The local replica travels by t; use the slider, or run @time: on the server.');
    const t = at.kind === 't' ? at.t : undefined;
    if (lang === 'jsonld') return fromJsonLd(JSON.stringify(await replica!.query(JSON.parse(text) as Record<string, unknown>, t)));
    const r = await replica!.query(text, t);
    return typeof r === 'string' ? fromTurtle(r) : fromSparqlJson(JSON.stringify(r));
  }

  async function run(): Promise<void> {
    running?.abort();
    const ac = new AbortController();
    running = ac;
    const text = editor.text;
    sessionStorage.setItem(`${DRAFT_KEY}:${ledger}`, JSON.stringify({ lang, text }));
    const target = `${ledger}${atSuffix(at)}`;
    const where = replica ? `${target} (local replica)` : target;
    const streaming = !replica && streamBox.checked && (lang === 'sparql' || lang === 'jsonld');
    runBtn.disabled = true; cancelBtn.hidden = false;
    mount(results, h('p', { className: 'muted', role: 'status' }, `Running at ${where}…`));
    const started = performance.now();
    try {
      if (streaming) {
        const { streamQuery } = await import('./stream-run.js');
        const fin = await streamQuery(lang as 'sparql' | 'jsonld', target, text, ac.signal, (p) => {
          if (running !== ac) return;
          const n = p.count;
          const kept = p.set.rows.length < n ? ` (first ${p.set.rows.length} kept)` : '';
          const fuel = p.fuel === undefined ? '' : ` · fuel ${p.fuel}`;
          const time = p.time ? ` · server ${p.time}` : '';
          showResults(results, p.set, `${n} row${n === 1 ? '' : 's'}${kept} at ${where} · ${p.done ? 'streamed' : 'streaming…'} · ${p.elapsedMs} ms${fuel}${time}`);
        });
        void fin;
      } else {
        const set = replica ? await runLocal(text) : await runOnServer(lang, target, text, ac.signal, vocab);
        const ms = Math.round(performance.now() - started);
        if (running !== ac) return;
        showResults(results, set, `${set.boolean !== undefined ? 'ASK' : `${set.rows.length} row${set.rows.length === 1 ? '' : 's'}`} at ${where} · ${ms} ms`);
      }
      remember({ lang, text, ledger, at: new Date().toISOString() });
      fillHistory();
    } catch (e) {
      if (ac.signal.aborted) {
        const partial = results.querySelector('.result-meta');
        mount(results, h('p', { className: 'muted', role: 'status' }, partial ? `Cancelled: ${partial.textContent?.replace(/ · streaming….*$/, '')}.` : 'Cancelled.'));
        return;
      }
      const d = describe(e);
      const type = (e as { type?: string }).type ?? d.type;
      mount(results, h('div', { className: 'error', role: 'alert' }, h('strong', {}, type), ' ', d.message));
    } finally {
      if (running === ac) { running = null; runBtn.disabled = false; cancelBtn.hidden = true; }
    }
  }

  const off = shell.onChange((id) => {
    if (id !== ledger) return;
    const t = shell.ledgers.find((l) => l.ledger === ledger)?.t;
    if (t !== undefined && t !== headT) { headT = t; syncTime(); void loadExamples(); }
    showReplica();
  });

  mount(main,
    h('h1', { className: 'visually-hidden' }, `Query ${ledger}`),
    h('div', { className: 'toolbar' },
      h('label', { for: 'q-lang' }, 'Language'), langSel,
      h('label', { for: 'q-example', className: 'visually-hidden' }, 'Examples'), exampleSel,
      h('label', { for: 'q-history', className: 'visually-hidden' }, 'History'), historySel,
      streamLabel, runBtn, cancelBtn, h('span', { className: 'muted hint' }, 'Ctrl-Enter runs')),
    editorHost,
    h('fieldset', { className: 'time-travel' },
      h('legend', {}, 'Time travel'),
      h('label', { for: 'tt-slider' }, 'Transaction t'), slider, sliderOut,
      h('label', { for: 'tt-date' }, 'or at time'), dateInput, latestBtn),
    h('fieldset', { className: 'time-travel replica' },
      h('legend', {}, 'Run on'),
      h('label', { for: 'q-source', className: 'visually-hidden' }, 'Run queries on'), sourceSel, peerTokenLabel, peerToken, openBtn, replicaOut),
    results,
  );
  setLang(lang);
  syncTime();
  fillHistory();
  showReplica();
  void loadExamples();
  // The events stream going up or down changes "online" without a ledger event.
  const tick = setInterval(() => { if (replica) showReplica(); }, 1000);
  if (replicaWanted(ledger)) void setSource(true);
  else askToken(false);
  return () => { alive = false; off(); clearInterval(tick); running?.abort(); editor.destroy(); void replica?.close().catch(() => {}); };
}
